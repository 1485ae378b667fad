"""Benchmark: writing a feedback page with FeedbackExporter against nbgrader's stock exporter.

Both render the same notebook (the 02_softmax release notebook with every solution filled by the
model answer, and outputs a student produces: text, an error, a PNG figure, an HTML table, markdown
with maths) through nbgrader's ``feedback`` template, in this one script:

- baseline: nbconvert's ``HTMLExporter`` as plain nbgrader configures it (no sanitizing, MathJax
  from a CDN);
- candidate: ``grader.pages.exporter.FeedbackExporter`` (nh3 sanitizing, maths to MathML, CSP).

It prints milliseconds per page and the ratio candidate / baseline (the cost of safety).

    python benchmarks/feedback_pages.py [--pages 20]
"""
from __future__ import annotations

import argparse
import base64
import copy
import io
import time
from pathlib import Path

import matplotlib
import nbformat
from nbconvert.exporters import HTMLExporter
from nbgrader.server_extensions.formgrader import handlers as formgrader_handlers
from traitlets.config import Config

from grader.notebook_cells import grade_id, is_solution_cell, model_answers
from grader.pages.exporter import FeedbackExporter
from grader_tests.checkout import REPO_ROOT

matplotlib.use("Agg")


def sample_notebook() -> nbformat.NotebookNode:
    import matplotlib.pyplot as plt

    release = nbformat.read(REPO_ROOT / "release" / "02_softmax" / "softmax.ipynb", as_version=4)
    answers = model_answers(nbformat.read(REPO_ROOT / "source" / "02_softmax" / "softmax.ipynb", as_version=4))
    nb = copy.deepcopy(release)
    for cell in nb.cells:
        if is_solution_cell(cell):
            cell.source = answers[grade_id(cell)]
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            meta["score"] = meta["points"]  # what nbgrader's GetGrades adds before the template runs
    figure, axes = plt.subplots(figsize=(4, 3))
    axes.plot(range(10))
    png = io.BytesIO()
    figure.savefig(png, format="png")
    code = nbformat.v4.new_code_cell("show()")
    code.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="printed text\n" * 20),
        nbformat.v4.new_output("display_data", data={"image/png": base64.b64encode(png.getvalue()).decode(),
                                                      "text/plain": "<Figure>"}),
        nbformat.v4.new_output("display_data", data={"text/html": "<table><tr><th>d_k</th></tr><tr><td>64</td></tr>"
                                                                   "</table>" * 20}),
        nbformat.v4.new_output("error", ename="ZeroDivisionError", evalue="division by zero", traceback=["x"] * 10),
    ]
    nb.cells += [nbformat.v4.new_markdown_cell(r"Scaled by $\frac{1}{\sqrt{d_k}}$: $$\sum_i p_i = 1$$" * 5), code]
    return nb


def exporter_config() -> Config:
    """What nbgrader's GenerateFeedback sets for its exporter."""
    config = Config()
    config.HTMLExporter.template_name = "feedback"
    config.HTMLExporter.extra_template_basedirs = [formgrader_handlers.template_path]
    static = Path(formgrader_handlers.static_path) / "node_modules" / "bootstrap" / "dist" / "css"
    config.HTMLExporter.extra_template_paths = [str(static)]
    return config


def seconds_per_page(exporter, nb, pages: int) -> float:
    resources = {"nbgrader": {"notebook": "softmax", "score": 21, "max_score": 21, "late_penalty": 0}}
    exporter.from_notebook_node(nb, resources=copy.deepcopy(resources))  # warm-up: templates, imports
    started = time.perf_counter()
    for _ in range(pages):
        exporter.from_notebook_node(nb, resources=copy.deepcopy(resources))
    return (time.perf_counter() - started) / pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=20, help="pages rendered by each exporter")
    args = parser.parse_args()
    nb = sample_notebook()
    baseline = seconds_per_page(HTMLExporter(config=exporter_config()), nb, args.pages)
    candidate = seconds_per_page(FeedbackExporter(config=exporter_config()), nb, args.pages)
    print(f"baseline  (nbgrader's stock HTMLExporter): {baseline * 1000:8.1f} ms per page")
    print(f"candidate (FeedbackExporter)             : {candidate * 1000:8.1f} ms per page")
    print(f"ratio candidate / baseline: {candidate / baseline:.2f}x")


if __name__ == "__main__":
    main()

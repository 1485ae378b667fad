"""Benchmark: what drawing the notebooks' figures costs while grading.

Grading kernels draw with matplotlib's inline backend, so every figure a notebook shows becomes a
PNG output (``grader.sandbox.run``). Each assignment's notebook (release notebook, solution cells
filled with the model answer, test cells left out) runs in a sandboxed kernel forked from the
zygote, alternately:

- baseline: ``MPLBACKEND=Agg`` (the former environment: ``plt.show()`` draws nothing);
- candidate: the inline backend, as shipped.

It prints the median seconds per notebook of each and the ratio candidate / baseline.

    python benchmarks/figure_cost.py [--runs 5]
"""
from __future__ import annotations

import argparse
import copy
import statistics
import tempfile
import time

import nbformat

from grader.course import ASSIGNMENTS, REPO_ROOT
from grader.notebook_cells import grade_id, is_solution_cell, model_answers
from grader.sandbox import SandboxedExecute

BACKENDS = {"baseline (Agg, no figures)": "Agg",
            "candidate (inline, figures as PNG)": "module://matplotlib_inline.backend_inline"}


def model_notebook(assignment: str) -> nbformat.NotebookNode:
    name = ASSIGNMENTS[assignment]
    release = nbformat.read(REPO_ROOT / "release" / assignment / f"{name}.ipynb", as_version=4)
    answers = model_answers(nbformat.read(REPO_ROOT / "source" / assignment / f"{name}.ipynb", as_version=4))
    notebook = copy.deepcopy(release)
    notebook.cells = [cell for cell in notebook.cells if not cell.metadata.get("nbgrader", {}).get("grade")]
    for cell in notebook.cells:
        if is_solution_cell(cell):
            cell.source = answers[grade_id(cell)]
    return notebook


def run_once(notebook: nbformat.NotebookNode, backend: str, workdir: str) -> tuple[float, int]:
    """(seconds, PNG outputs) of one sandboxed run."""
    executor = SandboxedExecute()
    executor.config.SandboxedExecute.sandbox_env = {"MPLBACKEND": backend}
    copy_ = copy.deepcopy(notebook)
    started = time.perf_counter()
    executor.preprocess(copy_, {"metadata": {"path": workdir}})
    seconds = time.perf_counter() - started
    pngs = sum("image/png" in o.get("data", {}) for c in copy_.cells for o in c.get("outputs", []))
    return seconds, pngs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per notebook and backend")
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="figure-cost-")
    totals = {label: 0.0 for label in BACKENDS}
    print(f"{'assignment':<14}" + "".join(f"{label:>38}" for label in BACKENDS) + f"{'ratio':>8}")
    for assignment in ASSIGNMENTS:
        notebook = model_notebook(assignment)
        times = {label: [] for label in BACKENDS}
        pngs = {}
        run_once(notebook, "Agg", workdir)  # warm the zygote and the page cache
        for _ in range(args.runs):
            for label, backend in BACKENDS.items():  # alternate, so load changes hit both alike
                seconds, pngs[label] = run_once(notebook, backend, workdir)
                times[label].append(seconds)
        medians = {label: statistics.median(values) for label, values in times.items()}
        for label in BACKENDS:
            totals[label] += medians[label]
        base, cand = medians.values()
        print(f"{assignment:<14}" + "".join(f"{medians[l]:>27.3f} s, {pngs[l]} PNG" for l in BACKENDS)
              + f"{cand / base:>7.2f}x")
    base, cand = totals.values()
    print(f"{'all four':<14}" + "".join(f"{totals[l]:>31.3f} s   " for l in BACKENDS) + f"{cand / base:>7.2f}x")


if __name__ == "__main__":
    main()

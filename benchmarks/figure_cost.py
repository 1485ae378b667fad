"""Benchmark: what drawing the notebooks' figures costs while grading, per way of drawing them.

Grading kernels draw with matplotlib's inline backend, so every figure a notebook shows becomes a
PNG output (``grader.sandbox.run``). Each assignment's notebook (release notebook, solution cells
filled with the model answer, test cells left out) runs in a sandboxed kernel forked from the
zygote, in turn with:

- baseline: ``MPLBACKEND=Agg`` (the former environment: ``plt.show()`` draws nothing);
- the inline backend with matplotlib-inline's defaults (``bbox_inches="tight"``: every figure is
  drawn twice, once to find its extent; the figure's dpi, 100);
- the inline backend with other ``print_figure`` arguments
  (``c.SandboxedKernelManager.figure_kwargs``), among them the shipped setting, bbox None.

It prints, per assignment and for all four together, the median seconds per notebook of each, the
PNG outputs it made, and its ratio to the baseline.

    python benchmarks/figure_cost.py [--runs 5]
"""
from __future__ import annotations

import argparse
import copy
import statistics
import tempfile
import time

import nbformat

from grader.notebook_cells import grade_id, is_solution_cell, model_answers
from grader.sandbox import SandboxedExecute
from grader.sandbox.kernel_manager import SandboxedKernelManager
from grader_tests.checkout import ASSIGNMENTS, REPO_ROOT

INLINE = "module://matplotlib_inline.backend_inline"
BASELINE = "baseline (Agg, no figures)"
VARIANTS = {  # label -> (MPLBACKEND, print_figure keyword arguments)
    BASELINE: ("Agg", {}),
    "inline, bbox tight, dpi 100 (defaults)": (INLINE, {}),
    "inline, bbox tight, dpi 72": (INLINE, {"bbox_inches": "tight", "dpi": 72}),
    "inline, bbox None, dpi 100": (INLINE, {"bbox_inches": None}),
    "inline, bbox None, dpi 72": (INLINE, {"bbox_inches": None, "dpi": 72}),
    "inline, bbox None, dpi 72, zlib 1": (INLINE, {"bbox_inches": None, "dpi": 72,
                                                   "pil_kwargs": {"compress_level": 1}}),
}


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


def run_once(notebook: nbformat.NotebookNode, variant: str, workdir: str) -> tuple[float, int]:
    """(seconds, PNG outputs) of one sandboxed run."""
    backend, figure_kwargs = VARIANTS[variant]
    executor = SandboxedExecute()
    executor.config.SandboxedExecute.sandbox_env = {"MPLBACKEND": backend}
    executor.config.SandboxedKernelManager.figure_kwargs = figure_kwargs
    copy_ = copy.deepcopy(notebook)
    started = time.perf_counter()
    executor.preprocess(copy_, {"metadata": {"path": workdir}})
    seconds = time.perf_counter() - started
    pngs = sum("image/png" in o.get("data", {}) for c in copy_.cells for o in c.get("outputs", []))
    return seconds, pngs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per notebook and variant")
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="figure-cost-")
    print(f"as shipped (c.SandboxedKernelManager.figure_kwargs): {SandboxedKernelManager().figure_kwargs}")
    totals = {label: 0.0 for label in VARIANTS}
    for assignment in ASSIGNMENTS:
        notebook = model_notebook(assignment)
        times = {label: [] for label in VARIANTS}
        pngs = {}
        run_once(notebook, BASELINE, workdir)  # warm the zygote and the page cache
        for _ in range(args.runs):
            for label in VARIANTS:  # in turn, so load changes hit all alike
                seconds, pngs[label] = run_once(notebook, label, workdir)
                times[label].append(seconds)
        medians = {label: statistics.median(values) for label, values in times.items()}
        for label in VARIANTS:
            totals[label] += medians[label]
            print(f"{assignment:<14} {label:<40} {medians[label]:7.3f} s  {pngs[label]} PNG  "
                  f"{medians[label] / medians[BASELINE]:5.2f}x baseline", flush=True)
    for label in VARIANTS:
        print(f"{'all four':<14} {label:<40} {totals[label]:7.3f} s         "
              f"{totals[label] / totals[BASELINE]:5.2f}x baseline")


if __name__ == "__main__":
    main()

"""Student versions: ``release/`` is generated from ``source/`` by nbgrader, never edited by hand."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import nbformat
from rich.console import Console

from grader.course import Course, copy_course
from grader.course_folders import RELEASE
from grader.grading import nbgrader_apps
from grader.grading.student_numbers import draws_course_numbers, refresh_numbers_cell
from grader.language.kernel_messages import write_kernel_translations


def generate_release(course: Course, assignment: str) -> Path:
    """Run ``nbgrader generate_assignment`` in ``course``; the (first) release notebook's path.

    ValueError naming the course's assignments for an unknown id; RuntimeError with nbgrader's log
    when generation fails.
    """
    course.notebooks(assignment)  # ValueError for an assignment the course does not have
    result = nbgrader_apps.generate_assignment(course, assignment)
    if not result["success"]:
        raise RuntimeError(f"nbgrader generate_assignment {assignment} failed:\n{result.get('log', '')}")
    return course.release_notebook(assignment)


def with_kernel_metadata(notebook: Path, kernel: dict) -> Path:
    """Write ``kernel`` (``{"kernelspec": ..., "language_info": ...}``) into the notebook's metadata;
    its path. A notebook whose metadata already equals what JupyterLab reads from the running kernel
    is not marked unsaved when it opens."""
    content = nbformat.read(notebook, as_version=4)
    content.metadata.update(kernel)
    nbformat.write(content, notebook)
    return notebook


def regenerate_release(course: Course, assignments: list[str], console: Console) -> bool:
    """Regenerate ``course``'s ``release/<id>/`` for each assignment from a scratch copy of it.

    Generating in a scratch folder keeps the course folder free of a gradebook; only the student
    notebook is copied back. First the ``my_numbers`` cell of each assignment whose numbers the
    course's ``course_numbers`` draws is refreshed (``grader.grading.student_numbers``), so every
    release imports the numbers as the course draws them,
    and the words that cell prints are copied from the catalogues (``grader.language.kernel_messages``).
    """
    ok = True
    if write_kernel_translations(course.root):
        console.print("course_numbers/translations.py: copied from the catalogues")
    for assignment in assignments:
        if not draws_course_numbers(assignment):  # it keeps the cells it was written with
            continue
        source = course.source_notebook(assignment)
        if refresh_numbers_cell(source):
            console.print(f"source/{assignment}: the my_numbers cell was regenerated")
    with tempfile.TemporaryDirectory(prefix="release-") as scratch:
        scratch_course = copy_course(course, Path(scratch))
        for assignment in assignments:
            try:
                generated = generate_release(scratch_course, assignment)
            except (RuntimeError, ValueError) as exc:
                console.print(f"[red]{exc}[/red]")
                ok = False
                continue
            target = course.root / RELEASE / assignment
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            for notebook in sorted(generated.parent.glob("*.ipynb")):
                shutil.copy2(notebook, target / notebook.name)
                console.print(f"release/{assignment}/{notebook.name} regenerated")
    return ok


def release_differences(course: Course, assignment: str, committed: Course) -> list[str]:
    """Cells where ``committed``'s release differs from a fresh generation in ``course`` (empty: same)."""
    fresh = nbformat.read(generate_release(course, assignment), as_version=4)
    committed_notebook = nbformat.read(committed.release_notebook(assignment), as_version=4)
    differences = []
    if len(fresh.cells) != len(committed_notebook.cells):
        differences.append(f"{len(committed_notebook.cells)} cells committed, {len(fresh.cells)} generated")
    for i, (a, b) in enumerate(zip(committed_notebook.cells, fresh.cells)):
        if a.source != b.source or a.cell_type != b.cell_type or a.metadata != b.metadata:
            differences.append(f"cell {i} ({b.metadata.get('nbgrader', {}).get('grade_id', b.cell_type)})")
    return differences

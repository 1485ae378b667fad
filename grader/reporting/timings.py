"""Grading time per submission, read by the class report from the grading records.

``grader.grading.grade_one.grade_one`` ends every grading by writing the submission's record
(``grader.grading.run_record``: ``.grader/autograde/<assignment>/<student>.json``), which holds
``seconds``, the wall-clock time of the whole grading (reading the notebook, the sandboxed kernel
run, judging, gradebook writes). A regrade replaces the record, so the latest grading counts. The
records live in the grading process's private folder, where no kernel can write; plain
``nbgrader autograde`` writes none.
"""
from __future__ import annotations

from grader.course import Course
from grader.grading.run_record import read_record_file
from grader.state_folders import RUN_RECORDS, STATE_DIR_NAME


def grading_times(course: Course, assignment: str) -> dict[str, float]:
    """student -> seconds of the latest grading of ``assignment``; damaged records are skipped."""
    folder = course.root / STATE_DIR_NAME / RUN_RECORDS / assignment  # reading never creates it
    if not folder.is_dir():
        return {}
    times: dict[str, float] = {}
    for path in sorted(folder.glob("*.json")):
        record = read_record_file(path)
        if record is not None:  # a damaged record costs that one entry, not the report
            times[path.stem] = float(record["seconds"])
    return times

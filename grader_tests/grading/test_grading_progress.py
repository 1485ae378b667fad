"""The progress of grading (`grader autograde`, `grader demo`): a bar per assignment."""
from __future__ import annotations

import io

from rich.console import Console

from grader.grading.outcome import GradingOutcome
from grader.scheduling.class_run import assignment_bars, grading_progress


def outcome(assignment: str, student: str, graded: bool = True) -> GradingOutcome:
    return GradingOutcome(student=student, assignment=assignment, graded=graded,
                          reason=None if graded else "not a readable notebook", seconds=0.1)


def test_each_assignment_has_a_bar_of_its_own_that_counts_its_hand_ins_and_ungradable_ones():
    console = Console(file=io.StringIO(), width=160, force_terminal=False)
    with grading_progress(console) as progress:
        advance = assignment_bars(progress, ["02_softmax", "01_variance", "02_softmax"])
        advance(outcome("02_softmax", "ada"))
        advance(outcome("02_softmax", "gus", graded=False))
        advance(outcome("01_variance", "bea"))
        bars = {task.description: task for task in progress.tasks}
    assert list(bars) == ["01_variance", "02_softmax"]
    assert (bars["01_variance"].completed, bars["01_variance"].total) == (1, 1)
    assert (bars["02_softmax"].completed, bars["02_softmax"].total) == (2, 2)
    assert "1 ungradable" in bars["02_softmax"].fields["status"] and bars["01_variance"].fields["status"] == ""
    assert "01_variance" in console.file.getvalue() and "2/2" in console.file.getvalue()

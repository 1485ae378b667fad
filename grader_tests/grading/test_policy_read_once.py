"""The grading steps of one notebook read the course policy once and share it."""
from __future__ import annotations

from grader.grading.preprocessors.assign_policy_late_penalties import AssignPolicyLatePenalties
from grader.grading.preprocessors.decide_verdicts import DecideVerdicts


def counting_reads(monkeypatch, tmp_path):
    reads = []

    def read(course, config=None, check_ids=False, hand_ins=True, student=None, db_url=None):
        reads.append((course.root, hand_ins, student, db_url))
        return object()

    monkeypatch.setattr("grader.policy.course_policy.PolicyBook.of", read)
    for step in (DecideVerdicts, AssignPolicyLatePenalties):
        monkeypatch.setattr(step, "_course_root", lambda self: str(tmp_path))
    return reads


def notebook_resources(student: str) -> dict:
    return {"nbgrader": {"student": student, "assignment": "01_variance", "notebook": "variance",
                         "db_url": "sqlite:///graded-into.db"}}


def test_the_steps_of_one_notebook_share_one_read_of_the_policy(monkeypatch, tmp_path):
    reads = counting_reads(monkeypatch, tmp_path)
    resources = notebook_resources("ada")
    first = DecideVerdicts().student_policy(resources)
    assert AssignPolicyLatePenalties().student_policy(resources) is first
    assert reads == [(tmp_path, True, "ada", "sqlite:///graded-into.db")]


def test_each_notebook_reads_the_policy_with_its_own_students_hand_ins(monkeypatch, tmp_path):
    reads = counting_reads(monkeypatch, tmp_path)
    step = AssignPolicyLatePenalties()
    step.student_policy(notebook_resources("ada"))
    step.student_policy(notebook_resources("bob"))
    assert [student for _, _, student, _ in reads] == ["ada", "bob"]


def test_the_policy_is_read_from_the_gradebook_nbgrader_grades_the_notebook_into(monkeypatch, tmp_path):
    reads = counting_reads(monkeypatch, tmp_path)
    DecideVerdicts().student_policy(notebook_resources("ada"))
    assert [db_url for *_, db_url in reads] == ["sqlite:///graded-into.db"]

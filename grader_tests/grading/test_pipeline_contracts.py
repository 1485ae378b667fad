"""The pipeline's contract is code: every step declares what it reads and writes, and the declared
order of ``grader.grading.pipeline`` satisfies those declarations."""
from __future__ import annotations

from pathlib import Path

import pytest
from nbgrader.preprocessors import NbGraderPreprocessor, SaveAutoGrades
from traitlets.config import Config

from grader.course import Course, load_config
from grader.grading import pipeline
from grader.grading.outcome import CATEGORIES
from grader.grading.pipeline import AUTOGRADE_STEPS, FEEDBACK_STEPS, PASSES, PROVIDED_BY_NBGRADER, contract_of
from grader.grading.preprocessors.batched_save_autogrades import BatchedSaveAutoGrades
from grader.grading.preprocessors.validate_notebook import ValidateNotebook
from grader.grading.step_contracts import declared_contract, unmet_reads
from grader.grading.step_times import TimedAutograde
from grader.sandbox.execute import SandboxedExecute
from grader.sandbox.submitted_links import make_pre_convert_hook


def unmet(passes=PASSES):
    return [(u.pass_name, u.step, u.data) for u in unmet_reads(passes, contract_of, PROVIDED_BY_NBGRADER)]


def moved(steps: list[type], step: type, before: type) -> list[type]:
    rest = [s for s in steps if s is not step]
    return rest[:rest.index(before)] + [step] + rest[rest.index(before):]


def with_autograde_steps(steps: list[type]):
    return [(name, steps if name == "autograde" else listed) for name, listed in PASSES]


def test_no_step_reads_what_no_earlier_step_or_nbgrader_wrote():
    assert unmet() == []


@pytest.mark.parametrize("step, before, missing", [
    ("DecideVerdicts", "SandboxedExecute", "cell.outputs: executed"),
    ("SandboxedExecute", "PrepareProbes", "cell.source: probe code"),
    ("ClearMetadataPreprocessor", "DecideVerdicts", "cell.metadata: probe plans judged and removed"),
    ("LimitOutput", "DecideVerdicts", "cell.outputs: judged"),
    ("AssignPolicyLatePenalties", "BatchedSaveAutoGrades", "gradebook: scores"),
])
def test_a_step_moved_before_what_it_reads_breaks_the_contract(step, before, missing):
    by_name = {s.__name__: s for s in AUTOGRADE_STEPS}
    reordered = moved(AUTOGRADE_STEPS, by_name[step], by_name[before])
    assert ("autograde", step, missing) in unmet(with_autograde_steps(reordered))


def test_the_feedback_page_needs_the_hidden_tests_removed_first():
    from nbgrader.preprocessors import ClearHiddenTests

    from grader.grading.preprocessors.feedback_page import FeedbackPage

    reordered = moved(FEEDBACK_STEPS, FeedbackPage, ClearHiddenTests)
    passes = [(name, reordered if name == "feedback" else listed) for name, listed in PASSES]
    assert ("feedback", "FeedbackPage", "cell.source: hidden tests removed") in unmet(passes)


def test_what_a_step_keeps_in_resources_is_gone_in_the_next_pass():
    class ReadsVerdictsLater(NbGraderPreprocessor):
        reads, writes = {"resources.verdicts"}, set()

    passes = PASSES + [("later", [ReadsVerdictsLater])]
    assert unmet(passes) == [("later", "ReadsVerdictsLater", "resources.verdicts")]


def test_every_step_of_the_pipeline_has_a_contract_and_every_listed_contract_a_step():
    steps = {step for _, listed in PASSES for step in listed}
    undeclared = [s.__name__ for s in steps
                  if declared_contract(s) is None and s not in pipeline.THIRD_PARTY_CONTRACTS]
    assert undeclared == []
    assert set(pipeline.THIRD_PARTY_CONTRACTS) <= steps


def test_every_step_is_timed_in_a_known_category():
    steps = {step for _, listed in PASSES for step in listed}
    assert {s.__name__: contract_of(s).timed_as for s in steps
            if contract_of(s).timed_as not in CATEGORIES} == {}


def test_the_pipeline_itself_saves_the_scores_in_one_transaction():
    assert BatchedSaveAutoGrades in AUTOGRADE_STEPS and SaveAutoGrades not in AUTOGRADE_STEPS


def test_the_notebook_is_checked_where_an_invalid_one_must_stop_grading():
    first_gradebook_write = next(i for i, step in enumerate(AUTOGRADE_STEPS)
                                 if any(data.startswith("gradebook:") for data in contract_of(step).writes))
    assert pipeline.SANITIZE_STEPS[0] is ValidateNotebook
    assert AUTOGRADE_STEPS[AUTOGRADE_STEPS.index(SandboxedExecute) + 1] is ValidateNotebook
    assert AUTOGRADE_STEPS[first_gradebook_write - 1] is ValidateNotebook


def test_the_course_checks_each_notebook_once_per_pass_besides_the_pipelines_own_checks():
    config = load_config(Course(Path(__file__).resolve().parents[2]))
    assert config.Exporter.optimistic_validation is True


def course_config(**autograde) -> Config:
    config = Config()
    config.Autograde.autograde_preprocessors = list(AUTOGRADE_STEPS)
    for name, value in autograde.items():
        setattr(config.Autograde, name, value)
    return config


def test_the_timed_grading_app_runs_the_pipeline_steps_unchanged_and_in_order():
    assert TimedAutograde(config=course_config()).autograde_preprocessors == AUTOGRADE_STEPS


def test_the_timed_grading_app_leaves_out_only_the_quarantine_hook(tmp_path):
    quarantining = TimedAutograde(config=course_config(pre_convert_hook=make_pre_convert_hook(tmp_path, lambda: 1000)))
    assert quarantining.pre_convert_hook is None

    def other_hook(**_):
        return None

    assert TimedAutograde(config=course_config(pre_convert_hook=other_hook)).pre_convert_hook is other_hook

"""Every step nbgrader runs on a submission, in order: the one declaration of the grading pipeline.

``nbgrader_config.py`` assigns these lists to nbgrader's applications, so plain ``nbgrader
autograde`` / ``generate_feedback`` and ``grader`` run the same steps. Reading this file top to
bottom follows one submission:

1. ``SANITIZE_STEPS`` (``c.Autograde.sanitize_preprocessors``): the submitted notebook is made
   trustworthy before anything reads it — cell metadata comes back from the gradebook
   (``RestoreCellMetadata``), outputs are cleared, deleted or edited test cells are restored.
2. ``AUTOGRADE_STEPS`` (``c.Autograde.autograde_preprocessors``): hidden checks are planned
   (``PrepareProbes``), the notebook runs in the sandbox (``SandboxedExecute``), verdicts are decided
   outside the kernel (``DecideVerdicts``), what the kernel sent is cut down and made inert
   (``ClearMetadataPreprocessor``, ``LimitOutput``, ``RemoveActiveContent``) and the scores are saved
   in one transaction per notebook (``BatchedSaveAutoGrades``, nbgrader's ``SaveAutoGrades`` batched),
   then the late penalty from the student's own policy (``AssignPolicyLatePenalties``, grader.policy).
3. ``FEEDBACK_STEPS`` (``c.GenerateFeedback.preprocessors``): the page a student reads — grades,
   hidden test source removed, the summary of every check first (``FeedbackPage``); the page is
   written by ``grader.pages.exporter.FeedbackExporter``.

The notebook is checked against nbformat's schema once at the end of each pass (the course config's
``c.Exporter.optimistic_validation``; nbconvert would check it after every step) and by
``ValidateNotebook`` where an invalid one must stop grading at once: first in the sanitizing pass,
just after the kernel ran, and just before the first gradebook write.

Before step 1, links, FIFOs, devices and oversized files leave the submission folder
(``grader.sandbox.submitted_links``: ``grade_one`` moves them before it screens the submission;
plain ``nbgrader autograde`` runs the same as ``c.Autograde.pre_convert_hook``).

Every step has a contract (``grader.grading.step_contracts``): what it reads and writes, and the
category its seconds count in (``grader.grading.step_times`` times every step listed here). The
course's own steps declare theirs as class attributes; nbgrader's get theirs from
``THIRD_PARTY_CONTRACTS`` below. ``grader_tests/grading/test_pipeline_contracts.py`` checks that no step
reads what no earlier step (or nbgrader itself, ``PROVIDED_BY_NBGRADER``) wrote. A new step is a
class with ``reads`` / ``writes`` (and ``timed_as``) and one line in one of the lists.
"""
from __future__ import annotations

from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (
    CheckCellMetadata,
    ClearHiddenTests,
    ClearOutput,
    DeduplicateIds,
    GetGrades,
    IgnorePattern,
    LimitOutput,
    OverwriteKernelspec,
)

from grader.grading.preprocessors.assign_policy_late_penalties import AssignPolicyLatePenalties
from grader.grading.preprocessors.batched_save_autogrades import BatchedSaveAutoGrades
from grader.grading.preprocessors.decide_verdicts import DecideVerdicts
from grader.grading.preprocessors.feedback_page import FeedbackPage
from grader.grading.preprocessors.overwrite_cells import OverwriteCellsFromOneQuery
from grader.grading.preprocessors.prepare_probes import PrepareProbes
from grader.grading.preprocessors.restore_cell_metadata import RestoreCellMetadata
from grader.grading.preprocessors.validate_notebook import ValidateNotebook
from grader.grading.step_contracts import StepContract, declared_contract
from grader.pages.notebook import RemoveActiveContent
from grader.sandbox.execute import SandboxedExecute

SANITIZE_STEPS = [
    ValidateNotebook,
    RestoreCellMetadata,
    ClearOutput,
    DeduplicateIds,
    OverwriteKernelspec,
    OverwriteCellsFromOneQuery,
    CheckCellMetadata,
]
AUTOGRADE_STEPS = [
    PrepareProbes,
    SandboxedExecute,
    ValidateNotebook,
    DecideVerdicts,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    RemoveActiveContent,
    ValidateNotebook,
    BatchedSaveAutoGrades,
    AssignPolicyLatePenalties,
    CheckCellMetadata,
]
FEEDBACK_STEPS = [GetGrades, ClearHiddenTests, CSSHTMLHeaderPreprocessor, FeedbackPage]
PASSES = [("sanitize", SANITIZE_STEPS), ("autograde", AUTOGRADE_STEPS), ("feedback", FEEDBACK_STEPS)]

_SUBMITTED = "notebook: as submitted"  # the student's cells, with whatever metadata and outputs they carry
_SOURCE = "gradebook: source notebook"  # the instructor's cells and kernelspec (generate_assignment)
_SUBMISSION = "gradebook: submission"  # the student's submission row and timestamp (Autograde.init_assignment)
_INFO = "resources.nbgrader"  # notebook, assignment, student, db_url of the notebook being converted

# What nbgrader gives each pass before its first step runs.
PROVIDED_BY_NBGRADER = {
    "sanitize": {_SUBMITTED, _SOURCE, _SUBMISSION, _INFO},
    "autograde": {_INFO},
    "feedback": {_INFO},
}

_TRUSTED = "cell.metadata.nbgrader: from the gradebook"
_INSTRUCTOR_SOURCE = "cell.source: the instructor's locked and test cells"
THIRD_PARTY_CONTRACTS: dict[type, StepContract] = {
    ClearOutput: StepContract(frozenset({_SUBMITTED}), frozenset({"cell.outputs: cleared"})),
    DeduplicateIds: StepContract(frozenset({_TRUSTED}), frozenset({_TRUSTED})),
    OverwriteKernelspec: StepContract(frozenset({_INFO, _SOURCE}),
                                      frozenset({"nb.metadata.kernelspec: the instructor's"})),
    CheckCellMetadata: StepContract(frozenset({_TRUSTED})),
    # the ignored stderr is that of the cells the kernel ran; judged cells' outputs hold no stderr
    IgnorePattern: StepContract(frozenset({"cell.outputs: executed"})),
    # keeps only nbgrader's cell metadata: it would erase a probe plan no verdict consumed yet
    ClearMetadataPreprocessor: StepContract(frozenset({"cell.metadata: probe plans judged and removed"}),
                                            frozenset({"cell.metadata: nbgrader's only"})),
    # bounds what the page and the gradebook keep; a probe report it cut would be misjudged
    LimitOutput: StepContract(frozenset({"cell.outputs: judged"}), frozenset({"cell.outputs: bounded"})),
    GetGrades: StepContract(frozenset({_INFO, "gradebook: scores", "gradebook: late penalty"}),
                            frozenset({"cell.metadata.nbgrader: score and comment", "resources.nbgrader: totals"})),
    ClearHiddenTests: StepContract(frozenset({_INSTRUCTOR_SOURCE}), frozenset({"cell.source: hidden tests removed"})),
    CSSHTMLHeaderPreprocessor: StepContract(frozenset(), frozenset({"resources.inlining: css"})),
}


def contract_of(step: type) -> StepContract:
    """The contract of a step class: its own declaration, else ``THIRD_PARTY_CONTRACTS``'s.

    A step with neither (one an instructor configured) reads and writes nothing declared and is
    timed as ``nbconvert``.
    """
    return declared_contract(step) or THIRD_PARTY_CONTRACTS.get(step) or StepContract()

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
   (``ClearMetadataPreprocessor``, ``LimitOutput``, ``RemoveActiveContent``) and the scores are saved.
   Grading workers save in one transaction per notebook (``BatchedSaveAutoGrades`` in place of
   ``SaveAutoGrades``, ``grader.grading.step_times``).
3. ``FEEDBACK_STEPS`` (``c.GenerateFeedback.preprocessors``): the page a student reads — grades,
   hidden test source removed, the summary of every check first (``FeedbackPage``); the page is
   written by ``grader.pages.exporter.FeedbackExporter``.

Before step 1, links, FIFOs, devices and oversized files leave the submission folder
(``c.Autograde.pre_convert_hook``, ``grader.sandbox.submitted_links``).
"""
from __future__ import annotations

from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    ClearHiddenTests,
    ClearOutput,
    DeduplicateIds,
    GetGrades,
    IgnorePattern,
    LimitOutput,
    OverwriteCells,
    OverwriteKernelspec,
    SaveAutoGrades,
)

from grader.grading.preprocessors.decide_verdicts import DecideVerdicts
from grader.grading.preprocessors.feedback_page import FeedbackPage
from grader.grading.preprocessors.prepare_probes import PrepareProbes
from grader.grading.preprocessors.restore_cell_metadata import RestoreCellMetadata
from grader.pages.notebook import RemoveActiveContent
from grader.sandbox.execute import SandboxedExecute

SANITIZE_STEPS = [
    RestoreCellMetadata,
    ClearOutput,
    DeduplicateIds,
    OverwriteKernelspec,
    OverwriteCells,
    CheckCellMetadata,
]
AUTOGRADE_STEPS = [
    PrepareProbes,
    SandboxedExecute,
    DecideVerdicts,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    RemoveActiveContent,
    SaveAutoGrades,
    AssignLatePenalties,
    CheckCellMetadata,
]
FEEDBACK_STEPS = [GetGrades, ClearHiddenTests, CSSHTMLHeaderPreprocessor, FeedbackPage]

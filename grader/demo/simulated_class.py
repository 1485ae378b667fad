"""A simulated class for the demo, drawn from the corpus of realistic submissions.

Six students hand in every assignment, each built from a submission of ``grader_tests/corpus``
(``grader.demo.corpus``): one hands in the model answer, one an independent correct solution, two
make typical mistakes (a misconception per assignment), one stops half-way and one hands in the
untouched release. One more student hands in a file that is not a readable notebook, to show that
an unreadable submission is recorded with its reason, not lost. Faults that only cost time (a
cell that loops until the timeout) are left to the test suite.

One pair was written together (``COPIED``): ivy hands in ben's 02_softmax with the names changed,
comments added and statements moved (``grader_tests/similarity_corpus``, found through
``grader.demo.checkout``), which the class report's
"Possibly written together" section shows (``grader.similarity``).
"""
from __future__ import annotations

import nbformat
from nbformat import NotebookNode

from grader.course import Course
from grader.demo.checkout import checkout
from grader.demo.corpus import build_notebook, get_submission, parse_submission

# The corpus submission of a typical mistake each of three students hands in, per assignment of the
# repository's course (the demo's course): the one place the demo names those assignments.
MISTAKES: dict[str, dict[str, str]] = {
    "cai": {"01_variance": "sample_variance_ddof1", "02_softmax": "softmax_no_max_subtraction",
            "03_readout": "ratio_before_exponentiating", "04_attention": "causal_mask_off_by_one"},
    "dee": {"01_variance": "variance4_as_4dk", "02_softmax": "entropy_log0_nan",
            "03_readout": "undefined_name", "04_attention": "heads_scaled_by_d_model"},
    "eli": {"01_variance": "partial_coin_model", "02_softmax": "partial_softmax_only",
            "03_readout": "partial_exponentials", "04_attention": "partial_attention_only"},
}
DEMO_ASSIGNMENTS = tuple(MISTAKES["cai"])

# student -> assignment -> name of the corpus submission they hand in.
ROSTER: dict[str, dict[str, str]] = {
    "ada": {a: "model_answer" for a in DEMO_ASSIGNMENTS},
    "ben": {a: "loops_float32" for a in DEMO_ASSIGNMENTS},
    **MISTAKES,
    "fay": {a: "blank" for a in DEMO_ASSIGNMENTS},
    "gus": {"01_variance": "truncated_file"},
}

# student -> assignment -> a submission of the similarity corpus, copied from a classmate's.
COPIED: dict[str, dict[str, str]] = {
    "ivy": {"02_softmax": "copy_of_loops_renamed"},  # ben's loops_float32, disguised
}
WRITTEN_TOGETHER = {"02_softmax": ("ben", "ivy")}  # assignment -> the pair the report must show


def simulated_class(course: Course) -> list[tuple[str, str, NotebookNode | str]]:
    """(student, assignment, notebook or raw file text) for every submission of the class.

    Notebooks are built from ``course``'s release and source notebooks, so the release must exist.
    """
    notebooks = {}
    submissions: list[tuple[str, str, NotebookNode | str]] = []
    handed = [(student, assignment, get_submission(assignment, name))
              for student, handed_in in ROSTER.items() for assignment, name in handed_in.items()]
    copies = checkout().SIMILARITY_CORPUS_DIR
    handed += [(student, assignment, parse_submission(copies / assignment / f"{name}.py", assignment))
               for student, copied in COPIED.items() for assignment, name in copied.items()]
    for student, assignment, submission in handed:
        if submission.unreadable:
            submissions.append((student, assignment, submission.raw.decode("utf-8", errors="replace")))
            continue
        if assignment not in notebooks:
            notebooks[assignment] = (nbformat.read(course.release_notebook(assignment), as_version=4),
                                     nbformat.read(course.source_notebook(assignment), as_version=4))
        release, source = notebooks[assignment]
        submissions.append((student, assignment, build_notebook(submission, release, source)))
    return submissions

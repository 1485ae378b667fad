"""Where the demo's material comes from: the repository's course and corpora of hand-ins.

``grader demo`` is the repository's own tooling: it copies the repository's course and hands in
a class built from the repository's corpora (``grader_tests/corpus``, ``grader_tests/similarity_corpus``).
It finds them through the one test-support module that names them, ``grader_tests.checkout``,
importable in a checkout's development environment (``make install``) and absent from an
installed wheel, where the demo stops with :class:`NotACheckoutError`.
"""
from __future__ import annotations

import importlib
from types import ModuleType


class NotACheckoutError(RuntimeError):
    """The demo runs where the repository's course and corpora are not importable."""


def checkout() -> ModuleType:
    """The module ``grader_tests.checkout`` (``THE_COURSE``, ``CORPUS_DIR``, ``SIMILARITY_CORPUS_DIR``,
    ``DEMO_FOLDER``); NotACheckoutError saying where to run the demo when it is not importable."""
    try:
        found = importlib.import_module("grader_tests.checkout")
    except ImportError:
        raise NotACheckoutError(
            "grader demo needs a checkout of the scaled-attention-lab repository: it builds its class from "
            "the repository's course and its corpus of hand-ins (grader_tests/), which an installed grader "
            "does not hold. Run `make demo` in the checkout.") from None
    return found

"""What each grading step reads and writes, and the check that an order of steps satisfies it.

A step's contract names the data it reads and writes with short phrases (``"cell.outputs: executed"``,
``"gradebook: scores"``, ``"resources.verdicts"``). The course's own steps declare theirs as class
attributes ``reads``, ``writes`` (sets of those phrases) and ``timed_as`` (a category of
``grader.grading.step_times``); nbgrader's and nbconvert's steps get theirs from
``grader.grading.pipeline.THIRD_PARTY_CONTRACTS``.

A grading is a sequence of passes (nbgrader's sanitizing pass, its autograding pass, the feedback
pass), each a fresh ``resources`` dict over the notebook the previous pass wrote: what a step writes
to the notebook or the gradebook stays for every later pass, what it writes under ``resources.`` only
for the rest of its own pass.
"""
from __future__ import annotations

from dataclasses import dataclass, field

RESOURCES = "resources."  # the prefix of data that lives for one pass only


@dataclass(frozen=True)
class StepContract:
    """reads / writes: phrases naming data; timed_as: the ``step_times`` category of its seconds."""

    reads: frozenset[str] = field(default_factory=frozenset)
    writes: frozenset[str] = field(default_factory=frozenset)
    timed_as: str = "nbconvert"


@dataclass(frozen=True)
class UnmetRead:
    """``step`` of ``pass_name`` reads ``data`` before anything wrote it."""

    pass_name: str
    step: str
    data: str


def declared_contract(step: type) -> StepContract | None:
    """The contract a step class declares with ``reads`` / ``writes`` / ``timed_as``, or None."""
    if not (hasattr(step, "reads") and hasattr(step, "writes")):
        return None
    return StepContract(frozenset(step.reads), frozenset(step.writes), getattr(step, "timed_as", "nbconvert"))


def unmet_reads(passes: list[tuple[str, list[type]]], contract_of, provided: dict[str, set[str]]) -> list[UnmetRead]:
    """Every read of ``passes`` (pass name, steps in order) that no earlier step wrote.

    ``contract_of(step) -> StepContract``; ``provided``: pass name -> what nbgrader itself provides
    to that pass (the submission, ``resources.nbgrader``, the gradebook it set up).
    """
    unmet, kept = [], set()
    for pass_name, steps in passes:
        available = kept | set(provided.get(pass_name, ()))
        for step in steps:
            contract = contract_of(step)
            unmet += [UnmetRead(pass_name, step.__name__, data) for data in sorted(contract.reads - available)]
            available |= contract.writes
        kept = {data for data in available if not data.startswith(RESOURCES)}
    return unmet

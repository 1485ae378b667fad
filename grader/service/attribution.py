"""Whose hand-in a folder of the exchange is: the one place the service decides it.

``inbound/`` of nbgrader's folder exchange is writable by every account, and a folder's name says
whatever its maker wrote (``<student>+<assignment>+<timestamp>+<random>``). So a folder is the
hand-in of the account that owns it on disk, never of the student its name gives: a folder named
after a classmate is its maker's (refused, with a page to its maker), and never supersedes, fills
the queue of, adds rows under, or puts a page in the feedback of the classmate it names.

Two cases take the name's word, because something else vouches for it: a plug-in exchange (such
as ngshare), which authenticates who hands in, and a course that switched nbgrader's
``ExchangeCollect.check_owner`` off (hand-ins made for students by one shared account).
"""
from __future__ import annotations

from grader.grading.admission import student_id_refusal
from grader.service.inbound import InboundFolder


def owner_of(folder: InboundFolder, check_owner: bool = True) -> str | None:
    """The student id ``folder`` is attributed to, or None when it is nobody's hand-in (no owner
    that is a student account: root, a uid without an account, an account name that is not a
    student id)."""
    if folder.uid < 0 or not check_owner:  # a plug-in exchange's listing, or owners not checked
        return folder.student
    if folder.uid == 0 or folder.owner.startswith("uid ") or student_id_refusal(folder.owner) is not None:
        return None
    return folder.owner

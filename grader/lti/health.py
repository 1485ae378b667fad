"""How the course's score passback stands, in one line for ``grader doctor``."""
from __future__ import annotations

from pathlib import Path

from grader.lti.journal import PENDING, REJECTED, PassbackJournal
from grader.lti.registration import RegistrationError, is_registered, load_platform
from grader.state_folders import LTI_FOLDER, LTI_JOURNAL

#: Scores named in the line; the rest are counted.
NAMED = 3


def passback_health(state_dir: Path) -> tuple[bool, str] | None:
    """(healthy, detail) of the LMS passback, or None when no platform is registered.

    Healthy: every score was posted, or waits only for its first try. A score the platform rejected,
    or one whose post failed, makes it unhealthy; the detail names them with the platform's reason.
    """
    if not is_registered(state_dir):
        return None
    try:
        platform = load_platform(state_dir)
    except RegistrationError as exc:
        return False, str(exc)
    path = Path(state_dir) / LTI_FOLDER / LTI_JOURNAL
    if not path.exists():
        return True, f"{platform.issuer}: no score to post yet"
    with PassbackJournal(path) as journal:
        unposted, posted = journal.unposted(), len(journal.posted())
    failed = [row for row in unposted if row.attempts or row.state == REJECTED]
    waiting = [row for row in unposted if row.state == PENDING and not row.attempts]
    detail = (f"{platform.issuer}: {posted} scores posted, {len(failed)} rejected or failed (kept, retried), "
              f"{len(waiting)} waiting")
    for row in (failed or waiting)[:NAMED]:
        detail += f"; {row.student} {row.assignment}: {row.reason or 'not tried yet'}"
    if failed:
        detail += "; `grader lti status` lists them, `grader lti resend` tries again now"
    return not failed, detail

"""A prefix for the temporary Unix accounts of one test run that no account on the machine uses yet.

A test machine keeps what earlier runs left when they were killed before their teardown (accounts
included), and a machine restored from one snapshot can hand every run the same random bytes. So
the prefix mixes the random bytes with the clock and the process id, and is only taken when no
account on the machine begins with it yet.
"""
from __future__ import annotations

import hashlib
import os
import pwd
import time

ATTEMPTS = 100


def unused_account_prefix(lead: str, digits: int = 5) -> str:
    """``lead`` + ``digits`` hex digits that no account name on the machine begins with.

    RuntimeError after ``ATTEMPTS`` prefixes that were all taken.
    """
    for attempt in range(ATTEMPTS):
        entropy = f"{os.urandom(16).hex()}-{time.time_ns()}-{os.getpid()}-{attempt}".encode()
        prefix = lead + hashlib.sha256(entropy).hexdigest()[:digits]
        if not any(entry.pw_name.startswith(prefix) for entry in pwd.getpwall()):
            return prefix
    raise RuntimeError(f"no unused account prefix {lead}… in {ATTEMPTS} tries; remove the test accounts that "
                       f"earlier runs left (getent passwd | grep '^{lead}')")

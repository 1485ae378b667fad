"""The rules of the service path (``grader.grading.admission.service_path``): each is a pure
function of what the service already read, returning the refusal with its code or None."""
from __future__ import annotations

import ast
import errno
import os
import secrets
import stat

import pytest

from grader.grading.admission import (
    CODES,
    MAX_SECRET_BYTES,
    HandinBudget,
    archive_full_refusal,
    bad_secret_refusal,
    became_a_link_refusal,
    entry_not_a_folder_refusal,
    feedback_failed,
    file_changed_refusal,
    flood_refusal,
    folder_changed_refusal,
    foreign_file_refusal,
    grew_while_read_refusal,
    handin_finished,
    handin_too_large_refusal,
    nested_too_deep_refusal,
    never_finished_refusal,
    nobodys_handin_refusal,
    opened_folder_refusal,
    owner_changed_refusal,
    owner_refusal,
    parse_handin_name,
    secret_file_refusal,
    secret_reused_refusal,
    special_file_refusal,
    too_many_files_refusal,
    too_many_notebooks_refusal,
    ungradable,
    unreadable_entry,
)
from grader_tests.checkout import REPO_ROOT

OWNER = 1001
BUDGET = HandinBudget(max_bytes=1000, max_entries=3, max_notebooks=2, max_depth=2)


def stat_of(kind: int = stat.S_IFREG, uid: int = OWNER, size: int = 10, ino: int = 7,
            dev: int = 1) -> os.stat_result:
    """An ``lstat``/``fstat`` result as the service reads one: mode, inode, device, links, uid, gid,
    size and three times."""
    return os.stat_result((kind | 0o644, ino, dev, 1, uid, uid, size, 0, 0, 0))


def account_of(uid: int) -> str:
    return {OWNER: "ann", 1002: "bob"}.get(uid, f"uid {uid}")


class _Course:
    """What ``assignment_refusal`` asks of a course: its assignments."""

    def has_assignment(self, assignment):
        return assignment == "02_softmax"

    def assignments(self):
        return ["02_softmax"]


# ---- what every rule returns --------------------------------------------------------------------

def test_every_refusal_a_rule_returns_has_a_code_of_the_table():
    made = [special_file_refusal(stat_of(stat.S_IFLNK), "x"),
            foreign_file_refusal(stat_of(uid=1002), OWNER, "x", account_of),
            too_many_files_refusal(4, BUDGET), unreadable_entry(OSError("gone")), feedback_failed()]
    assert all(refusal.code in CODES and CODES[refusal.code].applies_in in ("service", "grading") for refusal in made)


# ---- the entries of a hand-in folder --------------------------------------------------------------

def test_a_symbolic_link_in_a_hand_in_is_a_special_file():
    refusal = special_file_refusal(stat_of(stat.S_IFLNK), "deep/link.txt")
    assert (refusal.code, refusal.student_text.startswith("deep/link.txt is a symbolic link")) == \
        ("special-file", True)


@pytest.mark.parametrize("kind, said", [(stat.S_IFIFO, "FIFO"), (stat.S_IFSOCK, "socket"),
                                        (stat.S_IFCHR, "character device"), (stat.S_IFBLK, "block device")])
def test_a_fifo_socket_or_device_in_a_hand_in_is_a_special_file(kind, said):
    refusal = special_file_refusal(stat_of(kind), "thing")
    assert (refusal.code, f"thing is a {said};" in refusal.student_text) == ("special-file", True)


@pytest.mark.parametrize("kind", [stat.S_IFREG, stat.S_IFDIR])
def test_a_regular_file_or_a_folder_is_no_special_file(kind):
    assert special_file_refusal(stat_of(kind), "ok") is None


def test_a_file_owned_by_another_uid_is_a_foreign_file_naming_that_account():
    refusal = foreign_file_refusal(stat_of(uid=1002), OWNER, "notes.txt", account_of)
    assert (refusal.code, "notes.txt belongs to the account bob" in refusal.student_text) == ("foreign-file", True)


def test_a_file_of_the_folders_owner_is_not_foreign_and_no_account_is_looked_up():
    def no_lookup(uid):
        raise AssertionError("looked up an account for a file of the owner")

    assert foreign_file_refusal(stat_of(uid=OWNER), OWNER, "notes.txt", no_lookup) is None


def test_one_entry_more_than_the_budget_is_too_many_files():
    refusal = too_many_files_refusal(BUDGET.max_entries + 1, BUDGET)
    assert (refusal.code, "more than 3 files" in refusal.student_text) == ("too-many-files", True)


def test_as_many_entries_as_the_budget_are_accepted():
    assert too_many_files_refusal(BUDGET.max_entries, BUDGET) is None


def test_a_folder_deeper_than_the_budget_is_nested_too_deep():
    refusal = nested_too_deep_refusal(BUDGET.max_depth + 1, BUDGET)
    assert (refusal.code, "nested more than 2 deep" in refusal.student_text) == ("nested-too-deep", True)


def test_a_folder_as_deep_as_the_budget_is_accepted():
    assert nested_too_deep_refusal(BUDGET.max_depth, BUDGET) is None


def test_one_byte_more_than_the_budget_is_too_large_said_in_megabytes():
    refusal = handin_too_large_refusal(BUDGET.max_bytes + 1, BUDGET)
    assert (refusal.code, "more than 0.001 MB" in refusal.student_text) == ("handin-too-large", True)


def test_as_many_bytes_as_the_budget_are_accepted():
    assert handin_too_large_refusal(BUDGET.max_bytes, BUDGET) is None


def test_one_notebook_more_than_the_budget_is_too_many_notebooks():
    refusal = too_many_notebooks_refusal(BUDGET.max_notebooks + 1, BUDGET)
    assert (refusal.code, "more than 2 notebooks" in refusal.student_text) == ("too-many-notebooks", True)


def test_as_many_notebooks_as_the_budget_are_accepted():
    assert too_many_notebooks_refusal(BUDGET.max_notebooks, BUDGET) is None


def test_the_limits_are_the_budgets_not_fixed_numbers():
    assert (too_many_files_refusal(4, BUDGET) is None, too_many_files_refusal(4, HandinBudget(max_entries=4)) is None) \
        == (False, True)


# ---- the hand-in folder itself, opened --------------------------------------------------------------

def test_a_folder_that_changed_owner_since_it_was_listed_is_refused():
    assert owner_changed_refusal(OWNER, stat_of(stat.S_IFDIR, uid=1002)).code == "owner-changed"


def test_a_folder_with_the_listed_owner_is_accepted():
    assert owner_changed_refusal(OWNER, stat_of(stat.S_IFDIR)) is None


@pytest.mark.parametrize("error", [errno.ELOOP, errno.ENOTDIR])
def test_a_folder_that_cannot_be_opened_as_one_without_following_is_a_special_file(error):
    refusal = opened_folder_refusal(OSError(error, os.strerror(error)), "data")
    assert (refusal.code, refusal.student_text) == ("special-file", "data is not a folder (a link or special file)")


def test_a_folder_that_cannot_be_opened_for_another_reason_is_no_refusal_of_the_hand_in():
    assert opened_folder_refusal(OSError(errno.ENOENT, "gone"), "data") is None


def test_a_folder_replaced_between_listing_and_opening_changed_while_read():
    assert folder_changed_refusal(stat_of(stat.S_IFDIR, ino=7), stat_of(stat.S_IFDIR, ino=8), "d").code == \
        "changed-while-read"


def test_the_folder_listed_and_opened_is_accepted():
    assert folder_changed_refusal(stat_of(stat.S_IFDIR), stat_of(stat.S_IFDIR), "d") is None


# ---- copying ---------------------------------------------------------------------------------------

def test_a_planned_file_that_became_a_link_changed_while_read():
    refusal = became_a_link_refusal(OSError(errno.ELOOP, "loop"), "a.txt")
    assert (refusal.code, refusal.student_text) == ("changed-while-read", "a.txt became a link while it was read")


def test_a_planned_file_that_cannot_be_opened_for_another_reason_is_no_refusal_of_the_hand_in():
    assert became_a_link_refusal(OSError(errno.EACCES, "denied"), "a.txt") is None


@pytest.mark.parametrize("opened", [stat_of(stat.S_IFIFO), stat_of(uid=1002), stat_of(ino=8)],
                         ids=["no longer regular", "another owner", "another file"])
def test_a_file_not_the_one_planned_changed_while_read(opened):
    assert file_changed_refusal(opened, OWNER, (1, 7), "a.txt").code == "changed-while-read"


def test_the_file_planned_is_copied():
    assert file_changed_refusal(stat_of(), OWNER, (1, 7), "a.txt") is None


def test_a_file_that_grew_past_the_bytes_left_changed_while_read():
    refusal = grew_while_read_refusal(11, 10, "a.txt")
    assert (refusal.code, "a.txt grew while it was read" in refusal.student_text) == ("changed-while-read", True)


def test_a_file_within_the_bytes_left_is_copied():
    assert grew_while_read_refusal(10, 10, "a.txt") is None


# ---- the submission secret -----------------------------------------------------------------------

def test_the_128_hex_digit_secret_nbgrader_submit_writes_is_accepted():
    assert bad_secret_refusal(secrets.token_hex(64).encode()) is None


def test_a_64_hex_digit_secret_is_refused_as_not_nbgraders():
    assert bad_secret_refusal(secrets.token_hex(32).encode()).code == "bad-secret"


def test_a_secret_longer_than_is_read_is_refused():
    assert bad_secret_refusal(b"a" * 128 + b"\n" * (MAX_SECRET_BYTES + 1 - 128)).code == "bad-secret"


def test_a_secret_in_capital_hex_digits_is_refused():
    assert bad_secret_refusal(secrets.token_hex(64).upper().encode()).code == "bad-secret"


@pytest.mark.parametrize("opened", [stat_of(stat.S_IFIFO), stat_of(uid=1002)], ids=["not a file", "another owner"])
def test_a_secret_file_that_is_not_a_file_of_the_owner_is_no_secret(opened):
    refusal = secret_file_refusal(opened, OWNER)
    assert (refusal.code, "no submission_secret.txt written by nbgrader submit" in refusal.student_text) == \
        ("no-secret", True)


def test_a_secret_file_of_the_owner_is_read():
    assert secret_file_refusal(stat_of(), OWNER) is None


def test_a_hand_in_is_finished_once_its_secret_is_a_file_with_content():
    assert handin_finished(stat_of(size=128))


@pytest.mark.parametrize("secret_info", [None, stat_of(size=0), stat_of(stat.S_IFLNK)], ids=["none", "empty", "link"])
def test_a_hand_in_without_a_written_secret_file_is_unfinished(secret_info):
    assert not handin_finished(secret_info)


# ---- listing inbound/ ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kind, said", [(stat.S_IFLNK, "it is a symbolic link, not a hand-in folder"),
                                        (stat.S_IFREG, "it is not a folder, not a hand-in folder")])
def test_an_inbound_entry_that_is_no_folder_is_not_a_folder(kind, said):
    refusal = entry_not_a_folder_refusal(stat_of(kind))
    assert (refusal.code, refusal.student_text) == ("not-a-folder", said)


def test_an_inbound_folder_is_a_folder():
    assert entry_not_a_folder_refusal(stat_of(stat.S_IFDIR)) is None


@pytest.mark.parametrize("name, says", [
    (b"ann+02_softmax", "is not <student>+<assignment>"),
    (b"ann+02_softmax+yesterday+x", "is not a date"),
    (b"ann+02_softmax+2026-12-01 10:00:00 UTC+\xff", "is not UTF-8"),
])
def test_a_name_that_is_not_nbgraders_is_not_a_handin_name_saying_why(name, says):
    refusal = parse_handin_name(name)
    assert (refusal.code, says in refusal.student_text) == ("not-a-handin-name", True)


def test_a_student_id_holding_a_plus_is_parsed_as_nbgrader_does():
    assert parse_handin_name(b"a+b+02_softmax+2026-12-01 10:00:00 UTC+xyz") == (
        "a+b", "02_softmax", "2026-12-01 10:00:00 UTC")


def test_more_new_entries_of_an_account_than_allowed_are_a_flood():
    assert flood_refusal(4, 3).code == "flooded"


@pytest.mark.parametrize("entries, limit", [(3, 3), (1000, None)], ids=["as many as allowed", "no limit"])
def test_entries_up_to_the_limit_are_no_flood(entries, limit):
    assert flood_refusal(entries, limit) is None


# ---- the owner ---------------------------------------------------------------------------------------

def test_a_folder_of_root_is_not_a_students_account():
    refusal = owner_refusal("ann", 0, "root", True)
    assert (refusal.code, refusal.student_text) == \
        ("not-a-student-account", "the folder belongs to root, not to a student's account")


def test_a_folder_of_a_uid_without_an_account_is_not_a_students_account():
    refusal = owner_refusal("ann", 4242, "uid 4242", True)
    assert (refusal.code, "belongs to uid 4242, which has no account" in refusal.student_text) == \
        ("not-a-student-account", True)


def test_a_folder_naming_a_classmate_names_another_student():
    refusal = owner_refusal("bob", OWNER, "ann", True)
    assert (refusal.code, "names student bob but was handed in by the account ann" in refusal.student_text) == \
        ("names-another-student", True)


def test_a_folder_naming_a_classmate_is_accepted_when_owners_are_not_checked():
    assert owner_refusal("bob", OWNER, "ann", False) is None


def test_a_folder_of_the_student_it_names_is_accepted():
    assert owner_refusal("ann", OWNER, "ann", True) is None


def test_a_name_giving_no_student_id_is_refused_before_the_owner_is_looked_at():
    assert owner_refusal("<b>ann</b>", 0, "root", True).code == "not-a-student-id"


# ---- whose hand-in a listed folder is ------------------------------------------------------------------

def test_a_folder_naming_a_classmate_is_still_its_makers_hand_in():
    listed = owner_refusal("bob", OWNER, "ann", True)
    assert nobodys_handin_refusal(_Course(), listed, "02_softmax", "ann", "ann", "bob") is None


def test_a_listed_refusal_other_than_naming_a_classmate_is_kept():
    listed = owner_refusal("ann", 0, "root", True)
    assert nobodys_handin_refusal(_Course(), listed, "02_softmax", None, "root", "ann") == listed


def test_a_folder_naming_no_assignment_of_the_course_is_an_unknown_assignment():
    assert nobodys_handin_refusal(_Course(), None, "99_nothing", "ann", "ann", "ann").code == "unknown-assignment"


def test_a_folder_attributed_to_no_student_is_not_a_students_account():
    refusal = nobodys_handin_refusal(_Course(), None, "02_softmax", None, "www-data", "ann")
    assert (refusal.code, "the account www-data, which is not a student's" in refusal.student_text) == \
        ("not-a-student-account", True)


def test_a_folder_whose_name_gives_no_student_is_not_a_handin_name():
    assert nobodys_handin_refusal(_Course(), None, "02_softmax", "ann", "ann", None).code == "not-a-handin-name"


# ---- the service's own bookkeeping -------------------------------------------------------------------

def test_an_unfinished_hand_in_that_waited_the_courses_time_never_finished():
    refusal = never_finished_refusal(60.0, 60.0)
    assert (refusal.code, "no submission_secret.txt 60 s after it appeared" in refusal.student_text) == \
        ("incomplete-handin", True)


def test_an_unfinished_hand_in_within_the_courses_time_may_still_finish():
    assert never_finished_refusal(59.9, 60.0) is None


def test_an_account_whose_archive_reaches_its_limit_is_archive_full():
    refusal = archive_full_refusal(5_000_000, 5.0)
    assert (refusal.code, "already take 5.0 MB" in refusal.student_text, "(5 MB)" in refusal.student_text) == \
        ("archive-full", True, True)


def test_an_account_below_its_archive_limit_is_kept():
    assert archive_full_refusal(4_999_999, 5.0) is None


def test_a_secret_an_earlier_entry_holds_is_reused():
    assert secret_reused_refusal(b"ann+02_softmax+2026-12-01 10:00:00 UTC+abc").code == "secret-reused"


def test_a_secret_no_entry_holds_is_not_reused():
    assert secret_reused_refusal(None) is None


def test_an_entry_whose_reading_raised_is_unreadable_naming_the_error():
    refusal = unreadable_entry(PermissionError("denied"))
    assert (refusal.code, refusal.student_text) == \
        ("entry-unreadable", "it could not be read (PermissionError: denied)")


def test_a_hand_in_not_graded_without_a_code_failed_grading():
    assert (ungradable(None, None).code, ungradable("worker-died", "gone").code) == ("grading-failed", "worker-died")


# ---- the service makes no refusal of its own ------------------------------------------------------------

MAKERS = {"refused", "Refusal"}


def refusals_made_in(source: str) -> list[int]:
    """Line numbers of the calls of ``refused`` or ``Refusal`` (by name or as an attribute) in ``source``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            if name in MAKERS:
                lines.append(node.lineno)
    return lines


def test_the_scan_sees_a_refusal_made_inline():
    source = ("from grader.grading import admission\nfrom grader.grading.admission import refused\n"
              "a = refused('flooded', 'x')\nb = admission.Refusal('flooded', 'x')\n")
    assert refusals_made_in(source) == [3, 4]


def test_no_module_of_the_service_makes_a_refusal_of_its_own():
    made = {path.relative_to(REPO_ROOT).as_posix(): lines
            for path in sorted((REPO_ROOT / "grader" / "service").rglob("*.py"))
            if (lines := refusals_made_in(path.read_text(encoding="utf-8")))}
    assert made == {}, "a rule of the service path belongs in grader.grading.admission.service_path"

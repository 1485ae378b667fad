"""Which language a student reads feedback in: the roster's Language column or the student's own
choice on the hub, else the course's default."""
from __future__ import annotations

import subprocess
import sys

import pytest

from grader.language.language_records import record_languages
from grader.language.student_language import (
    language_of,
    languages_file,
    read_student_languages,
    save_student_languages,
    student_language,
)
from grader.reporting.canvas import RosterError, read_roster

HEADER = "Student,ID,SIS User ID,SIS Login ID,Section,Language\n"


@pytest.mark.parametrize("cell, language", [("zh", "zh"), ("zh-CN", "zh"), ("zh_Hans", "zh"), ("Chinese", "zh"),
                                             ("中文", "zh"), ("简体中文", "zh"), ("en", "en"), (" English ", "en")])
def test_a_roster_cell_names_its_language_in_any_usual_spelling(cell, language):
    assert language_of(cell) == language


def test_an_empty_roster_cell_leaves_the_course_default():
    assert language_of("  ") is None


def test_an_unknown_language_is_refused_naming_the_accepted_ones():
    with pytest.raises(ValueError, match=r"'Klingon' is not a language of the course; write one of en "
                                         r"\(English\), zh \(简体中文\)"):
        language_of("Klingon")


def test_a_roster_with_a_language_column_gives_each_student_theirs(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text(HEADER + '"Li, Wei",1,S1,li,A,zh-CN\n"Lovelace, Ada",2,S2,ada,A,\n', encoding="utf-8")
    assert [(e.nbgrader_id, e.language) for e in read_roster(roster)] == [("li", "zh"), ("ada", None)]


def test_a_roster_with_an_unknown_language_names_its_line(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text(HEADER + '"Li, Wei",1,S1,li,A,zh\n"Lovelace, Ada",2,S2,ada,A,French\n', encoding="utf-8")
    with pytest.raises(RosterError, match=r"line 3: Language: 'French' is not a language of the course"):
        read_roster(roster)


def test_a_student_the_roster_gives_no_language_reads_the_default(tmp_path):
    save_student_languages(tmp_path, {"li": "zh"})
    assert student_language(tmp_path, "li", "en") == "zh"
    assert student_language(tmp_path, "ada", "en") == "en"
    assert student_language(tmp_path, "ada", "zh") == "zh"


def test_a_later_roster_changes_its_students_and_keeps_the_others(tmp_path):
    save_student_languages(tmp_path, {"li": "zh", "ada": "zh"})
    save_student_languages(tmp_path, {"ada": "en"})
    assert read_student_languages(tmp_path) == {"li": "zh", "ada": "en"}


def test_a_students_own_choice_on_the_hub_is_read_as_the_roster_is(tmp_path):
    save_student_languages(tmp_path, {"li": "zh", "ada": "zh"})
    record_languages(languages_file(tmp_path), {"ada": "en"})  # what the hub's language page records
    assert read_student_languages(tmp_path) == {"li": "zh", "ada": "en"}


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"ada": 3}'])
def test_a_languages_file_that_holds_no_languages_gives_nobody_a_language(tmp_path, text):
    languages_file(tmp_path).write_text(text, encoding="utf-8")
    assert read_student_languages(tmp_path) == {}


def test_recording_a_language_leaves_no_partial_file_beside_the_languages_file(tmp_path):
    record_languages(languages_file(tmp_path), {"ada": "zh"})
    assert [p.name for p in tmp_path.iterdir()] == [languages_file(tmp_path).name]


def test_grader_roster_records_the_languages_in_the_course_private_folder(course):
    roster = course.root / "roster.csv"
    roster.write_text(HEADER + '"Li, Wei",1,S1,li,A,中文\n"Lovelace, Ada",2,S2,ada,A,\n', encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "grader.cli", "roster", str(roster), "--course", str(course.root)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert read_student_languages(course.state_dir) == {"li": "zh"}
    assert course.state_dir.stat().st_mode & 0o077 == 0

"""`grader roster`: the roster's first and last names in the gradebook, so the formgrader lists students by name."""
from __future__ import annotations

import subprocess
import sys

from nbgrader.api import Gradebook

from grader.reporting.roster_names import add_roster_names, split_name
from grader_tests.checkout import create_course

HEADER = "Student,ID,SIS User ID,SIS Login ID,Section\n"
ROSTER = HEADER + '"Lovelace, Ada",1001,S1001,ada,Sec 1\nPoints Possible,,,,\n"Hopper, Grace",1002,S1002,grace,Sec 1\n'


def names(db_url: str) -> dict[str, tuple[str, str]]:
    """student id -> (first, last) as nbgrader's formgrader API (``Gradebook.student_dicts``) gives them."""
    with Gradebook(db_url) as gb:
        return {s["id"]: (s["first_name"], s["last_name"]) for s in gb.student_dicts()}


def test_the_roster_names_the_students_nbgrader_added_without_names_and_adds_the_others(tmp_path):
    db_url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(db_url) as gb:
        gb.add_student("ada")  # as `nbgrader autograde --create` adds a student: no name
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    assert names(db_url) == {"ada": (None, None)}
    assert add_roster_names(db_url, tmp_path / "roster.csv") == 2
    assert names(db_url) == {"ada": ("Ada", "Lovelace"), "grace": ("Grace", "Hopper")}


def test_a_name_without_a_comma_has_its_last_word_as_the_last_name():
    assert split_name("Ada King Lovelace") == ("Ada King", "Lovelace")
    assert split_name("Lovelace, Ada King") == ("Ada King", "Lovelace")
    assert split_name("Cher") == ("", "Cher")


def test_grader_roster_fills_the_courses_gradebook(tmp_path):
    course = create_course(tmp_path / "course")
    (tmp_path / "roster.csv").write_text(ROSTER, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "grader.cli", "roster", str(tmp_path / "roster.csv"),
                          "--course", str(course.root)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "names of 2 students" in run.stdout
    assert names(course.db_url)["grace"] == ("Grace", "Hopper")


def test_a_roster_without_the_student_column_is_refused_by_name(tmp_path):
    course = create_course(tmp_path / "course")
    (tmp_path / "roster.csv").write_text("ID,SIS Login ID\n1001,ada\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "grader.cli", "roster", str(tmp_path / "roster.csv"),
                          "--course", str(course.root)], capture_output=True, text=True, timeout=300)
    assert run.returncode != 0
    assert "roster.csv has no column(s) Student" in run.stderr

"""`grader export --canvas`: Canvas's gradebook-import layout, students mapped through a roster, nobody dropped.

The gradebook is built with nbgrader's own API (two assignments, one of them not handed in yet),
so these tests need no grading run; one test runs the real `nbgrader export` on it as well.
"""
from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from datetime import datetime, timedelta

import pytest
from nbgrader.api import Gradebook

from grader.cli import main
from grader.course import Course
from grader.reporting.canvas import IDENTITY_COLUMNS, RosterError, export_canvas, read_roster
from grader_tests.checkout import REPO_ROOT

ROSTER_HEADER = "Student,ID,SIS User ID,SIS Login ID,Section\n"


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Course:
    """A course whose gradebook has 02_softmax (10 points, graded) and 03_readout (5 points, no submissions).

    ada earns 9.5, ben 4 with a late penalty of 1, cy handed in nothing; "zed" is graded but
    not on the usual roster. Built once (creating a gradebook takes seconds); no test changes it.
    """
    tmp_path = tmp_path_factory.mktemp("canvas-course")
    shutil.copy2(REPO_ROOT / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    course = Course(tmp_path)
    due = datetime(2026, 3, 1, 12, 0)
    with Gradebook(course.db_url) as gb:
        gb.add_assignment("02_softmax", duedate=due)
        gb.add_notebook("softmax", "02_softmax")
        gb.add_grade_cell("test_softmax", "softmax", "02_softmax", max_score=6, cell_type="code")
        gb.add_grade_cell("test_entropy", "softmax", "02_softmax", max_score=4, cell_type="code")
        gb.add_assignment("03_readout")
        gb.add_notebook("readout", "03_readout")
        gb.add_grade_cell("test_exp_weights", "readout", "03_readout", max_score=5, cell_type="code")
        for student, scores, late in (("ada", (6, 3.5), None), ("ben", (4, 1), 1.0), ("zed", (2, 0), None)):
            gb.add_student(student)
            submission = gb.add_submission("02_softmax", student,
                                           timestamp=due + timedelta(hours=3 if late else -1))
            for grade, score in zip(sorted(submission.notebooks[0].grades, key=lambda g: g.name, reverse=True),
                                    scores):
                grade.auto_score = score  # test_softmax first, then test_entropy
            if late:
                submission.notebooks[0].late_submission_penalty = late
        gb.add_student("cy")
        gb.db.commit()
    return course


def write_roster(path, rows, header=ROSTER_HEADER):
    path.write_text(header + "".join(row + "\n" for row in rows), encoding="utf-8")
    return path


ROSTER_ROWS = ['"Lovelace, Ada",101,S101,ada,Sec 1', '"Bo, Ben",102,S102,ben,Sec 1', '"Yu, Cy",103,S103,cy,Sec 2']
ZED = "Zed,105,S105,zed,Sec 2"
FULL_ROSTER_ROWS = ROSTER_ROWS + [ZED]  # every graded student


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def test_canvas_file_has_the_identity_columns_then_one_column_per_graded_assignment(course, tmp_path):
    export_canvas(course.db_url, write_roster(tmp_path / "r.csv", FULL_ROSTER_ROWS), tmp_path / "canvas.csv")
    header = read_rows(tmp_path / "canvas.csv")[0]
    assert header == [*IDENTITY_COLUMNS, "02_softmax"]  # 03_readout has no submissions: no column of zeros


def test_second_row_gives_points_possible(course, tmp_path):
    export_canvas(course.db_url, write_roster(tmp_path / "r.csv", FULL_ROSTER_ROWS), tmp_path / "canvas.csv")
    assert read_rows(tmp_path / "canvas.csv")[1] == ["Points Possible", "", "", "", "", "10"]


def test_scores_are_gradebook_scores_minus_the_late_penalty_and_zero_without_submission(course, tmp_path):
    export_canvas(course.db_url, write_roster(tmp_path / "r.csv", FULL_ROSTER_ROWS), tmp_path / "canvas.csv")
    rows = {row[3]: row for row in read_rows(tmp_path / "canvas.csv")[2:]}
    assert rows["ada"] == ["Lovelace, Ada", "101", "S101", "ada", "Sec 1", "9.5"]
    assert rows["ben"][-1] == "4"  # 5 points, 1 off for lateness
    assert rows["cy"][-1] == "0"


def test_a_canvas_assignment_id_goes_in_parentheses_after_the_name(course, tmp_path):
    export_canvas(course.db_url, write_roster(tmp_path / "r.csv", FULL_ROSTER_ROWS), tmp_path / "canvas.csv",
                  {"02_softmax": "4711"})
    assert read_rows(tmp_path / "canvas.csv")[0][-1] == "02_softmax (4711)"


def test_graded_students_missing_from_the_roster_are_reported(course, tmp_path):
    result = export_canvas(course.db_url, write_roster(tmp_path / "r.csv", ROSTER_ROWS), tmp_path / "canvas.csv")
    assert result.not_in_roster == ["zed"] and result.not_in_gradebook == []


def test_roster_students_missing_from_the_gradebook_are_reported_and_still_written(course, tmp_path):
    roster = write_roster(tmp_path / "r.csv", FULL_ROSTER_ROWS + ['"New, Nu",104,S104,nu,Sec 2'])
    result = export_canvas(course.db_url, roster, tmp_path / "canvas.csv")
    assert result.not_in_gradebook == ["nu"] and result.not_in_roster == []
    assert [row[3] for row in read_rows(tmp_path / "canvas.csv")[2:]] == ["ada", "ben", "cy", "zed", "nu"]


def test_an_nbgrader_id_column_overrides_the_sis_login_match(course, tmp_path):
    roster = write_roster(tmp_path / "r.csv", ['"Lovelace, Ada",101,S101,alovelace,Sec 1,ada',
                                               *(row + "," + row.split(",")[-2] for row in FULL_ROSTER_ROWS[1:])],
                          header=ROSTER_HEADER.strip() + ",nbgrader_id\n")
    export_canvas(course.db_url, roster, tmp_path / "canvas.csv")
    assert read_rows(tmp_path / "canvas.csv")[2][3:] == ["alovelace", "Sec 1", "9.5"]


def test_a_canvas_gradebook_export_works_as_the_roster(course, tmp_path):
    roster = write_roster(tmp_path / "r.csv", ["    Points Possible,,,,,,100", *(r + ",7" for r in ROSTER_ROWS)],
                          header="\ufeff" + ROSTER_HEADER.strip() + ",Quiz 1 (99)\n")
    assert [entry.nbgrader_id for entry in read_roster(roster)] == ["ada", "ben", "cy"]


@pytest.mark.parametrize("content, message", [
    ("Student,ID,Section\nA,1,S\n", "has no column(s) SIS User ID, SIS Login ID"),
    (ROSTER_HEADER + "A,1,S1,,Sec\n", "empty 'SIS Login ID'"),
    (ROSTER_HEADER + "A,1,S1,ada,Sec\nB,2,S2,ada,Sec\n", "'ada' is already on line 2"),
])
def test_a_malformed_roster_is_refused_naming_the_problem(tmp_path, content, message):
    path = tmp_path / "r.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RosterError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_roster(path)


def test_command_fails_and_names_graded_students_missing_from_the_roster(course, tmp_path, capsys):
    roster = write_roster(tmp_path / "r.csv", ROSTER_ROWS)
    code = main(["export", "--course", str(course.root), "--canvas", str(tmp_path / "c.csv"), "--roster", str(roster)])
    err = capsys.readouterr().err
    assert code == 1 and "zed" in err and "nothing was written" in err


def test_a_failed_export_writes_no_file(course, tmp_path):
    roster = write_roster(tmp_path / "r.csv", ROSTER_ROWS)
    code = main(["export", "--course", str(course.root), "--canvas", str(tmp_path / "c.csv"), "--roster", str(roster)])
    assert code == 1 and sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]


def test_a_failed_export_leaves_an_earlier_file_as_it_was(course, tmp_path, capsys):
    main(["export", "--course", str(course.root), "--canvas", str(tmp_path / "c.csv"),
          "--roster", str(write_roster(tmp_path / "full.csv", FULL_ROSTER_ROWS))])
    earlier = (tmp_path / "c.csv").read_bytes()
    code = main(["export", "--course", str(course.root), "--canvas", str(tmp_path / "c.csv"),
                 "--roster", str(write_roster(tmp_path / "r.csv", ROSTER_ROWS))])
    assert code == 1 and "left unchanged" in capsys.readouterr().err
    assert (tmp_path / "c.csv").read_bytes() == earlier


def test_roster_text_a_spreadsheet_would_run_is_defused(course, tmp_path):
    roster = write_roster(tmp_path / "r.csv", [
        '"=HYPERLINK(""http://x"",""y"")",101,S101,ada,@SUM(A1)', '"Bo, Ben",102,S102,ben,Sec 1',
        '"Yu, Cy",103,S103,cy,-Sec 2', ZED.replace("S105", "+cmd|' /C calc'!A0")])
    export_canvas(course.db_url, roster, tmp_path / "canvas.csv")
    rows = {row[1]: row for row in read_rows(tmp_path / "canvas.csv")[2:]}
    assert rows["101"][0] == "'=HYPERLINK(\"http://x\",\"y\")" and rows["101"][4] == "'@SUM(A1)"
    assert rows["103"][4] == "'-Sec 2"
    assert rows["105"][2] == "'+cmd|' /C calc'!A0"


def test_a_student_id_a_spreadsheet_would_run_is_defused(course, tmp_path):
    hostile = "+cmd|' /C calc'!A0"
    roster = write_roster(tmp_path / "r.csv", FULL_ROSTER_ROWS + [f'Mallory,106,S106,"{hostile}",Sec 2'])
    result = export_canvas(course.db_url, roster, tmp_path / "canvas.csv")
    assert result.written and result.not_in_gradebook == [hostile]
    assert read_rows(tmp_path / "canvas.csv")[-1] == ["Mallory", "106", "S106", "'" + hostile, "Sec 2", "0"]


def test_scores_stay_numbers(course, tmp_path):
    export_canvas(course.db_url, write_roster(tmp_path / "r.csv", FULL_ROSTER_ROWS), tmp_path / "canvas.csv")
    rows = read_rows(tmp_path / "canvas.csv")
    assert rows[1][-1] == "10" and [row[-1] for row in rows[2:]] == ["9.5", "4", "0", "2"]


def test_command_succeeds_and_warns_about_roster_students_without_grades(course, tmp_path, capsys):
    roster = write_roster(tmp_path / "r.csv", ROSTER_ROWS + ["Zed,105,S105,zed,Sec 2", "Nu,106,S106,nu,Sec 2"])
    code = main(["export", "--course", str(course.root), "--canvas", str(tmp_path / "c.csv"), "--roster", str(roster),
                 "--assignment-id", "02_softmax=4711"])
    captured = capsys.readouterr()
    assert code == 0 and "nu" in captured.err and "warning" in captured.err
    assert "c.csv" in captured.out


def test_command_refuses_a_missing_roster_and_a_malformed_assignment_id(course, tmp_path):
    with pytest.raises(SystemExit, match="does not exist"):
        main(["export", "--course", str(course.root), "--canvas", str(tmp_path / "c.csv"), "--roster", str(tmp_path / "no.csv")])
    with pytest.raises(SystemExit, match="02_softmax=12345"):
        main(["export", "--course", str(course.root), "--canvas", str(tmp_path / "c.csv"), "--roster", "r.csv",
              "--assignment-id", "02_softmax"])


@pytest.mark.slow
def test_nbgrader_export_still_writes_its_own_grades_csv(course, tmp_path):
    export_canvas(course.db_url, write_roster(tmp_path / "r.csv", FULL_ROSTER_ROWS), tmp_path / "canvas.csv")
    run = subprocess.run([sys.executable, "-m", "nbgrader", "export"], cwd=course.root, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    rows = {(r["assignment"], r["student_id"]): r for r in csv.DictReader(open(course.root / "grades.csv"))}
    assert float(rows[("02_softmax", "ada")]["score"]) == 9.5
    assert float(rows[("02_softmax", "ben")]["late_submission_penalty"]) == 1.0
    assert float(rows[("02_softmax", "cy")]["score"]) == 0.0

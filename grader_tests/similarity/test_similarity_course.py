"""`grader similarity` on a course folder: what it reads, what it skips, where its findings go."""
from __future__ import annotations

import csv

import nbformat
import pytest
from bs4 import BeautifulSoup

from grader.demo.corpus import build_notebook, get_submission, parse_submission, write_submission
from grader.grading.ungradable_record import reason_path
from grader.reporting import write_report
from grader.similarity import similar_pairs
from grader_tests.checkout import SIMILARITY_CORPUS_DIR, create_course

ASSIGNMENT = "02_softmax"


@pytest.fixture
def course(tmp_path):
    """A course with the release and four hand-ins: a copied pair, the model answer, a blank."""
    course = create_course(tmp_path / "course", with_release=True)
    release = nbformat.read(course.release_notebook(ASSIGNMENT), as_version=4)
    source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
    handed = {"ben": get_submission(ASSIGNMENT, "loops_float32"),
              "ivy": parse_submission(SIMILARITY_CORPUS_DIR / ASSIGNMENT / "copy_of_loops_renamed.py"),
              "ada": get_submission(ASSIGNMENT, "model_answer"),
              "fay": get_submission(ASSIGNMENT, "blank")}
    for student, submission in handed.items():
        write_submission(course, student, ASSIGNMENT, build_notebook(submission, release, source))
    return course


def test_a_copied_pair_is_found_from_the_submitted_notebooks(course):
    report = similar_pairs(course, ASSIGNMENT)
    assert [(p.a, p.b) for p in report.pairs] == [("ben", "ivy")]
    assert report.compared == ["ada", "ben", "fay", "ivy"] and report.skipped == {}


def test_an_ungradable_submission_is_skipped_and_named_with_its_reason(course):
    path = reason_path(course, ASSIGNMENT, "ivy")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("the notebook is not valid JSON\n", encoding="utf-8")
    report = similar_pairs(course, ASSIGNMENT)
    assert report.skipped == {"ivy": "ungradable: the notebook is not valid JSON"}
    assert report.pairs == []


def test_an_unreadable_notebook_is_skipped_and_named(course):
    write_submission(course, "gus", ASSIGNMENT, b"{ not a notebook")
    report = similar_pairs(course, ASSIGNMENT)
    assert "gus" in report.skipped and "cannot be read" in report.skipped["gus"]
    assert [(p.a, p.b) for p in report.pairs] == [("ben", "ivy")]


def test_a_notebook_over_the_course_s_notebook_size_limit_is_skipped_and_named(course):
    with open(course.root / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write("\nc.GradingService.max_notebook_megabytes = 0.01\n")
    write_submission(course, "gus", ASSIGNMENT, b" " * 20_000)
    report = similar_pairs(course, ASSIGNMENT)
    assert report.skipped["gus"] == "softmax.ipynb is larger than 0.01 MB (c.GradingService.max_notebook_megabytes)"


def test_the_autograded_notebook_is_read_when_the_submitted_one_is_gone(course):
    submitted = course.submitted_notebook("ivy", ASSIGNMENT)
    autograded = course.autograded_notebook("ivy", ASSIGNMENT)
    autograded.parent.mkdir(parents=True)
    submitted.rename(autograded)
    assert [(p.a, p.b) for p in similar_pairs(course, ASSIGNMENT).pairs] == [("ben", "ivy")]


def test_grader_similarity_prints_the_pair_and_its_cells(course, capsys):
    from grader.cli import main

    assert main(["similarity", ASSIGNMENT, "--course", str(course.root)]) == 0
    out = capsys.readouterr().out
    assert "possibly written together" in out and "ben" in out and "ivy" in out and "softmax" in out


def test_grader_similarity_names_a_missing_release(course):
    from grader.cli import main

    course.release_notebook(ASSIGNMENT).unlink()
    with pytest.raises(SystemExit, match="grader release 02_softmax"):
        main(["similarity", ASSIGNMENT, "--course", str(course.root)])


def test_the_report_page_and_its_csv_carry_the_pair(course):
    page, table = write_report(course, [ASSIGNMENT])
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    rows = soup.select('table[data-table="similar_pairs"] tbody tr')
    assert [[td.get_text() for td in row.find_all("td")[:2]] for row in rows] == [["ben", "ivy"]]
    target = rows[0].find("a")["href"]
    assert target.startswith("#") and soup.find(id=target[1:]).select("pre mark")
    with open(table, newline="", encoding="utf-8") as handle:
        pairs = {(r["row"], r["column"]): r["value"] for r in csv.DictReader(handle) if r["table"] == "similar_pairs"}
    assert pairs[("ben | ivy", "student_a")] == "ben" and pairs[("ben | ivy", "student_b")] == "ivy"
    assert "softmax" in pairs[("ben | ivy", "cells")] and 0 < float(pairs[("ben | ivy", "score")]) <= 1
    assert pairs[("ben | ivy", "anchor")] == target[1:]


def test_the_demo_class_shows_its_planted_pair_and_no_other(tmp_path):
    from grader.demo.simulated_class import WRITTEN_TOGETHER, simulated_class
    from grader_tests.checkout import ASSIGNMENTS

    course = create_course(tmp_path / "demo", with_release=True)
    for student, assignment, notebook in simulated_class(course):
        write_submission(course, student, assignment,
                         notebook.encode("utf-8") if isinstance(notebook, str) else notebook)
    found = {a: [(p.a, p.b) for p in similar_pairs(course, a).pairs] for a in ASSIGNMENTS}
    assert found == {a: [WRITTEN_TOGETHER[a]] if a in WRITTEN_TOGETHER else [] for a in ASSIGNMENTS}

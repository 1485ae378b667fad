"""The same code earns the same scores whatever language its notebook was fetched in: the class's
02_softmax submissions, built once into the notebook an English reader fetches and once into the one
a Chinese reader fetches (nbgrader's exchange, the course's translating fetch), are graded by
``grader autograde`` in two copies of the course with one fixed seed for hidden inputs. The Chinese
readers (so recorded, as ``grader roster`` records them) then read their feedback pages, made by
``grader feedback``, in Chinese: the wrong softmax's diagnosis names its lesson section."""
from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys

import nbformat
import pytest
from fetched_notebooks import fetch, publish
from nbgrader.api import Gradebook

from grader.checks.misconceptions import wrong_answers
from grader.course import Course
from grader.demo.corpus import build_notebook, get_submission, write_submission
from grader.grading.preprocessors.feedback_page import assignment_title
from grader.language.catalogue import translate
from grader.language.notebook_catalogue import compile_catalogues, course_gettext
from grader.language.student_language import save_student_languages
from grader_tests.checkout import ASSIGNMENTS
from notebook_language.cells import is_prose

pytestmark = pytest.mark.slow
ASSIGNMENT = "02_softmax"
#: student -> the corpus submission they hand in: full marks, a named misconception, partial work.
HANDED_IN = {"ada": "model_answer", "cai": "softmax_no_max_subtraction", "eli": "partial_softmax_only"}
FIXED_SEED = "\nc.PrepareProbes.seed = 20240601\n"
RUN_TIMEOUT = 900  # seconds; generous for a loaded machine
CHINESE = re.compile(r"[\u4e00-\u9fff]")


def _course_in(language: str, template: Course, tmp_path) -> Course:
    """A copy of the released course whose students handed in notebooks fetched in ``language``."""
    course = Course(tmp_path / f"course-{language}")
    shutil.copytree(template.root, course.root)
    with open(course.root / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(FIXED_SEED)
    exchange, locales = tmp_path / f"exchange-{language}", tmp_path / "locales"
    compile_catalogues(course.root, locales)
    publish(course.root / "release" / ASSIGNMENT, exchange, ASSIGNMENT)
    source = nbformat.read(course.source_notebook(ASSIGNMENT), as_version=4)
    for student, name in HANDED_IN.items():
        home = tmp_path / f"home-{language}-{student}"
        home.mkdir()
        fetched = nbformat.read(fetch(exchange, home, ASSIGNMENT, locales, language=language), as_version=4)
        write_submission(course, student, ASSIGNMENT, build_notebook(get_submission(ASSIGNMENT, name), fetched, source))
    return course


def _grader(*arguments: str) -> None:
    result = subprocess.run([sys.executable, "-m", "grader.cli", *arguments], capture_output=True, text=True,
                            timeout=RUN_TIMEOUT)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def _autograde(course: Course) -> None:
    _grader("autograde", ASSIGNMENT, "--course", str(course.root), "--workers", "2")


def _scores(course: Course) -> dict[str, dict[str, float | None]]:
    with Gradebook(course.db_url) as gb:
        return {student: {g.name: g.score for g in
                          gb.find_submission_notebook(ASSIGNMENTS[ASSIGNMENT], ASSIGNMENT, student).grades}
                for student in HANDED_IN}


@pytest.fixture(scope="module")
def graded(released_course_template, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("languages")
    courses = {language: _course_in(language, released_course_template, tmp_path) for language in ("en", "zh")}
    for course in courses.values():
        _autograde(course)
    save_student_languages(courses["zh"].state_dir, {student: "zh" for student in HANDED_IN})
    _grader("feedback", ASSIGNMENT, "--course", str(courses["zh"].root))
    return courses


def test_every_check_scores_the_same_in_the_english_and_the_chinese_notebook(graded):
    english, chinese = _scores(graded["en"]), _scores(graded["zh"])
    assert chinese == english
    assert english["ada"] != english["cai"] != english["eli"]  # the class's scores differ, so the test can tell


def _graded_notebook(course: Course, student: str):
    return nbformat.read(course.root / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENTS[ASSIGNMENT]}.ipynb",
                         as_version=4)


def test_the_chinese_readers_graded_notebook_keeps_its_chinese_prose(graded):
    notebook = _graded_notebook(graded["zh"], "eli")
    prose = [cell.source for cell in notebook.cells if is_prose(cell)]
    assert prose and all(CHINESE.search(text) for text in prose)


def test_the_english_readers_graded_notebook_keeps_the_released_english_prose(graded):
    course = graded["en"]
    graded_notebook = _graded_notebook(course, "eli")
    released = nbformat.read(course.release_notebook(ASSIGNMENT), as_version=4)
    assert [c.source for c in graded_notebook.cells if is_prose(c)] == [c.source for c in released.cells if is_prose(c)]


def test_a_chinese_reader_who_fetched_in_chinese_reads_the_diagnosis_in_chinese_naming_the_lesson(graded):
    overflow = next(m for m in wrong_answers("softmax") if m.name == "no max subtraction")
    page = graded["zh"].feedback_page("cai", ASSIGNMENT).read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert '<html lang="zh-Hans"' in page
    assert f"{translate(overflow.name, 'zh')}：{translate(overflow.explanation, 'zh')}" in text
    assert overflow.lesson in text and overflow.explanation not in text


def test_the_chinese_readers_page_shows_the_score_the_english_reader_got_for_the_same_code(graded):
    with Gradebook(graded["en"].db_url) as gb:
        english = gb.find_submission(ASSIGNMENT, "cai").score
    page = graded["zh"].feedback_page("cai", ASSIGNMENT).read_text(encoding="utf-8")
    assert english < 21 and f"{english:g} / 21" in html.unescape(re.sub(r"<[^>]+>", "", page))


def test_a_chinese_readers_first_problems_and_the_pages_title_are_in_chinese(graded):
    page = graded["zh"].feedback_page("eli", ASSIGNMENT).read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    english_title = assignment_title(nbformat.read(graded["zh"].release_notebook(ASSIGNMENT), as_version=4))
    chinese_title = assignment_title(nbformat.read(graded["zh"].release_notebook(ASSIGNMENT), as_version=4),
                                     course_gettext(graded["zh"].root, "zh"))
    assert CHINESE.search(chinese_title) and chinese_title in text and english_title not in text
    assert "尚未作答：`" in text and "still raises NotImplementedError" not in text
    assert "First problem" not in text and "hidden test case" not in text

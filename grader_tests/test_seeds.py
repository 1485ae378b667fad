"""A submission's hidden inputs come from the course secret, the student, the assignment and its code."""
from __future__ import annotations

import stat
import threading

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from grader.seeds import SECRET_FILE, course_secret, notebook_fingerprint, submission_seed
from grader.verdicts import METADATA_KEY, PrepareProbes

SECRET = bytes(range(32))


def _notebook(code: str = "def f(x):\n    return x", prose: str = "Notes") -> nbformat.NotebookNode:
    return new_notebook(cells=[new_markdown_cell(prose), new_code_cell(code)])


def test_the_course_secret_is_created_once_private_and_then_reused(tmp_path):
    first = course_secret(tmp_path)
    assert len(first) == 32 and course_secret(tmp_path) == first
    assert stat.S_IMODE((tmp_path / SECRET_FILE).stat().st_mode) == 0o600


def test_graders_starting_at_once_agree_on_one_secret(tmp_path):
    secrets_seen = []
    threads = [threading.Thread(target=lambda: secrets_seen.append(course_secret(tmp_path))) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(secrets_seen)) == 1 and len(secrets_seen) == 16
    assert [p.name for p in tmp_path.iterdir()] == [SECRET_FILE]  # no temporary file left behind


def test_a_damaged_secret_file_is_an_error_naming_the_file(tmp_path):
    (tmp_path / SECRET_FILE).write_text("not hex\n")
    with pytest.raises(ValueError, match=SECRET_FILE):
        course_secret(tmp_path)


def test_outputs_prose_and_trailing_whitespace_do_not_change_the_fingerprint():
    plain = _notebook()
    rerun = _notebook(code="def f(x):\n    return x   \n\n", prose="Other notes")
    rerun.cells[1].outputs = [new_output("stream", name="stdout", text="hello")]
    assert notebook_fingerprint(rerun) == notebook_fingerprint(plain)


def test_changed_code_changes_the_fingerprint():
    assert notebook_fingerprint(_notebook("def f(x):\n    return 2 * x")) != notebook_fingerprint(_notebook())


@pytest.mark.parametrize("changed", ["secret", "student", "assignment", "notebook", "fingerprint"])
def test_each_ingredient_of_the_seed_changes_it(changed):
    ingredients = {"secret": SECRET, "student": "ada", "assignment": "02_softmax", "notebook": "softmax",
                   "fingerprint": "0" * 64}
    seed = submission_seed(**ingredients)
    other = {**ingredients, changed: bytes(32) if changed == "secret" else "x" + ingredients[changed]}
    assert submission_seed(**other) != seed
    assert submission_seed(**ingredients) == seed and 0 <= seed < 2**63


# ---- PrepareProbes on a real gradebook -----------------------------------------------------------

def _prepared_plans(course, student: str, notebook: nbformat.NotebookNode) -> dict[str, list]:
    """grade_id -> the wire cases PrepareProbes planned for each probe cell of ``notebook``."""
    resources = {"nbgrader": {"student": student, "assignment": "01_variance", "notebook": "variance",
                              "db_url": course.db_url}}
    preprocessor = PrepareProbes()
    preprocessor._course_root = lambda: str(course.root)  # as nbgrader's converter would report it
    prepared, _ = preprocessor.preprocess(nbformat.from_dict(notebook), resources)
    return {cell.metadata["nbgrader"]["grade_id"]: cell.metadata[METADATA_KEY]["cases"]
            for cell in prepared.cells if METADATA_KEY in cell.metadata}


@pytest.fixture
def release(course):
    return nbformat.read(course.release_notebook("01_variance"), as_version=4)


def _solution_cell(notebook, grade_id):
    return next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def test_the_same_submission_gets_the_same_hidden_inputs_every_time(course, release):
    first = _prepared_plans(course, "ada", release)
    assert first and _prepared_plans(course, "ada", release) == first


def test_a_changed_submission_gets_new_hidden_inputs(course, release):
    before = _prepared_plans(course, "ada", release)
    _solution_cell(release, "mean_and_variance").source += "\n# tried again"
    after = _prepared_plans(course, "ada", release)
    changed = [grade_id for grade_id in before if before[grade_id] != after[grade_id]]
    assert "test_mean_and_variance" in changed and "test_coin_dot_products" in changed


def test_two_students_with_the_same_notebook_get_different_hidden_inputs(course, release):
    assert _prepared_plans(course, "ada", release) != _prepared_plans(course, "ben", release)


def test_the_secret_lives_in_the_private_state_folder(course, release):
    _prepared_plans(course, "ada", release)
    assert (course.root / ".grader" / SECRET_FILE).exists()
    assert stat.S_IMODE((course.root / ".grader").stat().st_mode) == 0o700

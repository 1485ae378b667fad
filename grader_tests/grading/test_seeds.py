"""A submission's hidden inputs come from the course secret, the student, the assignment and what it hands in.

What is handed in counts by its behaviour: the code by its parse tree (comments and formatting do
not count, any changed expression does) and the bytes of the files beside the notebook.
"""
from __future__ import annotations

import stat
import threading

import cachetools
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from grader.grading import submission_fingerprint as fingerprints
from grader.grading.preprocessors.prepare_probes import PrepareProbes
from grader.grading.probe_cells import METADATA_KEY
from grader.grading.seeds import SECRET_FILE, course_secret, submission_seed
from grader.grading.submission_fingerprint import cell_form, notebook_fingerprint

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


MEAN = "def mean(x):\n    return sum(x) / len(x)\n"


def test_a_comment_does_not_change_the_fingerprint():
    commented = "# the average\ndef mean(x):\n    return sum(x) / len(x)  # not empty, see above\n"
    assert notebook_fingerprint(_notebook(commented)) == notebook_fingerprint(_notebook(MEAN))


def test_blank_lines_do_not_change_the_fingerprint():
    spaced = "\n\ndef mean(x):\n\n    return sum(x) / len(x)\n\n\n"
    assert notebook_fingerprint(_notebook(spaced)) == notebook_fingerprint(_notebook(MEAN))


def test_reformatting_does_not_change_the_fingerprint():
    reformatted = "def mean( x ) :\n  return (sum( x )\n          / len(x))\n"
    assert notebook_fingerprint(_notebook(reformatted)) == notebook_fingerprint(_notebook(MEAN))


def test_a_blank_or_comment_only_cell_does_not_change_the_fingerprint():
    notebook = _notebook(MEAN)
    notebook.cells += [new_code_cell(""), new_code_cell("# I will come back to this\n")]
    assert notebook_fingerprint(notebook) == notebook_fingerprint(_notebook(MEAN))


@pytest.mark.parametrize("changed", [
    "def mean(x):\n    return sum(x) / (len(x) - 1)\n",   # an expression
    "def mean(x):\n    return sum(x) // len(x)\n",        # an operator
    "def mean(y):\n    return sum(y) / len(y)\n",         # a name
    'def mean(x):\n    """The average."""\n    return sum(x) / len(x)\n',  # a docstring, readable as __doc__
])
def test_a_changed_expression_changes_the_fingerprint(changed):
    assert notebook_fingerprint(_notebook(changed)) != notebook_fingerprint(_notebook(MEAN))


def test_moving_code_to_another_cell_changes_the_fingerprint():
    split = new_notebook(cells=[new_code_cell("def mean(x):\n    return sum(x) / len(x)"), new_code_cell("y = 1")])
    joined = new_notebook(cells=[new_code_cell("def mean(x):\n    return sum(x) / len(x)\ny = 1")])
    assert notebook_fingerprint(split) != notebook_fingerprint(joined)


def test_magics_count_by_what_they_run_and_not_by_their_comments():
    assert cell_form("%timeit mean([1, 2])  \n# timing") == cell_form("%timeit mean([1, 2])")
    assert cell_form("%timeit mean([1, 2])") != cell_form("%timeit mean([1, 3])")
    assert cell_form("!ls data") != cell_form("!ls other")


def test_a_cell_with_a_syntax_error_gets_a_stable_fingerprint():
    broken = _notebook("def mean(x:\n    return sum(x) / len(x)\n")
    again = nbformat.from_dict(broken)
    assert notebook_fingerprint(broken) == notebook_fingerprint(again)
    assert cell_form(broken.cells[1].source).startswith("text:")


def test_a_syntax_error_cell_ignores_whitespace_but_not_its_text():
    broken = "def mean(x:\n    return sum(x) / len(x)\n"
    assert cell_form(broken) == cell_form("def mean(x:   \n\n  return  sum(x) / len(x)")
    assert cell_form(broken) != cell_form("def mean(x:\n    return sum(x) / len(x) - 1\n")


def test_a_deeply_nested_expression_gets_a_fingerprint_not_an_error():
    assert cell_form("x = " + "(" * 190 + "1" + ")" * 190).startswith("python:")
    assert cell_form("x = " + "-" * 100_000 + "1") == cell_form("x = " + "-" * 100_000 + "1")



def test_a_cell_text_seen_before_is_not_parsed_again(monkeypatch):
    parsed = []
    parse = fingerprints._parse
    monkeypatch.setattr(fingerprints, "_parse", lambda source: parsed.append(source) or parse(source))
    source = "def never_seen_before(x):\n    return x + 41\n"
    first = cell_form(source)
    assert cell_form(source) == first and parsed == [source]
    assert cell_form(source + "\n# a comment") == first and len(parsed) == 2


def test_the_forms_kept_are_bounded_and_a_form_let_go_is_computed_again(monkeypatch):
    monkeypatch.setattr(fingerprints, "_forms", cachetools.LRUCache(maxsize=3))
    forms = [cell_form(f"x = {k}") for k in range(7)]
    assert len(fingerprints._forms) == 3 and len(set(forms)) == 7
    assert cell_form("x = 0") == forms[0]

# ---- files beside the notebook -------------------------------------------------------------------

def _files_fingerprint(folder, ignore=(".ipynb_checkpoints",), overwritten=()):
    return fingerprints.handin_files_fingerprint(folder, fingerprints.handin_files(folder, ignore, overwritten))


def test_an_added_file_changes_the_files_fingerprint(tmp_path):
    (tmp_path / "answer.ipynb").write_text("{}")
    before = _files_fingerprint(tmp_path)
    (tmp_path / "data.csv").write_text("1,2\n")
    assert _files_fingerprint(tmp_path) != before


def test_a_changed_file_changes_the_files_fingerprint(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "helpers.py").write_text("SCALE = 1\n")
    before = _files_fingerprint(tmp_path)
    (tmp_path / "lib" / "helpers.py").write_text("SCALE = 2\n")
    assert _files_fingerprint(tmp_path) != before


def test_a_renamed_file_changes_the_files_fingerprint(tmp_path):
    (tmp_path / "a.txt").write_text("x")
    before = _files_fingerprint(tmp_path)
    (tmp_path / "a.txt").rename(tmp_path / "b.txt")
    assert _files_fingerprint(tmp_path) != before


def test_what_the_kernel_never_sees_does_not_change_the_files_fingerprint(tmp_path):
    (tmp_path / "data.csv").write_text("1,2\n")
    before = _files_fingerprint(tmp_path, overwritten=["instructor.csv"])
    (tmp_path / "timestamp.txt").write_text("2026-12-01 10:00:00.000000 UTC")  # new on every hand-in
    (tmp_path / "submission_secret.txt").write_text("abc")
    (tmp_path / "other.ipynb").write_text("{}")  # nbgrader copies no notebook
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "answer-checkpoint.ipynb").write_text("{}")
    (tmp_path / "instructor.csv").write_text("the instructor's copy replaces this")
    assert _files_fingerprint(tmp_path, overwritten=["instructor.csv"]) == before


def test_the_files_fingerprint_is_the_same_in_another_folder(tmp_path):
    for folder in (tmp_path / "one", tmp_path / "two"):
        (folder / "lib").mkdir(parents=True)
        (folder / "lib" / "helpers.py").write_text("SCALE = 1\n")
        (folder / "data.csv").write_text("1,2\n")
    assert _files_fingerprint(tmp_path / "one") == _files_fingerprint(tmp_path / "two")


def test_files_beyond_the_hashing_budget_count_by_name_and_size(tmp_path, monkeypatch):
    monkeypatch.setattr(fingerprints, "MAX_HASHED_FILE_BYTES", 10)
    (tmp_path / "a_small.txt").write_text("12345")
    (tmp_path / "b_large.bin").write_bytes(b"x" * 100)
    before = _files_fingerprint(tmp_path)
    (tmp_path / "b_large.bin").write_bytes(b"y" * 100)  # not read: same name and size
    assert _files_fingerprint(tmp_path) == before
    (tmp_path / "b_large.bin").write_bytes(b"y" * 101)
    assert _files_fingerprint(tmp_path) != before
    (tmp_path / "a_small.txt").write_text("54321")  # within the budget: read
    assert _files_fingerprint(tmp_path) != before


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


def _changed_cells(before: dict, after: dict) -> list[str]:
    return [grade_id for grade_id in before if before[grade_id] != after[grade_id]]


def test_a_changed_submission_gets_new_hidden_inputs(course, release):
    before = _prepared_plans(course, "ada", release)
    _solution_cell(release, "mean_and_variance").source += "\ntried_again = True"
    after = _prepared_plans(course, "ada", release)
    changed = _changed_cells(before, after)
    # The seed belongs to the whole submission, so the hidden inputs of other cells change too.
    # A cell with few possible inputs may draw the same ones again (coin_dot_products has 120
    # plans); the Monte Carlo cell draws six seeds of 32 bits and cannot.
    assert "test_mean_and_variance" in changed and "test_dot_variance_mc" in changed


def test_a_changed_comment_keeps_the_hidden_inputs(course, release):
    before = _prepared_plans(course, "ada", release)
    _solution_cell(release, "mean_and_variance").source += "\n\n# tried again, only a note this time"
    assert before and _prepared_plans(course, "ada", release) == before


def _handin_folder(course, student: str):
    folder = course.submitted_notebook(student, "01_variance").parent
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_a_file_added_beside_the_notebook_gives_new_hidden_inputs(course, release):
    folder = _handin_folder(course, "ada")
    before = _prepared_plans(course, "ada", release)
    (folder / "samples.csv").write_text("0.5,1.5\n")
    assert _changed_cells(before, _prepared_plans(course, "ada", release))


def test_a_file_changed_beside_the_notebook_gives_new_hidden_inputs(course, release):
    folder = _handin_folder(course, "ada")
    (folder / "samples.csv").write_text("0.5,1.5\n")
    before = _prepared_plans(course, "ada", release)
    (folder / "samples.csv").write_text("0.5,2.5\n")
    assert _changed_cells(before, _prepared_plans(course, "ada", release))


def test_a_new_hand_in_of_the_same_work_keeps_the_hidden_inputs(course, release):
    folder = _handin_folder(course, "ada")
    (folder / "timestamp.txt").write_text("2026-12-01 10:00:00.000000 UTC")
    before = _prepared_plans(course, "ada", release)
    (folder / "timestamp.txt").write_text("2026-12-01 11:00:00.000000 UTC")
    (folder / "submission_secret.txt").write_text("a new secret for the new hand-in")
    assert before and _prepared_plans(course, "ada", release) == before


def test_two_students_with_the_same_notebook_get_different_hidden_inputs(course, release):
    assert _prepared_plans(course, "ada", release) != _prepared_plans(course, "ben", release)


def test_the_secret_lives_in_the_private_state_folder(course, release):
    _prepared_plans(course, "ada", release)
    assert (course.root / ".grader" / SECRET_FILE).exists()
    assert stat.S_IMODE((course.root / ".grader").stat().st_mode) == 0o700


def test_a_submission_with_a_syntax_error_gets_the_same_hidden_inputs_every_time(course, release):
    _solution_cell(release, "mean_and_variance").source += "\nreturn (  # unfinished"
    first = _prepared_plans(course, "ada", release)
    assert first and _prepared_plans(course, "ada", release) == first

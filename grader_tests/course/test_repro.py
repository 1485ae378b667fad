"""Specification of ``python -m solutions.repro``: every claim of the lessons is recomputed and passes."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from solutions import repro

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def results():
    return repro.run_claims()


def failing_checks(result):
    return [
        f"{c.label}: expected {c.expected}, measured {c.measured}, tolerance {c.tolerance}"
        for c in result.checks
        if not c.passed
    ]


@pytest.mark.parametrize("index", range(len(repro.CLAIMS)), ids=[claim.__name__ for claim in repro.CLAIMS])
def test_claim_is_reproduced(results, index):
    result = results[index]
    assert result.checks, "a claim must compare at least one quantity"
    assert result.passed, failing_checks(result)


def test_every_claim_of_the_course_specification_has_a_row(results):
    lessons = [result.lesson for result in results]
    assert len(results) == 13
    assert lessons.count("L3 §4") == 2 and lessons.count("Blog") == 2


def test_the_table_shows_every_column_and_one_verdict_per_check(results):
    console = Console(record=True, width=200)
    console.print(repro.claims_table(results))
    text = console.export_text()
    for header in ("claim", "lesson", "expected", "measured", "tolerance", "verdict"):
        assert header in text
    assert text.count("PASS") == sum(len(result.checks) for result in results)


def test_main_exits_non_zero_when_a_claim_fails(monkeypatch, capsys):
    broken = repro.ClaimResult("a wrong claim", "nowhere", (repro.approx("x", "1.0", 2.0, 0.1, "test"),))
    monkeypatch.setattr(repro, "CLAIMS", (lambda seed: broken,))
    assert repro.main([]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_module_run_as_a_script_exits_zero():
    completed = subprocess.run(
        [sys.executable, "-m", "solutions.repro"], cwd=REPOSITORY, capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "13 of 13 claims reproduced" in completed.stdout


@pytest.mark.parametrize(
    "printed, half_unit", [("0.787", 0.0005), ("2.95", 0.005), ("4", 0.5), ("54.598150", 5e-7)]
)
def test_lesson_rounding_is_half_a_unit_in_the_last_printed_digit(printed, half_unit):
    assert repro.lesson_rounding(printed) == pytest.approx(half_unit)


def test_monte_carlo_tolerance_doubles_the_variance_when_the_lesson_also_sampled():
    own = repro.monte_carlo("x", "1.000", 1.0, 0.01, lesson_measured=True)
    exact = repro.monte_carlo("x", "1.000", 1.0, 0.01, lesson_measured=False)
    assert own.tolerance.startswith(f"±{4 * np.sqrt(2) * 0.01:.2g}")
    assert exact.tolerance.startswith(f"±{4 * 0.01:.2g}")


def test_exact_checks_fail_beyond_one_part_in_a_million():
    assert repro.exact("w", "54.598150", 54.598150 * (1 + 0.9e-6)).passed
    assert not repro.exact("w", "54.598150", 54.598150 * (1 + 1.1e-6)).passed


def test_blog_row_divided_by_eight_rounds_to_0_326_as_its_table_prints(results):
    blog_rows = [check for result in results if result.lesson == "Blog" for check in result.checks
                 if check.label.startswith("/ 8")]
    assert [check.expected for check in blog_rows] == ["0.419", "0.254", "0.326"]
    assert all(check.passed for check in blog_rows)


def test_the_blog_texts_0_327_is_not_the_rounding_of_the_last_weight():
    weights = np.exp([14 / 8, 10 / 8, 12 / 8]) / np.exp([14 / 8, 10 / 8, 12 / 8]).sum()
    assert not repro.rounded("p3", "0.327", weights[2]).passed
    assert repro.rounded("p3", "0.326", weights[2]).passed


def test_the_summary_is_one_line_without_the_table_and_names_a_claim_not_reproduced(monkeypatch, capsys):
    good = repro.ClaimResult("a right claim", "L1", (repro.approx("x", "1.0", 1.0, 0.1, "test"),))
    broken = repro.ClaimResult("a wrong claim", "nowhere", (repro.approx("x", "1.0", 2.0, 0.1, "test"),))
    monkeypatch.setattr(repro, "CLAIMS", (lambda seed: good, lambda seed: broken))
    assert repro.main(["--summary"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["not reproduced: a wrong claim", f"1 of 2 claims reproduced (seed {repro.DEFAULT_SEED})."]

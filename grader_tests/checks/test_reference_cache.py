"""Simulated reference statistics are computed once per course and shared by every process."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from grader.checks import checks_module, reference_cache

readout_checks = checks_module("03_readout")
expected_accuracy = readout_checks.expected_accuracy


@pytest.fixture
def course_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(reference_cache, "_memory", {})
    reference_cache.use_folder(tmp_path)
    yield tmp_path
    reference_cache.use_folder(None)


def counting(calls):
    @reference_cache.remembered
    def square(x):
        calls.append(x)
        return x * x
    return square


def test_a_value_is_computed_once_per_argument(course_cache):
    calls = []
    square = counting(calls)
    assert [square(3), square(3), square(4)] == [9.0, 9.0, 16.0]
    assert calls == [3, 4]


def test_another_process_of_the_course_reads_the_value_instead_of_computing_it(course_cache, monkeypatch):
    first = expected_accuracy(20, 8, 2.0, "softmax")
    monkeypatch.setattr(reference_cache, "_memory", {})  # as a fresh worker process
    monkeypatch.setattr(readout_checks, "retrieval_accuracies", lambda *a, **k: pytest.fail("simulated again"))
    assert expected_accuracy(20, 8, 2.0, "softmax") == first


def test_a_stored_value_is_the_simulation_bit_for_bit(course_cache):
    stored = expected_accuracy(12, 8, 3.0, "linear")
    block = readout_checks.accuracy_block.uncached(9, 8, 3.0, "linear", readout_checks.RETRIEVAL_REFERENCE_TRIALS)
    assert stored == block[12 - 9]


def test_neighbouring_numbers_of_pairs_are_simulated_together_once(course_cache, monkeypatch):
    simulated = []
    simulate = readout_checks.retrieval_accuracies
    monkeypatch.setattr(readout_checks, "retrieval_accuracies",
                        lambda n_pairs_each, *a, **k: simulated.append(n_pairs_each) or simulate(n_pairs_each, *a, **k))
    block = readout_checks.ACCURACY_BLOCK
    for n_pairs in (block + 1, 2 * block, block + 2, 2 * block + 1):
        expected_accuracy(n_pairs, 4, 2.0, "softmax")
    assert simulated == [tuple(range(block + 1, 2 * block + 1)), tuple(range(2 * block + 1, 3 * block + 1))]


def test_values_of_other_grading_code_are_not_reused(course_cache, monkeypatch):
    calls = []
    square = counting(calls)
    square(5)
    monkeypatch.setattr(reference_cache, "_memory", {})
    monkeypatch.setattr("grader.checks.reference_cache.grader_version", lambda: "other code")
    square(5)
    assert calls == [5, 5]


def test_concurrent_processes_share_one_table(course_cache):
    code = ("import sys; from grader.checks import reference_cache as c\n"
            "c.use_folder(sys.argv[1])\n"
            "f = c.remembered(lambda x: x + 0.5)\n"
            "print(sum(f(i) for i in range(200)))\n")
    runs = [subprocess.Popen([sys.executable, "-c", code, str(course_cache)], stdout=subprocess.PIPE, text=True)
            for _ in range(3)]
    outputs = [run.communicate(timeout=120)[0].strip() for run in runs]
    assert outputs == [str(sum(i + 0.5 for i in range(200)))] * 3
    import sqlite3
    with sqlite3.connect(course_cache / reference_cache.FILE_NAME) as db:
        assert db.execute(f"SELECT COUNT(*) FROM {reference_cache.TABLE}").fetchone()[0] == 200


def test_without_a_course_folder_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.setattr(reference_cache, "_memory", {})
    reference_cache.use_folder(None)
    monkeypatch.chdir(tmp_path)
    calls = []
    square = counting(calls)
    assert square(2) == square(2) == 4.0 and calls == [2]
    assert list(tmp_path.iterdir()) == []


def test_an_unreadable_table_only_means_computing_again(course_cache):
    (course_cache / reference_cache.FILE_NAME).write_bytes(b"this is not an SQLite database" * 100)
    calls = []
    square = counting(calls)
    assert square(7) == 49.0 and calls == [7]


def test_a_saturation_band_is_computed_once_per_course(course_cache):
    saturation_band = checks_module("02_softmax").saturation_band

    first = saturation_band(8, 16, 100, 2.0)
    code = ("import json, sys, solutions; from grader.checks import reference_cache as c\n"
            "c.use_folder(sys.argv[1])\n"
            "def simulated_again(*args, **kwargs): raise SystemExit('simulated again')\n"
            "solutions.saturation_trials = simulated_again\n"
            "from grader.checks import checks_module; saturation_band = checks_module('02_softmax').saturation_band\n"
            "print(json.dumps(saturation_band(8, 16, 100, 2.0)))\n")
    worker = subprocess.run([sys.executable, "-c", code, str(course_cache)], capture_output=True, text=True,
                            timeout=120)  # a fresh worker process of the same course
    assert worker.returncode == 0, worker.stderr[-2000:]
    assert json.loads(worker.stdout) == first


def test_a_remembered_value_comes_back_as_json_gives_it_the_first_time_too(course_cache):
    pairs = reference_cache.remembered(lambda x: {"mean": (x, x / 3)})
    assert pairs(1.0) == {"mean": [1.0, 1.0 / 3]}


def test_a_process_that_needs_a_value_another_is_computing_waits_for_it_instead_of_computing_it(course_cache):
    arguments = (1, 4, 2.0, "softmax", 50)
    key = reference_cache.key_of(readout_checks.accuracy_block, arguments)
    code = ("import sys; from grader.checks import reference_cache, checks_module\n"
            "checks = checks_module('03_readout')\n"
            "reference_cache.use_folder(sys.argv[1])\n"
            "checks.retrieval_accuracies = lambda *a, **k: sys.exit('simulated although another process was')\n"
            "print('ready', flush=True)\n"
            f"print(checks.accuracy_block{arguments!r})\n")
    with reference_cache.computing(course_cache, key):
        waiting = subprocess.Popen([sys.executable, "-c", code, str(course_cache)], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        assert waiting.stdout.readline().strip() == "ready"
        time.sleep(1.0)  # ample for a process that does not wait to look, simulate and fail
        assert waiting.poll() is None
        reference_cache._store(course_cache, key, json.dumps([0.25] * readout_checks.ACCURACY_BLOCK))
    output, errors = waiting.communicate(timeout=60)
    assert waiting.returncode == 0, errors
    assert json.loads(output) == [0.25] * readout_checks.ACCURACY_BLOCK

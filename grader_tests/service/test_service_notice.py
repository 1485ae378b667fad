"""The service notices hand-ins from file system events on inbound/, with polling as the fallback."""
from __future__ import annotations

import time

from grader.service.notice import Wakeup


def test_a_folder_landing_in_the_watched_folder_wakes_the_service(tmp_path):
    wakeup = Wakeup()
    assert wakeup.watch(tmp_path)
    try:
        wakeup.wait(0)  # nothing pending before the hand-in
        started = time.monotonic()
        (tmp_path / "ann+02_softmax+2026-12-01 10:00:00.000000 UTC+x").mkdir()
        assert wakeup.wait(30)
        assert time.monotonic() - started < 30
    finally:
        wakeup.close()


def test_what_happens_inside_a_hand_in_folder_is_not_watched(tmp_path):
    folder = tmp_path / "ann+02_softmax+2026-12-01 10:00:00.000000 UTC+x"
    folder.mkdir()
    wakeup = Wakeup()
    assert wakeup.watch(tmp_path)
    try:
        wakeup.wait(0.5)  # let the creation above settle
        (folder / "deep").mkdir()
        (folder / "deep" / "file").write_text("x")
        assert not wakeup.wait(0.5)
    finally:
        wakeup.close()


def test_a_folder_that_cannot_be_watched_leaves_the_poll_timer(tmp_path):
    wakeup = Wakeup()
    assert not wakeup.watch(tmp_path / "not-there-yet")
    started = time.monotonic()
    assert not wakeup.wait(0.2)
    assert time.monotonic() - started >= 0.2


def test_a_finished_grading_wakes_the_service(tmp_path):
    import concurrent.futures as cf

    wakeup = Wakeup()
    with cf.ThreadPoolExecutor(1) as pool:
        pool.submit(time.sleep, 0.1).add_done_callback(wakeup.set)
        assert wakeup.wait(30)

"""The demo's last step: a student hands in through the exchange and fetches graded feedback."""
from __future__ import annotations

import getpass
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from rich.console import Console

from grader.demo.service_handin import STUDENT, show_student_loop

pytestmark = pytest.mark.slow


def test_demo_student_hands_in_and_fetches_graded_feedback(course, monkeypatch):
    top = Path(tempfile.mkdtemp(prefix="sal-demo-"))
    monkeypatch.setenv("GRADER_EXCHANGE_ROOT", str(top / "exchange"))
    console = Console(record=True, width=200)
    try:
        assert show_student_loop(course, console, exchange_root=top / "exchange") == 0
        text = console.export_text()
        account = STUDENT if os.geteuid() == 0 else getpass.getuser()
        assert f"grader watch --once: {account} 02_softmax" in text
        assert "first problem: softmax: no max subtraction" in text
        pages = list((top / "home" / STUDENT / "02_softmax" / "feedback").glob("*/softmax.html"))
        assert len(pages) == 1 and "no max subtraction" in pages[0].read_text()
    finally:
        shutil.rmtree(top, ignore_errors=True)

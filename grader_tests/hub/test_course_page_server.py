"""The course page in a real Jupyter server, without a hub: nbgrader's assignment list beside it, a
real exchange on disk, the page's forms posted as a browser posts them (its cookie and form token).

A Fetch fills the page with the notebook's link and Submit; a Submit the exchange cannot take (its
``inbound`` folder is missing) shows the page again with what failed, nbgrader's reason in one line
and what to do, instead of an error page. A student whose hub language is Chinese reads the page in
Chinese.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
import requests
from bs4 import BeautifulSoup
from nbformat.v4 import new_markdown_cell, new_notebook

from grader.hub import course_page
from grader.hub.course_page import COURSE_PAGE_POLICY, WORDS
from grader.hub.lifecycle import free_port

pytestmark = pytest.mark.slow

COURSE, ASSIGNMENT, TOKEN = "course101", "01_demo", "course-page-test"
START_SECONDS = 60


def start_server(tmp_path: Path, language: str) -> SimpleNamespace:
    home, exchange = tmp_path / "home", tmp_path / "exchange"
    home.mkdir()
    released = exchange / COURSE / "outbound" / ASSIGNMENT
    released.mkdir(parents=True)
    nbformat.write(new_notebook(cells=[new_markdown_cell("Hello")]), released / "demo.ipynb")
    (home / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.Exchange.root = {str(exchange)!r}\nc.CourseDirectory.course_id = {COURSE!r}\n")
    modules = tmp_path / "modules"  # the page as the students' environment holds it: a top-level module
    modules.mkdir()
    shutil.copyfile(course_page.__file__, modules / f"{course_page.MODULE_NAME}.py")
    config = tmp_path / "config"
    config.mkdir()
    (config / "jupyter_server_config.json").write_text(json.dumps({"ServerApp": {"jpserver_extensions": {
        "nbgrader.server_extensions.assignment_list": True, course_page.MODULE_NAME: True}}}))
    port = free_port()
    env = {**os.environ, "HOME": str(home), "JUPYTER_CONFIG_DIR": str(config),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(modules), os.environ.get("PYTHONPATH")])),
           course_page.LANGUAGE_VARIABLE: language}
    log = (tmp_path / "server.log").open("w")
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "jupyter-server"), "--no-browser", "--allow-root", "--ip=127.0.0.1",
         f"--port={port}", f"--ServerApp.token={TOKEN}", f"--ServerApp.root_dir={home}"],
        cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            if requests.get(f"{url}/api/status", params={"token": TOKEN}, timeout=2).ok:
                break
        except requests.ConnectionError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail("the Jupyter server did not start:\n" + (tmp_path / "server.log").read_text()[-3000:])
        time.sleep(0.2)
    return SimpleNamespace(url=url, process=process, exchange=exchange, log=tmp_path / "server.log")


@pytest.fixture
def server_in(tmp_path):
    """Start the server for a student of the given language (once per test); stopped afterwards."""
    started = []

    def start(language: str) -> SimpleNamespace:
        started.append(start_server(tmp_path, language))
        return started[-1]

    yield start
    for server in started:
        server.process.terminate()
        server.process.wait(timeout=30)


def open_page(server) -> tuple[requests.Session, requests.Response]:
    """A browser's session: the token once in the address, then its cookies."""
    session = requests.Session()
    page = session.get(f"{server.url}/course", params={"token": TOKEN}, timeout=60)
    assert page.status_code == 200, page.text[-2000:]
    return session, page


def press(session: requests.Session, server, page: requests.Response, button: str) -> requests.Response:
    """Post the form of ``button`` ("fetch" or "submit") as the browser posts it."""
    form = BeautifulSoup(page.text, "html.parser").select_one(f"#assignment-{ASSIGNMENT} button.{button}").parent
    fields = {field["name"]: field["value"] for field in form.select("input[type=hidden]")}
    return session.post(server.url + form["action"], data=fields, timeout=120)


def test_fetch_on_the_course_page_shows_the_notebook_and_submit(server_in):
    server = server_in("en")
    session, page = open_page(server)
    fetched = press(session, server, page, "fetch")
    assert fetched.status_code == 200, fetched.text[-2000:]
    soup = BeautifulSoup(fetched.text, "html.parser")
    assert soup.select_one(f"#assignment-{ASSIGNMENT} a.notebook").get_text() == "demo.ipynb"
    assert soup.select_one(f"#assignment-{ASSIGNMENT} button.submit") is not None


def test_a_submit_the_exchange_cannot_take_shows_the_page_with_what_failed_and_what_to_do(server_in):
    server = server_in("en")
    session, page = open_page(server)
    page = press(session, server, page, "fetch")
    answer = press(session, server, page, "submit")
    soup = BeautifulSoup(answer.text, "html.parser")
    alert = soup.select_one('[role="alert"]')
    assert answer.status_code == 500
    assert alert is not None, answer.text[-2000:]
    said = alert.get_text(" ", strip=True)
    assert said.startswith(f"Submit of {ASSIGNMENT} did not go through: ") and "inbound" in said.lower()
    assert "press Submit again" in said and "Traceback" not in said and "ExchangeError" not in said
    assert soup.select_one(f"#assignment-{ASSIGNMENT} button.submit") is not None  # the page, to try again


def test_a_chinese_reader_lands_on_the_page_in_chinese(server_in):
    _session, page = open_page(server_in("zh"))
    soup = BeautifulSoup(page.text, "html.parser")
    assert soup.html["lang"] == "zh-Hans"
    assert soup.select_one(f"#assignment-{ASSIGNMENT} button.fetch").get_text() == WORDS["zh"]["fetch"]
    assert soup.h1.get_text() == WORDS["zh"]["title"]


def test_the_course_page_runs_no_script_and_posts_its_forms_only_to_its_own_server(server_in):
    _session, page = open_page(server_in("en"))
    assert page.headers["Content-Security-Policy"] == COURSE_PAGE_POLICY
    assert "default-src 'none'" in COURSE_PAGE_POLICY and "form-action 'self'" in COURSE_PAGE_POLICY

"""Take the documentation's pictures (``docs/images/*.png``) with the test suite's own harnesses.

    make demo                                            # first: the demo's pages in demo-course/
    sudo .venv/bin/python docs/take_pictures.py          # every picture
    sudo .venv/bin/python docs/take_pictures.py --no-hub # only the demo's pages (and the Chinese ones)
    .venv/bin/python docs/take_pictures.py --languages-only  # a Chinese student's feedback page and notebook

The demo's pages (the class report, the page of an ungradable hand-in) are opened from
``demo-course/`` in headless Chromium (``grader_tests/browser.py``). The student's path is taken on
a course hub started with ``grader hub up`` as the hub tests start it (``grader_tests/hub_session.py``),
through JupyterLab's pages with the hub tests' ``HubUser`` (``grader_tests/hub_browser.py``); the
hub, its accounts and folders are removed afterwards, as root. Every picture is reduced to a small
palette and saved optimised (Pillow), about 100 KB each.
"""
from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from PIL import Image
from playwright.sync_api import Error as PlaywrightError

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "grader_tests"))

from browser import chromium, open_page  # noqa: E402
from hub_browser import HubUser, feedback_frame  # noqa: E402
from hub_session import ASSIGNMENT, hub_skip_reason, stop_hub, wait_ready  # noqa: E402
from hub_student_path import run_wrong_softmax  # noqa: E402

from grader.course import Course, read_timestamp  # noqa: E402
from grader.grading.status_page import ungradable_page  # noqa: E402
from grader.grading.ungradable_record import ungradable_code, ungradable_reason  # noqa: E402
from grader.hub.accounts import Accounts  # noqa: E402
from grader.hub.layout import HubLayout  # noqa: E402

IMAGES = REPO / "docs" / "images"
TARGET_BYTES = 100_000
SETTLE_MS = 2000
WIDTH = 1200  # pixels of a picture on the page; larger screenshots are scaled down


def save_small(screenshot: Path, name: str, height: int | None = None) -> Path:
    """``screenshot`` cropped to ``height`` (of the page's top), scaled to WIDTH, with as many
    colours as fit TARGET_BYTES, as ``docs/images/<name>.png``."""
    image = Image.open(screenshot).convert("RGB")
    if height is not None and image.height > height:
        image = image.crop((0, 0, image.width, height))
    if image.width > WIDTH:
        image = image.resize((WIDTH, round(image.height * WIDTH / image.width)), Image.LANCZOS)
    for colours in (128, 96, 64, 48, 32, 24, 16):
        buffer = io.BytesIO()
        image.quantize(colors=colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE) \
            .save(buffer, format="PNG", optimize=True)
        if buffer.tell() <= TARGET_BYTES:
            break
    out = IMAGES / f"{name}.png"
    out.write_bytes(buffer.getvalue())
    print(f"{out.relative_to(REPO)}: {image.width}x{image.height}, {colours} colours, {buffer.tell() // 1024} KB")
    return out


def demo_pictures(browser, demo: Path, scratch: Path) -> None:
    """The class report of the demo's class and the page of its ungradable hand-in."""
    report = demo / "reports" / "class-report.html"
    ungradable = sorted((demo / ".grader" / "ungradable").glob("*/*.txt"))
    if not report.exists() or not ungradable:
        raise SystemExit(f"no class report or ungradable hand-in in {demo}: run `make demo` first")
    open_page(browser, report, scratch / "report.png")
    save_small(scratch / "report.png", "class-report", height=1100)
    assignment, student = ungradable[0].parent.name, ungradable[0].stem
    page = next((demo / "feedback" / student / assignment).glob("*.html"))
    open_page(browser, page, scratch / "ungradable.png")
    save_small(scratch / "ungradable.png", "ungradable-page", height=470)
    # The same hand-in's page as a student whose roster language is Chinese reads it.
    course = Course(demo)
    chinese = scratch / "ungradable-zh.html"
    chinese.write_text(ungradable_page(assignment, ungradable_reason(course, assignment, student), student=student,
                                       handed_in=read_timestamp(demo / "submitted" / student / assignment) or "",
                                       language="zh", code=ungradable_code(course, assignment, student)),
                       encoding="utf-8")
    open_page(browser, chinese, scratch / "ungradable-zh.png")
    save_small(scratch / "ungradable-zh.png", "ungradable-page-zh", height=640)


def language_pictures(browser, scratch: Path) -> None:
    """The feedback page of a wrong softmax as a student whose roster language is Chinese reads it,
    and the top of the notebook as that student fetches it (its prose from the course's catalogue)."""
    import nbformat
    from nbconvert import HTMLExporter

    from grader.demo.corpus import get_submission, hand_in
    from grader.grading import nbgrader_apps
    from grader.grading.grade_one import grade_one
    from grader.language.notebook_catalogue import compile_catalogues
    from grader.language.student_language import save_student_languages
    from grader.release import generate_release
    from grader_tests.checkout import create_course
    from notebook_language.cells import translate_notebook
    from notebook_language.fetch import prose_translations

    course = create_course(scratch / "languages")
    generate_release(course, ASSIGNMENT)
    save_student_languages(course.state_dir, {"li": "zh"})
    hand_in(course, "li", get_submission(ASSIGNMENT, "softmax_no_max_subtraction"))
    if not (grade_one(str(course.root), ASSIGNMENT, "li").graded
            and nbgrader_apps.generate_feedback(course, ASSIGNMENT, "li")["success"]):
        raise SystemExit("the Chinese student's hand-in could not be graded")
    open_page(browser, course.feedback_page("li", ASSIGNMENT), scratch / "feedback-zh.png",
              viewport={"width": 1440, "height": 900})
    save_small(scratch / "feedback-zh.png", "student-feedback-page-zh", height=1300)
    compile_catalogues(REPO, scratch / "locales")
    chinese = prose_translations(scratch / "locales", "zh")
    notebook = nbformat.from_dict(translate_notebook(
        nbformat.read(course.release_notebook(ASSIGNMENT), as_version=4), chinese.gettext))
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(notebook)
    (scratch / "notebook-zh.html").write_text(body, encoding="utf-8")
    open_page(browser, scratch / "notebook-zh.html", scratch / "notebook-zh.png",
              viewport={"width": 1200, "height": 900})
    save_small(scratch / "notebook-zh.png", "student-notebook-zh", height=1100)


def settle(user: HubUser) -> None:
    """Give JupyterLab time to paint what scrolled into view (it renders a notebook's cells lazily)."""
    user.page.wait_for_timeout(SETTLE_MS)


def loaded_feedback_page(user: HubUser, tries: int = 5) -> None:
    """Wait until the feedback page has loaded in JupyterLab's viewer; the viewer's frame may
    navigate while it is asked (an Error from Playwright), then it is asked again."""
    for attempt in range(tries):
        try:
            feedback_frame(user)
            return
        except PlaywrightError:
            if attempt == tries - 1:
                raise
            time.sleep(1)


def student_path(browser, hub_url: str, account, scratch: Path) -> None:
    """A student lands on the course page, fetches 02_softmax, writes a softmax without the max
    subtraction, validates, hands in and opens the feedback page, then sees the hand-in on the
    course page: one picture per step."""
    user = HubUser(browser, hub_url, account, scratch)
    try:
        user.sign_in()
        user.page.locator(f"#assignment-{ASSIGNMENT} button.fetch").wait_for()
        save_small(user.shot("first-screen"), "student-first-screen", height=400)
        user.open_jupyterlab()
        user.open_assignment_list()
        user.page.locator("#released_assignments_list .list_item", has_text=ASSIGNMENT).wait_for()
        save_small(user.shot("assignment-list"), "student-assignment-list", height=400)
        user.fetch(ASSIGNMENT)
        run_wrong_softmax(user)
        settle(user)
        save_small(user.shot("notebook"), "student-notebook")
        user.save()
        user.validate()
        settle(user)
        save_small(user.shot("validate"), "student-validate")
        user.close_dialog()
        user.submit(ASSIGNMENT)
        user.wait_for_feedback(ASSIGNMENT, 1)
        save_small(user.shot("feedback-available"), "student-feedback-available", height=400)
        user.fetch_and_view_feedback(ASSIGNMENT)
        user.open_file("softmax.html")
        loaded_feedback_page(user)
        settle(user)
        save_small(user.shot("feedback-page"), "student-feedback-page")
        user.page.goto(f"{user.server_url}/course", wait_until="load")
        user.page.locator(f"#assignment-{ASSIGNMENT} a.feedback").wait_for()
        save_small(user.shot("feedback-list"), "student-feedback-list", height=450)
    finally:
        user.close()


def chinese_student_pictures(browser, hub_url: str, account, scratch: Path) -> None:
    """A student chooses Chinese on the hub's language page, fetches 02_softmax and runs a softmax
    without the max subtraction: the language page, and the visible test failing in Chinese."""
    user = HubUser(browser, hub_url, account, scratch / "chinese")
    try:
        user.sign_in()
        user.page.locator("a.language").click()
        user.page.locator('input[name="language"][value="zh"]').wait_for()
        save_small(user.shot("language-page"), "student-language-page", height=520)
        user.page.locator('input[name="language"][value="zh"]').check()
        user.page.locator("button.save").click()
        user.wait_for_first_screen()
        user.page.locator(f"#assignment-{ASSIGNMENT} button.fetch").click()
        user.page.locator(f"#assignment-{ASSIGNMENT} a.notebook").wait_for()
        user.page.goto(f"{user.server_url}/lab/tree/{ASSIGNMENT}/softmax.ipynb", wait_until="load")
        user.page.locator(".jp-NotebookPanel:visible .jp-Notebook-cell").first.wait_for()
        test_cell = run_wrong_softmax(user)
        test_cell.locator(".jp-OutputArea").first.evaluate("area => area.scrollIntoView({block: 'end'})")
        settle(user)
        save_small(user.shot("visible-test-zh"), "student-visible-test-zh")
    finally:
        user.close()


def hub_pictures(browser, scratch: Path) -> None:
    """Start ``grader hub up`` (two students, 02_softmax), take the student's path and a Chinese
    student's first steps, remove the hub."""
    reason = hub_skip_reason()
    if reason:
        raise SystemExit(f"the course hub cannot run here: {reason}")
    root = Path(tempfile.mkdtemp(prefix="sal-hub-"))
    layout, log = HubLayout(root=root), scratch / "grader-hub-up.log"
    with open(log, "wb") as out:
        command = subprocess.Popen(
            [sys.executable, "-m", "grader.cli", "hub", "up", "--root", str(root), "--students", "2",
             "--port", "0", "--prefix", f"d{uuid.uuid4().hex[:5]}", "--assignments", ASSIGNMENT],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=REPO)
    try:
        running = wait_ready(layout, command, log)
        students = Accounts.load(layout.accounts_file).students
        student_path(browser, running.url, students[0], scratch)
        chinese_student_pictures(browser, running.url, students[1], scratch)
    finally:
        stop_hub(command, layout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo-course", type=Path, default=REPO / "demo-course",
                        help="the folder `make demo` wrote (default: demo-course/ in the checkout)")
    parser.add_argument("--no-hub", action="store_true", help="only the demo's pages, no course hub")
    parser.add_argument("--languages-only", action="store_true",
                        help="only the pages of a student who reads Chinese (no demo folder, no hub)")
    args = parser.parse_args(argv)
    IMAGES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="doc-pictures-") as scratch, chromium() as browser:
        language_pictures(browser, Path(scratch))
        if args.languages_only:
            return 0
        demo_pictures(browser, args.demo_course.resolve(), Path(scratch))
        if not args.no_hub:
            hub_pictures(browser, Path(scratch))
    total = sum(path.stat().st_size for path in IMAGES.glob("*.png"))
    print(f"docs/images/: {total // 1024} KB in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())

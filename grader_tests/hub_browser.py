"""A person at a browser on the course hub: log in, use JupyterLab and nbgrader's panels.

    user = HubUser(browser, hub_url, account, artefacts / "student")
    user.login(); user.open_assignment_list(); user.fetch("02_softmax"); ...
    user.shot("03-notebook")          # a screenshot, kept as a test artefact

Everything goes through the pages a student or an instructor sees (menus, buttons, the file
browser); timeouts are generous because two cores serve the hub, its servers and the grader.
"""
from __future__ import annotations

import re
import shutil
import time
import urllib.parse
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError

LOGIN_TIMEOUT_MS = 240_000  # log in and spawn a JupyterLab server
UI_TIMEOUT_MS = 60_000
STUCK_AT_ROOT_S = 30  # at the server's bare root this long: asked again
FEEDBACK_TIMEOUT_S = 300  # Submit -> feedback available, generous for a loaded machine
LIST_ITEM = "> .list_item"


class HubUser:
    def __init__(self, browser, hub_url: str, account, artefacts: Path):
        self.hub_url, self.account, self.artefacts = hub_url, account, artefacts
        self.context = browser.new_context(viewport={"width": 1400, "height": 900})
        self.page = self.context.new_page()
        self.page.set_default_timeout(UI_TIMEOUT_MS)
        self.console: list[str] = []
        self.dialogs: list[str] = []  # the text of every dialog closed by dismiss_dialogs
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))

    # ---- basics ----------------------------------------------------------------------------------
    @property
    def server_url(self) -> str:
        return f"{self.hub_url}/user/{self.account.name}"

    def shot(self, name: str) -> Path:
        path = self.artefacts / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(path))
        return path

    def close(self) -> None:
        self.context.close()

    def keep_evidence(self, logs: list[Path]) -> None:
        """After a failure: a screenshot of every browser tab and a copy of each of ``logs``, among
        the test artefacts."""
        self.artefacts.mkdir(parents=True, exist_ok=True)
        for number, tab in enumerate(self.context.pages):
            tab.screenshot(path=str(self.artefacts / f"failed-here-tab{number}.png"))
        for log in logs:
            if log.exists():
                shutil.copyfile(log, self.artefacts / log.name)

    def sign_in(self) -> None:
        """The hub's login form with the account's own password; waits for the first screen of the
        account's server (a student's course page, the instructor's JupyterLab)."""
        page = self.page
        page.goto(f"{self.hub_url}/hub/login", wait_until="load")
        page.fill("#username_input", self.account.name)
        page.fill("#password_input", self.account.password)
        page.click("#login_submit")
        self.wait_for_first_screen()

    def wait_for_first_screen(self) -> None:
        """Wait until the account's server shows its first screen (``lab`` or ``course``). A page that
        stays at the server's bare root (``/user/<name>/``: the proxy's "server not answering" page,
        or a redirect not taken) is asked again, as a person would reload it; a failure names the
        pages seen there."""
        page = self.page
        first_screen = re.compile(rf"/user/{re.escape(self.account.name)}/(lab|course)")
        bare_root = f"/user/{self.account.name}/"
        deadline = time.monotonic() + LOGIN_TIMEOUT_MS / 1000
        stuck_since, seen_at_root = None, []
        while time.monotonic() < deadline:
            path = urllib.parse.urlsplit(page.url).path
            if first_screen.search(path):
                page.wait_for_load_state("load", timeout=LOGIN_TIMEOUT_MS)
                return
            if path != bare_root:
                stuck_since = None
            elif stuck_since is None:
                stuck_since = time.monotonic()
            elif time.monotonic() - stuck_since > STUCK_AT_ROOT_S:
                seen_at_root.append(self._visible_text())
                page.goto(f"{self.server_url}/", wait_until="commit", timeout=LOGIN_TIMEOUT_MS)
                stuck_since = None
            page.wait_for_timeout(1000)
        raise AssertionError(f"{self.account.name}'s server showed no first screen within {LOGIN_TIMEOUT_MS // 1000} s;"
                             f" last at {page.url}; pages seen at its root: {seen_at_root or 'none'}")

    def _visible_text(self) -> str:
        try:
            return self.page.locator("body").inner_text(timeout=5_000)[:300]
        except Exception as error:  # a page still loading has no body to read
            return f"(unreadable: {type(error).__name__})"

    def login(self) -> None:
        """:meth:`sign_in`, then :meth:`open_jupyterlab`."""
        self.sign_in()
        self.open_jupyterlab()

    def open_jupyterlab(self) -> None:
        """JupyterLab with a fresh workspace, once its menus are there."""
        page = self.page
        # A fresh workspace: tabs restored from an earlier visit would stand in for new ones.
        page.goto(f"{self.server_url}/lab?reset", wait_until="load")
        # JupyterLab clears the workspace, then reloads itself without the query.
        page.wait_for_url(lambda url: "reset" not in url, timeout=LOGIN_TIMEOUT_MS)
        page.wait_for_load_state("load")
        page.locator("#jp-main-dock-panel .lm-TabBar-tab").first.wait_for(timeout=LOGIN_TIMEOUT_MS)
        page.locator("#jp-main-dock-panel").wait_for(timeout=LOGIN_TIMEOUT_MS)
        page.locator("#jp-menu-panel div.lm-MenuBar-itemLabel", has_text="Nbgrader").wait_for(
            timeout=LOGIN_TIMEOUT_MS)

    def dismiss_dialogs(self) -> None:
        """Close any dialog in the way (nbgrader validates on Submit and shows the result), keeping its text."""
        dialog = self.page.locator(".jp-Dialog")
        while dialog.count():
            self.dialogs.append(dialog.first.inner_text())
            dialog.first.locator(".jp-Dialog-button").last.click()
            dialog.first.wait_for(state="detached")

    def menu(self, top: str, item: str) -> None:
        """Click the top menu ``top``, then its item labelled ``item``."""
        self.dismiss_dialogs()
        self.page.locator("#jp-menu-panel div.lm-MenuBar-itemLabel", has_text=re.compile(f"^{top}$")).click()
        self.page.locator(".lm-Menu .lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}$")).first.click()

    def tab(self, label: str) -> None:
        self.dismiss_dialogs()
        self.page.locator("#jp-main-dock-panel .lm-TabBar-tab", has_text=label).first.click()

    # ---- nbgrader's assignment list ------------------------------------------------------------
    def open_assignment_list(self) -> None:
        self.menu("Nbgrader", "Assignment List")
        self.page.locator("#released_assignments_list").wait_for()

    def refresh_list(self) -> None:
        self.dismiss_dialogs()
        self.page.locator("#refresh_assignments_list").click()
        self.page.locator("#released_assignments_list_loading").wait_for(state="hidden")
        self.page.locator("#submitted_assignments_list_loading").wait_for(state="hidden")

    def fetch(self, assignment: str) -> None:
        row = self.page.locator(f"#released_assignments_list {LIST_ITEM}", has_text=assignment)
        row.locator(".item_status button").click()
        self.page.locator(f"#fetched_assignments_list {LIST_ITEM}", has_text=assignment).wait_for()

    def open_fetched_notebook(self, assignment: str, notebook: str) -> None:
        """Expand the fetched assignment in the list and click its notebook."""
        self.page.locator(f'#fetched_assignments_list a:text-is("{assignment}")').click()
        link = self.page.locator("#fetched_assignments_list .list_item a", has_text=re.compile(f"^{notebook}$"))
        link.first.click()
        self.page.locator(".jp-NotebookPanel:visible .jp-Notebook-cell").first.wait_for()

    def unsaved_once_its_kernel_is_idle(self) -> bool:
        """Whether the notebook tab showing is marked unsaved once its kernel has started and is idle
        (JupyterLab writes what the kernel reports into the notebook's metadata)."""
        self.page.locator(".jp-NotebookPanel:visible .jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(
            timeout=120_000)
        self.page.wait_for_timeout(1000)
        return self.page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current.jp-mod-dirty").count() > 0

    def submit(self, assignment: str) -> float:
        """Click Submit on the fetched assignment; the click's time (time.monotonic())."""
        self.tab("Assignments")
        submissions = self.submission_rows(assignment)
        before = submissions.count()
        row = self.page.locator(f"#fetched_assignments_list {LIST_ITEM}", has_text=assignment).first
        clicked = time.monotonic()
        row.locator('.item_status button:text("Submit")').click()
        wanted = max(before, 1) + 1  # the list's header row, then one row per hand-in
        deadline = time.monotonic() + UI_TIMEOUT_MS / 1000
        while submissions.count() < wanted:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the submission of {assignment} never appeared in the list")
            time.sleep(0.2)
        return clicked

    def submission_rows(self, assignment: str):
        return self.page.locator(f"#submitted_assignments_list [id$='-{assignment}-submissions'] {LIST_ITEM}")

    def wait_for_feedback(self, assignment: str, submissions: int, timeout_s: float = FEEDBACK_TIMEOUT_S) -> float:
        """Refresh the list until the newest of ``submissions`` hand-ins says its feedback can be
        fetched; the time (time.monotonic()) when it first did. TimeoutError otherwise."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self.refresh_list()
            rows = self.submission_rows(assignment)
            # The first row of a submission list is its empty header.
            if rows.count() >= submissions + 1 and "feedback available to fetch" in rows.last.inner_text():
                return time.monotonic()
            time.sleep(1)
        raise TimeoutError(f"no feedback for submission {submissions} of {assignment} within {timeout_s} s")

    def fetch_and_view_feedback(self, assignment: str) -> None:
        """Fetch Feedback, then (view feedback) of the newest submission; returns once the file
        browser shows that submission's folder (named after its timestamp)."""
        self.dismiss_dialogs()
        self.page.locator('#submitted_assignments_list .item_status button:text("Fetch Feedback")').first.click()
        newest = self.submission_rows(assignment).last
        view = newest.locator("a", has_text="view feedback")
        view.wait_for()
        timestamp = newest.locator(".item_name").inner_text().split("(view feedback)")[0].strip()
        view.click()
        # The link navigates the file browser asynchronously; until it has, the browser still lists
        # the folder shown before (an earlier hand-in's feedback, with a page of the same name).
        self.page.locator("#filebrowser .jp-BreadCrumbs", has_text=timestamp).wait_for()

    def close_tab(self) -> None:
        """Close the tab in front (File > Close Tab)."""
        self.menu("File", "Close Tab")

    def open_file(self, name: str) -> None:
        """Double-click ``name`` in the file browser (whatever folder it shows)."""
        self.dismiss_dialogs()
        item = self.page.locator(f"#filebrowser .jp-DirListing-itemText span:text-is('{name}')")
        item.wait_for()
        item.dblclick()

    # ---- the notebook ------------------------------------------------------------------------------
    def cell_containing(self, text: str):
        return self.page.locator(".jp-NotebookPanel:visible .jp-Notebook-cell", has_text=text).first

    def replace_cell_source(self, marker: str, source: str) -> None:
        """Select the whole source of the cell showing ``marker`` and type ``source`` over it."""
        cell = self.cell_containing(marker)
        cell.scroll_into_view_if_needed()
        editor = cell.locator(".cm-content")
        editor.click()
        self.page.keyboard.press("Control+a")
        self.page.keyboard.insert_text(source)
        self.page.keyboard.press("Escape")

    def run_all(self) -> None:
        self.menu("Run", "Run All Cells")

    def save(self) -> None:
        """The notebook toolbar's save button; waits until the tab is no longer marked unsaved."""
        self.dismiss_dialogs()
        self.page.locator('.jp-NotebookPanel:visible .jp-Toolbar [data-command="docmanager:save"]').first.click()
        self.page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current.jp-mod-dirty").wait_for(state="detached")

    def validate(self) -> str:
        """Click the notebook's Validate button; the text of the dialog it opens (closed after)."""
        self.page.locator(".jp-NotebookPanel:visible jp-button.validate-button").click()
        dialog = self.page.locator(".jp-Dialog")
        dialog.wait_for(timeout=LOGIN_TIMEOUT_MS)
        return dialog.inner_text()

    def close_dialog(self) -> None:
        self.page.locator(".jp-Dialog .jp-Dialog-button").last.click()
        self.page.locator(".jp-Dialog").wait_for(state="detached")


# ---- a feedback page open in JupyterLab's HTML viewer ---------------------------------------------
#: What the page shows, read inside the viewer's frame: the summary rows (check, score, what to fix),
#: then, with every fold opened as a reader would open it, maths elements with their size, images that
#: failed to load, and the visible text.
FEEDBACK_READOUT = """() => ({
    rows: Array.from(document.querySelectorAll('table.feedback-summary tbody tr')).map(r =>
        Array.from(r.cells).map(c => c.innerText.trim())),
    summaryVisible: (() => { const t = document.querySelector('table.feedback-summary');
        if (!t) return false; const b = t.getBoundingClientRect(); return b.width > 0 && b.height > 0; })(),
    fixFirst: (document.querySelector('p.fix-first, p.all-passed') || {innerText: ''}).innerText,
    folds: Array.from(document.querySelectorAll('details')).map(d => { d.open = true; return 1; }).length,
    maths: Array.from(document.querySelectorAll('math')).map(m => {
        const b = m.getBoundingClientRect(); return [b.width, b.height]; }),
    brokenImages: Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(0, 60)),
    text: document.body.innerText,
})"""


#: True once the frame's document has finished loading and holds a feedback page's summary.
FEEDBACK_PAGE_LOADED = (
    "() => document.readyState === 'complete' && !!document.querySelector('table.feedback-summary')")


def _evaluate_in_feedback_frame(user: HubUser, script: str):
    """`script` evaluated in the HTML viewer's frame once its feedback page has loaded.

    JupyterLab's HTML viewer may load its frame again after the tab opens (it reloads when it sees
    the file change, or when its content is first set), which destroys the context an evaluation
    runs in: that evaluation is repeated in the new document, never taken for a failure.
    """
    user.page.locator(".jp-HTMLViewer:visible iframe").wait_for()
    deadline = time.monotonic() + UI_TIMEOUT_MS / 1000
    last_error: PlaywrightError | None = None
    while time.monotonic() < deadline:
        handle = user.page.locator(".jp-HTMLViewer:visible iframe").element_handle()
        frame = handle.content_frame() if handle else None
        try:
            if frame is not None and frame.evaluate(FEEDBACK_PAGE_LOADED):
                return frame.evaluate(script)
        except PlaywrightError as error:
            if "context was destroyed" not in str(error) and "detached" not in str(error):
                raise
            last_error = error
        time.sleep(0.5)
    raise TimeoutError(f"the feedback page did not load in JupyterLab's HTML viewer (last: {last_error})")


def read_feedback(user: HubUser) -> dict:
    return _evaluate_in_feedback_frame(user, FEEDBACK_READOUT)

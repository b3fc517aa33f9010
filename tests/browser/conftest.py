"""Browser fixtures: the built dist/ served locally, real headless Chromium, a page
whose console and network are recorded.

The site is built first (``python build.py``), then served by one ``http.server``
per test process. ``page`` is a fresh page in a fresh context, for a test about
start-up, storage across reloads, the service worker or going offline. ``app`` is
the page of the test process, booted once and put back as a first visit shows it
before each test (:func:`helpers.reset_page`): the same settings, text, panels and
nothing kept; a test that leaves what cannot be put back gets the page reloaded.
``fresh_app`` is a page of its own, for a test of what a page does only once.
Either way the console messages go to the test log, a page error or console error
fails the test, and a failing test leaves a screenshot under ``test-results/``.
Chromium is found as build.py finds it: ``CHROMIUM``, then ``/usr/bin/chromium``,
then Playwright's own.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from helpers import BOOT_TIMEOUT_MS, WORKER_SPY, first_visit, open_ready, reset_page

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
RESULTS = ROOT / "test-results"

log = logging.getLogger("browser")

sys.path.insert(0, str(ROOT))
import build  # noqa: E402  (the repository's build.py: serving and Chromium lookup)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.stash[_outcome] = report
    return report


_outcome = pytest.StashKey[pytest.TestReport]()


# ---- the site -----------------------------------------------------------------


@pytest.fixture(scope="session")
def built_site() -> Path:
    """dist/, rebuilt if any input changed (a no-op when it is up to date). Under
    ``python build.py test``, which has just built it and runs the browser tests as two
    processes at once, it is not built again (two builds at once would race)."""
    if os.environ.get("PYAPP_SITE_BUILT") == "1":
        return DIST
    done = subprocess.run(
        [sys.executable, str(ROOT / "build.py")], capture_output=True, text=True, cwd=ROOT
    )
    if done.returncode != 0:
        pytest.fail(f"python build.py failed: {(done.stderr or done.stdout).strip()}")
    return DIST


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """dist/ served by http.server on a free local port, one origin for the session (a
    test's fresh context has storage and a service worker of its own anyway)."""
    os.environ.setdefault("BUILD_PY_QUIET", "1")
    with build.serving_in_background(built_site) as url:
        yield url


# ---- the browser --------------------------------------------------------------


def chromium_path() -> str | None:
    try:
        return build.find_chromium()
    except build.StepFailed as failure:
        pytest.fail(str(failure))


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    if executable is None:
        message = (
            "no Chromium: set CHROMIUM, install /usr/bin/chromium, or run `python build.py test`"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=build.chromium_args(), headless=True
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Session:
    """What one page did: console lines, page errors and every request URL."""

    origin: str
    console: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    allowed_errors: list[re.Pattern[str]] = field(default_factory=list)

    def foreign_requests(self) -> list[str]:
        """Requests to anywhere but the local server (blob: and data: stay in the page)."""
        return [
            url
            for url in self.requests
            if not url.startswith(self.origin) and not url.startswith(("blob:", "data:"))
        ]

    def allow_console_error(self, pattern: str) -> None:
        """A console error this test provokes on purpose."""
        self.allowed_errors.append(re.compile(pattern))

    def unexpected_errors(self) -> list[str]:
        errors = [f"console error: {text}" for text in self.console_errors]
        errors += [f"page error: {text}" for text in self.page_errors]
        return [e for e in errors if not any(p.search(e) for p in self.allowed_errors)]


@pytest.fixture
def session(site_url: str) -> Session:
    return Session(origin=site_url.rstrip("/"))


CONTEXT_OPTIONS = {"accept_downloads": True, "viewport": {"width": 1280, "height": 900}}


@pytest.fixture
def context(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A browser context; a test may parametrize it (indirectly) with other options,
    such as a viewport or a colour scheme."""
    context = browser.new_context(**{**CONTEXT_OPTIONS, **getattr(request, "param", {})})
    try:
        yield context
    finally:
        context.close()


class Recorder:
    """Forwards a page's console, errors and requests to the session of the test
    that is running (a shared page outlives each test's session)."""

    def __init__(self, session: Session | None = None) -> None:
        self.session = session

    def attach(self, page: Any, context: Any) -> None:
        page.on("console", self.on_console)
        page.on("pageerror", lambda error: self.page_error(str(error)))
        page.on("worker", lambda worker: worker.on("console", self.on_console))
        context.on("request", self.on_request)
        context.on("weberror", lambda error: self.page_error(str(error.error)))

    def on_console(self, message: Any) -> None:
        line = f"[{message.type}] {message.text}"
        log.info("console %s", line)
        if self.session is None:
            return
        self.session.console.append(line)
        if message.type == "error":
            self.session.console_errors.append(message.text)

    def on_request(self, req: Any) -> None:
        if self.session is not None:
            self.session.requests.append(req.url)

    def page_error(self, text: str) -> None:
        if self.session is not None:
            self.session.page_errors.append(text)


def finish(page: Any, session: Session, request: pytest.FixtureRequest) -> bool:
    """After a test: a screenshot if it failed, and a failure if the page logged an
    error it did not expect. Returns whether the test failed."""
    report = request.node.stash.get(_outcome, None)
    failed = report is not None and report.failed
    if failed and not page.is_closed():
        RESULTS.mkdir(exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid)[-150:]
        try:
            page.screenshot(path=str(RESULTS / f"{name}.png"), full_page=True)
        except Exception as failure:  # noqa: BLE001  (a screenshot must not hide the failure)
            log.warning("no screenshot: %s", failure)
    unexpected = session.unexpected_errors()
    if unexpected and (report is None or report.passed):
        pytest.fail("the page logged errors:\n" + "\n".join(unexpected))
    return failed


@pytest.fixture
def page(context: Any, session: Session, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh page in a fresh context that records its console, errors and requests,
    workers included."""
    page = context.new_page()
    page.set_default_timeout(30_000)
    Recorder(session).attach(page, context)
    yield page
    finish(page, session, request)
    page.close()


@dataclass
class Shared:
    """The process's booted page, and how a first visit left it."""

    context: Any
    url: str
    recorder: Recorder
    page: Any = None
    first: str = ""  # helpers.first_visit() of the page as it first booted
    dirty: bool = False  # reload before the next test

    def open(self) -> Any:
        """A new page in the (new) context, booted; its first visit recorded."""
        self.page = self.context.new_page()
        self.page.set_default_timeout(30_000)
        self.page.on("console", self.recorder.on_console)
        self.page.on("pageerror", lambda error: self.recorder.page_error(str(error)))
        self.page.on("worker", lambda worker: worker.on("console", self.recorder.on_console))
        try:
            open_ready(self.page, self.url)
            self.first = first_visit(self.page)
        except BaseException:
            # The next test boots a page of its own again, instead of failing on this one.
            self.page.close()
            raise
        return self.page

    def reload(self) -> None:
        """Loads the page again (the engine boots again), then puts back what this
        browser kept from the tests before (their text), as for a first visit. The
        settings those tests left are forgotten first: a first visit had none kept."""
        self.page.evaluate(
            "() => { try { localStorage.removeItem('rag-chunk-visualizer:settings'); } catch {} }"
        )
        open_ready(self.page, self.url)
        first_visit(self.page)
        if not reset_page(self.page, self.url, self.first):
            pytest.fail("the shared page does not look as its first visit did, even reloaded")


@pytest.fixture
def fresh_app(page: Any, site_url: str) -> Any:
    """A page of its own, opened and ready: for a test of what a page does once
    only (a panel's first opening, the engine's warm-up after start-up)."""
    return open_ready(page, site_url)


@pytest.fixture(scope="session")
def shared_page(browser: Any, site_url: str) -> Iterator[Shared]:
    """One context and page for every ``app`` test of this process, booted once: each
    boot costs about 3 s of CPU (compiling the runtime, restoring the snapshot), and
    :func:`helpers.reset_page` puts the page back as its first visit showed it. The
    page carries :data:`helpers.WORKER_SPY` (it only records, until a test asks it to
    fail an answer), so a test that reads what reached the worker needs no page of its
    own: it reads from the count the spy had when it began."""
    context = browser.new_context(**CONTEXT_OPTIONS)
    context.set_default_timeout(BOOT_TIMEOUT_MS)
    context.add_init_script(WORKER_SPY)
    recorder = Recorder()
    context.on("request", recorder.on_request)
    context.on("weberror", lambda error: recorder.page_error(str(error.error)))
    shared = Shared(context=context, url=site_url, recorder=recorder)
    try:
        yield shared
    finally:
        context.close()


@pytest.fixture
def app(shared_page: Shared, session: Session, request: pytest.FixtureRequest) -> Iterator[Any]:
    """The process's booted page, as a first visit shows it, ready to compute. A test
    may change anything a person can; what it leaves is put back before the next."""
    shared = shared_page
    shared.recorder.session = session
    if shared.page is None or shared.page.is_closed():
        shared.open()
    elif shared.dirty or not reset_page(shared.page, shared.url, shared.first):
        log.info("the shared page is reloaded: its state could not be put back in place")
        shared.reload()
    try:
        yield shared.page
    finally:
        shared.recorder.session = None
        shared.dirty = True  # until the checks below have passed
        failed = finish(shared.page, session, request)
        shared.dirty = failed or shared.page.is_closed()

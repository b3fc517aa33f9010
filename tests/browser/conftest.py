"""Browser fixtures: the built dist/ served locally, real headless Chromium, a page
whose console and network are recorded.

The site is built first (``python build.py``), then served by a module-scoped
``http.server``. Each test gets a fresh page; its console messages go to the
test log, a page error or console error fails the test, and a failing test
leaves a screenshot under ``test-results/``. Chromium is found as build.py finds
it: ``CHROMIUM``, then ``/usr/bin/chromium``, then Playwright's own.
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
from helpers import open_ready

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
    """dist/, rebuilt if any input changed (a no-op when it is up to date)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "build.py")], capture_output=True, text=True, cwd=ROOT
    )
    if done.returncode != 0:
        pytest.fail(f"python build.py failed: {(done.stderr or done.stdout).strip()}")
    return DIST


@pytest.fixture(scope="module")
def site_url(built_site: Path) -> Iterator[str]:
    """dist/ served by http.server on a free local port."""
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


@pytest.fixture
def context(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A browser context; a test may parametrize it (indirectly) with other options,
    such as a viewport or a colour scheme."""
    options = {"accept_downloads": True, "viewport": {"width": 1280, "height": 900}}
    context = browser.new_context(**{**options, **getattr(request, "param", {})})
    try:
        yield context
    finally:
        context.close()


@pytest.fixture
def page(context: Any, session: Session, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh page that records its console, errors and requests, workers included."""
    page = context.new_page()
    page.set_default_timeout(30_000)

    def on_console(message: Any) -> None:
        line = f"[{message.type}] {message.text}"
        session.console.append(line)
        log.info("console %s", line)
        if message.type == "error":
            session.console_errors.append(message.text)

    def on_request(req: Any) -> None:
        session.requests.append(req.url)

    page.on("console", on_console)
    page.on("pageerror", lambda error: session.page_errors.append(str(error)))
    context.on("request", on_request)
    context.on("weberror", lambda error: session.page_errors.append(str(error.error)))
    page.on("worker", lambda worker: worker.on("console", on_console))
    yield page
    report = request.node.stash.get(_outcome, None)
    if report is not None and report.failed:
        RESULTS.mkdir(exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid)[-150:]
        try:
            page.screenshot(path=str(RESULTS / f"{name}.png"), full_page=True)
        except Exception as failure:  # noqa: BLE001  (a screenshot must not hide the failure)
            log.warning("no screenshot: %s", failure)
    page.close()
    unexpected = session.unexpected_errors()
    if unexpected and (report is None or report.passed):
        pytest.fail("the page logged errors:\n" + "\n".join(unexpected))


@pytest.fixture
def app(page: Any, site_url: str) -> Any:
    """The page, opened and ready to compute."""
    return open_ready(page, site_url)

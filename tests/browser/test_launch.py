"""How the tests and the benchmark launch Chromium (``build.chromium_args()``): without
the renderer of the address bar's suggestion popup, which headless Chromium starts with
every new browser context (about 430 ms of CPU beside each cold visit measured), and
still without every feature that Playwright itself turns off (only the last
``--disable-features`` on a command line counts, so build.py repeats Playwright's)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import build  # noqa: E402

POPUP = "chrome://omnibox-popup.top-chrome/"


@pytest.fixture(scope="module")
def stock_browser(browser: Any) -> Iterator[Any]:
    """The same Chromium launched with Playwright's own disabled features only."""
    args = [arg for arg in build.chromium_args() if not arg.startswith("--disable-features=")]
    assert len(args) == len(build.chromium_args()) - 1
    stock = browser.browser_type.launch(
        executable_path=build.find_chromium(), args=args, headless=True
    )
    try:
        yield stock
    finally:
        stock.close()


@contextmanager
def after_a_visit(browser: Any) -> Iterator[Callable[[str], Any]]:
    """While a new context shows a page: a function that asks the browser (the
    DevTools protocol) a question by its method name and returns the answer."""
    context = browser.new_context()
    try:
        context.new_page().goto("about:blank")
        session = browser.new_browser_cdp_session()
        try:
            yield session.send
        finally:
            session.detach()
    finally:
        context.close()


def browser_ui_after_a_visit(browser: Any) -> list[str]:
    """The URLs of the browser's own UI pages once a new context has shown a page."""
    with after_a_visit(browser) as ask:
        targets = ask("Target.getTargets")["targetInfos"]
    return [target["url"] for target in targets if target["type"] == "browser_ui"]


def disabled_features(browser: Any) -> set[str]:
    """The features a renderer of ``browser`` runs without, as its command line says
    (the browser hands every child process the features it settled on)."""
    lists = set()
    with after_a_visit(browser) as ask:
        for process in ask("SystemInfo.getProcessInfo")["processInfo"]:
            if process["type"] != "renderer":
                continue
            try:
                line = Path(f"/proc/{process['id']}/cmdline").read_text("utf-8", "replace")
            except OSError:
                continue
            found = re.search(r"--disable-features=(\S+)", line.replace("\0", " "))
            if found:
                lists.add(frozenset(found.group(1).split(",")))
    assert len(lists) == 1, f"the renderers disagree, or none said: {lists}"
    return set(next(iter(lists)))


def test_a_new_context_starts_no_popup_renderer(browser: Any, stock_browser: Any) -> None:
    assert any(url.startswith(POPUP) for url in browser_ui_after_a_visit(stock_browser))
    assert browser_ui_after_a_visit(browser) == []


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads /proc (Linux)")
def test_the_features_playwright_turns_off_stay_off(browser: Any, stock_browser: Any) -> None:
    playwrights = disabled_features(stock_browser)
    ours = disabled_features(browser)
    assert "PaintHolding" in playwrights and "MediaRouter" in playwrights
    assert playwrights <= ours, f"build.py lacks {sorted(playwrights - ours)}"
    assert ours == set(build.CHROMIUM_DISABLED_FEATURES) | playwrights
    assert {"WebUIOmniboxPopup", "PreloadTopChromeWebUI"} <= ours - playwrights

"""The page recovers and refuses early, in real headless Chromium.

- After the engine fails on a call, the status follows the latest call: a later
  answer clears "Error", and a traceback is never shown (it goes to the console).

Each is checked by what happened (messages, entries, the DOM), never by a clock.
"""

from __future__ import annotations

import re
from typing import Any

from helpers import (
    WORKER_SPY,
    configure,
    expect_figure,
    native,
    open_ready,
)
from playwright.sync_api import expect

TEN_WORDS = "one two three four five six seven eight nine ten"


def status_of(page: Any) -> Any:
    return page.get_by_test_id("status")


# ---- the status follows the latest call -------------------------------------------


def test_after_an_engine_failure_the_next_answer_clears_the_error_and_no_traceback_shows(
    page: Any, site_url: str, session: Any
) -> None:
    page.add_init_script(WORKER_SPY)
    open_ready(page, site_url)
    configure(page, text=TEN_WORDS, unit="word", size=4, overlap=1)
    expect_figure(page, "summary-chunks", "3", "3")
    # The sweep this result starts has answered too: the failure below is the latest call.
    current = '.sweep-point[data-current="true"][data-size="4"]'
    expect(page.locator(current).first).to_be_attached()
    status = status_of(page)
    expect(status).to_have_attribute("data-state", "ready")

    page.evaluate("() => { window.__spy.failNext = 'view'; }")
    configure(page, size=5)
    expect(status).to_have_attribute("data-state", "error")
    shown = status.locator(".status-text").inner_text()
    assert "Traceback" not in shown and "ZeroDivisionError" not in shown, shown
    assert "\n" not in shown.strip() and "console" in shown, shown
    assert any("ZeroDivisionError" in line for line in session.console), session.console
    expect_figure(page, "summary-chunks", "3", "3")  # the last good result stays

    configure(page, size=6)
    chunks = native("chunk", text=TEN_WORDS, unit="word", size=6, overlap=1)["summary"]["chunks"]
    expect_figure(page, "summary-chunks", str(chunks), str(chunks))
    expect(status).to_have_attribute("data-state", "ready")
    expect(status).to_have_text(re.compile("Ready"))

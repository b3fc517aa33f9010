"""The page recovers and refuses early, in real headless Chromium.

- After the engine fails on a call, the status follows the latest call: a later
  answer clears "Error", and a traceback is never shown (it goes to the console).
- A paste over the byte limit is refused in the page, inline, before the text box
  holds it and before anything of it crosses to the worker.
- The background warm-up of the tokenizer runs in slices: an edit made while it
  runs is answered between two of them, not after the whole warm-up; and while a
  file opened is laid out and drawn in the box, no slice runs.

Each is checked by what happened (messages, entries, the DOM), never by a clock.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from helpers import (
    WAIT_MS,
    WORKER_SPY,
    configure,
    error_slot,
    expect_figure,
    native,
    open_ready,
)
from playwright.sync_api import expect

TEN_WORDS = "one two three four five six seven eight nine ten"


def status_of(page: Any) -> Any:
    return page.get_by_test_id("status")


# ---- the status follows the latest call -------------------------------------------

STATES = """() => {
  const status = document.querySelector('[data-testid="status"]');
  const seen = [];
  Object.defineProperty(window, "__states", { value: seen });
  new MutationObserver(() => {
    seen.push([status.dataset.state, status.querySelector(".status-text").textContent]);
  }).observe(status, { attributes: true, childList: true, subtree: true, characterData: true });
}"""


# Resolves with the status's words once it has taken `state` (recorded by STATES,
# whose observer runs first), or null after 20 s (a hang bound).
STATE_SEEN = """(state) => new Promise((resolve) => {
  const status = document.querySelector('[data-testid="status"]');
  const seen = () => window.__states.find(([s]) => s === state);
  if (seen()) return resolve(seen()[1]);
  const observer = new MutationObserver(() => {
    if (seen()) {
      observer.disconnect();
      resolve(seen()[1]);
    }
  });
  const all = { attributes: true, childList: true, subtree: true, characterData: true };
  observer.observe(status, all);
  setTimeout(() => resolve(null), 20000);
})"""


def wait_for_state(page: Any, state: str) -> str:
    """Waits until the status has taken ``state`` (recorded by STATES); its words then."""
    words = page.evaluate(STATE_SEEN, state)
    assert words is not None, (
        f"the status never said {state}: {page.evaluate('() => window.__states')}"
    )
    return str(words)


def test_after_an_engine_failure_the_next_answer_clears_the_error_and_no_traceback_shows(
    app: Any, session: Any
) -> None:
    page = app  # the shared page carries the worker spy
    page.get_by_test_id("sweep-fold").locator("summary").first.click()  # the sweep runs when open
    configure(page, text=TEN_WORDS, unit="word", size=4, overlap=1)
    expect_figure(page, "summary-chunks", "3", "3")
    # The sweep this result starts has answered too: the failure below is the latest call.
    current = '.sweep-point[data-current="true"][data-size="4"]'
    expect(page.locator(current).first).to_be_attached()
    status = status_of(page)
    expect(status).to_have_attribute("data-state", "ready")

    # Every state the status takes from here on, with its words: a call that settles
    # right after the failure (the text view's, a panel's) may say Ready again soon
    # after, as the status follows the latest call.
    page.evaluate(STATES)
    page.evaluate("() => { window.__spy.failNext = 'view'; }")
    configure(page, size=5)
    shown = wait_for_state(page, "error")
    assert "Traceback" not in shown and "ZeroDivisionError" not in shown, shown
    assert "\n" not in shown.strip() and "console" in shown, shown
    assert any("ZeroDivisionError" in line for line in session.console), session.console
    expect_figure(page, "summary-chunks", "3", "3")  # the last good result stays

    configure(page, size=6)
    chunks = native("chunk", text=TEN_WORDS, unit="word", size=6, overlap=1)["summary"]["chunks"]
    expect_figure(page, "summary-chunks", str(chunks), str(chunks))
    expect(status).to_have_attribute("data-state", "ready")
    expect(status).to_have_text(re.compile("Ready"))


# ---- a paste over the limit never reaches the text box or the worker ------------------

PASTE = """(length) => {
  const box = document.querySelector('[data-testid="text-input"]');
  box.focus();
  box.select();
  const data = new DataTransfer();
  data.setData("text/plain", "x".repeat(length));
  const init = { clipboardData: data, bubbles: true, cancelable: true };
  const paste = new ClipboardEvent("paste", init);
  box.dispatchEvent(paste);
  return paste.defaultPrevented;
}"""


LONG_PASTE = """(text) => {
  const box = document.querySelector('[data-testid="text-input"]');
  box.focus();
  box.select();
  const inputs = [];
  box.addEventListener("input", (event) => inputs.push(event.inputType), { once: true });
  const data = new DataTransfer();
  data.setData("text/plain", text);
  const init = { clipboardData: data, bubbles: true, cancelable: true };
  const paste = new ClipboardEvent("paste", init);
  box.dispatchEvent(paste);
  return { prevented: paste.defaultPrevented, held: box.value === text, inputs };
}"""


def test_a_20_mb_paste_is_refused_inline_and_nothing_of_it_reaches_the_worker(app: Any) -> None:
    page = app  # the shared page carries the worker spy
    configure(page, text=TEN_WORDS, unit="word", size=4, overlap=1)
    expect_figure(page, "summary-chunks", "3", "3")
    before = page.get_by_test_id("text-input").input_value()
    mark = page.evaluate("() => window.__spy.posted.length")  # what reached it before

    # The paste a browser dispatches; cancelling it is what keeps the text out.
    assert page.evaluate(PASTE, 20_000_000) is True
    error = error_slot(page, "text")
    expect(error).to_be_visible()
    expect(error).to_contain_text("not put in")
    expect(error).to_contain_text("20,000,000 bytes or more")
    expect(error).to_contain_text("1,000,000-byte limit")
    expect(error).to_contain_text("previous text is kept")
    assert page.get_by_test_id("text-input").input_value() == before
    expect_figure(page, "summary-chunks", "3", "3")
    expect(page.get_by_test_id("stale-note")).to_be_hidden()  # the result is still current
    posted = page.evaluate("(mark) => window.__spy.posted.slice(mark)", mark)
    assert max(posted, default=0) < 10_000, posted

    # The next edit is computed as usual and clears the message.
    configure(page, size=5)
    expect(error).to_be_hidden()
    # A paste under the limit goes in: a short one by the browser's own editing (its
    # undo step kept), a long one by the page in one value change, since the browser
    # inserts a document line by line, each line a forced layout of this whole page.
    assert page.evaluate(PASTE, 1_000) is False
    seen = page.evaluate(LONG_PASTE, "line of a pasted document\n" * 2_000)
    assert seen == {"prevented": True, "held": True, "inputs": ["insertFromPaste"]}, seen
    expect(page.get_by_test_id("count-words")).to_have_attribute(
        "data-value", str(5 * 2_000), timeout=WAIT_MS
    )


# ---- the warm-up gives way to edits --------------------------------------------------------

WARM_ENTRIES = """() => ({
  begun: performance.getEntriesByName("engine:warm:begin").length > 0,
  slices: performance.getEntriesByName("engine:warm:step")
    .map((e) => [e.startTime, e.startTime + e.duration]),
  done: performance.getEntriesByName("engine:warm").map((e) => e.startTime + e.duration),
  view: performance.getEntriesByName("engine:handle:view")
    .map((e) => [e.startTime, e.startTime + e.duration]),
})"""


# In the worker: resolves once a performance entry named `name` exists (an observer
# of the worker's marks and measures), false after a minute (a hang bound).
ENTRY_MADE = """(name) => new Promise((resolve) => {
  if (performance.getEntriesByName(name).length) return resolve(true);
  const observer = new PerformanceObserver(() => {
    if (performance.getEntriesByName(name).length) {
      observer.disconnect();
      resolve(true);
    }
  });
  observer.observe({ entryTypes: ["mark", "measure"] });
  setTimeout(() => resolve(false), 60000);
})"""


def warm_entries(page: Any, until: str) -> dict[str, Any]:
    """The worker's warm-up entries, once ``until`` ("begun" or "done") holds."""
    name = {"begun": "engine:warm:begin", "done": "engine:warm"}[until]
    made = page.workers[0].evaluate(ENTRY_MADE, name)
    entries: dict[str, Any] = page.workers[0].evaluate(WARM_ENTRIES)
    assert made and entries[until], f"the warm-up never {until}: {entries}"
    return entries


#: Pages opened at most, each with its own warm-up, to have an edit posted before the
#: warm-up ends: on a loaded machine the test's own steps can come after all of it.
WARM_UP_TRIES = 5


def test_an_edit_during_the_warm_up_is_answered_between_its_slices(
    page: Any, site_url: str
) -> None:
    page.add_init_script(WORKER_SPY)
    for _ in range(WARM_UP_TRIES):
        open_ready(page, site_url)  # the warm-up runs once, after the page's first answer
        configure(page, text=TEN_WORDS, unit="word", size=4, overlap=1)
        expect_figure(page, "summary-chunks", "3", "3")
        warm_entries(page, "begun")  # a second after the last answer
        configure(page, size=3)
        chunks = native("chunk", text=TEN_WORDS, unit="word", size=3, overlap=1)["summary"]
        expect_figure(page, "summary-chunks", str(chunks["chunks"]), str(chunks["chunks"]))
        entries = warm_entries(page, "done")
        # When the page posted the edit, on the worker's clock.
        posted = page.evaluate(
            "() => window.__spy.calls.filter((c) => c.purpose === 'view').at(-1).at"
        ) - page.workers[0].evaluate("() => performance.timeOrigin")
        if posted < entries["done"][0]:
            break  # posted while the warm-up had slices to run: the case this is about
    else:
        pytest.fail(f"in {WARM_UP_TRIES} page loads the edit was never posted during the warm-up")
    view_began, view_ended = entries["view"][-1]
    # The edit was answered while the warm-up still had slices to run...
    assert view_ended < entries["done"][0], (posted, entries)
    after = [s for s in entries["slices"] if s[0] >= view_ended]
    before = [s for s in entries["slices"] if s[1] <= view_began]
    assert before and after, entries
    # ...and between two of them: no slice ran while it was computed.
    assert len(before) + len(after) == len(entries["slices"]), entries


HELD = """() => performance.getEntriesByName("engine:warm:held")
  .map((e) => [e.startTime, e.startTime + e.duration])"""


def test_a_file_opened_holds_the_warm_up_until_the_box_is_drawn(
    fresh_app: Any, tmp_path: Any
) -> None:
    app = fresh_app  # opened at once, before or while the warm-up runs (it waits 1 s first)
    document = tmp_path / "notes.txt"
    text = "A line of a document the box lays out before the warm-up goes on.\n" * 2_000
    document.write_text(text, encoding="utf-8")
    app.get_by_test_id("open-file").set_input_files(str(document))
    expect(app.get_by_test_id("text-input")).to_have_value(text, timeout=WAIT_MS)
    held_made = app.workers[0].evaluate(ENTRY_MADE, "engine:warm:held")
    entries = warm_entries(app, "done")
    held = app.workers[0].evaluate(HELD)
    assert held_made and len(held) == 1, held
    hold_began, hold_ended = held[0]
    # The hold came before the warm-up was over, and it went on after the hold ended...
    assert entries["done"][0] > hold_ended, (held, entries)
    assert any(s[0] >= hold_ended for s in entries["slices"]), (held, entries)
    # ...and no slice began while the box laid the file out and drew it.
    assert not [s for s in entries["slices"] if hold_began <= s[0] < hold_ended], (held, entries)

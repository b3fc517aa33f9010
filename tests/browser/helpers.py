"""What the browser tests share: opening the page until it is ready, setting its
fields as a person does, and the engine's own answers to compare with (natively,
or printed by the command line).

Under the page's Content-Security-Policy Playwright's ``wait_for_function``
cannot run, so every wait here is on a selector or a locator.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from decimal import Decimal
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from pyapp.web.api import handle

BOOT_TIMEOUT_MS = 60_000
WAIT_MS = 20_000
STATUS = '[data-testid="status"]'
READY = f'{STATUS}[data-state="ready"]'


# An init script (it runs before the page's own scripts): records the length of
# every request the page posts to the worker (`window.__spy.posted`), each call's
# purpose and the moment it was posted (`window.__spy.calls`, in ms since the epoch,
# as `performance.timeOrigin + performance.now()`), and every
# start-up stage the worker reports (`window.__spy.stages`), and turns the next
# answer to a call of purpose `window.__spy.failNext` into the message the worker
# sends when handle() itself raises, traceback included. The answers to calls of
# purpose `window.__spy.hold` are held back until `window.__spy.release()`: a test
# sees the page while an answer is on its way, for as long as it needs (the page's
# <html> carries `data-spy-held`, the number held, to wait on).
WORKER_SPY = """(() => {
  const spy = {
    posted: [], calls: [], stages: [], failNext: null, hold: null, held: [], purposes: new Map(),
  };
  spy.release = () => {
    spy.hold = null;
    delete document.documentElement.dataset.spyHeld;
    for (const deliver of spy.held.splice(0)) deliver();
  };
  Object.defineProperty(window, "__spy", { value: spy });
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message?.type === "call") {
      spy.posted.push(message.request.length);
      spy.calls.push({ purpose: message.purpose, at: performance.timeOrigin + performance.now() });
      spy.purposes.set(message.id, message.purpose);
    }
    return post.call(this, message, ...rest);
  };
  const onmessage = Object.getOwnPropertyDescriptor(Worker.prototype, "onmessage");
  Object.defineProperty(Worker.prototype, "onmessage", {
    configurable: true,
    get() { return onmessage.get.call(this); },
    set(handler) {
      onmessage.set.call(this, (event) => {
        const data = event.data;
        if (data?.type === "stage") spy.stages.push(data.stage);
        const purpose = spy.purposes.get(data?.id);
        if (data?.type === "result" && spy.hold !== null && spy.hold === purpose) {
          spy.held.push(() => handler(event));
          document.documentElement.dataset.spyHeld = String(spy.held.length);
          return undefined;
        }
        if (data?.type === "result" && spy.failNext === purpose) {
          spy.failNext = null;
          const message = "Traceback (most recent call last):\\n" +
            '  File "/lib/python3.14/site-packages/pyapp/web/api.py", line 9, in handle\\n' +
            "ZeroDivisionError: division by zero";
          return handler({ data: { type: "error", id: data.id, message } });
        }
        return handler(event);
      });
    },
  });
})();"""


# What the page shows of its start-up, for a failure message: the status and its words,
# and the stages the worker reported (the worker spy's, where the page carries it).
STARTUP_SEEN = """() => {
  const status = document.querySelector('[data-testid="status"]');
  return {
    state: status?.dataset.state ?? null,
    words: status?.innerText ?? null,
    stages: window.__spy?.stages ?? null,
    kept: document.querySelectorAll("template").length,
  };
}"""


def wait_until_ready(page: Any, timeout_ms: int = BOOT_TIMEOUT_MS) -> None:
    """Waits until start-up ends; fails, saying why, if it ended in an error or did not
    end in time (then with what the page showed of it)."""
    try:
        page.wait_for_selector(f'{READY}, {STATUS}[data-state="error"]', timeout=timeout_ms)
    except PlaywrightTimeout:
        seen = page.evaluate(STARTUP_SEEN)
        pytest.fail(f"the engine was not ready in {timeout_ms / 1000:g} s; the page showed {seen}")
    status = page.locator(STATUS)
    # Once ready, the first computation may already have turned it to "busy".
    if status.get_attribute("data-state") == "error":
        pytest.fail(f"the engine failed to start: {status.inner_text()}")


def open_ready(page: Any, url: str) -> Any:
    """Navigates to ``url`` and waits until the engine is ready."""
    page.goto(url)
    wait_until_ready(page)
    return page


# How the page looks to a person, as one string: the hash, every field's value, which
# folds are open, how many of each visible test id there are, and all the visible text.
# Two equal strings: the page shows the same thing, and a person could not tell them apart.
# Each field of the page (in document order) by name: its test id (else its id, name
# or tag) and which of that name it is, as "size-input#1".
FIELD_NAMES = """() => {
  const seen = new Map();
  return [...document.querySelectorAll("input, select, textarea")].map((e) => {
    const name = e.dataset.testid || e.id || e.name || e.tagName;
    seen.set(name, (seen.get(name) ?? 0) + 1);
    return `${name}#${seen.get(name)}`;
  });
}"""

LOOKS = (
    """() => {
  const value = (e) =>
    e.type === "checkbox" || e.type === "radio" ? e.checked : e.type === "file" ? 0 : e.value;
  const fields = [...document.querySelectorAll("input, select, textarea")].map(value);
  const keys = ("""
    + FIELD_NAMES
    + """)();
  const visible = {};
  for (const e of document.querySelectorAll("[data-testid]")) {
    if (e.checkVisibility()) visible[e.dataset.testid] = (visible[e.dataset.testid] ?? 0) + 1;
  }
  const open = [...document.querySelectorAll("details")].map((d) => d.open);
  const status = document.querySelector('[data-testid="status"]').dataset.state;
  const text = document.body.innerText;
  return JSON.stringify({ hash: location.hash, status, keys, fields, open, visible, text });
}"""
)

# Puts the page back as `first` (LOOKS of its first visit) shows it, as a person
# would: the lists and storage emptied, every field and fold as it was, the scroll at
# the top; then the first visit's text and the settings of its hash, computed at once.
# Emptying a list or choosing a preset takes the page a few frames (the sweep's
# evidence metrics go with the evidence, a preset's separators replace the list), so
# the fields are matched by name, and set again whenever the page's fields change.
# Resolves true once the page looks as it did (looked at every frame); false once it
# has looked otherwise for a second with the engine idle (something was left that
# cannot be put back in place), or after 20 s at most.
RESET = (
    """async (firstJson) => {
  const looks = """
    + LOOKS
    + """;
  const names = """
    + FIELD_NAMES
    + """;
  const first = JSON.parse(firstJson);
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  window.__spy?.release(); // answers a test held back are delivered, none held from now
  sessionStorage.clear();
  localStorage.clear();
  document.querySelector('[data-testid="evidence-clear"]:not([disabled])')?.click();
  document.activeElement?.blur?.();
  const box = document.querySelector('[data-testid="text-input"]');
  const was = new Map(first.keys.map((key, i) => [key, first.fields[i]]));
  // Sets each field the first visit had that differs from how it had it, matched by
  // name (test id and which of that name), so that a field added since (an evidence
  // metric, a separator) leaves the others in place; once per set of fields, so a
  // field the page settles otherwise is not set again every frame.
  let setFor = "";
  const setFields = () => {
    const fields = [...document.querySelectorAll("input, select, textarea")];
    const keys = names();
    if (JSON.stringify(keys) === setFor) return;
    setFor = JSON.stringify(keys);
    fields.forEach((e, i) => {
      if (e.type === "file" || e === box || !was.has(keys[i])) return;
      const value = was.get(keys[i]);
      if (e.type === "checkbox" || e.type === "radio") {
        if (e.checked === value) return;
        e.checked = value;
      } else {
        if (e.value === value) return;
        e.value = value;
      }
      e.dispatchEvent(new Event("input", { bubbles: true }));
      e.dispatchEvent(new Event("change", { bubbles: true }));
    });
  };
  setFields();
  [...document.querySelectorAll("details")].forEach((d, i) => (d.open = first.open[i]));
  const text = was.get("text-input#1");
  if (box.value !== text) {
    box.value = text;
    box.dispatchEvent(new Event("input", { bubbles: true }));
  }
  // The first visit's hash, read anew by the page as after a link: computed at once.
  history.replaceState(null, "", first.hash);
  dispatchEvent(new HashChangeEvent("hashchange"));
  window.scrollTo(0, 0);
  const until = performance.now() + 20000; // a hang bound: a reset takes a few frames
  let last = "";
  let since = performance.now();
  while (performance.now() < until) {
    await frame();
    const now = looks();
    if (now === firstJson) return true;
    if (now !== last || JSON.parse(now).status !== "ready") {
      last = now;
      since = performance.now();
    } else if (performance.now() - since > 1000) {
      return false;
    }
    setFields();
  }
  return false;
}"""
)


def release_held(page: Any) -> None:
    """Delivers the answers the spy held back, and returns once the page has handled
    them (the continuations they resolve run before the next task)."""
    page.evaluate("() => { window.__spy.release(); return new Promise((r) => setTimeout(r, 0)); }")


def first_visit(page: Any) -> str:
    """LOOKS of a page that has just booted, once its first result is on screen."""
    summary = page.get_by_test_id("summary-chunks")
    expect(summary).to_have_attribute("data-value", re.compile(r"\d"), timeout=WAIT_MS)
    expect(page.locator(STATUS)).to_have_attribute("data-state", "ready", timeout=WAIT_MS)
    looks: str = page.evaluate(LOOKS)
    return looks


def reset_page(page: Any, url: str, first: str) -> bool:
    """Puts a booted page at ``url`` back as its first visit showed it (``first``, from
    :func:`first_visit`), in place; False when it cannot be (then reload it)."""
    if page.url.split("#")[0] != url.split("#")[0]:
        return False
    page.mouse.move(0, 0)  # a pointer left over the text view or a chart shows a readout
    return bool(page.evaluate(RESET, first))


def configure(
    page: Any,
    *,
    text: str | None = None,
    unit: str | None = None,
    encoding: str | None = None,
    percent: bool | None = None,
    size: str | int | None = None,
    overlap: str | int | None = None,
    tpu: str | None = None,
    price: str | None = None,
) -> None:
    """Sets the main form's controls the way a person does: click, choose, fill."""
    if unit is not None:
        page.get_by_test_id(f"unit-{unit}").check()
    if encoding is not None:
        page.get_by_test_id("encoding-select").select_option(encoding)
    if percent is not None:
        page.get_by_test_id("overlap-mode-percent" if percent else "overlap-mode-units").check()
    if size is not None:
        page.get_by_test_id("size-input").fill(str(size))
    if overlap is not None:
        page.get_by_test_id("overlap-input").fill(str(overlap))
    if tpu is not None:
        page.get_by_test_id("tokens-per-unit-input").fill(tpu)
    if price is not None:
        page.get_by_test_id("price-input").fill(price)
    if text is not None:
        page.get_by_test_id("text-input").fill(text)


def put_text(page: Any, text: str) -> None:
    """Puts a long text in the text box at once (Playwright's fill types a long
    text far slower than a person pastes it): sets the value, fires ``input``."""
    page.get_by_test_id("text-input").evaluate(
        "(el, text) => { el.value = text; el.dispatchEvent(new Event('input', {bubbles: true})); }",
        text,
    )


def expect_figure(scope: Any, testid: str, text: Any, value: str | None = None) -> None:
    """A figure shows ``text`` (a string or a pattern) and, when ``value`` is given,
    carries the engine's unrounded value in ``data-value``."""
    locator = scope.get_by_test_id(testid)
    if value is not None:
        expect(locator).to_have_attribute("data-value", value, timeout=WAIT_MS)
    expect(locator).to_have_text(text, timeout=WAIT_MS)


def error_slot(scope: Any, field: str) -> Any:
    """The inline message slot for ``field`` (``size``, ``sizing.dim``, ...)."""
    return scope.locator(f'[data-testid="error"][data-field="{field}"]')


def native(op: str, **request: Any) -> dict[str, Any]:
    """The engine's answer, computed natively: what the page must show."""
    response = json.loads(handle(json.dumps({"op": op, **request})))
    assert response["ok"], response
    result: dict[str, Any] = response["result"]
    return result


def cli_chunk(text: str, *flags: str) -> bytes:
    """What ``python -m pyapp chunk -`` prints for ``text`` with ``flags``, byte for byte."""
    done = subprocess.run(
        [sys.executable, "-m", "pyapp", "chunk", "-", *flags],
        input=text.encode(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def js_number(value: float) -> str:
    """How the page writes a number into data-value (JavaScript's String(n)): the
    shortest digits that round-trip, as Python's repr, written out without an exponent
    from 1e-7 up to 1e21 (``3.4e-06`` is ``"0.0000034"``)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, float) and 1e-7 <= abs(value) < 1e21 and "e" in repr(value):
        return format(Decimal(repr(value)), "f")
    return json.dumps(value)


#: Records, in window.__posted, what the page posts to the engine's worker from now on:
#: each call's purpose, or the message's type.
RECORD_POSTS = """async () => {
  const { engine } = await import("./static/start.js");
  const posted = (window.__posted = []);
  const post = engine._worker.postMessage.bind(engine._worker);
  engine._worker.postMessage = (message, transfer) => {
    posted.push(message.type === "call" ? message.purpose : message.type);
    post(message, transfer);
  };
}"""


# The overview strip's bars: one path per tint, each a rectangle `M{x} 0h{n}V..h-{n}Z`
# per run of bars of that tint.
STRIP_RUN = re.compile(r"M(\d+) 0h(\d+)V")


def strip_tints(overview: Any) -> list[str]:
    """The tint of every bar of the overview strip, from the left, read off its paths
    (a bar drawn twice or not at all is a gap or a double here, and fails the test)."""
    paths = overview.get_by_test_id("overview-bars").evaluate_all(
        "els => els.map(e => [e.dataset.tint, e.getAttribute('d')])"
    )
    tints: dict[int, str] = {}
    for tint, d in paths:
        for start, width in STRIP_RUN.findall(d):
            for column in range(int(start), int(start) + int(width)):
                assert column not in tints, f"bar {column} is drawn twice"
                tints[column] = tint
    assert sorted(tints) == list(range(len(tints))), "the bars leave a gap"
    return [tints[c] for c in range(len(tints))]

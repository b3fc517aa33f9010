"""Site benchmark: the page against its anchors, one table from one run.

Run it as ``python build.py bench`` (which builds dist/ and finds Chromium
first), or directly with the project's venv: ``python bench/bench_site.py``.
Every row is a median over ``--runs`` repetitions in headless Chromium, with its
ratio to an anchor measured in the same run (the machine is shared and noisy, so
only ratios within one run compare):

1. first paint: navigation -> the text box painted and usable, against the first
   paint of a bare page (``bench/pages/bare.html``) from the same server;
2. time to ready: navigation -> status ready, cold cache, against a bare
   ``loadPyodide()`` of the same served runtime in a module worker (bare.html);
3. recompute, 1,000,000 bytes of English in word and char mode: an edit of the
   size field -> the new summary and cards on screen (the cap notice instead of
   cards when the result is over the caps), against a plain-JS chunker of the same
   windows over the same text in the same page (``bench/pages/reference.js``); and,
   a row of its own, until the status says ready again (the background work that
   follows an answer waits for 250 ms without a newer call first);
4. token mode (o200k_base): the first switch after the first result, and each
   later switch, against native ``tiktoken`` encoding the text in this process;
5. the longest main-thread task (``longtask`` entries) during each of 3 and 4;
6. repeat visit: navigation -> ready with the network cut off after one visit
   (the service worker serves the build), against the bare boot of row 2;
7. memory after a 1 MB token-mode result: the page's JS heap plus the engine's
   wasm memory, against the wasm memory of a bare ``loadPyodide()``;
8. an edit made while the worker warms up the o200k tokenizer in the background
   (it begins a second after the first answers): a size edit -> the new summary
   and cards on screen, against the same edit once the warm-up is done; with the
   longest warm-up slice (the most an edit can wait behind it) and the whole
   warm-up.

Row 11 alone (``--section text-view``): the text view of a megabyte in 188,588 chunks,
the edit, then wheel turns, "go to chunk" and a strip click with the longest task (Long
Tasks API) and the most CPU one task took (a Chromium trace), with another build's
same measures (``--before DIR``) interleaved; written to its own section of RESULTS.md.

12-15. pasting and opening a document (``--section paste`` measures only these and
   prints them): Ctrl+A, Ctrl+V of a 1 MB document (a real one, see ``document_text``)
   over the page's sample text and over a 1 MB text; the same document dropped on the
   box as a file; 200,000 combining marks after one letter pasted over the sample.
   Each is keypress (or drop) -> the box holds the text and the next frame is drawn,
   against a bare textarea (``bench/pages/textarea.html``) given the same paste (the
   file's text put in its value, for the drop) in the same run. Rows 14b and 14c: the
   drop's CPU time, on the renderer's main thread and in the whole renderer process
   (the engine's worker and V8's compiler threads included), against the anchor's:
   on a shared two-core machine the wall time of row 14 is mostly how much of the
   processor the page's other threads leave its main thread.

Rows 1, 2 and 9 alone (``--section keystroke``): start-up and typing, each followed by
the same measure of another build given with ``--before DIR`` (a copy of dist/ built from
main, say), measured interleaved in the same run; row 9 there and in the site table
times each of the ten keystrokes, from its input event to the first frame whose
character count includes it, and the last keystroke alone as before.

Its own section, the newer encodings in the browser (``--section encodings`` runs only
it): for each encoding whose vocabulary is a wheel of its own (bert-base-uncased,
llama3, qwen2, tekken), on the same 1,000,000 bytes in token mode,

E1. the first switch to it (a fresh page, its o200k_base result on screen): choosing
    it in the encoding select -> the new summary and cards (or the cap notice) on
    screen, the wheel fetched and installed, the vocabulary read and the text encoded;
    with how long the fetch-and-install and the read took in the worker, and the
    longest main-thread task meanwhile (the page stays responsive);
E2. a later recompute of the same megabyte, as row 4 times o200k_base's later
    switches: a size edit -> the new summary and cards on screen, and when the
    engine's answer reached the page (the engine keeps the text's tokens);
E3. the megabyte edited as a person edits it, at one place (its first eight
    characters selected and retyped, one insertion: one input event), so it is encoded
    again, the vocabulary loaded -> the new summary on screen, the time inside the
    engine's handle() in the worker, where the text is encoded, and the longest
    main-thread task from the input event to the answer on screen; o200k_base too, for
    comparison; with ``--before DIR`` the same edits on another build's pages; and the
    anchor, a plain textarea given the same edits, then its whole value replaced (as
    E3 once edited: the browser then lays the whole megabyte out again, a task of
    hundreds of ms in any page, which a person typing never causes);

each against that encoding's native reference library encoding the same text in
this process, in the same run (Hugging Face ``tokenizers`` for WordPiece, tiktoken for
Llama 3 and Qwen2, mistral-common for tekken: tests/engine/references.py).

The benchmark pages are served under ``/__bench__/`` by this script only; they
are never copied into dist/. Results go to ``bench/RESULTS.md`` with the machine,
the browser version and the date (``--no-write`` to only print). Each section of
RESULTS.md is rewritten by the run that measured it; every other section is kept.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent
PAGES = BENCH / "pages"
RESULTS = BENCH / "RESULTS.md"
BENCH_PREFIX = "/__bench__/"
#: The newer encodings' section of RESULTS.md, between these markers.

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))
from bench_engine import TARGET_BYTES, english  # noqa: E402
from machine import machine  # noqa: E402
from results import put_section  # noqa: E402

import build  # noqa: E402
from pyapp.core import tokenizers  # noqa: E402
from pyapp.core.units import word_count  # noqa: E402
from pyapp.facts import MAX_CHUNKS, MAX_PROCESSED_UNITS  # noqa: E402

# Installed with add_init_script: runs before the page's own scripts (and is not
# subject to its CSP). Records long tasks, when the status first says ready and
# when the text box is first there to type in.
PROBE = """
(() => {
  const bench = {
    longtasks: [], readyAt: undefined, boxAt: undefined,
    lastChange: 0, inputs: [], painted: [],
  };
  Object.defineProperty(window, "__bench", { value: bench });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) bench.longtasks.push([e.startTime, e.duration]);
    }).observe({ type: "longtask", buffered: true });
  } catch {}
  // The whole interaction: when the page last changed anything (a visible change or
  // not), and for each input event the time until the frame after it (the next
  // rAF, then a task: the frame has been produced).
  const changed = () => { bench.lastChange = performance.now(); };
  const watch = () => new MutationObserver(changed).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });
  if (document.documentElement) watch(); else document.addEventListener("DOMContentLoaded", watch);
  addEventListener("input", (event) => {
    const at = event.timeStamp;
    bench.inputs.push(at);
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => bench.painted.push(performance.now() - at);
      channel.port2.postMessage(null);
    });
  }, true);
  const seen = () => {
    const status = document.querySelector('[data-testid="status"]');
    if (status && status.dataset.state === "ready" && bench.readyAt === undefined) {
      bench.readyAt = performance.now();
    }
    const box = document.querySelector('[data-testid="text-input"], #result');
    if (bench.boxAt === undefined && box) {
      bench.boxAt = performance.now();
    }
  };
  new MutationObserver(seen).observe(document, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"],
  });
})();
"""

# navigation -> the text box is in the DOM and the page has painted it.
FIRST_PAINT = """async () => {
  const paint = () => performance.getEntriesByName("first-contentful-paint")[0];
  const later = () => new Promise((r) => setTimeout(r, 20));
  while (!paint() || window.__bench.boxAt === undefined) await later();
  return Math.max(paint().startTime, window.__bench.boxAt);
}"""

# JavaScript shared by INTERACT and the encodings' edits: waits a frame at a time
# until done(), then for the frame that shows it (`ended`), lets the long-task
# observer deliver, and takes the longest main-thread task since `began`.
UNTIL_DONE = """  await new Promise((resolve) => {
    const check = () => (done() ? resolve() : requestAnimationFrame(check));
    requestAnimationFrame(check);
  });
  const ended = await new Promise((r) => requestAnimationFrame(() => r(performance.now())));
  await new Promise((r) => setTimeout(r, 150)); // let the long-task observer catch up
  const longest = window.__bench.longtasks
    .filter(([start, duration]) => start + duration > began && start < ended)
    .reduce((max, [, duration]) => Math.max(max, duration), 0);
"""

# Edits a field (or clicks a unit) and waits for the engine's answer on screen:
# the summary shows `chunks`, and the cards are all rendered (or the cap notice
# is shown, when the result is over the caps): `ms`, to the frame that shows them.
# Then for the status to say ready again (`settled`): the background work that
# follows an answer (the view's checks, the panels) waits for 250 ms without a
# newer call first, so that typing never queues behind it; the figures and cards
# on screen do not change meanwhile. Returns both, and the longest main-thread task
# until the second.
INTERACT = (
    """async ({ action, value, chunks, capped }) => {
  const q = (s) => document.querySelector(s);
  const shown = () => {
    const figure = q('[data-testid="summary-chunks"]');
    const list = q("#chunk-list");
    if (!figure || figure.dataset.value !== String(chunks)) return false;
    if (capped) return !q("#cap-notice").hidden;
    return list.dataset.rendered === "true" && list.children.length === chunks;
  };
  const done = () => shown() && q('[data-testid="status"]').dataset.state === "ready";
  let shownAt = null;
  const watch = () => {
    if (shown()) requestAnimationFrame(() => { shownAt = performance.now(); });
    else requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
  const began = performance.now();
  if (action === "size") {
    const size = q('[data-testid="size-input"]');
    size.value = String(value);
    size.dispatchEvent(new Event("input", { bubbles: true }));
  } else {
    q(`[data-testid="unit-${value}"]`).click();
  }
"""
    + UNTIL_DONE
    + """  // When the engine's answer reached the page (engine-client marks it): the rest
  // is parsing and rendering.
  const answer = performance.getEntriesByName("engine:answer:view").at(-1);
  const answered = answer && answer.startTime >= began ? answer.startTime - began : null;
  return { ms: (shownAt ?? ended) - began, settled: ended - began, longest, answered };
}"""
)

# The long-task observer is proven on a task the page itself runs: a busy loop
# scheduled with setTimeout (code run by page.evaluate is not a task the observer
# sees, so a loop run there directly proves nothing).
CALIBRATE = """async () => {
  const began = performance.now();
  setTimeout(() => {
    const t = performance.now();
    while (performance.now() - t < 120) {}
  }, 0);
  await new Promise((r) => setTimeout(r, 400));
  return window.__bench.longtasks
    .filter(([s, d]) => s >= began - 1 && d >= 100)
    .reduce((max, [, d]) => Math.max(max, d), 0);
}"""

FILL_TEXT = """async (text) => {
  const box = document.querySelector('[data-testid="text-input"]');
  box.value = text;
  box.dispatchEvent(new Event("input", { bubbles: true }));
}"""

# The worker's start-up stages and its wasm memory, from its performance entries.
WORKER_ENTRIES = """() => ({
  stages: Object.fromEntries(performance.getEntriesByType("measure")
    .filter((e) => e.name.startsWith("engine:"))
    .map((e) => [e.name.slice("engine:".length), e.duration])),
  wasm: performance.getEntriesByName("engine:wasm-memory").at(-1)?.detail ?? null,
})"""


#: How every page here is opened, said once in each section that times a cold visit.
LAUNCH_NOTE = (
    "Chromium is launched as the tests launch it (build.py's CHROMIUM_FLAGS): without the"
    " renderer of the address bar's suggestion popup, which headless Chromium starts with"
    " every new context, so beside every cold visit measured here, the bare pages' too"
    " (about 430 ms of CPU on two cores; a person's browser starts it with a window, not"
    " with a page)"
)


class BenchHandler(build.SiteHandler):
    """dist/ as the site serves it, plus the benchmark pages under /__bench__/."""

    def translate_path(self, path: str) -> str:
        if path.startswith(BENCH_PREFIX):
            name = path[len(BENCH_PREFIX) :].split("?", 1)[0].split("#", 1)[0]
            return str(PAGES / Path(name).name)
        return super().translate_path(path)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    executable = build.find_chromium()
    if executable is None:
        raise SystemExit("bench: no Chromium found: run `python build.py bench`, or set CHROMIUM")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable,
            args=[*build.chromium_args(), "--enable-precise-memory-info"],
            headless=True,
        )
        try:
            yield browser
        finally:
            browser.close()


def window_count(units: int, size: int, overlap: int) -> tuple[int, bool]:
    """Chunks of the fixed-window formula, and whether the view caps them."""
    chunks = 0 if units == 0 else 1 + -(-max(0, units - size) // (size - overlap))
    processed = units + max(0, chunks - 1) * overlap
    return chunks, chunks > MAX_CHUNKS or processed > MAX_PROCESSED_UNITS


def wait_ready(page: Any) -> None:
    settled = (
        '[data-testid="status"][data-state="ready"], [data-testid="status"][data-state="error"]'
    )
    page.wait_for_selector(settled, timeout=120_000)
    status = page.get_by_test_id("status")
    if status.get_attribute("data-state") == "error":
        raise SystemExit(f"bench: the page failed to start: {status.inner_text()}")


@dataclass
class Run:
    """Every sample of one invocation, by name."""

    samples: dict[str, list[float]]
    notes: dict[str, str]

    def add(self, name: str, value: float) -> None:
        self.samples.setdefault(name, []).append(value)

    def median(self, name: str) -> float:
        return statistics.median(self.samples[name])


def bare(browser: Any, base: str, run: Run) -> None:
    """Anchors: a bare page's first paint and a bare loadPyodide(), fresh context."""
    context = browser.new_context()
    try:
        context.add_init_script(PROBE)
        page = context.new_page()
        page.goto(f"{base}__bench__/bare.html")
        run.add("bare paint", page.evaluate(FIRST_PAINT))
        page.wait_for_selector(
            '#result[data-state="done"], #result[data-state="error"]', timeout=120_000
        )
        result = page.locator("#result")
        if result.get_attribute("data-state") != "done":
            raise SystemExit(f"bench: bare boot {result.inner_text()}")
        run.add("bare boot", float(result.get_attribute("data-at-ms") or "nan"))
        run.add("bare wasm", float(result.get_attribute("data-wasm-bytes") or "nan"))
    finally:
        context.close()


def cold_page(browser: Any, base: str, run: Run, prefix: str = "") -> None:
    """The page in a fresh context: first paint, time to ready, worker stages (each
    sample named with ``prefix`` first: another build's are kept apart)."""
    context = browser.new_context()
    try:
        context.add_init_script(PROBE)
        page = context.new_page()
        page.goto(base)
        run.add(f"{prefix}paint", page.evaluate(FIRST_PAINT))
        wait_ready(page)
        run.add(f"{prefix}ready", float(page.evaluate("() => window.__bench.readyAt")))
        entries = page.workers[0].evaluate(WORKER_ENTRIES) if page.workers else {"stages": {}}
        for stage, duration in entries["stages"].items():
            if stage in {"runtime", "packages", "engine"}:
                run.add(f"{prefix}stage {stage}", duration)
        boot = page.evaluate(
            "() => document.querySelector('[data-testid=status]').dataset.boot || ''"
        )
        if boot:
            run.notes["boot"] = boot
    finally:
        context.close()


@contextmanager
def page_with_text(
    browser: Any,
    base: str,
    text: str,
    *,
    words: int,
    size: int,
    overlap: int,
    unit: str = "word",
    chunks: int | None = None,
) -> Iterator[Any]:
    """A fresh page (the probe installed) in ``unit`` mode (word unless said) at ``size``
    and ``overlap``, holding ``text`` (of ``words`` words), its first result
    (``chunks`` chunks; in word mode counted here) on screen."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        context.add_init_script(PROBE)
        page = context.new_page()
        page.goto(f"{base}#unit={unit}&size={size}&overlap={overlap}")
        wait_ready(page)
        page.evaluate(FILL_TEXT, text)
        first = chunks if chunks is not None else window_count(words, size, overlap)[0]
        page.wait_for_selector(
            f'[data-testid="summary-chunks"][data-value="{first}"]', timeout=120_000
        )
        yield page
    finally:
        context.close()


def interactions(browser: Any, base: str, run: Run, text: str, runs: int) -> None:
    """Recompute in word and char mode, token switches, memory: one page, 1 MB text."""
    reference = (PAGES / "reference.js").read_text()
    reference_fn = reference[reference.index("({") :]
    units = {"word": word_count(text), "char": len(text)}
    native = tokenizers.get_tokenizer("o200k_base", backend="tiktoken")
    for _ in range(runs):
        began = time.perf_counter()
        ids = native.encode(text)
        run.add("tiktoken", (time.perf_counter() - began) * 1000)
    units["token"] = len(ids)
    sizes = {"word": (1000, 1100), "char": (5000, 5500), "token": (1000, 1100)}
    overlap = {"word": 50, "char": 500, "token": 50}

    opened = page_with_text(
        browser, base, text, words=units["word"], size=sizes["word"][0], overlap=overlap["word"]
    )
    with opened as page:

        def interact(action: str, value: Any, unit: str, size: int) -> dict[str, float]:
            chunks, capped = window_count(units[unit], size, overlap[unit])
            args = {"action": action, "value": value, "chunks": chunks, "capped": capped}
            result: dict[str, float] = page.evaluate(INTERACT, args)
            return result

        # The long-task observer must see a task it is shown, or row 5 means nothing.
        seen = float(page.evaluate(CALIBRATE))
        run.notes["longtask"] = (
            f"the observer saw a 120 ms busy loop the page ran from a timer as a {seen:.0f} ms"
            " task, so row 5 is verified"
            if seen >= 100
            else "WARNING: the observer did not see a 120 ms busy loop the page ran from a"
            " timer, so row 5 may under-report"
        )
        # Token mode first (as a user would, just after the first result), then back.
        page.evaluate("() => new Promise((r) => setTimeout(r, 300))")
        page.get_by_test_id("overlap-input").fill(str(overlap["token"]))
        page.wait_for_selector('[data-testid="status"][data-state="ready"]')
        for i in range(runs + 1):
            got = interact("unit", "token", "token", sizes["word"][0])
            name = "token first" if i == 0 else "token later"
            run.add(name, got["ms"])
            run.add(f"{name} longest", got["longest"])
            if got["answered"] is not None:
                run.add(f"{name} answered", got["answered"])
            if i == 0:
                entries = page.workers[0].evaluate(WORKER_ENTRIES)
                run.add("wasm", float(entries["wasm"] or 0))
                run.add("heap", float(page.evaluate("() => performance.memory.usedJSHeapSize")))
            interact("unit", "word", "word", sizes["word"][0])
        for unit in ("word", "char"):
            if unit == "char":
                page.get_by_test_id("overlap-input").fill(str(overlap["char"]))
                page.get_by_test_id("size-input").fill(str(sizes["char"][0]))
                interact("unit", "char", "char", sizes["char"][0])
            for i in range(runs):
                size = sizes[unit][(i + 1) % 2]
                got = interact("size", size, unit, size)
                run.add(f"{unit} recompute", got["ms"])
                run.add(f"{unit} settled", got["settled"])
                run.add(f"{unit} longest", got["longest"])
                if got["answered"] is not None:
                    run.add(f"{unit} answered", got["answered"])
                handled = page.workers[0].evaluate(WORKER_ENTRIES)["stages"].get("handle:view")
                if handled is not None:
                    run.add(f"{unit} handle", handled)
                ref = page.evaluate(
                    f"(args) => ({reference_fn})(args)",
                    {"text": text, "unit": unit, "size": size, "overlap": overlap[unit]},
                )
                expected, _ = window_count(units[unit], size, overlap[unit])
                if ref["chunks"] != expected:
                    raise SystemExit(
                        f"bench: JS reference made {ref['chunks']} {unit} chunks, not {expected}"
                    )
                run.add(f"{unit} reference", ref["ms"])
        run.notes["text"] = (
            f"{len(text.encode()):,} bytes: {units['word']:,} words, {units['char']:,} chars,"
            f" {units['token']:,} o200k tokens"
        )
        run.notes["settings"] = (
            f"word size {sizes['word'][0]}/{sizes['word'][1]} overlap {overlap['word']};"
            f" char size {sizes['char'][0]}/{sizes['char'][1]} overlap {overlap['char']};"
            f" token size {sizes['word'][0]} overlap {overlap['token']}"
        )


# ---- the whole interaction -------------------------------------------------------
#
# Rows 9-11 keep the long-task observer open from the first input event until the
# page has changed nothing for a second (the sweep chart, the boundary marks, the
# panels, the text view all included), and compare with a plain <textarea> page
# (bench/pages/textarea.html) given the same typing in the same run.

QUIET_MS = 1000

# Starts watching: what happens from now on is the interaction.
WATCH = """() => {
  const b = window.__bench;
  b.watchFrom = performance.now();
  b.inputs.length = 0;
  b.painted.length = 0;
}"""

# Waits until a figure holds `value` (checked every frame), and returns the time from
# the last input event to that frame: the new figures on screen.
FIGURES = """async ({ selector, attribute, value }) => {
  const b = window.__bench;
  const shown = () => document.querySelector(selector)?.getAttribute(attribute) === value;
  await new Promise((resolve) => {
    const check = () => (shown() ? resolve() : requestAnimationFrame(check));
    requestAnimationFrame(check);
  });
  return performance.now() - b.inputs.at(-1);
}"""

# Waits for a second in which the page changes nothing; returns what the observer saw
# over the whole interaction.
SETTLE = """async ({ quiet }) => {
  const b = window.__bench;
  const later = (ms) => new Promise((r) => setTimeout(r, ms));
  const last = () => Math.max(b.lastChange, b.inputs.at(-1) ?? 0);
  while (performance.now() - last() < quiet) await later(50);
  await later(100); // let the observer deliver the last entries
  const tasks = b.longtasks.filter(([start, duration]) => start + duration > b.watchFrom);
  return {
    longest: tasks.reduce((max, [, d]) => Math.max(max, d), 0),
    tasks: tasks.length,
    blocked: tasks.reduce((sum, [, d]) => sum + Math.max(0, d - 50), 0),
    painted: [...b.painted],
    lasted: last() - b.watchFrom,
  };
}"""

# The observer must see work that follows an answer, not just the answer: once the
# summary changes, the page runs a 120 ms task half a second later.
FOLLOW_UP = """() => {
  const figure = document.querySelector('[data-testid="summary-chunks"]');
  const once = new MutationObserver(() => {
    once.disconnect();
    setTimeout(() => { const t = performance.now(); while (performance.now() - t < 120) {} }, 500);
  });
  once.observe(figure, { attributes: true, childList: true, characterData: true, subtree: true });
}"""

TYPED = "chunk size"  # ten characters


def settle(page: Any) -> dict[str, Any]:
    """Waits until the page has changed nothing for a second: what the observer saw."""
    result: dict[str, Any] = page.evaluate(SETTLE, {"quiet": QUIET_MS})
    return result


def figures(page: Any, testid: str, value: object, attribute: str = "data-value") -> float:
    """Waits for a figure to show ``value``: ms from the last input event to that frame."""
    args = {"selector": f'[data-testid="{testid}"]', "attribute": attribute, "value": str(value)}
    return float(page.evaluate(FIGURES, args))


def record(run: Run, name: str, seen: dict[str, Any], latencies: list[float]) -> None:
    """One repetition of a row: its latency (median), the longest task, the frames."""
    if latencies:
        run.add(f"{name} figures", statistics.median(latencies))
    run.add(f"{name} longest", seen["longest"])
    run.add(f"{name} blocked", seen["blocked"])
    run.add(f"{name} lasted", seen["lasted"])
    if seen["painted"]:
        run.add(f"{name} frame", statistics.median(seen["painted"]))
        run.add(f"{name} frame max", max(seen["painted"]))


@contextmanager
def bare_textarea(browser: Any, base: str, text: str) -> Iterator[Any]:
    """The anchor: a plain text box holding ``text`` (and a plain number field)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        context.add_init_script(PROBE)
        page = context.new_page()
        page.goto(f"{base}__bench__/textarea.html")
        page.evaluate(FILL_TEXT, text)
        settle(page)
        yield page
    finally:
        context.close()


def type_into_middle(page: Any, length: int) -> None:
    """Puts the caret in the middle of the text box and types ten characters."""
    box = page.get_by_test_id("text-input")
    box.evaluate("(el, at) => { el.focus(); el.setSelectionRange(at, at); }", length // 2)
    page.keyboard.type(TYPED, delay=120)


# Records, for every change of a figure's data-value, the frame that shows it: the time
# of the next animation frame and the value.
SHOWN = """(testid) => {
  const b = window.__bench;
  const node = document.querySelector(`[data-testid="${testid}"]`);
  b.shown = [];
  b.shownObserver?.disconnect();
  b.shownObserver = new MutationObserver(() => {
    const value = Number(node.getAttribute("data-value"));
    requestAnimationFrame(() => b.shown.push([performance.now(), value]));
  });
  b.shownObserver.observe(node, { attributes: true, attributeFilter: ["data-value"] });
}"""


def edit_latencies(page: Any, length: int) -> list[float]:
    """For each input event since WATCH (the i-th makes the text ``length + i + 1`` code
    points long), the time until the first frame whose count shows that edit or a later
    one: each keystroke's edit -> new figures on screen."""
    seen = page.evaluate("() => ({ inputs: window.__bench.inputs, shown: window.__bench.shown })")
    out = []
    for i, at in enumerate(seen["inputs"]):
        shown = [t for t, value in seen["shown"] if t >= at and value >= length + i + 1]
        if shown:
            out.append(min(shown) - at)
    return out


def typing_rows(
    browser: Any, base: str, run: Run, text: str, runs: int, before: str | None = None
) -> None:
    """Row 9: typing ten characters into a megabyte in token mode (512, 15%), ``runs``
    times: the text is cut to leave room for them under the byte limit. Each keystroke's
    edit -> new figures (``typing figures``, the median of the ten), the last one's
    (``typing last``), the longest task and, from a Chromium trace of the same typing,
    the most CPU one main-thread task took (``typing cpu``); the bare textarea's anchor
    given the same typing; and with ``before`` (another build's site), the same on a
    page of that build (``typing before ...``). The pages are open together and typed
    into in turn, the order alternating, so that the load of a shared machine falls on
    each alike."""
    text = text[: -len(TYPED) * (runs + 1)]
    tokens = len(tokenizers.get_tokenizer("o200k_base", backend="tiktoken").encode(text))
    first, _ = window_count(tokens, 512, 77)
    builds = [(base, "typing")] + ([(before, "typing before")] if before is not None else [])
    with contextlib.ExitStack() as stack:
        pages: list[tuple[Any, str, list[int]]] = []
        for site, name in builds:
            opened = page_with_text(
                browser, site, text, words=0, size=512, overlap=77, unit="token", chunks=first
            )
            pages.append((stack.enter_context(opened), name, [len(text)]))
        anchor = stack.enter_context(bare_textarea(browser, base, text))
        for page, _, _ in pages:
            settle(page)
        for i in range(runs):
            turns = [*pages, (anchor, "typing anchor", [len(text)])]
            for page, name, length in turns if i % 2 == 0 else reversed(turns):
                page.evaluate(WATCH)
                if page is not anchor:
                    page.evaluate(SHOWN, "count-chars")
                browser.start_tracing(page=page, categories=TRACED)
                type_into_middle(page, length[0])
                if page is not anchor:  # the new figures: the counts of the text as typed
                    last = figures(page, "count-chars", length[0] + len(TYPED))
                seen = settle(page)
                events = json.loads(browser.stop_tracing())["traceEvents"]
                run.add(f"{name} cpu", longest_task_cpu(events))
                if page is anchor:
                    record(run, name, seen, [])
                else:
                    record(run, name, seen, edit_latencies(page, length[0]))
                    run.add(f"{name} last", last)
                    length[0] += len(TYPED)


def size_rows(browser: Any, base: str, run: Run, text: str, runs: int) -> None:
    """Row 10: five size edits on a megabyte in word mode (1000/1100, overlap 50)."""
    words = word_count(text)
    with page_with_text(browser, base, text, words=words, size=1000, overlap=50) as page:
        settle(page)
        for _ in range(runs):
            page.evaluate(WATCH)
            latencies = []
            for edit in range(5):
                size = (1100, 1000)[edit % 2]
                page.get_by_test_id("size-input").fill(str(size))
                latencies.append(figures(page, "summary-chunks", window_count(words, size, 50)[0]))
                page.wait_for_timeout(400)  # a person looks before the next edit
            record(run, "sizes", settle(page), latencies)
    with bare_textarea(browser, base, text) as page:
        for _ in range(runs):
            page.evaluate(WATCH)
            for edit in range(5):
                page.get_by_test_id("size-input").fill(str((1100, 1000)[edit % 2]))
                page.wait_for_timeout(400)
            record(run, "sizes anchor", settle(page), [])


def edit_drag_click(page: Any, many: int) -> float:
    """Row 11's interaction: the size edited to 2 words (``many`` chunks), the text view
    dragged to the middle, the strip clicked three quarters along. Returns the time from
    the input event to the text view's new chunk count on screen."""
    drawn = '[data-testid="text-view"][data-rendered="true"]'
    page.get_by_test_id("size-input").fill("2")
    latency = figures(page, "text-view", many, "data-chunks")
    page.wait_for_selector(drawn)
    page.get_by_test_id("text-view").evaluate("el => { el.scrollTop = el.scrollHeight / 2; }")
    page.wait_for_selector(drawn)
    strip = page.get_by_test_id("overview").locator("svg")
    box = strip.bounding_box()
    if box is not None:
        strip.click(position={"x": box["width"] * 0.75, "y": 6})
    return latency


def text_view_rows(browser: Any, base: str, run: Run, text: str, runs: int) -> None:
    """Row 11: the text view of a megabyte in tens of thousands of chunks: a size edit
    from 1000 words to 2 (overlap 1), the view dragged to the middle, and the strip
    clicked three quarters along. Then the observer's proof on a follow-up task."""
    words = word_count(text)
    many, _ = window_count(words, 2, 1)
    with page_with_text(browser, base, text, words=words, size=1000, overlap=1) as page:
        settle(page)
        for _ in range(runs):
            page.evaluate(WATCH)
            latency = edit_drag_click(page, many)
            record(run, "text view", settle(page), [latency])
            page.get_by_test_id("size-input").fill("1000")  # back, for the next repetition
            figures(page, "summary-chunks", window_count(words, 1000, 1)[0])
            settle(page)
        page.evaluate(WATCH)
        page.evaluate(FOLLOW_UP)
        page.get_by_test_id("size-input").fill("1100")
        figures(page, "summary-chunks", window_count(words, 1100, 1)[0])
        seen = settle(page)["longest"]
        run.notes["follow-up"] = (
            f"a 120 ms task the page ran 500 ms after the new figures was seen as a {seen:.0f} ms"
            " task, so rows 9-11 see the work that follows an answer"
            if seen >= 100
            else "WARNING: the whole-interaction observer missed a 120 ms task run 500 ms"
            " after the new figures, so rows 9-11 may under-report"
        )
    with bare_textarea(browser, base, text) as page:
        for _ in range(runs):
            page.evaluate(WATCH)
            page.get_by_test_id("size-input").fill("2")
            record(run, "text view anchor", settle(page), [])


# The worker's warm-up entries (engine/worker.js): begun, done, each slice's time.
WARM_STATE = """() => ({
  begun: performance.getEntriesByName("engine:warm:begin").length > 0,
  total: performance.getEntriesByName("engine:warm").at(-1)?.duration ?? null,
  slices: performance.getEntriesByName("engine:warm:step").map((e) => e.duration),
})"""


def warm_state(page: Any, until: str) -> dict[str, Any]:
    """The warm-up entries once ``until`` holds ("begun", or "total": done)."""
    deadline = time.monotonic() + 120
    while True:
        state: dict[str, Any] = page.workers[0].evaluate(WARM_STATE)
        if state[until]:
            return state
        if time.monotonic() > deadline:
            raise SystemExit(f"bench: the warm-up never {until}: {state}")
        time.sleep(0.01)


def size_edit(page: Any, units: int, size: int, overlap: int) -> float:
    """A size edit in word mode -> the new summary and cards on screen, in ms."""
    chunks, capped = window_count(units, size, overlap)
    args = {"action": "size", "value": size, "chunks": chunks, "capped": capped}
    return float(page.evaluate(INTERACT, args)["ms"])


def warm_edits(browser: Any, base: str, run: Run, runs: int) -> None:
    """An edit while the tokenizer warms up, and the same edit after; fresh page each run."""
    text = english(20_000)
    words = word_count(text)
    overlap = 20
    for _ in range(runs):
        with page_with_text(browser, base, text, words=words, size=200, overlap=overlap) as page:
            size_edit(page, words, 210, overlap)  # the first edit's one-time costs, before both
            warm_state(page, "begun")
            run.add("warm edit", size_edit(page, words, 200, overlap))
            state = warm_state(page, "total")
            run.add("warm edit after", size_edit(page, words, 210, overlap))
            run.add("warm slice longest", max(state["slices"]))
            run.add("warm total", state["total"])
            run.add("warm slices", len(state["slices"]))


def repeat_visits(browser: Any, base: str, run: Run, runs: int) -> None:
    """One visit online, then reloads with the network cut off."""
    context = browser.new_context()
    try:
        context.add_init_script(PROBE)
        page = context.new_page()
        page.goto(base)
        wait_ready(page)
        page.evaluate("() => navigator.serviceWorker.ready.then(() => caches.keys())")
        context.set_offline(True)
        for _ in range(runs):
            page.reload()
            wait_ready(page)
            run.add("offline ready", float(page.evaluate("() => window.__bench.readyAt")))
    finally:
        context.set_offline(False)
        context.close()


# ---- rows 12-15: pasting and opening a document ----------------------------------------

DEBIAN_REFERENCE = Path("/usr/share/debian-reference/debian-reference.en.txt.gz")


def document_text(limit: int = TARGET_BYTES - 1_000) -> tuple[str, str]:
    """A real document of about a megabyte, and where it comes from: the Debian
    Reference in plain text (package debian-reference-en, GPL-2+; ``apt-get install
    debian-reference-en``), repeated to the size, when installed; else the benchmark's
    English text wrapped at 72 columns in paragraphs, as a plain-text document is."""
    import gzip
    import textwrap

    if DEBIAN_REFERENCE.exists():
        one = gzip.decompress(DEBIAN_REFERENCE.read_bytes()).decode("utf-8")
        source = "the Debian Reference (debian-reference-en, GPL-2+), plain text, repeated"
    else:
        words = english(limit).split(" ")
        paragraphs = [" ".join(words[i : i + 120]) for i in range(0, len(words), 120)]
        one = "\n\n".join(textwrap.fill(p, 72) for p in paragraphs)
        source = "generated English wrapped at 72 columns (debian-reference-en not installed)"
    text = one
    while len(text.encode()) < limit:
        text += "\n" + one
    data = text.encode()[:limit]
    return data.decode("utf-8", errors="ignore"), source


# Ctrl+A, Ctrl+V in the focused box, then the next frame: ms from the keypress, measured
# in Python around the key events (the renderer handles the paste inside them).
NEXT_FRAME = """() => new Promise((resolve) => requestAnimationFrame(() => {
  const channel = new MessageChannel();
  const box = document.querySelector('[data-testid="text-input"]');
  channel.port1.onmessage = () => resolve(box.value.length);
  channel.port2.postMessage(null);
}))"""

# A file dropped on the box: ms from the drop until the box holds `length` UTF-16 units
# and the next frame is drawn. `bare`: the plain textarea, which has no drop handler, is
# given the file's text as the page's file reader gives it.
DROP_FILE = """async ([text, length, bare]) => {
  const box = document.querySelector('[data-testid="text-input"]');
  const file = new File([text], "document.txt", { type: "text/plain" });
  const began = performance.now();
  if (bare) {
    box.value = new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer());
  } else {
    const data = new DataTransfer();
    data.items.add(file);
    const init = { dataTransfer: data, bubbles: true, cancelable: true };
    box.dispatchEvent(new DragEvent("drop", init));
  }
  while (box.value.length !== length) await new Promise((r) => requestAnimationFrame(r));
  await new Promise((resolve) => requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = resolve;
    channel.port2.postMessage(null);
  }));
  return performance.now() - began;
}"""


#: The page's text box as laid out (its width and its font decide how many lines a
#: megabyte wraps into, which is most of what laying it out costs): the anchor's
#: plain textarea is given the same, so that the ratio is the page's own overhead.
BOX_STYLE = (
    "width",
    "height",
    "font-family",
    "font-size",
    "line-height",
    "padding",
    "border",
    "box-sizing",
    "white-space",
    "overflow-wrap",
    "tab-size",
)
READ_BOX_STYLE = """(names) => {
  const style = getComputedStyle(document.querySelector('[data-testid="text-input"]'));
  return Object.fromEntries(names.map((name) => [name, style.getPropertyValue(name)]));
}"""
APPLY_BOX_STYLE = """(box, style) => {
  for (const [name, value] of Object.entries(style)) box.style.setProperty(name, value);
}"""


@contextmanager
def paste_target(
    browser: Any, base: str, bare: bool, over: str | None, style: dict[str, str] | None = None
) -> Iterator[Any]:
    """The page (its sample text on screen) or the bare textarea (given the page's box
    ``style``), with clipboard access; holding ``over`` instead when given."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base.rstrip("/"))
        page = context.new_page()
        box = page.get_by_test_id("text-input")
        if bare:
            page.goto(f"{base}__bench__/textarea.html")
            if style:
                box.evaluate(APPLY_BOX_STYLE, style)
            box.evaluate("(el, text) => { el.value = text; }", over or SAMPLE_OVER)
        else:
            page.goto(base)
            wait_ready(page)
            page.wait_for_selector('[data-testid="summary-chunks"][data-value]', timeout=120_000)
            if over is not None:
                page.evaluate(FILL_TEXT, over)
                size = len(over.encode())
                page.wait_for_selector(
                    f'[data-testid="count-bytes"][data-value="{size}"]', timeout=120_000
                )
        yield page
    finally:
        context.close()


#: What the bare textarea holds before a paste "over the example": the page's sample
#: text is 659 characters of English prose; this is as long.
SAMPLE_OVER = ("Overlap repeats the end of one chunk at the start of the next. " * 11)[:659]


def paste_once(page: Any, text: str) -> float:
    """Ctrl+A, Ctrl+V of ``text`` in the box: ms from the keypress to the next frame."""
    page.evaluate("(text) => navigator.clipboard.writeText(text)", text)
    page.get_by_test_id("text-input").focus()
    page.keyboard.press("Control+A")
    began = time.monotonic()
    page.keyboard.press("Control+V")
    held = page.evaluate(NEXT_FRAME)
    elapsed = (time.monotonic() - began) * 1000
    if held != len(text):
        raise SystemExit(f"bench: the paste left {held} units in the box, not {len(text)}")
    return elapsed


def cpu_times(cdp: Any) -> dict[str, float]:
    """The renderer's CPU time so far, in ms (CDP ``Performance.getMetrics``): its main
    thread (``ThreadTime``) and the whole process, workers and compiler threads too
    (``ProcessTime``). Wall time on a shared two-core machine is mostly how much of
    the processor the page's own threads left its main thread; these say which."""
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {name: metrics[name] * 1000 for name in ("ThreadTime", "ProcessTime")}


def paste_rows(browser: Any, base: str, run: Run, runs: int) -> None:
    """Rows 12-15, each repetition in a fresh context, page and anchor alternating."""
    doc, source = document_text()
    run.notes["document"] = f"{len(doc.encode()):,} bytes, {doc.count(chr(10)):,} lines: {source}"
    big = english(TARGET_BYTES - 1_000)
    marks = "a" + "\u0301" * 200_000
    with paste_target(browser, base, False, None) as page:
        style = page.evaluate(READ_BOX_STYLE, list(BOX_STYLE))
    run.notes["box"] = f"{style['width']} wide, {style['font-size']} {style['font-family']}"
    for i in range(runs):
        for bare in (False, True) if i % 2 == 0 else (True, False):
            tag = " anchor" if bare else ""
            with paste_target(browser, base, bare, None, style) as page:
                run.add(f"paste example{tag}", paste_once(page, doc))
            with paste_target(browser, base, bare, big, style) as page:
                run.add(f"paste over 1 MB{tag}", paste_once(page, doc))
            with paste_target(browser, base, bare, None, style) as page:
                shown = doc.replace("\r\n", "\n").replace("\r", "\n")
                cdp = page.context.new_cdp_session(page)
                cdp.send("Performance.enable")
                before = cpu_times(cdp)
                run.add(f"drop file{tag}", float(page.evaluate(DROP_FILE, [doc, len(shown), bare])))
                after = cpu_times(cdp)
                run.add(f"drop main cpu{tag}", after["ThreadTime"] - before["ThreadTime"])
                run.add(f"drop renderer cpu{tag}", after["ProcessTime"] - before["ProcessTime"])
            if i == 0:  # minutes in a bare textarea already: once
                with paste_target(browser, base, bare, None, style) as page:
                    run.add(f"paste marks{tag}", paste_once(page, marks))


def paste_table_rows(run: Run) -> list[Row]:
    m = run.median
    out = []
    for number, name, what in (
        ("12", "paste example", "Ctrl+A, Ctrl+V of a 1 MB document over the sample → next frame"),
        ("13", "paste over 1 MB", "Ctrl+A, Ctrl+V of a 1 MB document over 1 MB → next frame"),
        ("14", "drop file", "a 1 MB document dropped on the box as a file → next frame"),
        ("14b", "drop main cpu", "row 14's main-thread CPU time (the page's own work)"),
        ("14c", "drop renderer cpu", "row 14's CPU time in the whole renderer (worker, compiler)"),
        ("15", "paste marks", "200,000 combining marks after a letter, pasted (1 run)"),
    ):
        if name not in run.samples:
            continue
        value, anchor = m(name), m(f"{name} anchor")
        ratio = value / anchor if anchor else float("inf")
        out.append(
            Row(
                number,
                what,
                f"{value:,.0f} ms",
                f"plain <textarea> {anchor:,.0f} ms",
                f"{ratio:.2f}×",
                "≤ 2×" if number in ("12", "13", "14") else "–",
                ("yes" if ratio <= 2 else "no") if number in ("12", "13", "14") else "–",
            )
        )
    return out


def measure(runs: int) -> tuple[Run, str]:
    run = Run({}, {})
    text = english(TARGET_BYTES)
    with build.serving_in_background(build.DIST, BenchHandler) as base, chromium() as browser:
        bare(browser, base, Run({}, {}))  # warm-up: the OS file cache, Chromium's first start
        cold_page(browser, base, Run({}, {}))
        for i in range(runs):  # alternating which goes first, so neither gains from order
            steps: list[Callable[[], None]] = [
                lambda: bare(browser, base, run),
                lambda: cold_page(browser, base, run),
            ]
            for step in steps if i % 2 == 0 else reversed(steps):
                step()
        interactions(browser, base, run, text, runs)
        repeat_visits(browser, base, run, runs)
        warm_edits(browser, base, run, runs)
        typing_rows(browser, base, run, text, runs)
        size_rows(browser, base, run, text, runs)
        text_view_rows(browser, base, run, text, runs)
        paste_rows(browser, base, run, runs)
        version = browser.version
    return run, version


@dataclass(frozen=True)
class Row:
    number: str
    what: str
    value: str
    anchor: str
    ratio: str
    target: str
    met: str


def rows(run: Run) -> list[Row]:
    m = run.median
    out: list[Row] = []

    def ms(value: float) -> str:
        return f"{value:,.0f} ms"

    def add(
        number: str,
        what: str,
        value: float,
        anchor_name: str,
        anchor: float,
        target: str,
        met: bool | None,
        unit: Callable[[float], str] = ms,
    ) -> None:
        out.append(
            Row(
                number,
                what,
                unit(value),
                f"{anchor_name} {unit(anchor)}",
                f"{value / anchor:.2f}×" if anchor else "–",
                target,
                "–" if met is None else ("yes" if met else "no"),
            )
        )

    add(
        "1",
        "first paint: navigation → text box usable",
        m("paint"),
        "bare page paint",
        m("bare paint"),
        "≤ 1.5×",
        m("paint") <= 1.5 * m("bare paint"),
    )
    ratio = m("ready") / m("bare boot")
    add(
        "2",
        "time to ready (cold cache)",
        m("ready"),
        "bare loadPyodide()",
        m("bare boot"),
        "≤ 0.4×",
        ratio <= 0.4,
    )
    for stage in ("runtime", "packages", "engine"):
        if f"stage {stage}" in run.samples:
            add(
                "",
                f"  of which worker stage {stage}",
                m(f"stage {stage}"),
                "bare loadPyodide()",
                m("bare boot"),
                "",
                None,
            )
    for unit in ("word", "char"):
        value, anchor = m(f"{unit} recompute"), m(f"{unit} reference")
        add(
            "3",
            f"recompute, {unit} mode: size edit → summary + cards on screen",
            value,
            "plain-JS reference",
            anchor,
            "≤ 2× and < 150 ms",
            value <= 2 * anchor and value < 150,
        )
        if f"{unit} settled" in run.samples:
            add(
                "",
                "  then the background work after it done (the status ready again)",
                m(f"{unit} settled"),
                "plain-JS reference",
                anchor,
                "",
                None,
            )
        if f"{unit} answered" in run.samples:
            add(
                "",
                "  of which edit → engine answer on the page (the rest: parse + render)",
                m(f"{unit} answered"),
                "plain-JS reference",
                anchor,
                "",
                None,
            )
        if f"{unit} handle" in run.samples:
            add(
                "",
                "    of which inside the engine's handle() (in the worker)",
                m(f"{unit} handle"),
                "plain-JS reference",
                anchor,
                "",
                None,
            )
    tiktoken = m("tiktoken")
    add(
        "4",
        "token mode, first switch (o200k ranks warmed after ready)",
        m("token first"),
        "native tiktoken encode",
        tiktoken,
        "–",
        None,
    )
    # "< 4× tiktoken + rendering": the time until the answer is on the page (engine,
    # transfer) must be under 4× tiktoken; parsing and rendering come on top.
    answered = m("token later answered") if "token later answered" in run.samples else None
    later_met = None if answered is None else answered < 4 * tiktoken
    add(
        "4",
        "token mode, each later switch",
        m("token later"),
        "native tiktoken encode",
        tiktoken,
        "< 4× tiktoken + rendering",
        later_met,
    )
    if answered is not None:
        add(
            "",
            "  of which switch → engine answer on the page (the rest: parse + render)",
            answered,
            "native tiktoken encode",
            tiktoken,
            "< 4×",
            later_met,
        )
    for name, label in (
        ("word longest", "recompute, word"),
        ("char longest", "recompute, char"),
        ("token first longest", "token, first switch"),
        ("token later longest", "token, later switches"),
    ):
        value = m(name)
        unseen = run.notes.get("longtask", "").startswith("WARNING")
        verdict = "unverified" if unseen else ("yes" if value <= 50 else "no")
        out.append(
            Row(
                "5",
                f"longest main-thread task: {label}",
                ms(value),
                "50 ms budget",
                f"{value / 50:.2f}×",
                "≤ 50 ms",
                verdict,
            )
        )
    add(
        "6",
        "repeat visit, network off: navigation → ready",
        m("offline ready"),
        "bare loadPyodide()",
        m("bare boot"),
        "–",
        None,
    )
    memory = m("heap") + m("wasm")

    def mb(value: float) -> str:
        return f"{value / 1e6:,.1f} MB"

    add(
        "7",
        "memory after a 1 MB token result: page JS heap + engine wasm",
        memory,
        "bare Pyodide wasm",
        m("bare wasm"),
        "–",
        None,
        mb,
    )
    add(
        "",
        "  of which engine wasm memory",
        m("wasm"),
        "bare Pyodide wasm",
        m("bare wasm"),
        "",
        None,
        mb,
    )
    during, after = m("warm edit"), m("warm edit after")
    add(
        "8",
        "edit during the background warm-up: size edit → summary + cards on screen",
        during,
        "the same edit after the warm-up",
        after,
        "≤ anchor + 100 ms",
        during <= after + 100,
    )
    slice_ms = m("warm slice longest")
    out.append(
        Row(
            "",
            "  longest warm-up slice (the most an edit waits behind it)",
            ms(slice_ms),
            "100 ms budget",
            f"{slice_ms / 100:.2f}×",
            "≤ 100 ms",
            "yes" if slice_ms <= 100 else "no",
        )
    )
    add(
        "",
        f"  whole warm-up, in {m('warm slices'):.0f} slices",
        m("warm total"),
        "the same edit after the warm-up",
        after,
        "",
        None,
    )
    out.extend(interaction_rows(run))
    out.extend(paste_table_rows(run))
    return out


def interaction_rows(run: Run) -> list[Row]:
    """Rows 9-11, those measured: the observer open for the whole interaction (see
    typing_rows)."""
    m = run.median
    out: list[Row] = []

    def ms(value: float) -> str:
        return f"{value:,.0f} ms"

    def add(number: str, what: str, value: float, anchor_name: str, anchor: float,
            target: str, met: bool | None) -> None:  # fmt: skip
        ratio = f"{value / anchor:.2f}×" if anchor else "–"
        shown = "–" if met is None else ("yes" if met else "no")
        anchored = f"{anchor_name} {ms(anchor)}"
        out.append(Row(number, what, ms(value), anchored, ratio, target, shown))

    unseen = run.notes.get("follow-up", "").startswith("WARNING")
    for number, name, what in (
        ("9", "typing", "typing ten characters into 1 MB, token mode 512 / 15%"),
        ("10", "sizes", "five size edits on 1 MB, word mode"),
        (
            "11",
            "text view",
            "text view: 1 MB in tens of thousands of chunks, scrolled, strip clicked",
        ),
    ):
        if f"{name} longest" not in run.samples:
            continue
        anchor = f"{name} anchor"
        if f"{name} figures" in run.samples:
            value = m(f"{name} figures")
            out.append(
                Row(
                    number,
                    f"{what}: each edit → new figures on screen",
                    ms(value),
                    "150 ms budget",
                    f"{value / 150:.2f}×",
                    "≤ 150 ms",
                    "yes" if value <= 150 else "no",
                )
            )
        if f"{name} last" in run.samples:
            last = m(f"{name} last")
            out.append(
                Row(
                    "",
                    "  the last keystroke → its figures on screen",
                    ms(last),
                    "150 ms budget",
                    f"{last / 150:.2f}×",
                    "",
                    "–",
                )
            )
        if f"{name} frame" in run.samples and f"{anchor} frame" in run.samples:
            add(
                "",
                "  input event → next frame (median of events)",
                m(f"{name} frame"),
                "plain <textarea>",
                m(f"{anchor} frame"),
                "",
                None,
            )
        longest = m(f"{name} longest")
        out.append(
            Row(
                "",
                "  longest main-thread task, input until 1 s idle",
                ms(longest),
                f"plain <textarea> {ms(m(f'{anchor} longest'))}",
                f"{longest / 50:.2f}× of 50 ms",
                "≤ 50 ms",
                "unverified" if unseen else ("yes" if longest <= 50 else "no"),
            )
        )
        if f"{name} cpu" in run.samples:  # traced (row 9): the thread's own time
            cpu = m(f"{name} cpu")
            out.append(
                Row(
                    "",
                    "  the most CPU one main-thread task took there (Chromium trace)",
                    ms(cpu),
                    f"plain <textarea> {ms(m(f'{anchor} cpu'))}",
                    f"{cpu / 50:.2f}× of 50 ms",
                    "≤ 50 ms",
                    "yes" if cpu <= 50 else "no",
                )
            )
        add(
            "",
            "  main thread blocked past 50 ms per task, summed",
            m(f"{name} blocked"),
            "plain <textarea>",
            m(f"{anchor} blocked"),
            "",
            None,
        )
    return out


def table(all_rows: list[Row]) -> str:
    head = ("#", "measure (median)", "value", "anchor (same run)", "ratio", "target", "met")
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * len(head)) + "|"]
    for r in all_rows:
        cells = (r.number, r.what, r.value, r.anchor, r.ratio, r.target, r.met)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def site_block_end(kept: str) -> int:
    """Where the site table's block of RESULTS.md ends: at the first other section (a
    second-level heading or a section marker), or at the end of the file."""
    found = [kept.find(mark, 1) for mark in ("\n## ", "\n<!-- ")]
    found = [at + 1 for at in found if at >= 0]
    return min(found) if found else len(kept)


def write_site_block(block: str) -> None:
    """Replaces the site table's block at the top of RESULTS.md; keeps every other section."""
    kept = RESULTS.read_text("utf-8") if RESULTS.exists() else ""
    rest = kept[site_block_end(kept) :] if kept.startswith("# Site benchmark results") else kept
    RESULTS.write_text(block + ("\n" + rest if rest else ""))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench_site.py", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="repetitions of each row (default 5)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md")
    parser.add_argument(
        "--section",
        choices=("all", "site", "encodings", "paste", "keystroke", "text-view"),
        default="all",
        help="which rows to measure (default all): the site table, or the newer encodings,"
        " or start-up and typing alone (keystroke)",
    )
    parser.add_argument(
        "--before",
        type=Path,
        default=None,
        help="with --section keystroke, text-view or encodings (its E3 edits): another"
        " build's dist/ (e.g. main's), measured too, interleaved",
    )
    args = parser.parse_args(argv)
    if args.section == "keystroke":
        section = keystroke_section(args.runs, args.before)
        print(section)
        if not args.no_write:
            put_section("bench_site keystroke", section, place=site_block_end)
            print(f"\nwritten to {RESULTS.relative_to(ROOT)}")
        return 0
    if not (build.DIST / "index.html").exists():
        raise SystemExit("bench: dist/ is not built: run `python build.py` first")
    if args.section == "paste":  # rows 12-15 alone, printed (RESULTS.md keeps its table)
        run = Run({}, {})
        with build.serving_in_background(build.DIST, BenchHandler) as base, chromium() as browser:
            paste_rows(browser, base, run, args.runs)
            version = browser.version
        print(f"Paste rows, {args.runs} runs, medians; headless Chromium {version}.")
        print(f"Machine: {machine()}. Document: {run.notes['document']}.")
        print(f"The anchor's textarea is styled as the page's box: {run.notes['box']}.\n")
        print(table(paste_table_rows(run)))
        return 0
    if args.section == "text-view":  # row 11 alone, with main's build interleaved
        section = text_view_section(args.runs, args.before)
        print(section)
        if not args.no_write:
            put_section("bench_site text-view", section, place=site_block_end)
        return 0
    if args.section in ("all", "site"):
        began = time.monotonic()
        run, version = measure(args.runs)
        text = table(rows(run))
        when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        header = [
            f"Site benchmark, {args.runs} runs per row, medians; headless Chromium {version}.",
            f"Machine: {machine()}. Date: {when}. Took {time.monotonic() - began:,.0f} s.",
            f"Text: {run.notes.get('text', '?')}. Settings: {run.notes.get('settings', '?')}.",
            f"{LAUNCH_NOTE}.",
            f"Long tasks: {run.notes.get('longtask', '?')}.",
            f"Rows 9-11 (whole interaction): {run.notes.get('follow-up', '?')}.",
            f"Rows 12-15 (paste, drop): {run.notes.get('document', '?')}; the anchor's"
            f" textarea styled as the page's box ({run.notes.get('box', '?')}).",
        ]
        print("\n".join(header) + "\n\n" + text)
        if not args.no_write:
            write_site_block(
                "# Site benchmark results\n\n"
                "Written by `python build.py bench` (bench/bench_site.py): one run, every row"
                " a median with its ratio to an anchor measured in the same run.\n\n"
                + "\n".join(f"- {line}" for line in header)
                + "\n\n"
                + text
                + "\n"
            )
            print(f"\nwritten to {RESULTS.relative_to(ROOT)}")
    if args.section in ("all", "encodings"):
        section = encodings_section(args.runs, args.before)
        print("\n" + section)
        if not args.no_write:
            put_section("bench_site encodings", section, place=site_block_end)
            print(f"\nwritten to {RESULTS.relative_to(ROOT)}")
    return 0


# ---------------------------------------------------------------- start-up and typing
# Rows 1, 2 and 9 alone (``--section keystroke``), with the same rows of another build
# (``--before DIR``, e.g. a copy of dist/ built from main) measured in the same run,
# interleaved, so that a change can be shown against what it replaced on a shared machine.


@contextmanager
def builds_and_browser(before: Path | None) -> Iterator[tuple[str, str | None, Any]]:
    """This build's dist/ served, ``before``'s too when given, and one Chromium."""
    with contextlib.ExitStack() as stack:
        base = stack.enter_context(build.serving_in_background(build.DIST, BenchHandler))
        old = (
            stack.enter_context(build.serving_in_background(before, BenchHandler))
            if before is not None
            else None
        )
        yield base, old, stack.enter_context(chromium())


def measure_keystroke(runs: int, before: Path | None) -> tuple[Run, str]:
    run = Run({}, {})
    text = english(TARGET_BYTES)
    with builds_and_browser(before) as (base, old, browser):
        bare(browser, base, Run({}, {}))  # warm-up: the OS file cache, Chromium's first start
        cold_page(browser, base, Run({}, {}))
        if old is not None:
            cold_page(browser, old, Run({}, {}))
        for i in range(runs):  # alternating the order, so that none gains from it
            steps: list[Callable[[], None]] = [
                lambda: bare(browser, base, run),
                lambda: cold_page(browser, base, run),
            ]
            if old is not None:
                steps.append(lambda: cold_page(browser, old, run, prefix="before "))
            for step in steps if i % 2 == 0 else reversed(steps):
                step()
        typing_rows(browser, base, run, text, runs, before=old)
        version = browser.version
    return run, version


def keystroke_rows(run: Run) -> list[Row]:
    """Rows 1, 2 and 9 as the site table has them, each followed by the other build's."""
    m = run.median

    def before(what: str, name: str, anchor: str, value: float) -> Row:
        return Row(
            "", f"  {what}, before (main's build)", f"{m(name):,.0f} ms", anchor,
            f"{m(name) / value:.2f}×", "", "–",
        )  # fmt: skip

    class Partial(dict[str, list[float]]):  # the rows not measured here: left out below
        def __missing__(self, key: str) -> list[float]:
            return [math.nan]

    kept, number = [], ""
    for r in rows(Run(Partial(run.samples), run.notes)):
        number = r.number or number  # a sub-row belongs to the numbered row above it
        if number in {"1", "2", "9"}:
            kept.append((number, r))
    if "before paint" not in run.samples:
        return [r for _, r in kept]
    paint, boot = m("bare paint"), m("bare boot")
    bare_paint, bare_boot = f"bare page paint {paint:,.0f} ms", f"bare loadPyodide() {boot:,.0f} ms"
    after = {  # (row, how its label starts) -> the same measure of main's build
        ("1", "first paint"): ("the same", "before paint", bare_paint, paint),
        ("2", "time to ready"): ("the same", "before ready", bare_boot, boot),
        ("9", "typing"): ("the same", "typing before figures", "150 ms budget", 150),
        ("9", "  the last"): ("the last keystroke", "typing before last", "150 ms budget", 150),
        ("9", "  longest"): ("longest task", "typing before longest", "50 ms budget", 50),
        ("9", "  the most CPU"): ("most CPU in a task", "typing before cpu", "50 ms budget", 50),
    }  # fmt: skip
    merged: list[Row] = []
    for number, r in kept:
        merged.append(r)
        for (row, start), (what, name, anchor, value) in after.items():
            if row == number and r.what.startswith(start) and name in run.samples:
                merged.append(before(what, name, anchor, value))
    return merged


def keystroke_section(runs: int, before: Path | None) -> str:
    began = time.monotonic()
    run, version = measure_keystroke(runs, before)
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()
    against = (
        f" Each row is followed by the same measure of main's build (`--before {before}`),"
        " interleaved with it in the same run."
        if before is not None
        else ""
    )
    return (
        "## Site: start-up and typing\n\n"
        "Written by `python bench/bench_site.py --section keystroke`: rows 1, 2 and 9 of the"
        f" site table alone, {runs} runs per row, medians, each against its anchor in the same"
        f" run.{against} Headless Chromium {version}.\n\n"
        f"- Machine: {machine()}; load average {load[0]:.1f} at the end (the machine is"
        f" shared). Date: {when}. Took {time.monotonic() - began:,.0f} s.\n"
        f"- {LAUNCH_NOTE}.\n"
        "- Row 9: ten characters typed 120 ms apart into the middle of 1,000,000 bytes of"
        " English, token mode (o200k_base) 512 / 77; each keystroke's latency is from its"
        " input event to the first frame whose character count includes it. This build's"
        " page, main's (with `--before`) and a plain textarea holding the same text are open"
        " together and typed into in turn, the order alternating, each typing traced: the"
        " most CPU one main-thread task took is the thread's own time, which the load of a"
        " shared machine does not stretch as it does the Long Tasks API's wall time. Traced"
        " (bench/trace_typing.py), the longest tasks are the keystrokes' own: the browser"
        " laying the box's megabyte out again and moving the caret, as in the plain"
        " textarea, and the page's call to the engine posted at its end (a few ms: posted"
        " from a task of its own instead, it waited behind the frame and made the figures"
        " later, for no shorter task).\n\n" + table(keystroke_rows(run)) + "\n"
    )


# ---------------------------------------------------------------- the newer encodings
# The first switch to each encoding whose vocabulary is a wheel of its own, later
# recomputes, and edits of the text, against the native reference libraries (section E).

# `done()`: the engine's answer that came after `began` is on screen (the summary shows
# `chunks`; every card, or the cap notice). Needs `q`, `answer`, `began`, `chunks` and
# `capped` in scope; shared by ENCODING_INTERACT and EDITED.
ANSWER_ON_SCREEN = """  const done = () => {
    const figure = q('[data-testid="summary-chunks"]');
    const list = q("#chunk-list");
    if (answer() < began) return false;
    if (!figure || figure.dataset.value !== String(chunks)) return false;
    if (q('[data-testid="status"]').dataset.state !== "ready") return false;
    if (capped) return !q("#cap-notice").hidden;
    return list.dataset.rendered === "true" && list.children.length === chunks;
  };
"""

# Chooses an encoding in the select or edits the size, and waits for the engine's new
# answer on screen, as INTERACT does (the summary shows `chunks`; every card, or the cap
# notice), an answer that came after the change (E3's edits of the text: EDITED).
ENCODING_INTERACT = (
    """async ({ action, value, chunks, capped }) => {
  const q = (s) => document.querySelector(s);
  const answer = () => performance.getEntriesByName("engine:answer:view").at(-1)?.startTime ?? -1;
  const began = performance.now();
"""
    + ANSWER_ON_SCREEN
    + """  const testid = { encoding: "encoding-select", size: "size-input" }[action];
  const field = q(`[data-testid="${testid}"]`);
  field.value = String(value);
  field.dispatchEvent(new Event(action === "encoding" ? "change" : "input", { bubbles: true }));
"""
    + UNTIL_DONE
    + """  return { ms: ended - began, longest, answered: answer() - began };
}"""
)

# The worker's account of one vocabulary load (engine/worker.js).
VOCABULARY_ENTRY = """(name) => {
  const entry = performance.getEntriesByName(`engine:vocabulary:${name}`).at(-1);
  return entry ? { total: entry.duration, ...entry.detail } : null;
}"""

NEWER_ENCODINGS = ("bert-base-uncased", "llama3", "qwen2", "tekken")
ENCODING_SIZE = 1000
ENCODING_OVERLAP = 50
#: Fresh pages per encoding for its first switch (each boots the page and encodes the
#: megabyte twice: it is the slow part of the section).
FIRST_SWITCHES = 3

Encode = Callable[[str], list[int]]


def reference_encoders() -> dict[str, Encode]:
    """The native reference library of o200k_base and of each newer encoding (the
    tests' own, from the same pinned files)."""
    sys.path.insert(0, str(ROOT / "tests" / "engine"))
    from references import reference

    return {name: reference(name) for name in ("o200k_base", *NEWER_ENCODINGS)}


@contextmanager
def token_page(browser: Any, base: str, text: str, tokens: int) -> Iterator[Any]:
    """A fresh page in token mode (o200k_base) holding ``text`` (``tokens`` o200k
    tokens), its result on screen, the probe installed."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        context.add_init_script(PROBE)
        page = context.new_page()
        page.goto(
            f"{base}#unit=token&size={ENCODING_SIZE}&overlap={ENCODING_OVERLAP}&enc=o200k_base"
        )
        wait_ready(page)
        page.evaluate(FILL_TEXT, text)
        chunks, _ = window_count(tokens, ENCODING_SIZE, ENCODING_OVERLAP)
        page.wait_for_selector(
            f'[data-testid="summary-chunks"][data-value="{chunks}"]', timeout=180_000
        )
        page.wait_for_selector('[data-testid="status"][data-state="ready"]', timeout=180_000)
        yield page
    finally:
        context.close()


def interact(page: Any, action: str, value: Any, tokens: int, size: int) -> dict[str, float]:
    chunks, capped = window_count(tokens, size, ENCODING_OVERLAP)
    args = {"action": action, "value": value, "chunks": chunks, "capped": capped}
    got: dict[str, float] = page.evaluate(ENCODING_INTERACT, args)
    return got


# After an edit of the text box (the probe recorded its input event): waits for the
# engine's new answer on screen, as ENCODING_INTERACT does, timed from the input event.
EDITED = (
    """async ({ chunks, capped }) => {
  const q = (s) => document.querySelector(s);
  const answer = () => performance.getEntriesByName("engine:answer:view").at(-1)?.startTime ?? -1;
  const began = window.__bench.inputs.at(-1);
"""
    + ANSWER_ON_SCREEN
    + UNTIL_DONE
    + """  return { ms: ended - began, longest, answered: answer() - began };
}"""
)


def edit_at_the_start(page: Any, prefix: str) -> None:
    """A person's edit of the megabyte: its first ``len(prefix)`` characters selected and
    ``prefix`` typed over them, as one insertion (one input event, at one place)."""
    box = page.get_by_test_id("text-input")
    box.evaluate("(el, n) => { el.focus(); el.setSelectionRange(0, n); }", len(prefix))
    page.keyboard.insert_text(prefix)


def edits(page: Any, run: Run, name: str, text: str, encode: Encode, runs: int) -> None:
    """E3 on a page in token mode with ``name`` at ENCODING_SIZE: ``runs`` edits of
    the megabyte at one place (its first words retyped), each encoded again: on screen,
    inside handle(), the longest task."""
    for k in range(runs):
        prefix = f"Edit {k}: "  # as many bytes as it replaces
        edited = prefix + text[len(prefix) :]
        chunks, capped = window_count(len(encode(edited)), ENCODING_SIZE, ENCODING_OVERLAP)
        page.evaluate(WATCH)
        browser = page.context.browser
        browser.start_tracing(page=page, categories=TRACED)
        edit_at_the_start(page, prefix)
        got = page.evaluate(EDITED, {"chunks": chunks, "capped": capped})
        events = json.loads(browser.stop_tracing())["traceEvents"]
        run.add(f"{name} edit", got["ms"])
        run.add(f"{name} edit longest", got["longest"])
        run.add(f"{name} edit cpu", longest_task_cpu(events))
        handled = page.workers[0].evaluate(WORKER_ENTRIES)["stages"].get("handle:view")
        if handled is not None:
            run.add(f"{name} edit handle", handled)


def edit_anchor(browser: Any, base: str, run: Run, text: str, runs: int) -> None:
    """E3's anchor: the plain textarea holding the megabyte, given the same edits (its
    longest task from the input until a second of idle), and once its whole value
    replaced instead (as a script does, and as E3 edited before: the browser lays the
    whole megabyte out again)."""
    with bare_textarea(browser, base, text) as page:
        for k in range(runs):
            page.evaluate(WATCH)
            browser.start_tracing(page=page, categories=TRACED)
            edit_at_the_start(page, f"Edit {k}: ")
            run.add("edit anchor longest", settle(page)["longest"])
            events = json.loads(browser.stop_tracing())["traceEvents"]
            run.add("edit anchor cpu", longest_task_cpu(events))
        for k in range(runs):
            page.evaluate(WATCH)
            page.evaluate(FILL_TEXT, f"Whole {k}: " + text[len(f"Whole {k}: ") :])
            run.add("edit anchor replaced longest", settle(page)["longest"])


def before_edits(
    browser: Any, old: str, run: Run, name: str, text: str, encode: Encode, tokens: int, runs: int
) -> None:
    """E3 on a fresh page of another build (``--before``): its o200k_base result on
    screen, ``name`` chosen, then the same edits (``before <name> edit ...``)."""
    with token_page(browser, old, text, tokens) as page:
        if name != "o200k_base":
            interact(page, "encoding", name, len(encode(text)), ENCODING_SIZE)
        edits(page, run, f"before {name}", text, encode, runs)


def measure_encodings(runs: int, before: Path | None = None) -> tuple[Run, str]:
    run = Run({}, {})
    text = english(TARGET_BYTES)
    references = reference_encoders()
    counts: dict[str, int] = {}
    for name, encode in references.items():
        for _ in range(runs):
            began = time.perf_counter()
            ids = encode(text)
            run.add(f"{name} reference", (time.perf_counter() - began) * 1000)
        counts[name] = len(ids)
    run.notes["text"] = f"{len(text.encode()):,} bytes of English; tokens: " + ", ".join(
        f"{name} {n:,}" for name, n in counts.items()
    )
    with builds_and_browser(before) as (base, old, browser):
        for name in NEWER_ENCODINGS:
            for i in range(FIRST_SWITCHES):
                with token_page(browser, base, text, counts["o200k_base"]) as page:
                    got = interact(page, "encoding", name, counts[name], ENCODING_SIZE)
                    run.add(f"{name} first", got["ms"])
                    run.add(f"{name} first longest", got["longest"])
                    entry = page.workers[0].evaluate(VOCABULARY_ENTRY, name)
                    if entry is None:
                        raise SystemExit(f"bench: the worker did not record loading {name}")
                    run.add(f"{name} fetch", entry["download_ms"])
                    run.add(f"{name} read", entry["read_ms"])
                    if i < FIRST_SWITCHES - 1:
                        continue
                    # Later recomputes of the same text, then edits, on the last page.
                    for k in range(runs):
                        size = ENCODING_SIZE + 100 * ((k + 1) % 2)
                        got = interact(page, "size", size, counts[name], size)
                        run.add(f"{name} later", got["ms"])
                        run.add(f"{name} later answered", got["answered"])
                    interact(page, "size", ENCODING_SIZE, counts[name], ENCODING_SIZE)
                    edits(page, run, name, text, references[name], runs)
            if old is not None:
                before_edits(
                    browser, old, run, name, text, references[name], counts["o200k_base"], runs
                )
        with token_page(browser, base, text, counts["o200k_base"]) as page:
            edits(page, run, "o200k_base", text, references["o200k_base"], runs)
        if old is not None:
            o200k = references["o200k_base"]
            before_edits(browser, old, run, "o200k_base", text, o200k, counts["o200k_base"], runs)
        edit_anchor(browser, base, run, text, runs)
        version = browser.version
    return run, version


def encoding_rows(run: Run) -> list[Row]:
    m = run.median
    out: list[Row] = []

    def against(
        number: str, what: str, value: float, ref: float, target: str, met: bool | None
    ) -> None:
        verdict = "–" if met is None else ("yes" if met else "no")
        out.append(
            Row(number, what, f"{value:,.0f} ms", f"native reference {ref:,.0f} ms",
                f"{value / ref:.2f}×", target, verdict)
        )  # fmt: skip

    def longest(name: str) -> None:
        value = m(name)
        out.append(
            Row("", "  longest main-thread task meanwhile", f"{value:,.0f} ms", "50 ms budget",
                f"{value / 50:.2f}×", "≤ 50 ms", "yes" if value <= 50 else "no")
        )  # fmt: skip

    for name in NEWER_ENCODINGS:
        ref = m(f"{name} reference")
        against("E1", f"{name}: first switch → summary + cards on screen", m(f"{name} first"),
                ref, "–", None)  # fmt: skip
        against("", "  of which fetching and installing the vocabulary wheel",
                m(f"{name} fetch"), ref, "", None)  # fmt: skip
        against("", "  of which reading the vocabulary", m(f"{name} read"), ref, "", None)
        longest(f"{name} first longest")
        answered = m(f"{name} later answered")
        met = answered < 4 * ref
        against("E2", f"{name}: later recompute (size edit) → on screen", m(f"{name} later"),
                ref, "< 4× reference + rendering", met)  # fmt: skip
        against("", "  of which edit → engine answer on the page", answered, ref, "< 4×", met)
    for name in ("o200k_base", *NEWER_ENCODINGS):
        ref = m(f"{name} reference")
        key = f"{name} edit handle"
        handled = m(key) if key in run.samples else None
        against("E3", f"{name}: the megabyte edited at one place → on screen",
                m(f"{name} edit"), ref, "–", None)  # fmt: skip
        if handled is not None:
            against("", "  of which inside the engine's handle() (the text encoded again)",
                    handled, ref, "< 4×", handled < 4 * ref)  # fmt: skip
        longest(f"{name} edit longest")
        for key, what, target in (
            (f"before {name} edit longest", "  longest task, before (main's build)", ""),
            (
                f"{name} edit cpu",
                "  the most CPU one main-thread task took (Chromium trace)",
                "≤ 50 ms",
            ),
            (f"before {name} edit cpu", "  the most CPU in a task, before (main's build)", ""),
        ):
            if key not in run.samples:
                continue
            value = m(key)
            met = ("yes" if value <= 50 else "no") if target else "–"
            out.append(
                Row("", what, f"{value:,.0f} ms", "50 ms budget", f"{value / 50:.2f}×",
                    target, met)
            )  # fmt: skip
    if "edit anchor longest" in run.samples:
        for key, what in (
            ("edit anchor longest", "plain <textarea>, the same edit: longest task"),
            ("edit anchor cpu", "plain <textarea>, the same edit: the most CPU in a task"),
            ("edit anchor replaced longest",
             "plain <textarea>, its whole value replaced instead: longest task"),
        ):  # fmt: skip
            value = m(key)
            out.append(Row("E3", what, f"{value:,.0f} ms", "50 ms budget",
                           f"{value / 50:.2f}×", "–", "–"))  # fmt: skip
    return out


def encodings_section(runs: int, before: Path | None = None) -> str:
    """Measures the section and returns it as Markdown, ready for RESULTS.md."""
    began = time.monotonic()
    run, version = measure_encodings(runs, before)
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        "## Site: the newer encodings in the browser\n\n"
        "Written by `python bench/bench_site.py --section encodings`: one run; first switches"
        f" on {FIRST_SWITCHES} fresh pages per encoding, then on the last one {runs} later"
        f" recomputes of the same text and {runs} edits of it (each encoded again), medians;"
        " ratios against the encoding's native reference library encoding the same text in"
        f" this process, in the same run. Headless Chromium {version}.\n\n"
        f"- Machine: {machine()}; load average {os.getloadavg()[0]:.1f} at the end"
        f" (the machine is shared). Date: {when}. Took {time.monotonic() - began:,.0f} s.\n"
        f"- Text: {run.notes['text']}. Settings: token mode, size {ENCODING_SIZE} (E2: 1000"
        f" and 1100), overlap {ENCODING_OVERLAP}; each page shows its o200k_base result"
        " before the switch.\n"
        "- E3 edits the megabyte as a person does, at one place: its first eight characters"
        " selected and retyped as one insertion (one input event); the longest task is"
        " from that input event until the new summary is on screen. It used to replace the"
        " box's whole value from a script: that task (310-452 ms) was the browser laying a"
        " new megabyte out in the text box (245 ms of CPU in style and layout, traced with"
        " bench/trace_typing.py --scenario edit), which a plain textarea given the same"
        " replacement shows too (its last line below) and a person typing never causes."
        " Each edit is traced: the most CPU one main-thread task took is the thread's own"
        " time, which the load of a shared machine does not stretch as it does the Long"
        " Tasks API's wall time."
        + (
            f" Each encoding's edits are followed by the same edits on a page of main's build"
            f" (`--before {before}`)."
            if before is not None
            else ""
        )
        + "\n\n"
        + table(encoding_rows(run))
        + "\n"
    )


# ---------------------------------------------------------------- the text view alone
# Row 11 (``--section text-view``): the text view of 1,000,000 bytes of English in word
# mode at size 2, overlap 1 (188,588 chunks), each repetition on a fresh page, with the
# same measures of another build (``--before DIR``, e.g. a copy of dist/ built from
# main) interleaved in the same run, the order alternating. Besides the edit (row 11 of
# the site table: size 1000 -> 2, the view dragged to the middle, the strip clicked),
# the view alone: six wheel turns over it, "go to chunk" a third of the way, and the
# strip clicked a quarter along, with the Long Tasks API's longest task and, from a
# Chromium trace of the same steps, the most CPU one main-thread task took (the
# thread's own time, which the other work on a shared machine does not stretch).

#: The trace categories that hold the main thread's tasks and their CPU time.
TRACED = ["devtools.timeline", "toplevel"]

#: A main-thread task in a Chromium trace, by the name each version gives it.
TRACE_TASKS = {"RunTask", "ThreadControllerImpl::RunTask"}


def longest_task_cpu(events: list[dict[str, Any]]) -> float:
    """The most CPU (ms) one task of the renderer's main thread took in a trace."""
    mains = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
    }
    return max(
        (
            e.get("tdur", 0) / 1000
            for e in events
            if (e.get("pid"), e.get("tid")) in mains
            and e.get("name") in TRACE_TASKS
            and e.get("ph") == "X"
        ),
        default=0.0,
    )


def scroll_jump_strip(page: Any, chunks: int) -> None:
    """The view alone, as a person reads a long text: six wheel turns over it, "go to
    chunk" a third of the way, the strip clicked a quarter along; each left to settle."""
    view = page.get_by_test_id("text-view")
    drawn = '[data-testid="text-view"][data-rendered="true"]'
    box = view.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(6):
        page.mouse.wheel(0, 700)
    page.wait_for_selector(drawn)
    goto = page.get_by_test_id("goto-chunk")
    goto.fill(str(chunks // 3))
    goto.press("Enter")
    page.wait_for_selector(drawn)
    strip = page.get_by_test_id("overview").locator("svg")
    strip_box = strip.bounding_box()
    assert strip_box is not None
    strip.click(position={"x": strip_box["width"] * 0.25, "y": 6})
    page.wait_for_selector(drawn)


def text_view_once(browser: Any, base: str, run: Run, text: str, prefix: str) -> None:
    """One repetition of row 11 on a fresh page of the build at ``base``."""
    words = word_count(text)
    many, _ = window_count(words, 2, 1)
    with page_with_text(browser, base, text, words=words, size=1000, overlap=1) as page:
        # In sight, as a person reading it has it.
        page.get_by_test_id("text-view").scroll_into_view_if_needed()
        settle(page)
        page.evaluate(WATCH)
        browser.start_tracing(page=page, categories=["devtools.timeline", "toplevel"])
        latency = edit_drag_click(page, many)
        record(run, f"{prefix}text view", settle(page), [latency])
        events = json.loads(browser.stop_tracing())["traceEvents"]
        run.add(f"{prefix}text view cpu", longest_task_cpu(events))
        page.evaluate(WATCH)
        browser.start_tracing(page=page, categories=["devtools.timeline", "toplevel"])
        scroll_jump_strip(page, many)
        seen = settle(page)
        events = json.loads(browser.stop_tracing())["traceEvents"]
        run.add(f"{prefix}text view alone longest", seen["longest"])
        run.add(f"{prefix}text view alone cpu", longest_task_cpu(events))


def measure_text_view(runs: int, before: Path | None) -> tuple[Run, str]:
    run = Run({}, {})
    text = english(TARGET_BYTES)
    with builds_and_browser(before) as (base, old, browser):
        for i in range(runs):  # alternating the order, so that none gains from it
            steps: list[Callable[[], None]] = [lambda: text_view_once(browser, base, run, text, "")]
            if old is not None:
                steps.append(lambda: text_view_once(browser, old, run, text, "before "))
            for step in steps if i % 2 == 0 else reversed(steps):
                step()
        with bare_textarea(browser, base, text) as page:
            for _ in range(runs):
                page.evaluate(WATCH)
                page.get_by_test_id("size-input").fill("2")
                record(run, "text view anchor", settle(page), [])
        version = browser.version
    return run, version


def text_view_table_rows(run: Run) -> list[Row]:
    """Row 11's lines, each followed by the other build's when it was measured."""
    m = run.median
    out: list[Row] = []

    def ms(value: float) -> str:
        return f"{value:,.0f} ms"

    def line(what: str, name: str, target: float, number: str = "") -> None:
        for prefix, label in (("", what), ("before ", f"  {what.strip()}, before (main's build)")):
            if f"{prefix}{name}" not in run.samples:
                continue
            value = m(f"{prefix}{name}")
            met = ("yes" if value <= target else "no") if not prefix else "–"
            out.append(
                Row(
                    number if not prefix else "",
                    label,
                    ms(value),
                    f"{target:,.0f} ms budget",
                    f"{value / target:.2f}×",
                    f"≤ {target:,.0f} ms" if not prefix else "",
                    met,
                )
            )

    line(
        "text view, 188,588 chunks: size edit → new figures on screen",
        "text view figures",
        150,
        "11",
    )
    line("  longest main-thread task: the edit, a drag, a strip click", "text view longest", 50)
    line("  the most CPU one task took there (Chromium trace)", "text view cpu", 50)
    line(
        "  longest main-thread task: wheel turns, go to chunk, a strip click",
        "text view alone longest",
        50,
    )
    line("  the most CPU one task took there (Chromium trace)", "text view alone cpu", 50)
    if "text view anchor longest" in run.samples:
        anchor = m("text view anchor longest")
        out.append(
            Row("", "  plain <textarea>, the same edit: longest task", ms(anchor), "", "", "", "–")
        )
    return out


def text_view_section(runs: int, before: Path | None) -> str:
    began = time.monotonic()
    load_before = os.getloadavg()[0]
    run, version = measure_text_view(runs, before)
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    against = (
        f" Each line is followed by the same measure of main's build (`--before {before}`),"
        " a fresh page each, interleaved in the same run."
        if before is not None
        else ""
    )
    return (
        "## Site: the text view of a megabyte in 188,588 chunks\n\n"
        "Written by `python bench/bench_site.py --section text-view`: row 11 of the site"
        f" table alone, {runs} runs, medians.{against} Headless Chromium {version}.\n\n"
        f"- Machine: {machine()}; load average {load_before:.1f} at the start and"
        f" {load:.1f} at the end (the machine is shared: a long task's wall time grows with"
        " the load, its CPU time much less). Date: "
        f"{when}. Took {time.monotonic() - began:,.0f} s.\n"
        "- 1,000,000 bytes of English, word mode, size 1000 then 2, overlap 1; the view"
        " scrolled into the window. The longest task is the Long Tasks API's, from the"
        " input until a second of idle; the CPU is the main thread's own time in its"
        " longest task, from a trace of the same steps (traced as they are timed: the"
        " trace's own cost is in both builds' figures).\n\n"
        + table(text_view_table_rows(run))
        + "\n"
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

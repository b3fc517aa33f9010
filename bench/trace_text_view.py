"""Which work owns the text view's long main-thread tasks: a Chromium trace.

Run after ``python build.py`` with the project's venv:
``python bench/trace_text_view.py [--dist DIR] [--top 8]``.
It opens the built site (or another build's ``--dist``) as the benchmark's text-view
row does (bench_site.py: 1,000,000 bytes of English in word mode at size 1000,
overlap 1), then traces, with ``Tracing`` over CDP, the size edit to 2 words (about
190,000 chunks), the view dragged to the middle, wheel scrolls, the strip clicked,
"go to chunk", a find and its next match. It prints each step's longest main-thread
task, by wall time and by the thread's CPU time (the trace's ``tdur``, which the
other engineers' work on this shared machine does not stretch), and for the
longest tasks the work inside them: the JS functions called (by name, file and
line), style, layout, paint. Compare runs made together only.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_site as B  # noqa: E402
from bench_engine import TARGET_BYTES, english  # noqa: E402

from pyapp.core.units import word_count  # noqa: E402

CATEGORIES = ["devtools.timeline", "toplevel", "blink", "v8", "blink.user_timing"]
#: A main-thread task, as the trace names it (by Chromium version).
TASKS = {"RunTask", "ThreadControllerImpl::RunTask"}
#: The work inside a task worth naming.
INNER = {
    "FunctionCall",
    "EvaluateScript",
    "v8.callFunction",
    "UpdateLayoutTree",
    "Layout",
    "PrePaint",
    "Paint",
    "Layerize",
    "Commit",
    "ParseHTML",
    "HitTest",
    "Blink.ForcedStyleAndLayout.UpdateTime",
    "IntersectionObserverController::computeIntersections",
    "ResizeObserverController::DeliverObservations",
    "MajorGC",
    "MinorGC",
    "V8.GC_SCAVENGER",
    "V8.GC_MARK_COMPACTOR",
}

# Marks a step in the trace (a user-timing mark) and waits for the view to settle:
# rendered, then a second in which nothing changed (bench_site's SETTLE).
MARK = "(name) => performance.mark(`step:${name}`)"


def steps(page: Any, units: int) -> None:
    """The interaction traced: each step marked, then left to settle."""
    view = page.get_by_test_id("text-view")
    many, _ = B.window_count(units, 2, 1)

    def settled() -> None:
        page.wait_for_selector('[data-testid="text-view"][data-rendered="true"]')
        B.settle(page)

    page.evaluate(MARK, "edit")
    page.get_by_test_id("size-input").fill("2")
    B.figures(page, "text-view", many, "data-chunks")
    settled()
    page.evaluate(MARK, "drag")
    view.evaluate("el => { el.scrollTop = el.scrollHeight / 2; }")
    settled()
    page.evaluate(MARK, "wheel")
    box = view.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(6):
        page.mouse.wheel(0, 700)
    settled()
    page.evaluate(MARK, "strip")
    strip = page.get_by_test_id("overview").locator("svg")
    strip_box = strip.bounding_box()
    assert strip_box is not None
    strip.click(position={"x": strip_box["width"] * 0.75, "y": 6})
    settled()
    page.evaluate(MARK, "goto")
    page.get_by_test_id("goto-chunk").fill(str(many // 3))
    page.get_by_test_id("goto-chunk").press("Enter")
    settled()
    page.evaluate(MARK, "find")
    page.get_by_test_id("find-input").fill("chunk size")
    page.get_by_test_id("find-input").press("Enter")
    settled()
    page.get_by_test_id("find-input").press("Enter")
    settled()
    page.evaluate(MARK, "end")


def trace(dist: Path, css: str = "") -> list[dict[str, Any]]:
    text = english(TARGET_BYTES)
    units = word_count(text)
    with (
        B.build.serving_in_background(dist, B.BenchHandler) as base,
        B.chromium() as browser,
        B.page_with_text(browser, base, text, words=units, size=1000, overlap=1) as page,
    ):
        if css:  # the page's CSP allows no inline style: added through the protocol
            cdp = page.context.new_cdp_session(page)
            cdp.send("DOM.enable")
            cdp.send("CSS.enable")
            frame = cdp.send("Page.getFrameTree")["frameTree"]["frame"]["id"]
            sheet = cdp.send("CSS.createStyleSheet", {"frameId": frame})["styleSheetId"]
            cdp.send("CSS.setStyleSheetText", {"styleSheetId": sheet, "text": css})
        page.get_by_test_id("text-view").scroll_into_view_if_needed()
        B.settle(page)
        browser.start_tracing(page=page, categories=CATEGORIES)
        steps(page, units)
        events: list[dict[str, Any]] = json.loads(browser.stop_tracing())["traceEvents"]
    return events


def describe(event: dict[str, Any]) -> str:
    data = event.get("args", {}).get("data", {})
    if event["name"] == "FunctionCall":
        where = Path(data.get("url", "")).name
        return f"{data.get('functionName') or '(anonymous)'} {where}:{data.get('lineNumber', '?')}"
    return str(event["name"])


def report(events: list[dict[str, Any]], top: int) -> None:
    mains = {(e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name"
             and e["args"].get("name") == "CrRendererMain"}  # fmt: skip
    main = [e for e in events if (e.get("pid"), e.get("tid")) in mains]
    marks = sorted((e["ts"], e["name"][5:]) for e in main if e.get("name", "").startswith("step:"))
    if not marks:
        marks = sorted((e["ts"], e["name"][5:]) for e in events
                       if e.get("name", "").startswith("step:"))  # fmt: skip
    tasks = [e for e in main if e.get("name") in TASKS and e.get("ph") == "X"]

    def step_of(ts: float) -> str:
        name = "before"
        for at, step in marks:
            if ts >= at:
                name = step
        return name

    by_step: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for t in tasks:
        by_step[step_of(t["ts"])].append(t)
    print(
        "step: longest task wall ms (its CPU ms); the most CPU in one task; all tasks' CPU;"
        " tasks over 50 ms"
    )
    for _, step in marks:
        got = by_step.get(step, [])
        if not got:
            continue
        wall = max(got, key=lambda t: t["dur"])
        cpu = max(got, key=lambda t: t.get("tdur", 0))
        over = sum(1 for t in got if t["dur"] > 50_000)
        total = sum(t.get("tdur", 0) for t in got)
        print(
            f"  {step:6} {wall['dur'] / 1000:7.1f} ({wall.get('tdur', 0) / 1000:6.1f})"
            f"   cpu {cpu.get('tdur', 0) / 1000:6.1f}   all {total / 1000:7.1f}   over 50: {over}"
        )
    print(f"\nthe {top} tasks with the most CPU, and what they held (inclusive ms):")
    inner = [e for e in main if e.get("ph") == "X" and e.get("name") in INNER]
    for t in sorted(tasks, key=lambda t: t.get("tdur", 0), reverse=True)[:top]:
        start, end = t["ts"], t["ts"] + t["dur"]
        print(f"  [{step_of(start)}] wall {t['dur'] / 1000:.1f} cpu {t.get('tdur', 0) / 1000:.1f}")
        held: collections.Counter[str] = collections.Counter()
        for e in inner:
            if start <= e["ts"] < end:
                held[describe(e)] += e.get("dur", 0) / 1000
        for what, ms in held.most_common(8):
            if ms >= 1:
                print(f"      {ms:6.1f} {what}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dist", type=Path, default=B.build.DIST, help="the build to trace")
    parser.add_argument("--top", type=int, default=8, help="the longest tasks to open up")
    parser.add_argument("--save", type=Path, default=None, help="keep the trace's JSON here")
    parser.add_argument("--css", default="", help="extra CSS rules to try first")
    args = parser.parse_args(argv)
    events = trace(args.dist, args.css)
    if args.save:
        args.save.write_text(json.dumps({"traceEvents": events}))
    report(events, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

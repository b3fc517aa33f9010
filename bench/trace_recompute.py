"""Where a 1 MB word-mode recompute spends the page's main thread: a Chromium trace.

Run after ``python build.py`` with the project's venv:
``python bench/trace_recompute.py [--edits 6] [--css "extra rules"]``.
It opens the built site as the benchmark does (bench_site.py: 1,000,000 bytes of
English, word size 1000/1100, overlap 50), makes a few size edits untraced, then
traces ``--edits`` more with ``Tracing`` over CDP (Playwright's start_tracing) and
prints, per edit, the main thread's style, layout, pre-paint, compositing-inputs,
paint and commit time and the script time; then the JS functions with the most
self time (a CDP ``Profiler`` run over the same edits). ``--css`` adds rules to the
page first (the context bypasses the CSP for it), to try a change before making it.
Every figure is for this machine at this moment: compare runs made together only.
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

PHASES = (
    ("style", "UpdateLayoutTree"),
    ("layout", "Layout"),
    ("pre-paint", "PrePaint"),
    ("compositing inputs", "LocalFrameView::RunCompositingInputsLifecyclePhase"),
    ("paint", "Paint"),
    ("commit", "Commit"),
    ("script", "v8.callFunction"),
)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edits", type=int, default=6)
    parser.add_argument("--css", default="", help="extra CSS rules to try")
    args = parser.parse_args(argv)
    text = english(TARGET_BYTES)
    units = word_count(text)
    with (
        B.build.serving_in_background(B.build.DIST, B.BenchHandler) as base,
        B.chromium() as browser,
    ):
        context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        context.add_init_script(B.PROBE)
        page = context.new_page()
        page.goto(f"{base}#unit=word&size=1000&overlap=50")
        B.wait_ready(page)
        page.evaluate(B.FILL_TEXT, text)
        first, _ = B.window_count(units, 1000, 50)
        page.wait_for_selector(f'[data-testid="summary-chunks"][data-value="{first}"]')
        page.wait_for_timeout(2500)  # past the worker's rank warm-up
        if args.css:
            page.add_style_tag(content=args.css)

        def edit(i: int) -> dict[str, Any]:
            size = 1100 if i % 2 == 0 else 1000
            chunks, capped = B.window_count(units, size, 50)
            got: dict[str, Any] = page.evaluate(
                B.INTERACT, {"action": "size", "value": size, "chunks": chunks, "capped": capped}
            )
            page.wait_for_timeout(250)  # the sweep chart's call comes 200 ms after a result
            return got

        for i in range(3):
            edit(i)
        cdp = context.new_cdp_session(page)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 200})
        cdp.send("Profiler.start")
        for i in range(args.edits):
            edit(i)
        profile = cdp.send("Profiler.stop")["profile"]
        browser.start_tracing(page=page, categories=["devtools.timeline", "blink", "v8"])
        edits = [edit(i) for i in range(args.edits)]
        events = json.loads(browser.stop_tracing())["traceEvents"]
        context.close()

    threads = {(e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name"
               and e["args"].get("name") == "CrRendererMain"}  # fmt: skip
    spent: collections.Counter[str] = collections.Counter()
    for e in events:
        if (e.get("pid"), e.get("tid")) in threads and e.get("ph") == "X":
            spent[e["name"]] += e.get("dur", 0) / 1000
    print("edit -> on screen, answer on the page, longest task (ms):")
    for got in edits:
        print(f"  {got['ms']:6.1f} {got['answered'] or float('nan'):6.1f} {got['longest']:6.1f}")
    print(f"main thread per edit (ms, mean of {args.edits}):")
    for label, name in PHASES:
        print(f"  {spent[name] / args.edits:6.1f} {label}")
    nodes = {n["id"]: n["callFrame"] for n in profile["nodes"]}
    self_ms: collections.Counter[str] = collections.Counter()
    for sample, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = nodes[sample]
        where = f"{frame['functionName'] or '(anonymous)'} {Path(frame['url']).name}"
        self_ms[where.strip()] += delta / 1000 / args.edits
    print("JS self time per edit (ms):")
    for where, ms in self_ms.most_common(16):
        if where not in {"(idle)", "(program)"}:
            print(f"  {ms:6.2f} {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

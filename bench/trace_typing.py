"""Which work owns the long main-thread tasks of typing into a megabyte: a Chromium trace.

Run after ``python build.py`` with the project's venv:
``python bench/trace_typing.py [--dist DIR] [--scenario typing|edit] [--top 8]``.
``typing`` opens the built site (or another build's ``--dist``) as the benchmark's
row 9 does (bench_site.py: 1,000,000 bytes of English, token mode o200k_base 512/77)
and traces ten characters typed 120 ms apart into the middle of the text, each left
to settle. ``edit`` opens it as section E3 does (token mode 1000/50) and traces the
megabyte replaced through the box's value (as E3 once edited it), then three edits
as E3 makes them now (the first eight characters selected and retyped, one insertion). Each step's
longest main-thread task is printed by wall time and by the thread's CPU time, and
for the longest tasks the work inside them (trace_text_view.py's report). Compare
runs made together only.
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
import trace_text_view as T  # noqa: E402
from bench_engine import TARGET_BYTES, english  # noqa: E402

from pyapp.core import tokenizers  # noqa: E402


def typing_steps(page: Any, length: int) -> None:
    box = page.get_by_test_id("text-input")
    box.evaluate("(el, at) => { el.focus(); el.setSelectionRange(at, at); }", length // 2)
    for i, key in enumerate(B.TYPED):
        page.evaluate(T.MARK, f"key{i}")
        page.keyboard.type(key)
        page.wait_for_timeout(120)
    B.figures(page, "count-chars", length + len(B.TYPED))
    B.settle(page)
    page.evaluate(T.MARK, "end")


def edit_steps(page: Any, text: str) -> None:
    prefix = "Edit 0: "
    edited = prefix + text[len(prefix) :]
    page.evaluate(T.MARK, "value")
    page.evaluate(B.FILL_TEXT, edited)
    B.settle(page)
    for k in (1, 2, 3):  # as E3 edits it: the first eight characters retyped, one insertion
        page.evaluate(T.MARK, f"insert{k}")
        B.edit_at_the_start(page, f"Edit {k}: ")
        B.settle(page)
    page.evaluate(T.MARK, "end")


def trace(dist: Path, scenario: str, profile: bool = False) -> list[dict[str, Any]]:
    text = english(TARGET_BYTES)
    if scenario in ("typing", "anchor"):
        text = text[: -len(B.TYPED) * 2]
        size, overlap = 512, 77
    else:
        size, overlap = 1000, 50
    typed = [0]  # the characters typed so far, by the profiled pass

    def steps(page: Any, text: str) -> None:
        if scenario == "typing":
            typing_steps(page, len(text) + typed[0])
            typed[0] += len(B.TYPED)
        else:
            edit_steps(page, text)

    tokens = len(tokenizers.get_tokenizer("o200k_base", backend="tiktoken").encode(text))
    first, _ = B.window_count(tokens, size, overlap)
    if scenario == "anchor":  # the plain textarea, typed into as row 9 types
        with (
            B.build.serving_in_background(dist, B.BenchHandler) as base,
            B.chromium() as browser,
            B.bare_textarea(browser, base, text) as page,
        ):
            browser.start_tracing(page=page, categories=T.CATEGORIES)
            box = page.get_by_test_id("text-input")
            box.evaluate(
                "(el, at) => { el.focus(); el.setSelectionRange(at, at); }", len(text) // 2
            )
            for i, key in enumerate(B.TYPED):
                page.evaluate(T.MARK, f"key{i}")
                page.keyboard.type(key)
                page.wait_for_timeout(120)
            B.settle(page)
            page.evaluate(T.MARK, "end")
            anchor: list[dict[str, Any]] = json.loads(browser.stop_tracing())["traceEvents"]
        return anchor
    with (
        B.build.serving_in_background(dist, B.BenchHandler) as base,
        B.chromium() as browser,
        B.page_with_text(
            browser, base, text, words=0, size=size, overlap=overlap, unit="token", chunks=first
        ) as page,
    ):
        B.settle(page)
        if profile:  # a CPU profile of the same steps first, its JS self time printed
            cdp = page.context.new_cdp_session(page)
            cdp.send("Profiler.enable")
            cdp.send("Profiler.setSamplingInterval", {"interval": 200})
            cdp.send("Profiler.start")
            steps(page, text)
            self_time(cdp.send("Profiler.stop")["profile"])
        browser.start_tracing(page=page, categories=T.CATEGORIES)
        steps(page, text)
        events: list[dict[str, Any]] = json.loads(browser.stop_tracing())["traceEvents"]
    return events


def self_time(profile: dict[str, Any], top: int = 20) -> None:
    """Prints the JS functions with the most self time in a CDP profile."""
    nodes = {n["id"]: n["callFrame"] for n in profile["nodes"]}
    spent: collections.Counter[str] = collections.Counter()
    for sample, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = nodes[sample]
        where = f"{frame['functionName'] or '(anonymous)'} {Path(frame['url']).name}"
        spent[f"{where.strip()}:{frame['lineNumber'] + 1}"] += delta / 1000
    print("JS self time over the steps (ms):")
    for where, ms in spent.most_common(top):
        if not where.startswith(("(idle)", "(program)")):
            print(f"  {ms:7.1f} {where}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dist", type=Path, default=B.build.DIST, help="the build to trace")
    parser.add_argument("--scenario", choices=("typing", "anchor", "edit"), default="typing")
    parser.add_argument("--top", type=int, default=8, help="the longest tasks to open up")
    parser.add_argument("--save", type=Path, default=None, help="keep the trace's JSON here")
    parser.add_argument("--profile", action="store_true", help="a JS CPU profile first")
    args = parser.parse_args(argv)
    events = trace(args.dist, args.scenario, args.profile)
    if args.save:
        args.save.write_text(json.dumps({"traceEvents": events}))
    T.report(events, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

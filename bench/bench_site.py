"""Boot benchmark: the page's time to ready against a bare ``loadPyodide()``.

Run it as ``python build.py bench`` (which builds dist/ and finds Chromium
first), or directly with the project's venv: ``python bench/bench_site.py``.

Both are timed from navigation start in headless Chromium, in a fresh browser
context each time (a cold cache), alternating, over several runs of one
invocation; the table shows medians:

- bare boot: ``bench/pages/bare.html`` (benchmark only, never copied into
  dist/) runs ``loadPyodide()`` with its defaults in a module worker started as
  the site starts its own, against the same served runtime;
- time to ready: ``index.html`` until ``[data-testid=status]`` says ready
  (runtime, packages, engine imported and answering).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGES = Path(__file__).resolve().parent / "pages"
BENCH_PREFIX = "/__bench__/"
TARGET_RATIO = 1.25

sys.path.insert(0, str(ROOT))
import build  # noqa: E402

# Records, from navigation start, when the status first says ready. Installed
# with add_init_script, which runs before the page's own scripts (and is not
# subject to its CSP).
READY_PROBE = """
(() => {
  const seen = () => {
    const status = document.querySelector('[data-testid="status"]');
    if (status && status.dataset.state === "ready" && window.__readyAtMs === undefined) {
      window.__readyAtMs = performance.now();
    }
  };
  new MutationObserver(seen).observe(document, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"],
  });
})();
"""


# The worker records each start-up stage as a performance measure.
STAGE_MEASURES = """() => Object.fromEntries(performance.getEntriesByType("measure")
  .filter((entry) => entry.name.startsWith("engine:"))
  .map((entry) => [entry.name.slice("engine:".length), entry.duration]))"""


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
            executable_path=executable, args=build.chromium_args(), headless=True
        )
        try:
            yield browser
        finally:
            browser.close()


def bare_boot_ms(browser: Any, base: str) -> float:
    """Navigation start -> a bare loadPyodide() resolved, in a fresh context."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{base}__bench__/bare.html")
        page.wait_for_selector(
            '#result[data-state="done"], #result[data-state="error"]', timeout=120_000
        )
        result = page.locator("#result")
        if result.get_attribute("data-state") != "done":
            raise SystemExit(f"bench: bare boot {result.inner_text()}")
        return float(result.get_attribute("data-at-ms") or "nan")
    finally:
        context.close()


def time_to_ready_ms(browser: Any, base: str) -> tuple[float, dict[str, float]]:
    """Navigation start -> the page's status says ready, in a fresh context.

    Also returns the worker's own stage durations (its ``engine:*`` measures).
    """
    context = browser.new_context()
    try:
        context.add_init_script(READY_PROBE)
        page = context.new_page()
        page.goto(base)
        status = page.get_by_test_id("status")
        settled = (
            '[data-testid="status"][data-state="ready"], [data-testid="status"][data-state="error"]'
        )
        page.wait_for_selector(settled, timeout=120_000)
        if status.get_attribute("data-state") != "ready":
            raise SystemExit(f"bench: the page failed to start: {status.inner_text()}")
        ready_at = float(page.evaluate("() => window.__readyAtMs"))
        stages = page.workers[0].evaluate(STAGE_MEASURES) if page.workers else {}
        return ready_at, stages
    finally:
        context.close()


def measure(runs: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {"bare": [], "page": []}
    with build.serving_in_background(build.DIST, BenchHandler) as base, chromium() as browser:
        bare_boot_ms(browser, base)  # warm-up: the OS file cache, Chromium's first start
        time_to_ready_ms(browser, base)
        for run in range(runs):  # alternating which goes first, so neither gains from order
            for name in ("bare", "page") if run % 2 == 0 else ("page", "bare"):
                if name == "bare":
                    samples["bare"].append(bare_boot_ms(browser, base))
                    continue
                ready_at, stages = time_to_ready_ms(browser, base)
                samples["page"].append(ready_at)
                for stage, duration in stages.items():
                    samples.setdefault(f"stage:{stage}", []).append(duration)
    return samples


def report(samples: dict[str, list[float]]) -> float:
    bare = statistics.median(samples["bare"])
    page = statistics.median(samples["page"])
    ratio = page / bare
    runs = len(samples["bare"])

    def spread(values: list[float]) -> str:
        return f"{min(values):,.0f}–{max(values):,.0f}"

    print(f"Boot benchmark, headless Chromium, {runs} runs each (cold cache), medians:")
    rows = [
        ("bare loadPyodide() (bench/pages/bare.html)", samples["bare"]),
        ("page: navigation -> status ready", samples["page"]),
    ]
    rows += [
        (f"  of which worker stage {key.split(':', 1)[1]}", values)
        for key, values in samples.items()
        if key.startswith("stage:")
    ]
    print(f"  {'what':<44} {'median ms':>10} {'range ms':>14}")
    for name, values in rows:
        print(f"  {name:<44} {statistics.median(values):>10,.0f} {spread(values):>14}")
    verdict = "within" if ratio <= TARGET_RATIO else "over"
    print(f"  time to ready / bare boot = {ratio:.2f}  ({verdict} the {TARGET_RATIO} aim)")
    return ratio


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench_site.py", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each measurement (default 7)")
    args = parser.parse_args(argv)
    if not (build.DIST / "index.html").exists():
        raise SystemExit("bench: dist/ is not built: run `python build.py` first")
    report(measure(args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

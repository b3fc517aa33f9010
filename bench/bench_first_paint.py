"""What the page's first paint is made of: the built page against copies of it with one
part taken out at a time, each against the bare page's paint in the same run.

    python bench/bench_first_paint.py [--runs 15] [--no-write]

Row 1 of the site table (first paint: navigation -> the text box painted and usable)
says how long; this says what for. It copies ``dist/`` (built first: ``python
build.py``) into a temporary folder once per variant, changes only that copy's
``index.html``, and loads each in a fresh browser context, the bare page
(``pages/bare.html``) among them, in an order that alternates from run to run. Each
load is measured as row 1 is (``bench_site.FIRST_PAINT``), then closed 100 ms after its
first paint, so no page's start-up overlaps the next one's. The variants:

- as built;
- without its script: no inline loader, so no ``boot.js`` (nor any module preload),
  no module is fetched or compiled at all, and no worker starts;
- without its stylesheet: the inline ``<style>`` (the first frame's own rules) removed;
- without its script and its stylesheet: the floor for a page that shows this markup
  at all;
- plain font families: the two font stacks (``--sans``, ``--mono``) cut to the generic
  ``sans-serif`` and ``monospace`` (on Linux every family the machine lacks is a
  font lookup per strike).

Only the first is a page a person gets; the others are there to weigh each part. A
variant that does not change the page (a marker no longer found) stops the run, so no
row can silently measure the page as built under another name.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

import bench_site  # noqa: E402
from machine import machine  # noqa: E402
from results import put_section  # noqa: E402

import build  # noqa: E402

ENTRY = re.escape(build.ENTRY_MODULE)  # what the page's one script, inline, adds
SCRIPT = re.compile(rf'<script>[^<]*"{ENTRY}"[^<]*</script>\n?')
PRELOAD = re.compile(r'<link rel="modulepreload"[^>]*>\n?')
STYLE = re.compile(r"<style[^>]*>(.*?)</style>", re.S)
SANS = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'
MONO = 'ui-monospace, "SF Mono", "Cascadia Mono", "Roboto Mono", Menlo, Consolas, monospace'


def removed(pattern: re.Pattern[str], html: str, what: str) -> str:
    """``html`` without every match of ``pattern``; refuses when there is none."""
    text, count = pattern.subn("", html)
    if count == 0:
        raise SystemExit(f"bench_first_paint: the built page has no {what} to take out")
    return text


def without_script(html: str) -> str:
    """``html`` without its inline script (which adds boot.js) and without any module
    preload the page may carry."""
    return PRELOAD.sub("", removed(SCRIPT, html, "boot.js"))


def without_stylesheet(html: str) -> str:
    return removed(STYLE, html, "inline stylesheet")


def plain_fonts(html: str) -> str:
    """``html`` with its font stacks cut to the generic families, and the stylesheet's
    sha256 in the Content-Security-Policy made to match."""
    found = STYLE.search(html)
    if found is None or SANS not in found.group(1) or MONO not in found.group(1):
        raise SystemExit("bench_first_paint: the stylesheet's font stacks are not as expected")
    css = found.group(1)
    plain = css.replace(SANS, "sans-serif").replace(MONO, "monospace")
    source = build.policy_source
    if source(css) not in html:
        raise SystemExit("bench_first_paint: the page's policy does not name its stylesheet")
    return html.replace(css, plain).replace(source(css), source(plain))


VARIANTS: dict[str, Callable[[str], str]] = {
    "as built": lambda html: html,
    "without its script": without_script,
    "without its stylesheet": without_stylesheet,
    "without its script and its stylesheet": lambda html: without_stylesheet(without_script(html)),
    "plain font families": plain_fonts,
}


def variant_sites(folder: Path) -> dict[str, Path]:
    """One copy of dist/ per variant, under ``folder``, each with its own index.html."""
    html = (build.DIST / "index.html").read_text("utf-8")
    sites = {}
    for number, (name, change) in enumerate(VARIANTS.items()):
        site = folder / f"variant-{number}"
        shutil.copytree(build.DIST, site)
        (site / "index.html").write_text(change(html), "utf-8")
        sites[name] = site
    return sites


def paint_once(browser: Any, url: str) -> float:
    """A fresh context's first paint of ``url``, as row 1 measures it (ms)."""
    context = browser.new_context()
    try:
        context.add_init_script(bench_site.PROBE)
        page = context.new_page()
        page.goto(url)
        painted = float(page.evaluate(bench_site.FIRST_PAINT))
        page.wait_for_timeout(100)  # its own frame presented; nothing of it runs on
        return painted
    finally:
        context.close()


def measure(runs: int) -> tuple[dict[str, list[float]], str]:
    samples: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="first-paint-") as folder:
        sites = variant_sites(Path(folder))
        with contextlib.ExitStack() as stack:
            served = {
                name: stack.enter_context(
                    build.serving_in_background(site, bench_site.BenchHandler)
                )
                for name, site in sites.items()
            }
            urls = {"bare page": served["as built"] + "__bench__/bare.html", **served}
            browser = stack.enter_context(bench_site.chromium())
            paint_once(browser, urls["bare page"])  # warm-up: the file cache, the browser
            order = list(urls.items())
            for i in range(runs):
                for name, url in order if i % 2 == 0 else reversed(order):
                    samples.setdefault(name, []).append(paint_once(browser, url))
            version = browser.version
    return samples, version


def section(runs: int) -> str:
    began = time.monotonic()
    samples, version = measure(runs)
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    bare = statistics.median(samples.pop("bare page"))
    rows = []
    for name, values in samples.items():
        median = statistics.median(values)
        q1, _, q3 = statistics.quantiles(values, n=4)
        number = "1" if name == "as built" else ""
        target, met = ("≤ 1.5×", "yes" if median / bare <= 1.5 else "no") if number else ("", "–")
        what = "first paint, the page as built" if number else f"  {name}"
        rows.append(
            bench_site.Row(
                number,
                what,
                f"{median:,.0f} ms (quartiles {q1:,.0f}–{q3:,.0f})",
                f"bare page paint {bare:,.0f} ms",
                f"{median / bare:.2f}×",
                target,
                met,
            )
        )
    return (
        "## Site: what the first paint is made of\n\n"
        f"Written by `python bench/bench_first_paint.py`: {runs} runs, medians, each load in a"
        " fresh context, the bare page and every copy of the page interleaved in an order"
        f" that alternates. Headless Chromium {version}.\n\n"
        f"- Machine: {machine()}; load average {os.getloadavg()[0]:.1f} at the end. Date:"
        f" {when}. Took {time.monotonic() - began:,.0f} s.\n"
        f"- {bench_site.LAUNCH_NOTE}.\n"
        "- Each indented row is a copy of the built page with the part it names taken out"
        " (the module's docstring says how); only the first row is a page a person gets."
        " Row 1 of the site table measures the same thing in its own run.\n\n"
        + bench_site.table(rows)
        + "\n"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="bench_first_paint.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--runs", type=int, default=15, help="loads of each page (default 15)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md")
    args = parser.parse_args(argv)
    if args.runs < 2:
        parser.error("--runs must be at least 2 (quartiles need two samples)")
    if not (build.DIST / "index.html").exists():
        raise SystemExit("bench_first_paint: dist/ is not built: run `python build.py` first")
    text = section(args.runs)
    print(text)
    if not args.no_write:
        put_section("bench_first_paint", text, place=bench_site.site_block_end)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

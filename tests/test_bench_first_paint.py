"""The first-paint benchmark's copies of the page (bench/bench_first_paint.py) each take
out what their name says and nothing else, from the page as build.py makes it; a part
that is no longer there stops the benchmark instead of measuring the page as built
under another name."""

from __future__ import annotations

import base64
import hashlib
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import bench_first_paint as fp  # noqa: E402

import build  # noqa: E402


@pytest.fixture(scope="module")
def built_page() -> str:
    """index.html as dist/ has it: the loader and the first frame's rules inlined, the
    later parts' placeholders."""
    html = (ROOT / "index.html").read_text("utf-8")
    css = (ROOT / build.STYLESHEET).read_text("utf-8")
    js = (ROOT / build.LOADER).read_text("utf-8")
    return build.first_frame_page(html, css, js)[0]


def test_without_its_script_nothing_is_fetched_or_run_before_the_frame(built_page: str) -> None:
    page = fp.without_script(built_page)
    assert "boot.js" in built_page
    assert "<script" not in page and "modulepreload" not in page
    preloading = built_page.replace("</head>", '<link rel="modulepreload" href="x.js">\n</head>')
    assert fp.without_script(preloading) == page
    assert page.count('data-testid="text-input"') == 1
    assert fp.STYLE.search(page) is not None


def test_without_its_stylesheet_only_the_style_element_goes(built_page: str) -> None:
    page = fp.without_stylesheet(built_page)
    assert "<style" not in page
    assert len(built_page) - len(page) > 5_000  # the first frame's rules, not a stub
    assert fp.SCRIPT.search(page) is not None


def test_plain_fonts_keep_the_policy_true_to_the_stylesheet(built_page: str) -> None:
    page = fp.plain_fonts(built_page)
    css = fp.STYLE.search(page)
    assert css is not None
    assert fp.SANS not in css.group(1) and fp.MONO not in css.group(1)
    assert "font: 16px/1.5 var(--sans)" in css.group(1)
    digest = base64.b64encode(hashlib.sha256(css.group(1).encode()).digest()).decode()
    policy = re.search(r"style-src[^;]*", page)
    assert policy is not None and f"'sha256-{digest}'" in policy.group(0)


@pytest.mark.parametrize("change", [fp.without_script, fp.without_stylesheet, fp.plain_fonts])
def test_a_part_that_is_not_there_stops_the_benchmark(
    change: Callable[[str], str], built_page: str
) -> None:
    bare = "<!doctype html><html><head><title>t</title></head><body><p>x</p></body></html>"
    with pytest.raises(SystemExit, match="bench_first_paint"):
        change(bare)
    once = change(built_page)
    assert once != built_page
    with pytest.raises(SystemExit, match="bench_first_paint"):
        change(once)  # what it takes out is gone already

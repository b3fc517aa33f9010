"""Each fact the page shares with the engine is written once, in pyapp/facts.py.

The page reads them from the generated ``static/facts.js`` (build.py's
``write_facts``). These checks fail when a second copy appears in the page's own
sources: a cap, an encoding name, a preset ratio, the held-text count, a
purpose list, or a hand-written list of units or encodings in the HTML.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pyapp import facts

ROOT = Path(__file__).resolve().parents[1]


def page_sources() -> list[Path]:
    files = [ROOT / "index.html", *sorted((ROOT / "static").rglob("*.js"))]
    return [path for path in files if path.name != "facts.js"]


def code_of(path: Path) -> str:
    """The source without comments (a comment may name a fact to explain it)."""
    text = path.read_text("utf-8")
    if path.suffix == ".html":
        return re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)(^|[^:\"'`])//.*$", r"\1", text)


def grouped_forms(number: int) -> list[str]:
    return [str(number), f"{number:,}", f"{number:_}"]


FORBIDDEN: list[tuple[str, re.Pattern[str]]] = [
    *[
        # (not a name such as SHA-256)
        (f"the cap {number}", re.compile(rf"(?<![\w.,-]){re.escape(form)}(?![\w,])"))
        for number in (facts.MAX_BYTES, facts.MAX_CHUNKS, facts.MAX_PROCESSED_UNITS)
        for form in grouped_forms(number)
    ],
    *[(f"the encoding {name}", re.compile(re.escape(name))) for name in facts.ENCODINGS],
    ("a preset ratio", re.compile(r"1\.333|(?<![\w.])4/3(?![\w.])|(?<![\w.])0\.25(?!\d)")),
    ("the number of texts kept", re.compile(r"TEXTS_(KEPT|HELD)\s*=\s*\d")),
    ("a list of purposes", re.compile(r"""new Set\(\[\s*["']sweep["']""")),
    ("a unit radio written by hand", re.compile(r"""<input[^>]*name=["']unit["']""")),
    ("an encoding option written by hand", re.compile(r"""<option[^>]*value=["'][a-z0-9]+_""")),
]


@pytest.mark.parametrize("path", page_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_page_restates_no_fact_the_engine_defines(path: Path) -> None:
    code = code_of(path)
    found = [what for what, pattern in FORBIDDEN if pattern.search(code)]
    assert not found, f"{path.relative_to(ROOT)} writes {', '.join(found)}: read it from FACTS"


def test_the_forbidden_patterns_catch_a_copied_fact(tmp_path: Path) -> None:
    copy = tmp_path / "copy.js"
    copy.write_text('const MAX = 256;\nconst ENC = ["o200k_base"];\n', "utf-8")
    found = [what for what, pattern in FORBIDDEN if pattern.search(code_of(copy))]
    assert "the cap 256" in found and "the encoding o200k_base" in found


def test_build_writes_the_facts_module_from_the_engines_definitions(tmp_path: Path) -> None:
    script = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import build;"
        " files = {}; path = build.write_facts(files); print(path.read_text())"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(ROOT)], capture_output=True, text=True, check=True
    )
    body = done.stdout.split("Object.freeze(", 1)[1].rsplit(");", 1)[0]
    assert json.loads(body) == json.loads(json.dumps(facts.page_facts()))


def test_the_readme_states_every_field_range_the_engine_enforces() -> None:
    """The README's limits table says each range as pyapp/facts.py defines it."""
    readme = (ROOT / "README.md").read_text("utf-8")
    table = readme.split("## Limits, and what the tools refuse", 1)[1].split("\n## ", 1)[0]
    for name, bound in facts.BOUNDS.items():
        low, high = facts.grouped(bound.low), facts.grouped(bound.high)
        assert f"{'above' if bound.low_open else 'from'} {low} to {high}" in table, name

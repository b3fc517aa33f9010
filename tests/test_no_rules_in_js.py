"""The page computes no rule: every figure is the engine's, and JavaScript only formats
and draws it. Two checks over ``static/`` find what would break that:

* rounding and scaling (``Math.round``, ``Math.floor``, ``Math.ceil``, ``Math.trunc``,
  ``toFixed``, ``toPrecision``, ``* 1e6``, ``/ 1e6``, ``10 **``) happen only in
  ``static/view/format.js`` (how many digits a person sees), and in the few modules
  whose arithmetic is drawing or layout, each listed below with why;
* no ``*``, ``/`` or ``%`` takes an engine figure as an operand: a field of an engine
  answer (its JSON keys are snake_case, or one of the counts the engine names).

Comments are left out (a comment may show a formula to explain it); ``facts.js`` is
generated from ``pyapp/facts.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "static"

#: The one formatter, and the modules whose arithmetic is pure drawing or layout.
ALLOWED: dict[str, str] = {
    "static/view/format.js": "the one place a figure is rounded for people",
    "static/tools/sweep-chart.js": "axis ticks and SVG path coordinates: drawing",
    "static/view/text-view.js": "rows, line heights and the rows in sight: layout",
    "static/view/virtual-cards.js": "card heights and scroll positions: layout",
    "static/view/overview.js": (
        "the strip's width in pixels, a pointer's bar and each bar's striped height: drawing"
    ),
    "static/view/number-keys.js": (
        "the arrow keys step the digits typed in a field (the engine validates the result)"
    ),
}

#: Single lines whose arithmetic on a figure is layout, each with why.
ALLOWED_LINES: dict[tuple[str, str], str] = {}

ROUNDING = re.compile(
    r"Math\.(round|floor|ceil|trunc)\b|\.toFixed\(|\.toPrecision\("
    r"|[*/]\s*1e\d|\b10\s*\*\*"
)
#: The engine's counts, where a field name has no underscore to show it is the engine's.
ENGINE_COUNTS = "units|chunks|tokens|chars|words|bytes|size|overlap|stride|cut|sentences"
FIGURE = rf"\b[a-zA-Z_$][\w$]*(?:\??\.[\w$]+)*\??\.(?:[a-z]+_[a-z_0-9]+|{ENGINE_COUNTS})\b"
ON_FIGURE = re.compile(rf"{FIGURE}\s*[*/%](?![*/=])|(?<![*/])[*/%]\s*{FIGURE}")


def sources() -> list[Path]:
    return sorted(path for path in STATIC.rglob("*.js") if path.name != "facts.js")


def code_of(text: str) -> str:
    """JavaScript without its comments (strings kept: a template may compute)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)(^|[^:\"'`\\])//.*$", r"\1", text)


def findings(text: str, *, allowed: bool, lines: tuple[str, ...] = ()) -> list[str]:
    """Each line of ``text`` that computes on a figure, as ``line N: code``; ``allowed``
    lets a drawing module round, ``lines`` are snippets allowed as they stand."""
    found = []
    for number, line in enumerate(code_of(text).splitlines(), 1):
        if any(snippet in line for snippet in lines):
            continue
        if (not allowed and ROUNDING.search(line)) or ON_FIGURE.search(line):
            found.append(f"line {number}: {line.strip()}")
    return found


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_page_rounds_and_computes_on_no_engine_figure(path: Path) -> None:
    name = str(path.relative_to(ROOT))
    lines = tuple(snippet for (where, snippet) in ALLOWED_LINES if where == name)
    found = findings(path.read_text("utf-8"), allowed=name in ALLOWED, lines=lines)
    assert not found, (
        f"{name} computes a rule: ask the engine (handle) or format it in format.js\n"
        + "\n".join(found)
    )


def test_every_allowance_still_stands_and_says_why() -> None:
    for name, why in ALLOWED.items():
        assert (ROOT / name).is_file(), name
        assert len(why.split()) >= 4, name
    for (name, snippet), why in ALLOWED_LINES.items():
        assert snippet in (ROOT / name).read_text("utf-8"), (name, snippet)
        assert len(why.split()) >= 4, name


FIXTURE = """
// a comment may say size * ratio
export function mainInTokens(result) {
  const ratio = result.params.tokens_per_unit;
  const size = Math.max(1, Math.floor(result.params.size * ratio + 0.5));
  const megabytes = bytes / 1e6;
  return { size, tokens: summary.units * ratio, share: row.overlap_percent / 100, megabytes };
}
"""


def test_the_checks_catch_the_token_estimate_the_page_once_computed() -> None:
    found = findings(FIXTURE, allowed=False)
    assert [line.split(":")[0] for line in found] == ["line 5", "line 6", "line 7"], found
    # In a drawing module the rounding is allowed, but arithmetic on a figure is not.
    drawn = findings(FIXTURE, allowed=True)
    assert [line.split(":")[0] for line in drawn] == ["line 5", "line 7"], drawn


def test_formatting_and_drawing_alone_pass() -> None:
    clean = """
    const label = `${fmt.integer(result.summary.chunks)} chunks of ${fmt.unitCount(size, unit)}`;
    const next = result.summary.chunks > 0 ? index + 1 : 0;
    const width = box.width / 2;
    """
    assert findings(clean, allowed=False) == []

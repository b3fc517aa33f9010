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
    # Rules and messages (FACTS.messages, FACTS.sentence_rule, FACTS.defaults.fields):
    ("a byte-limit refusal written by hand", re.compile(r"-byte limit")),
    ("the sentence rule written by hand", re.compile(r"(?i)ends? a sentence")),
    ("a list of overlap modes", re.compile(r"""\[\s*["']units["']\s*,\s*["']percent["']""")),
    (
        "a splitter default written by hand",
        re.compile(r"""(?<![\w.])(sp|splitter): ["']fixed["']"""),
    ),
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


# ---------------------------------------------------------------------- rules and messages
PYTHON = sorted((ROOT / "pyapp").rglob("*.py"))


def python_code(path: Path) -> str:
    """The module without its docstrings and comments: only what runs."""
    import ast
    import io
    import tokenize

    source = path.read_text("utf-8")
    docstrings = {
        node.body[0].value.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
        and isinstance(node.body[0].value.value, str)
    }
    kept = [
        tok.string
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type != tokenize.COMMENT
        and not (tok.type == tokenize.STRING and tok.start[0] in docstrings)
    ]
    return " ".join(kept)


@pytest.mark.parametrize("path", PYTHON, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_engine_words_a_byte_limit_refusal_only_through_facts(path: Path) -> None:
    if path == ROOT / "pyapp" / "facts.py":
        return
    code = python_code(path)
    assert "-byte limit" not in code, f"{path.relative_to(ROOT)}: use facts.over_byte_limit"


def test_every_byte_limit_refusal_reads_as_the_facts_sentence() -> None:
    """The engine, the command line and the page's copy (text-limit.js) agree."""
    from pyapp.cli.common import _too_big
    from pyapp.core.chunking import check_size
    from pyapp.errors import InputError

    with pytest.raises(InputError) as engine:
        check_size("x" * (facts.MAX_BYTES + 1))
    assert str(engine.value) == facts.over_byte_limit("text", "1,000,001 bytes of UTF-8")
    assert str(_too_big("stdin")) == facts.over_byte_limit("stdin", "1,000,001 bytes or more")
    page = facts.page_facts()["messages"]
    assert page["over_byte_limit"].format(
        what="text", size="1,000,001 bytes of UTF-8", limit="1,000,000", scope="",
        remedy=page["byte_limit_remedies"]["text"],
    ) == str(engine.value)  # fmt: skip


def prose(text: str) -> str:
    """Markdown prose with its line breaks and indentation folded to single spaces."""
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("doc", ["README.md", "docs/protocol.md"])
def test_the_docs_quote_the_sentence_rule_the_engine_defines(doc: str) -> None:
    assert prose(facts.SENTENCE_RULE) in prose((ROOT / doc).read_text("utf-8")), doc


def test_the_page_shows_the_sentence_rule_from_facts_and_writes_none_itself() -> None:
    html = code_of(ROOT / "index.html")
    assert re.search(r'<p id="sentence-rule-text"[^>]*></p>', html)
    assert "FACTS.sentence_rule" in code_of(ROOT / "static" / "view" / "app.js")


def test_omitted_fields_mean_the_same_to_the_door_parse_params_and_the_command_line() -> None:
    import argparse
    import inspect

    from pyapp.cli.common import add_chunking_flags
    from pyapp.core.params import parse_params

    signature = inspect.signature(parse_params).parameters
    for name in ("unit", "overlap", "overlap_mode", "splitter"):
        assert signature[name].default == facts.FIELD_DEFAULTS[name], name
    parser = argparse.ArgumentParser()
    add_chunking_flags(
        parser,
        unit=facts.FIELD_DEFAULTS["unit"],
        size=None,
        overlap=facts.FIELD_DEFAULTS["overlap"],
    )
    args = parser.parse_args(["--size", "4"])
    field = facts.FIELD_DEFAULTS
    assert (args.unit, args.overlap, args.splitter) == (
        field["unit"], field["overlap"], field["splitter"],
    )  # fmt: skip
    helped = prose(parser.format_help())
    assert f"else {facts.DEFAULT_ENCODING})" in helped
    assert f"drop it ({facts.FIELD_DEFAULTS['keep_separator']})" in helped
    from pyapp.web.api import handle

    answer = json.loads(handle(json.dumps({"op": "chunk", "text": "a b c d e", "size": "2"})))
    params = answer["result"]["params"]
    assert (params["unit"], params["overlap"]) == (
        facts.FIELD_DEFAULTS["unit"], int(facts.FIELD_DEFAULTS["overlap"]),
    )  # fmt: skip
    assert answer["result"]["splitter"]["name"] == facts.FIELD_DEFAULTS["splitter"]
    from pyapp.cli.audit import add_lens_flags

    lens = argparse.ArgumentParser()
    add_lens_flags(lens)
    assert lens.parse_args([]).unit == facts.MEASURE_UNIT
    assert f"counted in ({facts.MEASURE_UNIT})" in prose(lens.format_help())


def test_the_rule_patterns_catch_a_copied_message_and_rule(tmp_path: Path) -> None:
    copy = tmp_path / "copy.js"
    copy.write_text(
        "const a = `over the ${n}-byte limit`;\n"
        'const b = "A blank line ends a sentence";\n'
        'const MODES = new Set(["units", "percent"]);\n'
        'const DEFAULTS = { sp: "fixed" };\n',
        "utf-8",
    )
    found = {what for what, pattern in FORBIDDEN if pattern.search(code_of(copy))}
    assert {
        "a byte-limit refusal written by hand", "the sentence rule written by hand",
        "a list of overlap modes", "a splitter default written by hand",
    } <= found  # fmt: skip

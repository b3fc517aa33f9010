"""The JavaScript checks that ``python build.py test`` runs (ESLint and ``tsc
--checkJs``, pinned in package.json) pass on the page's modules and refuse a broken
file: the fixtures in tests/js/ each hold one mistake, and good.js none."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "js"
BIN = ROOT / "node_modules" / ".bin"


def tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.fail(f"node_modules/.bin/{name} is missing: run `python build.py` (npm ci) first")
    if name == "tsc" and not (ROOT / "dist" / "static" / "facts.js").exists():
        pytest.fail("dist/static/facts.js is missing: run `python build.py` first")
    return str(path)


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_tsc_refuses_a_misspelled_property_a_wrong_argument_count_and_an_unknown_fact() -> None:
    done = run(tool("tsc"), "-p", str(FIXTURES / "jsconfig.json"))
    errors = re.findall(r"^tests/js/(\w+)\.js\(\d+,\d+\): error (TS\d+)", done.stdout, re.M)
    assert done.returncode != 0, done.stdout
    assert sorted(errors) == [
        ("type_argument_count", "TS2554"),  # expected 2 arguments, but got 3
        ("type_fact", "TS2339"),  # FACTS has no such property
        ("type_misspelled", "TS2551"),  # did you mean 'call'?
    ], done.stdout  # and none in good.js


def test_eslint_refuses_an_undefined_name_and_an_unused_variable() -> None:
    done = run(tool("eslint"), "--no-ignore", "--format", "json", "tests/js/lint_bad.js")
    [report] = json.loads(done.stdout)
    rules = sorted(message["ruleId"] for message in report["messages"])
    assert done.returncode == 1, done.stdout + done.stderr
    assert rules == ["no-undef", "no-unused-vars"], done.stdout
    clean = run(tool("eslint"), "--no-ignore", "tests/js/good.js")
    assert clean.returncode == 0, clean.stdout + clean.stderr

"""``docs/data-path.md`` held to the code: every function a step names (written
``name()``) is defined in one of the files that step names, every constant it names is
one of ``pyapp/facts.py``'s, and the path has about eight steps. A rename or a move on
one side alone fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pyapp import facts

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "data-path.md").read_text("utf-8")


def steps() -> list[str]:
    """The numbered steps, each with its continuation lines."""
    return re.findall(r"^\d+\. .*?(?=^\d+\. |\Z)", DOC, re.M | re.S)


def defines(source: str, name: str, python: bool) -> bool:
    n = re.escape(name)
    if python:
        return re.search(rf"^\s*def {n}\(", source, re.M) is not None
    # A function, or a method (an object literal's or a class's).
    pattern = rf"^\s*(?:export )?(?:async )?(?:function {n}\(|{n}\([^)]*\) \{{)"
    return re.search(pattern, source, re.M) is not None


def test_the_path_is_told_in_about_eight_steps() -> None:
    assert 6 <= len(steps()) <= 10


@pytest.mark.parametrize("step", steps(), ids=lambda step: step.split(".", 1)[0])
def test_each_function_a_step_names_is_defined_in_a_file_it_names(step: str) -> None:
    files = re.findall(r"`((?:static|pyapp)/[\w/.-]+\.(?:js|py))`", step)
    assert files, f"step names no file: {step[:60]}"
    for file in files:
        assert (ROOT / file).exists(), file
    names = re.findall(r"`(?:\w+\.)?(\w+)\(\)`", step)
    assert names, f"step names no function: {step[:60]}"
    sources = [((ROOT / f).read_text("utf-8"), f.endswith(".py")) for f in files]
    missing = [n for n in names if not any(defines(src, n, py) for src, py in sources)]
    assert not missing, f"step {step[:2]} names {missing}, defined in none of {files}"
    for constant in re.findall(r"`([A-Z][A-Z_]{3,})`", step):
        assert hasattr(facts, constant), constant

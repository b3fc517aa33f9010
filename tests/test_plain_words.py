"""The page and the README speak to people: no internal name (the reference texts'
numbers, the issue tracker's) in what they read. The browser test
``test_panels_fold_until_opened_start_from_the_main_view_and_no_internal_name_shows``
checks the page as shown, every panel open; this checks the sources it comes from.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INTERNAL = re.compile(r"(?i)\breferences? ?0\d\d\b|\(reference\b|\bissue \d")


def readable(path: Path) -> str:
    """What a person reads of a file: HTML without its comments."""
    text = path.read_text("utf-8")
    return re.sub(r"<!--.*?-->", "", text, flags=re.S) if path.suffix == ".html" else text


@pytest.mark.parametrize("name", ["README.md", "index.html"])
def test_no_internal_reference_name_reaches_a_reader(name: str) -> None:
    found = INTERNAL.findall(readable(ROOT / name))
    assert not found, f"{name} names {found}: say the rule in plain words"


def test_the_pattern_catches_the_names_once_seen_on_the_page() -> None:
    seen = "Reference 003's example (reference 000) reference 004's floor, issue 5"
    assert len(INTERNAL.findall(seen)) == 4

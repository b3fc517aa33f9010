"""The page's state is named in whole words. The share link keeps its short keys
(``om``, ``enc``, ``tpu``, ...: links already shared must keep working), but only
``hash.js`` spells them, as the strings of the URL; the settings object and the rest
of the page use the names below."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HASH = ROOT / "static" / "view" / "hash.js"
#: The link's short keys, each the URL's name of a setting (``max`` and ``keep`` too,
#: which are left out of the property check: ``progress.max`` is the DOM's own word).
SHORT = ("om", "enc", "tpu", "tb", "cm", "sp", "sep", "seps", "rx", "max", "keep")
AS_PROPERTIES = tuple(name for name in SHORT if name not in {"max", "keep"})


def settings_names(source: str) -> list[str]:
    """The keys of ``DEFAULTS`` in hash.js: the settings object's names."""
    body = source.split("export const DEFAULTS = Object.freeze({", 1)[1].split("});", 1)[0]
    return re.findall(r"^\s+(\w+):", body, re.M)


def short_names_used(source: str) -> list[str]:
    """Every short key used as a property (``s.om``, ``{om: ...}``), not as a string."""
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", source, flags=re.S)
    words = "|".join(AS_PROPERTIES)
    return re.findall(rf"(?:\.({words})\b(?!\s*\()|[{{,]\s*({words})\s*:)", code)


def test_every_setting_is_named_in_whole_words() -> None:
    names = settings_names(HASH.read_text("utf-8"))
    assert len(names) >= 15, names
    short = [name for name in names if name in SHORT or len(name) < 4]
    assert short == [], f"hash.js DEFAULTS uses short names {short}"


@pytest.mark.parametrize(
    "path", sorted((ROOT / "static").rglob("*.js")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_module_keeps_state_under_a_links_short_key(path: Path) -> None:
    if path.name == "facts.js":
        return
    found = short_names_used(path.read_text("utf-8"))
    assert found == [], f"{path.relative_to(ROOT)} uses {found}: name the setting in words"


def test_the_name_checks_catch_the_old_short_names() -> None:
    old = 'export const DEFAULTS = Object.freeze({\n  unit: "word",\n  om: "units",\n  tpu: 1,\n});'
    assert settings_names(old) == ["unit", "om", "tpu"]
    used = short_names_used('const next = { ...settings, enc: "x" }; if (settings.om) go(s.tpu);')
    assert sorted("".join(pair) for pair in used) == ["enc", "om", "tpu"]
    assert short_names_used('params.set("om", s.overlapMode); const max = Math.max(1, 2);') == []

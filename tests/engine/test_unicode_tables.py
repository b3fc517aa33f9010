"""The generated Unicode table is the reference libraries' own, and with it every
encoding's pure path agrees with its reference on every Unicode scalar value.

The table regenerates in memory from tiktoken and ``tokenizers`` and must equal the
checked-in file; then one string holding every code point (and one with each code
point between letters and before a combining mark) is encoded once per encoding by
the pure path and by the reference. ``bench/check_unicode_parity.py`` scans in more
contexts, outside the suite.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from references import reference

from pyapp.core.tokenizers import _tables, get_tokenizer
from pyapp.core.tokenizers._normalize import normalizer
from pyapp.facts import ENCODINGS

ROOT = Path(__file__).resolve().parents[2]
SCALARS = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]
EVERY_CODE_POINT = "".join(map(chr, SCALARS))


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "make_unicode_tables", ROOT / "scripts" / "make_unicode_tables.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_unicode_tables"] = module
    spec.loader.exec_module(module)
    return module


def test_the_checked_in_table_is_what_the_reference_libraries_give_today() -> None:
    generator = _generator()
    fresh = generator.dumps(generator.build())
    stored = (ROOT / "pyapp" / "core" / "tokenizers" / "unicode_tables.json").read_text("utf-8")
    assert json.loads(fresh) == json.loads(stored), (
        "the reference libraries disagree with unicode_tables.json:"
        " run python scripts/make_unicode_tables.py"
    )


def test_the_table_knows_characters_this_python_may_not() -> None:
    """Unicode 15/16 letters are letters here whatever the running Python's version."""
    letter = _tables.bpe_classes().predicates.index("L")
    for code in (0x1E4D0, 0x11F04, 0x1E5D0):  # Nag Mundari (15), Kawi (15), Ol Onal (16)
        assert _tables.bpe_classes().atoms[_tables.bpe_atom(code)][letter] == 1, hex(code)


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_the_pure_path_equals_the_reference_on_every_code_point(name: str) -> None:
    assert get_tokenizer(name, backend="pure").encode(EVERY_CODE_POINT) == reference(name)(
        EVERY_CODE_POINT
    )


def test_nfc_and_nfd_equal_the_rust_normalizers_on_every_code_point_and_its_decomposition() -> None:
    from tokenizers import normalizers

    nfc, nfd = normalizers.NFC().normalize_str, normalizers.NFD().normalize_str
    ours = normalizer()
    decomposed = nfd(EVERY_CODE_POINT)
    assert ours.nfd(EVERY_CODE_POINT) == decomposed
    assert ours.nfc(EVERY_CODE_POINT) == nfc(EVERY_CODE_POINT)
    assert ours.nfc(decomposed) == nfc(decomposed)
    spaced = " ".join(map(chr, SCALARS))  # each alone, then each after a letter with marks
    assert ours.nfc(spaced) == nfc(spaced)
    marked = "".join(f"a\u0316{chr(c)}\u0301" for c in SCALARS[::7])
    assert ours.nfc(marked) == nfc(marked) and ours.nfd(marked) == nfd(marked)

#!/usr/bin/env python3
"""Writes pyapp/core/tokenizers/unicode_tables.json: every per-code-point fact the pure
tokenizers need, read off the reference implementations, never off this Python's
``unicodedata`` or ``re``.

Why: CPython 3.11 has Unicode 14, Pyodide's Python 3.14 has Unicode 16, and the Rust
libraries carry tables of their own. A tokenizer that asked the running Python whether
a character is a letter would give different tokens natively and in the browser, and
both could differ from the reference. So each class is asked of the reference itself:

* **BPE pre-tokenizers** (o200k_base, cl100k_base, llama3, qwen2, tekken): tiktoken's
  own regex engine. A tiktoken ``Encoding`` whose pattern is one class (``\\p{L}``,
  ``\\s``, ``(?i:s)``...) and whose ranks are the 256 single bytes returns, for a text
  holding every code point, exactly the characters of that class (text the pattern does
  not match is skipped), in one call per class.
* **Normalization** (NFD for WordPiece, NFC for Qwen2): the Rust ``tokenizers`` NFD and
  NFC normalizers. Decompositions come from NFD of each code point; combining classes
  from which pairs of marks NFD swaps (labelled by a representative mark per class);
  compositions from NFC of each decomposition.
* **WordPiece** (bert-base-uncased): the Rust ``BertNormalizer`` stage by stage (clean
  text and Chinese padding; accent stripping and lowercasing) and ``BertPreTokenizer``
  (whitespace and punctuation), each asked of every code point.

Run it with the reference libraries installed (the ``test`` extra):

    python scripts/make_unicode_tables.py            # rewrite the table
    python scripts/make_unicode_tables.py --check    # exit 1 if it would change

``tests/engine/test_unicode_tables.py`` regenerates the table in memory and compares.
"""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections.abc import Callable, Iterable
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "pyapp" / "core" / "tokenizers" / "unicode_tables.json"

#: Every Unicode scalar value (surrogates cannot be in a text: UTF-8 cannot hold them).
SCALARS = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]

#: The predicates the BPE patterns are written in (see ``_pretokenize.py``).
BPE_CLASSES = {
    "L": r"\p{L}",
    "N": r"\p{N}",
    "M": r"\p{M}",
    "S": r"\s",
    "UP": r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]",
    "LO": r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]",
    **{f"fold_{x}": f"(?i:{x})" for x in "stmdlvre"},
}
#: Characters some pattern names literally.
BPE_LITERALS = {"nl": "\r\n", "space": " ", "apos": "'", "slash": "/"}

HANGUL_S, HANGUL_COUNT = 0xAC00, 11172


def _all_text() -> str:
    return "".join(map(chr, SCALARS))


def _ranges(members: Iterable[int]) -> list[list[int]]:
    """Sorted code points as ``[[start, end), ...]``."""
    out: list[list[int]] = []
    for c in sorted(members):
        if out and out[-1][1] == c:
            out[-1][1] = c + 1
        else:
            out.append([c, c + 1])
    return out


def _runs(value_of: Callable[[int], int]) -> list[list[int]]:
    """``[[start, value], ...]``: ``value`` holds from ``start`` up to the next start."""
    out: list[list[int]] = []
    for c in range(0x110000):
        value = value_of(c)
        if not out or out[-1][1] != value:
            out.append([c, value])
    return out


def _each(function: Callable[[str], str], points: list[int], sep: str) -> list[str]:
    """``function`` of every code point alone, in one call: ``sep`` (which ``function``
    keeps, and which never appears in an answer) separates them; ``sep`` itself is
    asked on its own."""
    others = [c for c in points if c != ord(sep)]
    parts = function(sep.join(map(chr, others))).split(sep)
    assert len(parts) == len(others), (len(parts), len(others))
    answers = dict(zip(others, parts, strict=True))
    if ord(sep) in points:
        answers[ord(sep)] = function(sep)
    return [answers[c] for c in points]


# ---------------------------------------------------------------- BPE classes (tiktoken)
def bpe_table() -> dict[str, Any]:
    import tiktoken

    ranks = {bytes([i]): i for i in range(256)}
    text = _all_text()

    def members(pattern: str) -> set[int]:
        enc = tiktoken.Encoding("probe", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
        return set(map(ord, enc.decode_bytes(enc.encode_ordinary(text)).decode("utf-8")))

    sets = {name: members(pattern) for name, pattern in BPE_CLASSES.items()}
    sets.update({name: set(map(ord, chars)) for name, chars in BPE_LITERALS.items()})
    names = sorted(sets)
    # Each code point's predicates as one bit mask (bit i: names[i]), made set by set
    # rather than asking every set about every code point.
    masks = [0] * 0x110000
    for bit, name in enumerate(names):
        for c in sets[name]:
            masks[c] |= 1 << bit
    atoms: dict[int, int] = {}  # mask -> atom, in order of first appearance

    def atom(c: int) -> int:
        return atoms.setdefault(masks[c], len(atoms))

    runs = _runs(atom)
    return {
        "predicates": names,
        "atoms": [[mask >> bit & 1 for bit in range(len(names))] for mask in atoms],
        "runs": runs,
    }


# ---------------------------------------------------------------- normalization (tokenizers)
def _nfd_each(nfd: Callable[[str], str]) -> dict[int, str]:
    """NFD of every code point alone (those it changes), in one call: U+0000 (a
    starter that never composes or decomposes) separates them."""
    parts = _each(nfd, SCALARS, "\0")
    return {c: part for c, part in zip(SCALARS, parts, strict=True) if part != chr(c)}


def _swapped(nfd: Callable[[str], str], pairs: list[tuple[str, str]]) -> list[bool]:
    """For each ``(x, y)``, whether NFD of ``"a" + x + y`` puts y before x."""
    text = "".join("a" + x + y for x, y in pairs)
    out = nfd(text)
    assert len(out) == len(text)
    return [out[3 * i + 1] != pairs[i][0] for i in range(len(pairs))]


def _combining_classes(nfd: Callable[[str], str], stable: list[int]) -> dict[int, int]:
    """The canonical combining class of every NFD-stable code point whose class is not
    0, as the reference orders marks. A representative mark per class (chosen with
    this Python's tables, which only label the classes) is checked against the
    reference; each code point is placed by which representatives NFD swaps it with."""
    candidates: dict[int, list[str]] = {}
    for c in SCALARS:
        value = unicodedata.combining(chr(c))
        if value and unicodedata.decomposition(chr(c)) == "":
            candidates.setdefault(value, []).append(chr(c))
    anchor_low, anchor_high = candidates[1][0], candidates[230][0]  # U+0334, U+0300
    reps: dict[int, str] = {}
    for value, chars in sorted(candidates.items()):
        # The first candidate the reference also treats as a mark of a class between
        # (or at) the anchors' classes.
        behind = _swapped(nfd, [(anchor_high, y) for y in chars])
        ahead = _swapped(nfd, [(y, anchor_low) for y in chars])
        known = [
            y
            for y, a, b in zip(chars, behind, ahead, strict=True)
            if a or b or y in (anchor_low, anchor_high)
        ]
        if known:
            reps[value] = known[0]
    order = sorted(reps)
    pairs = [(reps[a], reps[b]) for a in order for b in order if a < b]
    if any(_swapped(nfd, pairs)) or not all(_swapped(nfd, [(y, x) for x, y in pairs])):
        raise SystemExit("the representative marks are not ordered by their classes there")
    values = sorted(reps)
    low, high = reps[values[0]], reps[values[-1]]
    chars = [chr(c) for c in stable]
    # Non-starter iff NFD swaps it behind the highest class or ahead of the lowest.
    behind = _swapped(nfd, [(high, y) for y in chars])
    ahead = _swapped(nfd, [(y, low) for y in chars])
    marks = [y for y, a, b in zip(chars, behind, ahead, strict=True) if a or b]
    # Which classes of each mark are equal: no swap either way.
    pairs = [(y, reps[v]) for y in marks for v in values]
    forward = _swapped(nfd, pairs)
    backward = _swapped(nfd, [(x, y) for y, x in pairs])
    out: dict[int, int] = {}
    for i, y in enumerate(marks):
        row = range(i * len(values), (i + 1) * len(values))
        equal = [values[k - i * len(values)] for k in row if not forward[k] and not backward[k]]
        if len(equal) != 1:
            raise SystemExit(f"U+{ord(y):04X}: its combining class has no representative")
        out[ord(y)] = equal[0]
    for value, rep in reps.items():
        if out.get(ord(rep)) != value:
            raise SystemExit(f"representative U+{ord(rep):04X} is not class {value} there")
    return out


def _is_hangul_decomposition(c: int, text: str) -> bool:
    s = c - HANGUL_S
    if not 0 <= s < HANGUL_COUNT:
        return False
    lead, vowel, trail = 0x1100 + s // 588, 0x1161 + (s % 588) // 28, 0x11A7 + s % 28
    want = chr(lead) + chr(vowel) + (chr(trail) if trail != 0x11A7 else "")
    return text == want


def normalization_table() -> dict[str, Any]:
    from tokenizers import normalizers

    nfd = normalizers.NFD().normalize_str
    nfc = normalizers.NFC().normalize_str
    decompositions = _nfd_each(nfd)
    hangul = [c for c, d in decompositions.items() if _is_hangul_decomposition(c, d)]
    assert len(hangul) == HANGUL_COUNT, len(hangul)
    stable = [c for c in SCALARS if c not in decompositions]
    ccc = _combining_classes(nfd, stable)
    # Primary composites: NFC of their decomposition gives them back. Composing the
    # decomposition but its last character must give one character, the pair's first.
    pairs: list[list[int]] = []
    for c, d in sorted(decompositions.items()):
        if c - HANGUL_S in range(HANGUL_COUNT) or len(d) < 2 or nfc(d) != chr(c):
            continue
        first = nfc(d[:-1])
        if len(first) != 1:
            raise SystemExit(f"U+{c:04X}: cannot find the pair it composes from")
        pairs.append([ord(first), ord(d[-1]), c])
    return {
        "decompositions": {
            f"{c:X}": " ".join(f"{ord(x):X}" for x in d)
            for c, d in sorted(decompositions.items())
            if c - HANGUL_S not in range(HANGUL_COUNT)
        },
        "hangul": [HANGUL_S, HANGUL_COUNT],
        "combining_classes": _runs(lambda c: ccc.get(c, 0)),
        "compositions": pairs,
    }


# ---------------------------------------------------------------- WordPiece (tokenizers)
def bert_table(decompositions: dict[str, str]) -> dict[str, Any]:
    from tokenizers import normalizers, pre_tokenizers

    stage1 = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=False
    ).normalize_str
    stage3 = normalizers.BertNormalizer(
        clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=True
    ).normalize_str
    drop, space, pad = set(), set(), set()
    parts = _each(stage1, SCALARS, "|")
    for c, out in zip(SCALARS, parts, strict=True):
        ch = chr(c)
        if out == ch:
            continue
        if out == "":
            drop.add(c)
        elif out == " ":
            space.add(c)
        elif out == f" {ch} ":
            pad.add(c)
        else:
            raise SystemExit(f"U+{c:04X}: stage 1 gives {out!r}")
    # Accent stripping and lowercasing of each character NFD leaves alone (those are
    # the only ones that reach this stage).
    decomposed = {int(c, 16) for c in decompositions}
    stable = [c for c in SCALARS if c not in decomposed and not _hangul(c)]
    parts = _each(stage3, stable, "|")
    strip: set[int] = set()
    lower: dict[str, str] = {}
    for c, out in zip(stable, parts, strict=True):
        if out == chr(c):
            continue
        if out == "":
            strip.add(c)
        else:
            lower[f"{c:X}"] = " ".join(f"{ord(x):X}" for x in out)
    # Pre-tokenizer classes, asked of "x" + c + "x" + c' + "x" ... at once (the
    # pre-tokenizer looks at each character alone): c at 2k + 1 is in no word
    # (whitespace), a word of its own (punctuation; "x" never is), or inside a word
    # with the letters around it. Only the punctuation and the long runs between make
    # words, so the answer holds a few thousand of them, not two million.
    words = pre_tokenizers.BertPreTokenizer().pre_tokenize_str(
        "".join("x" + chr(c) for c in SCALARS) + "x"
    )
    covered = bytearray(2 * len(SCALARS) + 1)  # 1: in a longer word, 2: a word alone
    text_end = 0
    for word, (start, end) in words:
        if end - start == 1 and start % 2 == 1:
            covered[start] = 2
        elif start % 2 == 0 and end % 2 == 1 and word[0] == word[-1] == "x":
            covered[start:end] = b"\1" * (end - start)
        else:
            raise SystemExit(f"pre-tokenized into a word {word[:8]!r} at [{start}, {end})")
        text_end = max(text_end, end)
    assert text_end == len(covered)
    whitespace = {c for k, c in enumerate(SCALARS) if covered[2 * k + 1] == 0}
    punctuation = {c for k, c in enumerate(SCALARS) if covered[2 * k + 1] == 2}
    if any(covered[k] != 1 for k in range(0, len(covered), 2)):
        raise SystemExit("a letter x between the characters was split off or dropped")
    return {
        "drop": _ranges(drop),
        "space": _ranges(space),
        "pad": _ranges(pad),
        "strip": _ranges(strip),
        "lower": lower,
        "whitespace": _ranges(whitespace),
        "punctuation": _ranges(punctuation),
    }


def _hangul(c: int) -> bool:
    return 0 <= c - HANGUL_S < HANGUL_COUNT


def build() -> dict[str, Any]:
    normalization = normalization_table()
    return {
        "about": "Generated by scripts/make_unicode_tables.py from the reference"
        " implementations named below; do not edit.",
        "references": {"tiktoken": version("tiktoken"), "tokenizers": version("tokenizers")},
        "bpe": bpe_table(),
        "normalization": normalization,
        "bert": bert_table(normalization["decompositions"]),
    }


def dumps(table: dict[str, Any]) -> str:
    return json.dumps(table, separators=(",", ":"), sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the table would change")
    args = parser.parse_args(argv)
    text = dumps(build())
    if args.check:
        same = TARGET.exists() and TARGET.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{TARGET.relative_to(ROOT)} is stale: regenerate it")
        return 0 if same else 1
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)} ({len(text):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The pure BPE path's shortcuts give exactly what the plain merge and the plain
scan give: pieces cut where no token crosses between two characters, and the
pre-tokenizer's ASCII matches taken as the pieces themselves."""

from __future__ import annotations

import functools
from collections.abc import Callable
from itertools import accumulate, chain

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyapp.core import tokenizers
from pyapp.core.tokenizers import load_ranks
from pyapp.core.tokenizers._bpe import Junctions, Merger, heap_merge, junctions, unreached
from pyapp.core.tokenizers._pretokenize import pieces, pretokenizer

BPE = ["o200k_base", "cl100k_base", "llama3", "qwen2", "tekken"]

#: Characters that make junctions of every kind: common CJK words and their
#: characters, kana, hangul, Latin with accents, Cyrillic, emoji with a joiner,
#: combining marks, CJK punctuation, and ASCII letters, digits, spaces and marks.
_CHARS = list(
    "的一是了不在人有我他这中大来上个国到说们为子和你地出道也时年得就那要下以生会自着去之过"
    "系统配置文件软件包安装命令用户密码网络服务器。，、「」（）：；！？"
    "のはをにがでとしたてすいるあかなこれですますデビアンパッケージー"
    "한국어텍스트입니다"
    "éèàçüößñÅΣΊабвгдеёжз"
    "\u0301\u0308\u200d\u00a0\u3000"
    "abcdestm 0129.,'-_/\n\t"
) + ["\U0001f99c", "\U0001f469", "\U0001f44d\U0001f3fd"]
MIXED = st.lists(st.sampled_from(_CHARS), min_size=1, max_size=40).map("".join)
SHORT = st.lists(st.sampled_from(_CHARS), min_size=1, max_size=14).map("".join)


@functools.cache
def _longest(name: str) -> int:
    return max(map(len, load_ranks(name)))


@functools.cache
def _native(name: str) -> Callable[[str], list[int]]:
    return tokenizers._build_tiktoken(name, load_ranks(name))


def _spanned(data: bytes, cut: int, ranks: dict[bytes, int], longest: int) -> bytes | None:
    """A token of ``ranks`` that is ``data[a:b]`` with ``a < cut < b``, if any."""
    for a in range(max(0, cut - longest), cut):
        for b in range(cut + 1, min(len(data), a + longest) + 1):
            if data[a:b] in ranks:
                return data[a:b]
    return None


@pytest.mark.parametrize("name", BPE)
@given(piece=SHORT)
def test_no_token_crosses_a_cut_and_the_sides_merge_to_the_whole(name: str, piece: str) -> None:
    ranks = load_ranks(name)
    longest = _longest(name)
    sides, begins = junctions(ranks).sides([piece])
    assert "".join(sides) == piece and begins == [0, len(sides)]
    data = piece.encode()
    cut = 0
    for side in sides[:-1]:
        cut += len(side.encode())
        assert _spanned(data, cut, ranks, longest) is None, (piece, cut)
    merged = list(chain.from_iterable(heap_merge(side.encode(), ranks) for side in sides))
    assert merged == heap_merge(data, ranks)


@functools.cache
def _crossing_chars(name: str) -> list[str]:
    """Characters each junction kind names in ``name``'s vocabulary: whole before a
    byte, whole after a byte, ending in a byte that begins a cross-character token
    (a few CJK characters of each such last byte) or beginning with a byte that
    ends one (a few of each such first byte), beginning with the bytes that end a
    token after a whole character (or with only the first of them), and the
    characters of its cross-character pairs; with ASCII and the CJK set above."""
    table = junctions(load_ranks(name))
    chosen = {whole for whole, _ in table.whole_then_byte}
    chosen |= {whole for whole, _ in table.whole_then_two}
    chosen |= {whole for _, whole in table.byte_then_whole}
    lasts = {ord(byte) for byte, _ in table.byte_then_part}
    cjk = [chr(code) for code in range(0x4E00, 0x9FA6)]
    chosen |= {char for char in cjk if char.encode()[-1] in lasts and ord(char) % 7 == 0}
    firsts = {ord(byte) for _, byte in table.byte_then_part}
    bmp = [chr(code) for code in range(0x80, 0x10000) if not 0xD800 <= code < 0xE000]
    chosen |= {char for char in bmp if char.encode()[0] in firsts and ord(char) % 61 == 0}
    # After a whole character, the start of some character: its first two bytes, or
    # its first byte and then another.
    twos = {two for _, two in table.whole_then_two}
    chosen |= {
        char for char in bmp if char.encode()[:2].decode("latin-1") in twos and ord(char) % 5 == 0
    }
    leads = {ord(two[0]) for two in twos}
    chosen |= {char for char in bmp if char.encode()[0] in leads and ord(char) % 97 == 0}
    pairs = sorted(pair for pair in table.pairs if not pair.isascii())
    chosen |= set("".join(pairs[:: max(1, len(pairs) // 300)]))
    return sorted(chosen | set(_CHARS))


@pytest.mark.parametrize("name", BPE)
@given(data=st.data())
def test_text_of_the_characters_every_junction_kind_names_is_cut_only_where_no_token_crosses(
    name: str, data: st.DataObject
) -> None:
    """The fast paths of :meth:`Junctions.sides` (pairs by two-character keys, the
    kinds by one translation and big-integer masks) on text drawn from the very
    characters they flag: no token spans a cut, and a fresh encoder equals
    tiktoken."""
    alphabet = st.sampled_from(_crossing_chars(name))
    piece = data.draw(st.lists(alphabet, min_size=1, max_size=14).map("".join))
    ranks = load_ranks(name)
    sides, _ = junctions(ranks).sides([piece])
    data_bytes = piece.encode()
    cut = 0
    for side in sides[:-1]:
        cut += len(side.encode())
        assert _spanned(data_bytes, cut, ranks, _longest(name)) is None, (piece, cut)
    text = data.draw(st.lists(alphabet, min_size=1, max_size=60).map("".join))
    assert tokenizers._build_pure(name, ranks)(text) == _native(name)(text)


def _naive_sides(table: Junctions, piece: str) -> list[str]:
    """The piece cut at each junction none of the table's four kinds names, one
    junction at a time (what :meth:`Junctions.sides` computes in C loops)."""
    out, start = [], 0
    for k in range(1, len(piece)):
        a, b = piece[k - 1], piece[k]
        last = chr(a.encode("utf-8", "surrogatepass")[-1])
        first = chr(b.encode("utf-8", "surrogatepass")[0])
        two = b.encode("utf-8", "surrogatepass")[:2].decode("latin-1")
        held = a + b in table.pairs or (a, first) in table.whole_then_byte
        held = held or (a, two) in table.whole_then_two
        held = held or (last, b) in table.byte_then_whole or (last, first) in table.byte_then_part
        if not held:
            out.append(piece[start:k])
            start = k
    return [*out, piece[start:]]


#: Characters for the sides' own checks: the crossing set's, controls (the cut
#: marks the sides are split at), a lone surrogate and characters past U+FFFF.
_ODD = ["\x00", "\x01", "\x02", "\x1f", "\ud800", "\U0001f99c", "\U00020000"]


@pytest.mark.parametrize("name", ["o200k_base", "llama3"])
@settings(max_examples=60)  # a cheap oracle: the junction rule itself is drawn above
@given(data=st.data())
def test_the_sides_of_pieces_together_are_each_piece_cut_junction_by_junction(
    name: str, data: st.DataObject
) -> None:
    """:meth:`Junctions.sides` over several pieces at once (pairs read as integers
    from the UTF-32 text, cut by one split at a separator) equals each piece cut
    junction by junction, with each piece's first side where it says; also when
    the text holds every control character, so no separator is free."""
    table = junctions(load_ranks(name))
    alphabet = st.sampled_from(_crossing_chars(name)[::7] + _ODD)
    piece = st.lists(alphabet, min_size=1, max_size=8).map("".join)
    pieces = data.draw(st.lists(piece, max_size=6))
    if data.draw(st.booleans()):
        pieces.append("".join(map(chr, range(32))))
    sides, begins = table.sides(pieces)
    expected = [_naive_sides(table, piece) for piece in pieces]
    assert sides == list(chain.from_iterable(expected))
    assert begins == [0, *accumulate(map(len, expected))]


def test_the_junctions_of_a_hand_made_vocabulary() -> None:
    """A token made of the end of one character and the start of the next (here the
    last byte of 中 and the first of 文) forbids the cut between them; a junction no
    token names is cut, and every piece ends a side."""
    zhong, wen = "中".encode(), "文".encode()
    ranks = {bytes([b]): b for b in range(256)}
    ranks |= {zhong: 256, wen: 257, zhong[-1:] + wen[:1]: 258, b"ab": 259}
    table = Junctions(ranks)
    assert table.sides(["中文", "文中", "ab中"]) == (["中文", "文", "中", "ab", "中"], [0, 1, 3, 5])


@pytest.mark.parametrize("name", BPE)
@given(texts=st.lists(st.lists(MIXED, min_size=1, max_size=12).map(" ".join), max_size=3))
def test_the_pure_encoder_equals_tiktoken_on_mixed_scripts_text_after_text(
    name: str, texts: list[str]
) -> None:
    """One fresh encoder (empty memo) over several texts: the sides the first texts
    left in the memo serve the later ones."""
    encode = tokenizers._build_pure(name, load_ranks(name))
    native = _native(name)
    for text in texts:
        assert encode(text) == native(text)


ASCII_WITH_A_FEW_OTHERS = st.lists(
    st.one_of(
        st.sampled_from(["the", " word", "'s", " 12", "345", ".", "\n", "  ", "x_y", "\t"]),
        st.sampled_from(_CHARS),
    ),
    min_size=1,
    max_size=80,
).map("".join)


@pytest.mark.parametrize("name", BPE)
@given(text=st.one_of(ASCII_WITH_A_FEW_OTHERS, MIXED))
def test_the_split_equals_the_match_by_match_scan(name: str, text: str) -> None:
    """``split`` takes ASCII matches as pieces (cutting only the others from the
    text, or every piece when many are not ASCII); ``pieces`` cuts each match from
    the text by its end. Both texts with few characters outside ASCII and texts with
    many are drawn."""
    assert pretokenizer(name).split(text) == list(pieces(name, text))


#: Table rules and other runs: each a character repeated 1 to 30 times.
RUNS = st.lists(
    st.tuples(st.sampled_from(list("-+|=_.* \n") + ["中", "ー", "\U0001f99c"]), st.integers(1, 30)),
    min_size=1,
    max_size=10,
).map(lambda runs: "".join(char * count for char, count in runs))


@pytest.mark.parametrize("name", BPE)
@given(pieces=st.lists(RUNS, min_size=1, max_size=4))
def test_a_piece_cut_where_its_runs_begin_and_end_merges_as_a_whole(
    name: str, pieces: list[str]
) -> None:
    """A piece of 24 bytes or more with a run of eight equal bytes is merged in the
    blocks its runs make (each remembered, so one merger serves every draw, as one
    encoder serves a text's table lines); the ids are those of the plain merge, and
    a fresh encoder over the texts equals tiktoken."""
    ranks = load_ranks(name)
    merger = _merger(name)
    for piece in pieces:
        data = piece.encode()
        assert merger.run_ids(data) == heap_merge(data, ranks)
    encode = tokenizers._build_pure(name, ranks)
    native = _native(name)
    for text in (" ".join(pieces), "|".join(pieces) + "|"):
        assert encode(text) == native(text)


@functools.cache
def _merger(name: str) -> Merger:
    return Merger(load_ranks(name))


_BMP = "".join(chr(c) for c in range(0x10000) if not 0xD800 <= c < 0xE000)


@pytest.mark.parametrize("name", BPE)
def test_the_pattern_over_code_points_splits_every_bmp_character_as_the_atoms_do(
    name: str,
) -> None:
    """A text with nothing past U+FFFF is matched as it is, by classes written as
    the table's code point ranges; ``pieces`` matches the atom codes. Every BMP
    code point in order, reversed, and each one between a letter and a combining
    mark before a space (so each class meets letters, marks and spaces around it)."""
    split = pretokenizer(name).split
    contexts = "".join(f"a{char}\u0301 " for char in _BMP)
    for text in (_BMP, _BMP[::-1], contexts):
        assert split(text) == list(pieces(name, text))


def _unreached(name: str, count: int) -> list[str]:
    """Tokens of two characters or more outside ASCII that the merge of their own
    bytes does not reach (tiktoken still gives such a token for a whole piece)."""
    ranks = load_ranks(name)
    out = []
    for token in ranks:
        if token.isascii() or len(token) < 4:
            continue
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(text) > 1 and text.isalpha() and heap_merge(token, ranks) != [ranks[token]]:
            out.append(text)
            if len(out) == count:
                break
    return out


@pytest.mark.parametrize("name", BPE)
def test_a_side_that_is_a_token_the_merge_does_not_reach_is_merged(name: str) -> None:
    """llama3's "ーション" is a token, but merged from its bytes it is four; as a
    whole piece tiktoken gives the one token, inside "プレゼンテーション" the four.
    Each unreached token here follows a letter, so it is a side of a longer piece."""
    native = _native(name)
    encode = tokenizers._build_pure(name, load_ranks(name))
    words = ["プレゼンテーション", " ワークステーション", "ーション"]
    words += [f"{lead}{token}" for token in _unreached(name, 40) for lead in ("の", "a", "é")]
    for word in words:
        assert encode(word) == native(word), word
    assert encode(" ".join(words)) == native(" ".join(words))


@pytest.mark.parametrize("name", BPE)
def test_the_table_of_unreached_tokens_is_what_the_merge_gives_today(name: str) -> None:
    """The encoder answers a side that is a token outside ASCII with that token
    unless the table lists it: the table must be every such token whose own merge
    does not reach it (``scripts/make_unreached.py`` rewrites it)."""
    from pyapp.core.tokenizers._unreached import UNREACHED

    assert unreached(load_ranks(name)) == UNREACHED[name]
    if name == "llama3":
        assert load_ranks(name)["ーション".encode()] in UNREACHED[name]


def test_one_search_finds_every_character_nfc_may_change_below_u10000_and_any_past_it() -> None:
    """Before the scan for runs, one search of a class tested by bitmap says whether
    a text may change under NFC: it finds each BMP character that may change or join
    the one before, no other, and every character past U+FFFF (after which the set
    of the text's characters decides, so a change after an emoji is still found)."""
    from pyapp.core.tokenizers._normalize import normalizer

    norm = normalizer()
    found = norm._unstable_or_astral.search
    bmp = [chr(code) for code in range(0x10000)]
    assert [char for char in bmp if found(char)] == sorted(
        c for c in norm._unstable_chars if c < "\U00010000"
    )
    assert all(found(chr(code)) for code in range(0x10000, 0x110000, 97))
    for text in ("\U0001f99c cafe\u0301", "\U0001f99c cafe", "caf\u00e9 \U0001f99c"):
        scanned = [
            (a - 1 if a else a, b) for a, b in (m.span() for m in norm._unstable.finditer(text))
        ]
        assert norm.unstable_runs(text) == scanned, text
    assert norm.unstable_runs("\U0001f99c cafe\u0301") == [(5, 7)]  # the e and its accent


@given(text=st.one_of(MIXED, ASCII_WITH_A_FEW_OTHERS, st.text(max_size=30)))
def test_the_nfc_runs_are_the_scans_whatever_the_text_holds(text: str) -> None:
    """A text with no character that NFC may change or join is answered from its set
    of characters; any text gets the runs the full scan finds."""
    from pyapp.core.tokenizers._normalize import normalizer

    norm = normalizer()
    scanned = [(a - 1 if a else a, b) for a, b in (m.span() for m in norm._unstable.finditer(text))]
    assert norm.unstable_runs(text) == scanned

"""Evidence coverage: which windows hold each item whole, and the smallest overlap
that keeps every item whole, by hand first and then against brute force."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from references import reference_units

from pyapp.core.chunking import chunk_text, segment
from pyapp.core.coverage import count_whole, item_units, min_overlap
from pyapp.core.evidence_report import check_evidence
from pyapp.core.params import parse_params
from pyapp.core.windows import spans

# Reference 002's 20-unit sequence in each unit: 20 code points; 20 words, which
# are also 20 o200k tokens ("a", " b", " c", ...).
TWENTY = {
    "char": "abcdefghijklmnopqrst",
    "word": " ".join("abcdefghijklmnopqrst"),
    "token": " ".join("abcdefghijklmnopqrst"),
}


def interval(unit: str, first: int, end: int) -> tuple[int, int]:
    """The code points of units ``[first, end)`` of the 20-unit text."""
    if unit == "char":
        return first, end
    return 2 * first, 2 * (end - 1) + 1  # word i is the letter at 2i


def check(unit: str, first: int, end: int, *, size: int = 8, overlap: int = 2) -> dict[str, object]:
    start, stop = interval(unit, first, end)
    line = f'{{"id": "e", "start": {start}, "end": {stop}}}'
    params = parse_params(unit=unit, size=size, overlap=overlap)
    report = check_evidence(TWENTY[unit], params, jsonl=line, top_k=5)
    item = report.items[0]
    return {
        "status": item.status,
        "whole": item.whole,
        "touches": item.touches,
        "units": (item.unit_start, item.unit_end),
        "min_overlap": report.min_overlap.overlap,
    }


@pytest.mark.parametrize("unit", ["char", "word", "token"])
def test_the_reference_windows_are_0_8_then_6_14_then_12_20(unit: str) -> None:
    params = parse_params(unit=unit, size=8, overlap=2)
    chunks = chunk_text(TWENTY[unit], params).chunks
    assert [(c.start, c.end) for c in chunks] == [(0, 8), (6, 14), (12, 20)]


@pytest.mark.parametrize("unit", ["char", "word", "token"])
def test_evidence_5_to_9_touches_windows_0_and_1_and_neither_holds_it(unit: str) -> None:
    got = check(unit, 5, 9)
    assert got["units"] == (5, 9)
    assert (got["status"], got["whole"], got["touches"]) == ("split", None, (0, 1))


@pytest.mark.parametrize("unit", ["char", "word", "token"])
def test_evidence_6_to_12_is_whole_in_window_1(unit: str) -> None:
    got = check(unit, 6, 12)
    assert (got["status"], got["whole"]) == ("whole", (1, 1))
    assert got["touches"] == (0, 1)  # window 0 holds units 6 and 7 of it


@pytest.mark.parametrize("unit", ["char", "word", "token"])
def test_the_smallest_overlap_keeping_5_to_9_whole_at_size_8_is_3(unit: str) -> None:
    assert check(unit, 5, 9)["min_overlap"] == 3
    # Stride 5: windows [0,8), [5,13), ... and the second holds it.
    assert spans(20, size=8, overlap=3)[:2] == [(0, 8), (5, 13)]
    assert check(unit, 5, 9, overlap=3)["whole"] == (1, 1)


def test_a_larger_overlap_does_not_always_keep_an_item_whole() -> None:
    # Units 7..9 at size 5: stride 5 has the window [5, 10) holding them; stride 4 has
    # [4, 9) and [8, 13), neither of which does; stride 3 has [6, 11), which does.
    whole = [count_whole([7], [9], size=5, overlap=o) for o in range(5)]
    assert whole == [1, 0, 1, 1, 1]
    assert min_overlap([7], [9], size=5) == 0


def test_an_item_longer_than_the_size_has_no_overlap_and_says_why() -> None:
    params = parse_params(unit="char", size=4, overlap=1)
    line = '{"id": "long", "start": 2, "end": 9}'
    report = check_evidence(TWENTY["char"], params, jsonl=line, top_k=5)
    assert report.items[0].longer_than_size
    assert report.min_overlap.overlap is None
    assert report.min_overlap.reason == (
        "item 'long' is 7 characters long, longer than the size (4): no overlap can keep it"
        " whole; raise the size to at least 7"
    )


def test_whitespace_inside_and_around_an_item_needs_no_word() -> None:
    text = "one  two   three four"
    params = parse_params(unit="word", size=2, overlap=0)
    # " two   three " with its surrounding whitespace needs words 1 and 2 only.
    report = check_evidence(text, params, jsonl='{"id": 1, "start": 3, "end": 14}', top_k=5)
    item = report.items[0]
    assert (item.unit_start, item.unit_end, item.status) == (1, 3, "split")
    # A cut word counts whole: "ne  tw" needs words 0 and 1.
    report = check_evidence(text, params, jsonl='{"id": 1, "start": 1, "end": 7}', top_k=5)
    assert (report.items[0].unit_start, report.items[0].unit_end) == (0, 2)
    assert report.items[0].whole == (0, 0)


def test_an_item_inside_one_emoji_needs_every_token_holding_a_byte_of_it() -> None:
    text = "ab🦜cd"  # o200k splits the parrot over several tokens
    seg = segment(text, parse_params(unit="token", size=1))
    needed = item_units(text, seg, [(2, 3)])
    bytes_of = reference_units(text, "token")
    touching = [i for i, (_, _, b0, b1) in enumerate(bytes_of) if b0 < 6 and b1 > 2]
    assert len(touching) > 1
    assert (needed.first[0], needed.last[0]) == (touching[0], touching[-1])


# ---------------------------------------------------------------------- properties
ALPHABET = st.sampled_from(
    list("ab cd\t\n.,")
    + ["\u00a0", "\u3000", "é", "e\u0301", "日", "本", "😀", "🦜", "\r\n", "<|endoftext|>"]
)
TEXTS = st.lists(ALPHABET, min_size=1, max_size=40).map("".join)


def touched(units: list[tuple[int, int, int, int]], text: str, start: int, end: int) -> list[int]:
    """The units sharing a UTF-8 byte with code points [start, end), one by one."""
    b0, b1 = len(text[:start].encode()), len(text[:end].encode())
    return [i for i, (_, _, u0, u1) in enumerate(units) if u0 < b1 and u1 > b0]


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, str, int, int, list[tuple[int, int]]]:
    text = draw(TEXTS)
    unit = draw(st.sampled_from(["word", "char", "token"]))
    size = draw(st.integers(1, 10))
    overlap = draw(st.integers(0, size - 1))
    pairs = draw(
        st.lists(
            st.tuples(st.integers(0, len(text) - 1), st.integers(1, len(text))),
            min_size=1,
            max_size=5,
        )
    )
    items = [(min(a, b), max(a, b)) for a, b in pairs if a != b]
    # Each passage once: the same passage twice (with no question) is refused as
    # already listed, which tests/engine/test_evidence.py checks on its own.
    items = list(dict.fromkeys((a, b) for a, b in items if not text[a:b].isspace()))
    assume(items)
    return text, unit, size, overlap, items


def jsonl(items: list[tuple[int, int]]) -> str:
    return "\n".join(f'{{"id": {i}, "start": {a}, "end": {b}}}' for i, (a, b) in enumerate(items))


@given(cases())
def test_whole_and_touched_chunks_match_a_brute_force_over_every_window(
    case: tuple[str, str, int, int, list[tuple[int, int]]],
) -> None:
    text, unit, size, overlap, items = case
    params = parse_params(unit=unit, size=size, overlap=overlap, caps=False)
    chunks = chunk_text(text, params).chunks
    units = reference_units(text, unit)
    report = check_evidence(text, params, jsonl=jsonl(items), top_k=3)
    assert len(report.items) == len(items)
    whole_count = 0
    for (start, end), got in zip(items, report.items, strict=True):
        need = touched(units, text, start, end)
        assert (got.unit_start, got.unit_end) == (need[0], need[-1] + 1)
        assert need == list(range(need[0], need[-1] + 1))
        holding = [c.index for c in chunks if c.start <= need[0] and need[-1] < c.end]
        touching = [c.index for c in chunks if any(c.start <= i < c.end for i in need)]
        whole = None if not holding else (holding[0], holding[-1])
        assert holding == ([] if whole is None else list(range(whole[0], whole[1] + 1)))
        assert got.whole == whole
        assert got.touches == (touching[0], touching[-1])
        assert touching == list(range(touching[0], touching[-1] + 1))
        assert got.status == ("whole" if holding else "split")
        assert got.longer_than_size == (len(need) > size)
        whole_count += bool(holding)
    assert report.whole == whole_count
    first = [r.unit_start for r in report.items]
    last = [r.unit_end - 1 for r in report.items]
    assert count_whole(first, last, size=size, overlap=overlap) == whole_count


@given(cases())
def test_the_smallest_overlap_equals_trying_every_overlap(
    case: tuple[str, str, int, int, list[tuple[int, int]]],
) -> None:
    text, unit, size, _, items = case
    units = reference_units(text, unit)
    needs = [touched(units, text, a, b) for a, b in items]
    expected = None
    for overlap in range(size):
        windows = spans(len(units), size=size, overlap=overlap)
        if all(any(s <= n[0] and n[-1] < e for s, e in windows) for n in needs):
            expected = overlap
            break
    params = parse_params(unit=unit, size=size, overlap=0)
    report = check_evidence(text, params, jsonl=jsonl(items), top_k=3)
    assert report.min_overlap.overlap == expected
    if expected is not None:
        at = parse_params(unit=unit, size=size, overlap=expected)
        again = check_evidence(text, at, jsonl=jsonl(items), top_k=3)
        assert again.whole == len(items)
        assert report.min_overlap.processed_units == again.summary.processed_units
    else:
        assert any(len(n) > size for n in needs)


@given(
    st.lists(st.tuples(st.integers(0, 300), st.integers(1, 40)), min_size=1, max_size=8),
    st.integers(1, 60),
)
def test_min_overlap_on_long_sequences_equals_trying_every_overlap(
    pairs: list[tuple[int, int]], size: int
) -> None:
    first = [a for a, _ in pairs]
    last = [a + length - 1 for a, length in pairs]
    units = max(last) + 1 + size
    expected = next(
        (
            o
            for o in range(size)
            if all(
                any(s <= a and b < e for s, e in spans(units, size=size, overlap=o))
                for a, b in zip(first, last, strict=True)
            )
        ),
        None,
    )
    assert min_overlap(first, last, size=size) == expected


def test_several_items_longer_than_the_size_name_the_longest() -> None:
    params = parse_params(unit="char", size=4, overlap=1)
    lines = "\n".join(
        f'{{"id": "{name}", "start": {a}, "end": {b}}}'
        for name, a, b in (("short", 0, 2), ("six", 2, 8), ("nine", 9, 18))
    )
    report = check_evidence(TWENTY["char"], params, jsonl=lines, top_k=5)
    assert [r.longer_than_size for r in report.items] == [False, True, True]
    assert report.min_overlap.reason == (
        "2 items are longer than the size (4), the longest, 'nine', 9 characters: no overlap"
        " can keep them whole; raise the size to at least 9"
    )

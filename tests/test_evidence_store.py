"""The page's evidence list follows edits of the text (static/tools/evidence-store.js).

The module runs in Node (which the build needs anyway), one process for the whole
file, answering one JSON line per case. Hand-checkable cases first, then a property
against a deliberately simple reference written here over lists of code points.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "static" / "tools" / "evidence-store.js"

# Reads {"before", "after", "items"} per line; writes {"edit", "items", "points"} per line.
RUNNER = """
import { createInterface } from "node:readline";
const store = await import(process.argv[1]);
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const { before, after, items } = JSON.parse(line);
  const edit = store.editBetween(before, after);
  const moved = edit === null ? items : items.map((item) => store.follow(item, edit));
  const points = store.codePointsIn(after);
  process.stdout.write(JSON.stringify({ edit, items: moved, points }) + "\\n");
}
"""


@pytest.fixture(scope="module")
def store() -> Iterator[Any]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no Node: the build needs it, and so does this test")
    process = subprocess.Popen(
        [node, "--input-type=module", "-e", RUNNER, STORE.as_uri()],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    assert process.stdin is not None and process.stdout is not None

    def ask(before: str, after: str, items: list[dict[str, int]]) -> dict[str, Any]:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps({"before": before, "after": after, "items": items}) + "\n")
        process.stdin.flush()
        answer: dict[str, Any] = json.loads(process.stdout.readline())
        return answer

    try:
        yield ask
    finally:
        process.stdin.close()
        process.wait(timeout=10)


def item(start: int, end: int) -> dict[str, int]:
    return {"start": start, "end": end}


# ---- by hand --------------------------------------------------------------------


def test_an_item_before_an_edit_keeps_its_offsets_and_one_after_it_moves(store: Any) -> None:
    before = "alpha beta gamma delta"
    after = "alpha beta NEW gamma delta"  # "NEW " typed at 11
    answer = store(before, after, [item(0, 5), item(11, 16), item(17, 22)])
    assert answer["edit"] == {"at": 11, "oldEnd": 11, "newEnd": 15}
    assert answer["items"] == [item(0, 5), item(15, 20), item(21, 26)]
    assert after[15:20] == "gamma" and after[21:26] == "delta"


def test_an_edit_inside_an_item_resizes_it_and_one_across_its_edge_drops_it(store: Any) -> None:
    before = "one two three four"
    after = "one tXhree four"  # "wo t" became "X": [5, 9) -> [5, 6)
    answer = store(before, after, [item(4, 11), item(6, 13), item(14, 18)])
    assert answer["edit"] == {"at": 5, "oldEnd": 9, "newEnd": 6}
    # "two thr" holds the whole edit: it shrinks to "tXhr"; "o three" loses its start.
    assert answer["items"] == [item(4, 8), None, item(11, 15)]
    assert after[4:8] == "tXhr" and after[11:15] == "four"


def test_typing_right_at_an_items_end_leaves_it_and_at_its_start_moves_it(store: Any) -> None:
    assert store("ab cd", "ab cdX", [item(3, 5)])["items"] == [item(3, 5)]
    assert store("ab cd", "ab Xcd", [item(3, 5)])["items"] == [item(4, 6)]


def test_offsets_count_code_points_not_utf16_units(store: Any) -> None:
    before = "🦜 parrot 🦜 keeps"
    after = "🦜🦜 parrot 🦜 keeps"  # one more parrot, two UTF-16 units, one code point
    answer = store(before, after, [item(11, 16)])
    assert before[11:16] == "keeps"
    assert answer["items"] == [item(12, 17)] and after[12:17] == "keeps"
    assert answer["points"] == len(after)


def test_a_pair_differing_in_one_half_is_one_changed_character(store: Any) -> None:
    # U+1F600 is D83D DE00, U+1FA00 is D83E DE00 (same low half), U+1F603 is D83D DE03.
    for changed in ("\U0001fa00", "\U0001f603"):
        answer = store("a\U0001f600b", f"a{changed}b", [item(0, 1), item(1, 2), item(2, 3)])
        assert answer["edit"] == {"at": 1, "oldEnd": 2, "newEnd": 2}
        assert answer["items"] == [item(0, 1), item(1, 2), item(2, 3)]


# ---- against a reference ----------------------------------------------------------


def reference_edit(before: str, after: str) -> dict[str, int] | None:
    """The common start and end of the two texts, compared code point by code point."""
    if before == after:
        return None
    shortest = min(len(before), len(after))
    p = 0
    while p < shortest and before[p] == after[p]:
        p += 1
    s = 0
    while s < shortest - p and before[-1 - s] == after[-1 - s]:
        s += 1
    return {"at": p, "oldEnd": len(before) - s, "newEnd": len(after) - s}


def reference_follow(start: int, end: int, edit: dict[str, int]) -> dict[str, int] | None:
    """Where [start, end) goes: kept before the edit, moved after it, resized around it."""
    at, old_end, new_end = edit["at"], edit["oldEnd"], edit["newEnd"]
    delta = new_end - old_end
    if end <= at:
        return item(start, end)
    if start >= old_end:
        return item(start + delta, end + delta)
    if start <= at and old_end <= end and end + delta > start:
        return item(start, end + delta)
    return None


# Letters and characters outside the BMP, two of them with the same low surrogate.
CHARS = st.sampled_from(["a", "b", " ", "\n", "\U0001f600", "\U0001fa00", "\U0001f99c"])
TEXTS = st.lists(CHARS, max_size=12).map("".join)


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, str, list[dict[str, int]]]:
    before = draw(TEXTS)
    i = draw(st.integers(0, len(before)))
    j = draw(st.integers(i, len(before)))
    after = before[:i] + draw(TEXTS) + before[j:]
    spans = st.tuples(st.integers(0, len(before)), st.integers(0, len(before)))
    pairs = draw(st.lists(spans.filter(lambda p: p[0] < p[1]), max_size=4)) if before else []
    return before, after, [item(a, b) for a, b in pairs]


@given(edits())
def test_the_list_follows_any_edit_as_the_code_point_reference_does(
    store: Any, case: tuple[str, str, list[dict[str, int]]]
) -> None:
    before, after, items = case
    answer = store(before, after, items)
    edit = reference_edit(before, after)
    assert answer["edit"] == edit
    expected = (
        items if edit is None else [reference_follow(i["start"], i["end"], edit) for i in items]
    )
    assert answer["items"] == expected
    for moved, old in zip(answer["items"], items, strict=True):
        untouched = edit is None or old["end"] <= edit["at"] or old["start"] >= edit["oldEnd"]
        if untouched:  # an item the edit did not reach holds the same text
            assert after[moved["start"] : moved["end"]] == before[old["start"] : old["end"]]

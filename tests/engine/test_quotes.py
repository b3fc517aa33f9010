"""Finding many quotes at once: the same answer as a brute force on every path, and
a cost that does not grow as quotes × text (counted with a spy, never a clock)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyapp.core import quotes
from pyapp.core.evidence import parse_jsonl
from pyapp.core.quotes import COUNTED, SHOWN, find_quotes


def brute(text: str, quote: str) -> tuple[int, list[int]]:
    """The reference: try every offset."""
    at = [i for i in range(len(text) - len(quote) + 1) if text[i : i + len(quote)] == quote]
    return min(len(at), COUNTED), at[:SHOWN]


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of 3 and a low rarity bound, so short texts take every path."""
    monkeypatch.setattr(quotes, "GRAM", 3)
    monkeypatch.setattr(quotes, "RARE", 2)


ALPHABETS = st.sampled_from(["ab", "abc", "aé🦜", "abcdefgh", "a\r\n"])


@st.composite
def cases(draw: Any) -> tuple[str, list[str]]:
    alphabet = draw(ALPHABETS)
    text = draw(st.text(alphabet, max_size=200))
    inside = st.builds(
        lambda a, n: text[a : a + n], st.integers(0, max(len(text) - 1, 0)), st.integers(1, 9)
    )
    anywhere = st.text(alphabet, min_size=1, max_size=8)
    found = draw(st.lists(st.one_of(inside, anywhere).filter(bool), min_size=1, max_size=40))
    return text, found


@pytest.mark.usefixtures("small_pieces")
@given(case=cases(), few=st.sampled_from([0, 2, 16]))
def test_every_path_finds_what_a_brute_force_finds(case: tuple[str, list[str]], few: int) -> None:
    text, wanted = case
    got = find_quotes(text, wanted, few=few)
    assert [(f.count, f.offsets) for f in got] == [brute(text, q) for q in wanted]


def test_counting_stops_at_the_cap_and_overlapping_occurrences_count() -> None:
    text = "a" * 3000 + "b"
    wanted = ["a" * k for k in range(1, 30)] + ["ab", "ba", "a" * 3001]
    got = find_quotes(text, wanted, few=0)
    assert [(f.count, f.offsets) for f in got] == [brute(text, q) for q in wanted]
    assert got[0].count == COUNTED and got[-3].offsets == [2999]


class CountingText(str):
    """A text that counts the characters its searches look at, and its full walks."""

    scanned = 0
    walks = 0

    def find(self, sub: str, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        CountingText.scanned += len(self) - (start or 0)
        return super().find(sub, start, end)

    def __iter__(self) -> Any:
        CountingText.walks += 1
        return super().__iter__()


@pytest.mark.parametrize(
    "make",
    [
        lambda i: f"an absent passage of some length, number {i}",  # long: through pieces
        lambda i: f"no {i}",  # short: the automaton
    ],
    ids=["long-quotes", "short-quotes"],
)
def test_a_thousand_absent_quotes_cost_a_pass_or_two_not_a_search_each(make: Any) -> None:
    text = CountingText("The treaty was signed in 1648, and again in 1649. " * 200)
    lines = "\n".join(json.dumps({"id": i, "quote": make(i)}) for i in range(1000))
    CountingText.scanned = CountingText.walks = 0
    evidence = parse_jsonl(text, lines)
    assert len(evidence.errors) == 1000
    assert all("does not occur in the text" in e.message for e in evidence.errors)
    # Today's per-quote search looked at 1,000 texts' worth of characters.
    assert CountingText.scanned <= quotes.FEW * len(text)
    assert CountingText.walks <= 1

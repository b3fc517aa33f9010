"""Typing into a held text re-encodes only near the edit, and the result is the one a
full encode gives: through ``handle`` as the page calls it (the ``text`` op holds each
edited text, the view names it by ``text_ref``), with a spy on the tokenizer counting
the characters encoded again; and as a property over random typing sessions in every
encoding."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyapp.core import units
from pyapp.core.cache import forget_texts
from pyapp.core.tokenizers import Tokenizer, get_tokenizer
from pyapp.facts import ENCODINGS
from pyapp.web.api import handle

#: A held text of some 33,000 characters: English and Chinese lines, indented as the
#: Debian Reference's text build writes them, with an emoji now and then.
LINES = [
    "    The chunker repeats the end of one window at the start of the next one.\n",
    "    系统设置，用户可以修改配置文件。然后重新启动服务。\n",
    "    日本語のテキストも、同じように分けられます。\n",
    "1.2.8. Named pipes (FIFO) 🦜\n",
    "\n",
]
HELD = "".join(LINES[i % len(LINES)] for i in range(600))


def call(request: dict[str, object]) -> dict[str, object]:
    answer = json.loads(handle(json.dumps(request, ensure_ascii=False)))
    assert answer["ok"], answer
    result: dict[str, object] = answer["result"]
    return result


@contextmanager
def counting_encodes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The length of every text the token unit encodes (a spy, not a clock)."""
    lengths: list[int] = []
    real = units.get_tokenizer

    def spied(name: str, *, backend: object = None) -> Tokenizer:
        tokenizer = real(name, backend=backend)  # type: ignore[arg-type]
        inner: Callable[[str], units.Spans] = tokenizer.encode_spans

        def encode_spans(text: str) -> units.Spans:
            lengths.append(len(text))
            return inner(text)

        return replace(tokenizer, encode_spans=encode_spans)

    monkeypatch.setattr(units, "get_tokenizer", spied)
    yield lengths


def fresh_view(request: dict[str, object], text: str) -> dict[str, object]:
    """The same view computed from nothing: no held spans, no memo."""
    forget_texts()
    units._last_encoded.clear()
    return call({**request, "text": text})


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_typing_into_a_held_text_re_encodes_only_near_each_keystroke(
    encoding: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    forget_texts()
    units._last_encoded.clear()
    view = {"op": "chunk", "unit": "token", "encoding": encoding, "size": 256, "overlap": 32}
    call({"op": "text", "ref": "held-1", "text": HELD})
    call({**view, "text_ref": "held-1"})
    text = HELD
    with counting_encodes(monkeypatch) as lengths:
        for k, (at, typed) in enumerate([(20_000, "x"), (20_001, "y"), (31_234, "中"), (7, " ")]):
            text = text[:at] + typed + text[at:]
            call({"op": "text", "ref": f"held-{k + 2}", "text": text})
            answer = call({**view, "text_ref": f"held-{k + 2}"})
    assert len(lengths) == 4, lengths  # one encode per edited text, never the whole
    assert max(lengths) <= 2 * max(map(len, LINES)), lengths
    assert answer == fresh_view(view, text)


TYPED = ["", "a", " ", "\n", "中", "。", "'s", "/", "\n    ", "🦜", "e\u0301", "1"]
#: A typing session: (where, as a fraction of the text; characters removed; typed).
EDITS = st.lists(
    st.tuples(
        st.floats(0, 1),
        st.integers(0, 3),
        st.sampled_from(
            ["", "a", " ", "\n", "中", "。", "'s", "/", "\n    ", "🦜", "e\u0301", "1"]
        ),
    ),
    min_size=1,
    max_size=6,
)
BASE = "".join(LINES) + "It's 2024: café/naïve — x\n\n  \t y"


@pytest.mark.parametrize("encoding", list(ENCODINGS))
@settings(max_examples=max(10, settings.default.max_examples // 3))  # each is a session
@given(edits=EDITS)
def test_every_edit_of_a_typing_session_equals_a_full_encode(
    encoding: str, edits: list[tuple[float, int, str]]
) -> None:
    """``Tokens`` of each edited text (spliced from the text encoded before it, as the
    page's path does) against the tokenizer run on the whole text."""
    units._last_encoded.clear()
    encode = get_tokenizer(encoding).encode_spans
    text = BASE
    units.Tokens(text, encoding=encoding)
    for where, removed, typed in edits:
        at = int(where * len(text))
        text = text[:at] + typed + text[at + removed :]
        tokens = units.Tokens(text, encoding=encoding)
        assert (tokens.ids, tokens.byte_starts(), tokens.byte_ends()) == encode(text)

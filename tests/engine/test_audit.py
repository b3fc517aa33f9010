"""The audit of chunks made elsewhere: the shapes of real peers' output recognized, every
chunk re-anchored exactly as a slow brute force of the documented rule places it, the
verdicts right where the peer's own offsets were right or wrong, and the truncation cut
equal to Hugging Face ``tokenizers`` with truncation on.

The peers are pinned test dependencies (``langchain-text-splitters``, ``chonkie``,
``semchunk``), run offline: their tiktoken encoding is built from the engine's pinned
ranks, as ``bench/bench_peers.py`` does.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

import pytest

from pyapp.core import imported
from pyapp.core.anchor import anchor
from pyapp.core.audit import Measure, audit_document, audit_text, chunking_of_file, compare
from pyapp.core.chunking import chunk_text
from pyapp.core.export import dumps as export_dumps
from pyapp.core.imported import decode_chunks_file, read_chunks
from pyapp.core.lens import parse_lens
from pyapp.core.lens import read_chunks as lens_read
from pyapp.core.params import parse_params
from pyapp.core.tokenizers import PAT_STR, load_ranks
from pyapp.core.truncation import model_cut
from pyapp.errors import InputError
from pyapp.vocabularies import DATA_DIR

PASSAGE = "The treaty was signed in 1648 😀 after long talks. 中文字符测试，日本語のテキスト。\n\n"
OTHER = "Other text follows here with words, and 👩‍👩‍👧 a family. "
#: Repeated passages (twice in a row, and again later), emoji (a ZWJ sequence too), CJK.
TEXT = PASSAGE * 3 + OTHER * 8 + "\n\n" + PASSAGE * 2 + "Tail: 東京 and Zürich.\n"


@functools.cache
def encoding(name: str = "cl100k_base") -> Any:
    import tiktoken

    return tiktoken.Encoding(
        name, pat_str=PAT_STR[name], mergeable_ranks=load_ranks(name), special_tokens={}
    )


@pytest.fixture
def offline_tiktoken(monkeypatch: pytest.MonkeyPatch) -> None:
    """LangChain asks tiktoken for an encoding by name (which would download it)."""
    import tiktoken

    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: encoding(name))


# ---------------------------------------------------------------------- the slow rule
def _brute_exact(text: str, chunk: str, start: int, avoid: tuple[int, int] | None) -> int | None:
    n = len(chunk)
    for p in range(start, len(text) - n + 1):
        if text[p : p + n] == chunk and (p, p + n) != avoid:
            return p
    return None


def _brute_squeezed(
    text: str, chunk: str, start: int, avoid: tuple[int, int] | None
) -> tuple[int, int] | None:
    """Walk the text from each non-space character, matching the chunk's non-space
    characters in order and skipping whitespace; a leading (trailing) U+FFFD run stands
    for one non-ASCII character before (after) the match."""
    core = [c for c in chunk if not c.isspace()]
    head = bool(core) and core[0] == "\ufffd"
    tail = bool(core) and core[-1] == "\ufffd"
    while core and core[0] == "\ufffd":
        core.pop(0)
    while core and core[-1] == "\ufffd":
        core.pop()
    if not core:
        return None
    for i in range(start, len(text)):
        if text[i].isspace():
            continue
        j, k = i, 0
        if head:
            if text[i].isascii():
                continue
            j += 1
        ok = True
        while k < len(core):
            while j < len(text) and text[j].isspace():
                j += 1
            if j >= len(text) or text[j] != core[k]:
                ok = False
                break
            j += 1
            k += 1
        if not ok:
            continue
        if tail:
            while j < len(text) and text[j].isspace():
                j += 1
            if j >= len(text) or text[j].isascii():
                continue
            j += 1
        if (i, j) != avoid:
            return i, j
    return None


def brute_anchor(
    text: str, chunks: list[str], starts: list[int | None], ends: list[int | None]
) -> list[tuple[str, int | None, int | None]]:
    out: list[tuple[str, int | None, int | None]] = []
    previous: tuple[int, int] | None = None
    for chunk, given, given_end in zip(chunks, starts, ends, strict=True):
        n = len(chunk)
        place: tuple[int, int] | None = None
        verdict = "missing"
        if (
            n
            and given is not None
            and given >= 0
            and text[given : given + n] == chunk
            and given_end in (None, given + n)
            and (given, given + n) != previous
        ):
            verdict, place = "given", (given, given + n)
        else:
            base = previous[0] if previous else 0
            p = _brute_exact(text, chunk, base, previous) if n else None
            if p is not None:
                verdict, place = "corrected", (p, p + n)
            else:
                found = _brute_squeezed(text, chunk, base, previous)
                if found is not None:
                    i, j = found
                    head = len(chunk) - len(chunk.lstrip())
                    tail = len(chunk) - len(chunk.rstrip())
                    if head and i - head >= base and text[i - head : i] == chunk[:head]:
                        i -= head
                    if tail and text[j : j + tail] == chunk[len(chunk) - tail :]:
                        j += tail
                    verdict, place = "normalized", (i, j)
        if place is not None:
            previous = place
        out.append((verdict, place[0] if place else None, place[1] if place else None))
    return out


def ours(
    text: str, chunks: list[str], starts: list[int | None], ends: list[int | None]
) -> list[tuple[str, int | None, int | None]]:
    return [(a.verdict, a.start, a.end) for a in anchor(text, chunks, starts, ends)]


# ---------------------------------------------------------------------- the peers
def token_truth(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """Where each token window of ``text`` lies, in code points: from the character
    holding its first byte to the end of the character holding its last."""
    enc = encoding()
    ids = enc.encode_ordinary(text)
    data = text.encode()
    starts_at = [0]
    for token in ids:
        starts_at.append(starts_at[-1] + len(enc.decode_single_token_bytes(token)))

    def floor(b: int) -> int:
        return len(data[:b].decode("utf-8", "ignore"))

    def ceil(b: int) -> int:
        while b < len(data) and data[b] & 0xC0 == 0x80:
            b += 1
        return len(data[:b].decode())

    out = []
    for k in range(0, len(ids), size - overlap):
        out.append((floor(starts_at[k]), ceil(starts_at[min(k + size, len(ids))])))
        if k + size >= len(ids):
            break
    return out


def langchain_tokens(text: str) -> tuple[list[Any], list[tuple[int, int]]]:
    from langchain_text_splitters import TokenTextSplitter

    splitter = TokenTextSplitter(
        encoding_name="cl100k_base", chunk_size=12, chunk_overlap=4, add_start_index=True
    )
    return splitter.create_documents([text]), token_truth(text, 12, 4)


def test_langchain_token_chunks_reanchor_as_the_brute_force_and_judge_its_offsets(
    offline_tiktoken: None,
) -> None:
    docs, truth = langchain_tokens(TEXT)
    assert len(docs) == len(truth)
    chunks = [d.page_content for d in docs]
    starts = [d.metadata["start_index"] for d in docs]
    ends: list[int | None] = [None] * len(docs)
    placed = ours(TEXT, chunks, starts, ends)
    assert placed == brute_anchor(TEXT, chunks, starts, ends)
    right = wrong = 0
    for (verdict, start, end), given, chunk, real in zip(
        placed, starts, chunks, truth, strict=True
    ):
        if given == real[0] and TEXT[real[0] : real[1]] == chunk:
            right += 1
            assert verdict == "given"  # the peer was right: kept
        if TEXT[given : given + len(chunk)] != chunk or given < 0:
            wrong += 1
            assert verdict != "given"  # the peer was wrong: never kept
        if verdict != "missing":
            assert start is not None and end is not None
            if verdict in ("given", "corrected"):
                assert TEXT[start:end] == chunk
    # This text makes LangChain's start_index wrong often (-1, or another occurrence).
    assert right >= 5 and wrong >= 3
    assert all(v != "missing" for v, _, _ in placed)  # even the windows cut in a character


def test_langchain_json_shapes_are_recognized_from_the_documents_keys(
    offline_tiktoken: None,
) -> None:
    from langchain_core.load import dumpd

    docs, _ = langchain_tokens(TEXT)
    plain = json.dumps([d.model_dump() for d in docs], ensure_ascii=False)
    serialized = json.dumps([dumpd(d) for d in docs], ensure_ascii=False)
    lines = "\n".join(json.dumps(d.model_dump(), ensure_ascii=False) for d in docs)
    for source, fmt in ((plain, "json"), (serialized, "json"), (lines, "jsonl")):
        read = read_chunks(source)
        assert (read.shape, read.format) == ("langchain", fmt)
        assert [c.text for c in read.chunks] == [d.page_content for d in docs]
        assert [c.start for c in read.chunks] == [d.metadata["start_index"] for d in docs]


def test_langchain_recursive_chunks_with_start_index_are_all_given_and_exact() -> None:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=60, chunk_overlap=20, add_start_index=True)
    docs = splitter.create_documents([TEXT])
    source = json.dumps([d.model_dump() for d in docs], ensure_ascii=False)
    report = audit_text(TEXT, source, measure=Measure(unit="char"))
    chunks = [d.page_content for d in docs]
    starts = [d.metadata["start_index"] for d in docs]
    assert [(a.verdict, a.start, a.end) for a in report.anchored] == brute_anchor(
        TEXT, chunks, starts, [None] * len(docs)
    )
    # LangChain's own offsets are right here (stripped chunks, no token arithmetic).
    assert all(TEXT[s : s + len(c)] == c for s, c in zip(starts, chunks, strict=True))
    assert {a.verdict for a in report.anchored} == {"given"}
    assert report.anchoring_sentence() == (
        f"your tool's start offsets were wrong for 0 of {len(docs)} chunks; all were found"
    )


def test_chonkie_token_chunks_reanchor_as_the_brute_force_and_judge_its_offsets() -> None:
    from chonkie import TokenChunker

    chunker = TokenChunker(tokenizer=encoding(), chunk_size=12, chunk_overlap=4)
    got = chunker.chunk(TEXT)
    truth = token_truth(TEXT, 12, 4)
    assert len(got) == len(truth)
    source = json.dumps([c.to_dict() for c in got], ensure_ascii=False)
    read = read_chunks(source)
    assert read.shape == "chonkie"
    chunks = [c.text for c in got]
    starts: list[int | None] = [c.start_index for c in got]
    ends: list[int | None] = [c.end_index for c in got]
    placed = ours(TEXT, chunks, starts, ends)
    assert placed == brute_anchor(TEXT, chunks, starts, ends)
    judged = {"right": 0, "wrong": 0}
    for (verdict, start, end), c, real in zip(placed, got, truth, strict=True):
        holds = TEXT[c.start_index : c.end_index] == c.text
        if holds and (c.start_index, c.end_index) == real:
            judged["right"] += 1
            assert verdict == "given"
        elif not holds:
            judged["wrong"] += 1
            assert verdict != "given"
        assert (start, end) == real  # where it truly lies, cut characters included
    assert judged["right"] and judged["wrong"]  # Chonkie drifts after a cut character


def test_semchunk_strings_are_found_in_order_where_semchunk_put_them() -> None:
    import semchunk

    enc = encoding()
    chunker = semchunk.chunkerify(lambda s: len(enc.encode_ordinary(s)), 16)
    chunks, offsets = chunker(TEXT, offsets=True)
    source = json.dumps(chunks, ensure_ascii=False)
    read = read_chunks(source)
    assert read.shape == "strings"
    none: list[int | None] = [None] * len(chunks)
    placed = ours(TEXT, chunks, none, none)
    assert placed == brute_anchor(TEXT, chunks, none, none)
    assert [(s, e) for _, s, e in placed] == [tuple(o) for o in offsets]
    assert {v for v, _, _ in placed} == {"corrected"}


def test_llamaindex_haystack_and_own_export_shapes_are_recognized() -> None:
    text = "alpha beta gamma delta"
    llama = [{"id_": "n1", "class_name": "TextNode", "text": "beta gamma", "start_char_idx": 6,
              "end_char_idx": 16, "metadata": {}}]  # fmt: skip
    hay_nested = [{"id": "d1", "content": "gamma delta", "meta": {"split_idx_start": 11}}]
    hay_flat = [{"id": "d1", "content": "gamma delta", "split_idx_start": 12}]
    report = chunk_text(text, parse_params(unit="word", size=2, overlap=1))
    own = export_dumps(report)
    assert read_chunks(json.dumps(llama)).shape == "llamaindex"
    assert read_chunks(json.dumps(llama)).chunks[0].end == 16
    assert read_chunks(json.dumps(hay_nested)).chunks[0].start == 11
    flat = read_chunks(json.dumps({"documents": hay_flat}))
    assert (flat.shape, flat.chunks[0].start) == ("haystack", 12)
    mine = read_chunks(own)
    assert mine.shape == "pyapp"
    placed = anchor(text, [c.text for c in mine.chunks], [c.start for c in mine.chunks],
                    [c.end for c in mine.chunks])  # fmt: skip
    assert [(a.verdict, a.start, a.end) for a in placed] == [
        ("given", c.char_start, c.char_end) for c in report.chunks
    ]
    newer = [{"id_": "n1", "text_resource": {"text": "beta"}, "start_char_idx": 6,
              "end_char_idx": 10}]  # fmt: skip
    assert read_chunks(json.dumps(newer)).chunks[0].text == "beta"
    elements = [{"type": "NarrativeText", "element_id": "e1", "text": "alpha beta",
                 "metadata": {"page_number": 1}}]  # fmt: skip
    unstructured = read_chunks(json.dumps(elements))
    assert (unstructured.shape, unstructured.chunks[0].start) == ("unstructured", None)
    flat_placed = anchor(text, ["gamma delta"], [12])
    assert (flat_placed[0].verdict, flat_placed[0].start) == ("corrected", 11)


def test_fields_named_by_the_user_map_any_other_shape() -> None:
    source = '{"body": {"t": "beta"}, "pos": 6}\n{"body": {"t": "delta"}, "pos": 0}\n'
    read = read_chunks(source, text_field="body.t", start_field="pos")
    assert read.shape == "mapped"
    assert [(c.text, c.start) for c in read.chunks] == [("beta", 6), ("delta", 0)]
    with pytest.raises(InputError, match="--start-field needs --text-field"):
        read_chunks(source, start_field="pos")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ('[{"body": "x"}]', r"item 1 \(line 1\): unknown chunk shape \(keys: body\): looked for"
         r" page_content \(LangChain\), text with start_index \(Chonkie\)"),
        ('{"text": 1}', "looked for page_content"),
        ('[\n"a",\n{"page_content": "b"}\n]', r"item 2 \(line 3\): expected a string"),
        ('[{"page_content": "a"},\n {"metadata": {}}]',
         r"item 2 \(line 2\): field page_content is missing"),
        ('[{"page_content": "a", "metadata": {"start_index": "3"}}]',
         r"item 1 \(line 1\), field metadata.start_index: an offset must be a whole number"),
        ('[{"page_content": 5}]', "field page_content: the text must be a string"),
        ('[1, 2', r"line 1, column 6: the chunks file is not JSON"),
        ('{"page_content": "a"}\n{"page_content": oops}', r"line 2: not JSON"),
        ("", "the chunks file is empty"),
        ("[]", "holds no chunks"),
        ('"just a string"', "not chunks"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_chunks_is_refused_in_one_line_naming_where(
    source: str, message: str
) -> None:
    with pytest.raises(InputError, match=message) as caught:
        read_chunks(source)
    assert "\n" not in caught.value.message
    assert caught.value.field == "chunks"


def test_a_chunk_longer_than_the_text_and_files_over_the_limits_are_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(InputError, match=r"item 2 \(line 1\), field page_content: the chunk is 9"
                       " characters, longer than the whole text"):  # fmt: skip
        read_chunks('[{"page_content": "ab"}, {"page_content": "abcdefghi"}]', max_chars=5)
    with pytest.raises(InputError, match="over the 1,000,000-byte limit for a chunks file"):
        decode_chunks_file(b" " * 1_000_001)
    with pytest.raises(InputError, match=r"not UTF-8: byte 0xe9 at offset 2 \(line 1\)"):
        decode_chunks_file(b'["\xe9t\xc3\xa9"]')
    monkeypatch.setattr(imported, "MAX_IMPORTED_CHUNKS", 3)
    with pytest.raises(InputError, match="holds 4 chunks or more, over the cap of 3"):
        read_chunks('["a", "b", "c", "d"]')
    with pytest.raises(InputError, match="holds 4 chunks or more, over the cap of 3"):
        read_chunks('"a"\n"b"\n"c"\n"d"\n')


def test_missing_chunks_are_listed_and_the_rest_still_counts() -> None:
    text = "one two three four"
    report = audit_text(text, '["one two", "not here", "three four"]')
    doc = audit_document(report)
    assert doc["anchoring"]["missing"] == 1
    assert doc["anchoring"]["missing_chunks"] == [
        {"index": 1, "where": "item 2 (line 1)", "given_start": None, "text": "not here"}
    ]
    assert [c["verdict"] for c in doc["chunks"]] == ["corrected", "missing", "corrected"]
    assert doc["summary"]["found"] == 2


def test_the_summary_says_how_many_offsets_were_wrong_in_words() -> None:
    chunks = [{"page_content": "ab ab", "metadata": {"start_index": i * 3 + (1 if i % 2 else 0)}}
              for i in range(1831)]  # fmt: skip
    text = "ab " * 2000
    report = audit_text(text, json.dumps(chunks))
    wrong = sum(a.offset_wrong for a in report.anchored)
    assert wrong == 915
    assert report.anchoring_sentence() == (
        "your tool's start offsets were wrong for 915 of 1,831 chunks; all were found"
    )


# ---------------------------------------------------------------------- truncation
def _vocab_path(name: str, file: str) -> str:
    return str(resources.files("pyapp").joinpath(DATA_DIR, name, file))


@functools.cache
def hf_bert(max_length: int) -> Any:
    """bert-base-uncased as Hugging Face ``tokenizers`` runs it for an embedding model:
    the WordPiece pipeline, ``[CLS] $A [SEP]``, truncation on at ``max_length``."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    with open(_vocab_path("bert-base-uncased", "vocab.txt"), encoding="utf-8") as handle:
        vocab = {line: i for i, line in enumerate(handle.read().split("\n")) if line}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tok.enable_truncation(max_length=max_length)
    return tok


def hf_cut(text: str, max_length: int) -> int | None:
    """Where the reference's truncated input ends in ``text`` (None: read whole)."""
    full = hf_bert(10**6).encode(text)
    cut = hf_bert(max_length).encode(text)
    if len(full.ids) <= max_length:
        return None
    return max(end for (_, end), special in zip(cut.offsets, cut.special_tokens_mask, strict=True)
               if not special)  # fmt: skip


def tiktoken_cut(text: str, keep: int) -> int | None:
    enc = encoding()
    ids = enc.encode_ordinary(text)
    if len(ids) <= keep:
        return None
    data = text.encode()
    b = len(enc.decode_bytes(ids[:keep]))
    while b < len(data) and data[b] & 0xC0 == 0x80:
        b += 1
    return len(data[:b].decode())


def peer_chunks() -> list[str]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    return RecursiveCharacterTextSplitter(chunk_size=90, chunk_overlap=30).split_text(TEXT * 2)


@pytest.mark.parametrize("max_length", [8, 16, 24])
def test_the_cut_equals_hugging_face_truncation_for_every_over_limit_chunk(max_length: int) -> None:
    over = 0
    for chunk in peer_chunks():
        expected = hf_cut(chunk, max_length)
        got = model_cut(
            chunk, encoding="bert-base-uncased", max_tokens=max_length, special_tokens=2
        )
        assert got.cut == expected, chunk
        assert got.tokens == len(hf_bert(10**6).encode(chunk).ids)
        over += expected is not None
    assert over >= 5


def test_the_cut_of_a_byte_level_encoding_takes_in_a_character_it_reads_part_of() -> None:
    over = 0
    for chunk in peer_chunks():
        for keep in (3, 7, 11):
            got = model_cut(chunk, encoding="cl100k_base", max_tokens=keep, special_tokens=0)
            assert got.cut == tiktoken_cut(chunk, keep)
            over += got.cut is not None
    assert over >= 20


def test_the_lens_counts_truncated_chunks_and_the_text_the_model_never_sees() -> None:
    text = "alpha beta gamma delta epsilon. zeta eta theta."
    lens = parse_lens(encoding="bert-base-uncased", max_tokens=5)
    assert lens is not None and lens.special_tokens == 2
    report = lens_read(text, [(0, 31), (17, 47)], lens)
    assert [c.cut for c in report.chunks if c] == [16, 31]
    # Chunk 0 drops " delta epsilon." (but chunk 1 reads "delta epsilon."), chunk 1 drops
    # " zeta eta theta.": 31 code points dropped, 17 of them read by neither.
    assert (report.truncated, report.dropped_chars, report.unseen_chars) == (2, 31, 17)
    assert report.lens.sentence(truncated=2, chunks=2, unseen_chars=17) == (
        "a model reading bert-base-uncased reads at most 5 word pieces, [CLS] and [SEP]"
        " included. 2 of 2 chunks are longer, and it will never see 17 characters of this text."
    )


def test_the_lens_is_refused_without_a_limit_or_with_too_many_special_tokens() -> None:
    with pytest.raises(InputError, match="a custom model needs an encoding"):
        parse_lens(encoding="cl100k_base")
    with pytest.raises(InputError, match=r"special tokens \(9\) must be from 0 to below"):
        parse_lens(model="all-MiniLM-L6-v2", max_tokens=9, special_tokens=9)
    assert parse_lens() is None


# ---------------------------------------------------------------------- compare
def test_compare_shows_moved_boundaries_flips_and_recall() -> None:
    text = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota."
    a = chunking_of_file(text, '["Alpha beta gamma. Delta", "epsilon zeta. Eta theta iota."]')
    b = chunking_of_file(text, '["Alpha beta gamma.", "Delta epsilon zeta.", "Eta theta iota."]')
    from pyapp.core.evidence import parse_jsonl

    evidence = parse_jsonl(
        text, '{"id": "e1", "quote": "Delta epsilon zeta.", "question": "delta epsilon"}\n'
    )
    doc = compare(text, a, b, measure=Measure(unit="word"), lens=None, evidence=evidence, top_k=1)
    assert (doc["a"]["chunks"], doc["b"]["chunks"], doc["difference"]["chunks"]) == (2, 3, 1)
    assert doc["a"]["processed_units"] == 9 and doc["b"]["processed_units"] == 9
    assert doc["moved_boundaries"]["a"] == [23, 24]
    assert doc["moved_boundaries"]["b"] == [17, 18, 37, 38]
    assert doc["evidence_flips"] == [
        {"id": "e1", "start": 18, "end": 37, "a": "split", "b": "whole"}
    ]
    assert (doc["a"]["recall_at_k"], doc["b"]["recall_at_k"], doc["recall_change"]) == (0, 1, 1)


def test_chunk_sizes_in_any_unit() -> None:
    assert Measure.parse(unit="word").count("a b  c") == 3
    assert Measure.parse(unit="token", encoding="cl100k_base").count("hello world") == 2
    assert Measure.parse(unit="char").count("日本") == 2


# ---------------------------------------------------------------------- documents and door
def _schema(name: str) -> Any:
    import jsonschema

    text = resources.files("pyapp").joinpath("schema", f"{name}.schema.json").read_text("utf-8")
    return jsonschema.Draft202012Validator(json.loads(text))


def test_the_audit_and_compare_documents_match_their_schemas() -> None:
    from pyapp.core.evidence import parse_jsonl

    text = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota."
    source = json.dumps([{"text": "Alpha beta gamma.", "start_index": 0, "end_index": 17,
                          "token_count": 4}, {"text": "zzz", "start_index": 3, "end_index": 6,
                          "token_count": 1}])  # fmt: skip
    evidence = parse_jsonl(text, '{"id": "e", "quote": "Delta epsilon", "question": "delta"}\n')
    lens = parse_lens(model="all-MiniLM-L6-v2", max_tokens=4)
    report = audit_text(text, source, lens=lens, evidence=evidence)
    doc = audit_document(report)
    _schema("audit").validate(doc)
    assert [c["verdict"] for c in doc["chunks"]] == ["given", "missing"]
    side = chunking_of_file(text, source)
    other = chunking_of_file(text, '["Alpha beta gamma. Delta epsilon zeta.", "Eta theta iota."]')
    _schema("compare").validate(
        compare(text, side, other, measure=Measure(), lens=lens, evidence=evidence, top_k=1)
    )


def test_the_door_answers_audit_compare_and_lens_and_refuses_as_the_cli_does() -> None:
    import base64

    from pyapp.web.api import handle

    def ask(**request: Any) -> Any:
        return json.loads(handle(json.dumps(request)))

    text = "One two three. Four five six."
    good = ask(op="audit", text=text, chunks='["One two three.", "Four five six."]')
    assert good["ok"] and good["result"]["document"]["anchoring"]["corrected"] == 2
    assert good["result"]["json"] == json.dumps(good["result"]["document"], ensure_ascii=False,
                                                indent=2) + "\n"  # fmt: skip
    bad = base64.b64encode(b'["a",\n"\xff"]').decode()
    refused = ask(op="audit", text=text, chunks_base64=bad)
    assert refused["error"] == {"field": "chunks", "message": "the chunks file is not UTF-8:"
                                " byte 0xff at offset 7 (line 2): save it as UTF-8"}  # fmt: skip
    lens = ask(op="lens", text=text, unit="word", size=3, overlap=0, lens_model="gte-small",
               lens_max_tokens=4)  # fmt: skip
    assert lens["result"]["lens"]["truncated_chunks"] == 2
    assert [c["cut"] for c in lens["result"]["chunks"]] == [7, 24]  # "One two", "Four five"
    compared = ask(op="compare", text=text, a={"settings": {"unit": "word", "size": 3}},
                   b={"chunks": '["One two three. Four five six."]'})  # fmt: skip
    assert compared["result"]["document"]["difference"]["chunks"] == -1
    wrong_side = ask(op="compare", text=text, a={"settings": {"unit": "word", "size": 3}},
                     b={"chunks": '[{"x": 1}]'})  # fmt: skip
    assert wrong_side["error"]["field"] == "b"
    assert wrong_side["error"]["message"].startswith("B: item 1 (line 1): unknown chunk shape")


# ---------------------------------------------------------------------- properties
_PIECES = ["ab", "ab ", "中文", "😀", "\n\n", "  ", "x", "cd", "\r\n", "\t"]


def _mangle(chunk: str, how: int) -> str:
    """What a pipeline does to a chunk: nothing, strip it, collapse its whitespace,
    read CRLF as LF, or decode a cut character lossily at either end."""
    if how == 1:
        return chunk.strip()
    if how == 2:
        return " ".join(chunk.split())
    if how == 3:
        return chunk.replace("\r\n", "\n")
    if how == 4 and chunk and not chunk[0].isascii():
        return "\ufffd" + chunk[1:]
    if how == 5 and chunk and not chunk[-1].isascii():
        return chunk[:-1] + "\ufffd\ufffd"
    return chunk


def test_any_chunks_are_placed_as_the_brute_force_places_them() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    @given(
        st.lists(st.sampled_from(_PIECES), min_size=1, max_size=24),
        st.lists(
            st.tuples(
                st.integers(0, 60),
                st.integers(1, 12),
                st.integers(0, 6),
                st.one_of(st.none(), st.integers(-2, 70)),
            ),
            max_size=10,
        ),  # fmt: skip
    )
    def check(pieces: list[str], picks: list[tuple[int, int, int, int | None]]) -> None:
        text = "".join(pieces)
        chunks, starts = [], []
        for at, length, how, given_start in picks:
            at = min(at, len(text) - 1)
            chunks.append(_mangle(text[at : at + length], how) or "zz")
            starts.append(given_start)
        ends: list[int | None] = [None] * len(chunks)
        assert ours(text, chunks, starts, ends) == brute_anchor(text, chunks, starts, ends)

    check()


def test_cut_sentences_come_from_the_model_and_agree_with_the_order_free_check() -> None:
    from pyapp.core.audit import figures
    from pyapp.core.intervals import holders
    from pyapp.core.sentences import split_sentences

    text = "One two. Three four five. Six seven. Eight nine ten. Eleven."
    # Out of the text's order (offsets given, so kept), one inside another, one missing.
    pieces = [("Six seven. Eight", 26), ("One two. Three", 0), ("two.", 4),
              ("Three four five.", 9), ("zz", 0)]  # fmt: skip
    source = json.dumps([{"page_content": t, "metadata": {"start_index": s}} for t, s in pieces])
    side = chunking_of_file(text, source)
    fig = figures(text, side, measure=Measure(unit="word"), lens=None)
    sentences = split_sentences(text)
    brute = [s for s in sentences if not any(
        p is not None and p[0] <= s[0] and s[1] <= p[1] for p in side.spans)]  # fmt: skip
    assert fig.cut_sentences == brute
    assert brute == [s for s, h in zip(sentences, holders(side.spans, sentences), strict=True)
                     if h is None]  # fmt: skip
    assert [a.verdict for a in side.anchored or ()] == ["given"] * 4 + ["missing"]
    assert [text[a:b] for a, b in brute] == ["Eight nine ten.", "Eleven."]


def test_a_held_chunks_file_is_the_main_views_chunking_in_every_unit() -> None:
    from pyapp.web.api import handle

    def ask(**request: Any) -> Any:
        return json.loads(handle(json.dumps(request)))

    text = "One two three. Four 😀 five six.\n\nOne two three. Seven eight nine."
    chunks = ["One two three.", "Four 😀 five six.", "One two three. Seven", "nowhere"]
    held = ask(op="audit", text=text, chunks=json.dumps(chunks))["result"]["chunks_ref"]
    assert ask(op="audit", text=text, chunks=json.dumps(chunks))["result"]["chunks_ref"] == held
    places = [(0, 14), (15, 31), (33, 53)]
    for unit in ("word", "char", "token"):
        fields = {"text": text, "unit": unit, "size": 4, "overlap": 1, "chunks_ref": held}
        view = ask(op="chunk", **fields)["result"]
        assert view["summary"]["chunks"] == 3
        assert [(c["char_start"], c["char_end"]) for c in view["chunks"]] == places
        export = json.loads(ask(op="export", **fields)["result"]["json"])
        assert [c["text"] for c in export["chunks"]] == [text[a:b] for a, b in places]
        assert all(text[c["char_start"] : c["char_end"]] == c["text"] for c in export["chunks"])
    words = ask(op="chunk", text=text, unit="word", size=4, chunks_ref=held)["result"]["chunks"]
    assert [c["preview_fresh"] for c in words] == ["One two three.", "Four 😀 five six.",
                                                    "One two three. Seven"]  # fmt: skip
    gone = ask(op="chunk", text=text, unit="word", size=4, chunks_ref="chunks-999")
    assert gone["error"]["field"] == "chunks_ref"

"""python -m pyapp audit and compare: the audit and the comparison as JSON on stdout;
a file that cannot be read as chunks is one stderr line and exit 2; a chunk that
cannot be found is listed and the exit status is 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import one_line_refusal, pyapp

TEXT = "One two three. Four five six.\n\nOne two three. Seven eight nine ten eleven."


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "text.txt").write_text(TEXT, encoding="utf-8")
    return tmp_path


def write(folder: Path, name: str, body: str | bytes) -> str:
    path = folder / name
    path.write_bytes(body.encode() if isinstance(body, str) else body)
    return str(path)


def test_audit_prints_verdicts_the_lens_and_lists_a_missing_chunk(folder: Path) -> None:
    docs = [
        {"page_content": "One two three.", "metadata": {"start_index": 0}},
        {"page_content": "Four five six.", "metadata": {"start_index": 99}},
        {"page_content": "One two three.", "metadata": {"start_index": 5}},
        {"page_content": "Seven  eight nine ten eleven.", "metadata": {"start_index": 46}},
        {"page_content": "nowhere", "metadata": {"start_index": 3}},
    ]
    chunks = write(folder, "chunks.json", json.dumps(docs))
    done = pyapp("audit", str(folder / "text.txt"), "--chunks", chunks,
                 "--model", "all-MiniLM-L6-v2", "--max-tokens", "6")  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["schema"] == "pyapp.audit/1"
    assert doc["source"]["shape"] == "langchain"
    assert [(c["verdict"], c["char_start"], c["char_end"]) for c in doc["chunks"]] == [
        ("given", 0, 14),
        ("corrected", 15, 29),
        ("corrected", 31, 45),
        ("normalized", 46, 74),
        ("missing", None, None),
    ]
    assert doc["chunks"][1]["given_start"] == 99
    summary = (
        "your tool's start offsets were wrong for 4 of 5 chunks;"
        " 1 of 5 chunks was not found (listed)"
    )
    assert doc["anchoring"]["summary"] == summary
    assert done.stderr.decode().splitlines() == [
        f"python -m pyapp audit: {summary}",
        f"python -m pyapp audit: {doc['lens']['sentence']}",
    ]
    assert doc["anchoring"]["missing_chunks"][0]["where"] == "item 5 (line 1)"
    # "Seven eight nine ten eleven." is 6 pieces: with [CLS] and [SEP], 8 > 6, so the
    # model reads 4 of them.
    last = doc["chunks"][3]
    assert (last["model_tokens"], last["truncated"], last["cut"]) == (8, True, 66)
    assert TEXT[46:66] == "Seven eight nine ten"
    assert last["dropped_units"] == len(" eleven.")  # in --unit, characters by default
    assert doc["summary"]["dropped_units"] == len(" eleven.")
    assert doc["lens"]["truncated_chunks"] == 1
    # Index sizing from the real chunks: 5 entries of 384 float32 values (the preset's).
    assert doc["summary"]["vector_bytes"] == 5 * 384 * 4
    assert doc["lens"]["sentence"].startswith("all-MiniLM-L6-v2 reads at most 6 word pieces")


def test_audit_reads_json_lines_and_named_fields(folder: Path) -> None:
    lines = '{"body": "Four five six.", "at": 15}\n{"body": "Seven eight", "at": 0}\n'
    chunks = write(folder, "chunks.jsonl", lines)
    done = pyapp("audit", str(folder / "text.txt"), "--chunks", chunks,
                 "--text-field", "body", "--start-field", "at", "--unit", "word")  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert (doc["source"]["shape"], doc["source"]["format"]) == ("mapped", "jsonl")
    assert [c["verdict"] for c in doc["chunks"]] == ["given", "corrected"]
    assert [c["units"] for c in doc["chunks"]] == [3, 2]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'[{"body": "x"}]', "unknown chunk shape (keys: body): looked for page_content"),
        (b'["a",\n"\xff"]', "not UTF-8: byte 0xff at offset 7 (line 2)"),
        (b'[{"page_content": "a"},\n', "not JSON or JSON Lines"),
        (b'{"text": "a", "start_index": 0}\n{"text": ', "line 2: not JSON"),
        (('["' + "x" * 200 + '"]').encode(), "longer than the whole text"),
        (b" " * 1_000_001, "over the 1,000,000-byte limit"),
    ],
)
def test_audit_refuses_a_file_that_is_not_chunks_in_one_line(
    folder: Path, body: bytes, expected: str
) -> None:
    chunks = write(folder, "chunks.json", body)
    line = one_line_refusal(pyapp("audit", str(folder / "text.txt"), "--chunks", chunks))
    assert line.startswith("python -m pyapp audit: ")
    assert expected in line


def test_compare_reads_an_export_and_a_chunks_file(folder: Path) -> None:
    export = pyapp(
        "chunk", str(folder / "text.txt"), "--unit", "word", "--size", "4", "--overlap", "1"
    )
    assert export.returncode == 0, export.stderr
    a = write(folder, "a.json", export.stdout)
    b = write(folder, "b.json", json.dumps(["One two three. Four five six.", "One two three.",
                                             "Seven eight nine ten eleven."]))  # fmt: skip
    done = pyapp(
        "compare", str(folder / "text.txt"), a, b, "--unit", "word", "--model", "gte-small"
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["schema"] == "pyapp.compare/1"
    assert (doc["a"]["shape"], doc["b"]["shape"]) == ("pyapp", "strings")
    assert doc["a"]["chunks"] == 5 and doc["b"]["chunks"] == 3
    assert doc["difference"]["chunks"] == -2
    # A: windows of 4 words by 3 over 14 words (4 + 4 + 4 + 4 + 2); B: each word once.
    assert doc["a"]["processed_units"] == 18 and doc["b"]["processed_units"] == 14
    assert doc["difference"]["processed_units"] == -4
    assert doc["a"]["chunks_over_limit"] == 0
    assert doc["moved_boundaries"]["only_in_a"] > 0


def test_compare_blames_the_side_that_cannot_be_read(folder: Path) -> None:
    good = write(folder, "good.json", '["One two three."]')
    bad = write(folder, "bad.json", '[{"x": 1}]')
    line = one_line_refusal(pyapp("compare", str(folder / "text.txt"), good, bad))
    assert "B: item 1 (line 1): unknown chunk shape" in line

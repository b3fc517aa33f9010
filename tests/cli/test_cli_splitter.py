"""The recursive splitter on the command line: chunk, evidence and sweep take its flags,
the export names it with every setting, and what it cannot do is refused in one line."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_run import pyapp
from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

from pyapp.web.api import handle

MARKDOWN = (
    "# Title\n\nIntro paragraph with some words.\n\n## Part one\n\nText of part one, a"
    " sentence. Another one here.\n\n```\ncode block\n```\n\n## Part two\n\nMore text.\n"
)


def schema() -> dict[str, Any]:
    text = resources.files("pyapp").joinpath("schema", "chunks.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


RECURSIVE = ["--splitter", "recursive", "--unit", "char", "--size", "40", "--overlap", "10"]


def test_chunk_with_a_preset_equals_langchains_from_language_and_names_every_setting() -> None:
    done = pyapp(
        "chunk", "-", *RECURSIVE, "--separators-preset", "markdown", stdin=MARKDOWN.encode()
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    jsonschema.validate(doc, schema())
    expected = RecursiveCharacterTextSplitter.from_language(
        Language.MARKDOWN, chunk_size=40, chunk_overlap=10
    ).split_text(MARKDOWN)
    assert [c["text"] for c in doc["chunks"]] == expected
    assert doc["schema"] == "pyapp.chunks/5"
    assert doc["splitter"] == {
        "name": "recursive",
        "separators": RecursiveCharacterTextSplitter.get_separators_for_language(Language.MARKDOWN),
        "separators_preset": "markdown",
        "is_separator_regex": True,
        "keep_separator": "start",
        "strip_whitespace": True,
        "chunk_size": 40,
        "chunk_overlap": 10,
        "length_function": "len",
    }
    for c in doc["chunks"]:  # offsets by construction, in code points and bytes
        assert MARKDOWN[c["char_start"] : c["char_end"]] == c["text"]
        assert MARKDOWN.encode()[c["byte_start"] : c["byte_end"]] == c["text"].encode()
        assert c["repeated_prefix"] + c["fresh_text"] == c["text"]
    boundaries = doc["chunk_boundaries"]
    assert [b["after"] for b in boundaries] == list(range(len(doc["chunks"]) - 1))
    for b in boundaries:
        first, second = doc["chunks"][b["after"]], doc["chunks"][b["after"] + 1]
        shared = max(0, first["char_end"] - second["char_start"])
        assert b["overlap"] == b["overlap_chars"] == shared
        between = MARKDOWN[first["char_end"] : second["char_start"]]
        assert b["gap"] == sum(1 for ch in between if not ch.isspace())
    overlaps = [b["overlap"] for b in boundaries]
    figures = doc["overlap"]
    assert figures["requested"] == 10
    assert (figures["produced_min"], figures["produced_max"]) == (min(overlaps), max(overlaps))
    assert figures["no_overlap"] == overlaps.count(0)
    assert figures["short"] == sum(1 for n in overlaps if n < 10)
    assert figures["over_size"] == sum(1 for c in doc["chunks"] if len(c["text"]) > 40)
    assert doc["summary"]["stride"] is None and doc["summary"]["limit_inflation"] is None


def test_the_page_download_is_byte_identical_to_the_command_line(tmp_path: Path) -> None:
    source = tmp_path / "notes.md"
    source.write_text(MARKDOWN, "utf-8")
    flags = ["--separators", '["\\n\\n", "\\n", " ", ""]', "--keep-separator", "end", "--no-strip"]
    done = pyapp("chunk", str(source), *RECURSIVE, *flags)
    assert done.returncode == 0, done.stderr
    request = {
        "op": "export", "text": MARKDOWN, "splitter": "recursive", "unit": "char", "size": 40,
        "overlap": 10, "separators": ["\n\n", "\n", " ", ""], "keep_separator": "end",
        "strip": False,
    }  # fmt: skip
    answer = json.loads(handle(json.dumps(request)))["result"]
    assert answer["json"].encode() == done.stdout
    assert answer["filename"] == "chunks-recursive-char-40-10.json"


def test_chunk_in_tokens_counts_each_chunk_by_itself() -> None:
    done = pyapp(
        "chunk", "-", "--splitter", "recursive", "--unit", "token", "--encoding", "cl100k_base",
        "--size", "12", "--overlap", "4", stdin=MARKDOWN.encode(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["splitter"]["length_function"] == "tokens:cl100k_base"
    assert all(c["tokens_alone"] <= 12 for c in doc["chunks"])
    assert doc["overlap"]["over_size"] == 0


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--size", "5", "--separators", '["a"]'], "add --splitter recursive"),
        (["--splitter", "recursive", "--size", "5"], "has no word unit"),
        (
            ["--splitter", "recursive", "--unit", "char", "--size", "5", "--separators", "[1]"],
            "separator 1 must be a string",
        ),
        (
            [
                "--splitter", "recursive", "--unit", "char", "--size", "5", "--separators",
                '["(x)"]', "--separator-regex",
            ],
            "capturing group",
        ),
        (
            [
                "--splitter", "recursive", "--unit", "char", "--size", "5",
                "--separators-preset", "python", "--separators", '["a"]',
            ],
            "not both",
        ),
    ],
)  # fmt: skip
def test_bad_splitter_settings_are_one_line_and_exit_2(flags: list[str], message: str) -> None:
    done = pyapp("chunk", "-", *flags, stdin=b"a b c")
    assert done.returncode == 2
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_corpus_counts_the_recursive_splitters_real_chunks_of_each_document(
    tmp_path: Path,
) -> None:
    texts = [MARKDOWN, "word " * 90, "no-separators-at-all" * 7]
    for i, text in enumerate(texts):
        (tmp_path / f"{i}.md").write_text(text, "utf-8")
    flags = ("--splitter", "recursive", "--unit", "char", "--size", "40", "--overlap", "10")
    done = pyapp("corpus", str(tmp_path), *flags, "--separators-preset", "markdown")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    splitter = RecursiveCharacterTextSplitter.from_language(
        Language.MARKDOWN, chunk_size=40, chunk_overlap=10
    )
    chunks = [splitter.split_text(text) for text in texts]
    assert doc["chunks"] == sum(len(c) for c in chunks)
    assert doc["processed_units"] == sum(len(piece) for c in chunks for piece in c)
    assert doc["params"]["splitter"]["name"] == "recursive"


def test_evidence_and_sweep_take_the_splitters_flags(tmp_path: Path) -> None:
    source = tmp_path / "notes.md"
    source.write_text(MARKDOWN, "utf-8")
    evidence = tmp_path / "evidence.jsonl"
    evidence.write_text(
        json.dumps({"id": "p1", "quote": "Text of part one, a sentence.", "question": "part one"})
        + "\n",
        "utf-8",
    )
    done = pyapp("evidence", str(source), "--evidence", str(evidence), *RECURSIVE)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["params"]["splitter"]["name"] == "recursive"
    assert "chunking again" in doc["summary"]["min_overlap_found_by"]
    done = pyapp("sweep", str(source), "--evidence", str(evidence), *RECURSIVE)
    assert done.returncode == 0, done.stderr
    sweep = json.loads(done.stdout)
    assert sweep["params"]["splitter"]["name"] == "recursive"
    rows = [r for r in sweep["rows"] if r["series"] == "overlap"]
    assert [r["overlap"] for r in rows] == sorted(r["overlap"] for r in rows)
    for row in rows:  # each row is what a chunk run of its setting reports
        run = pyapp(
            "chunk", str(source), "--splitter", "recursive", "--unit", "char", "--size", "40",
            "--overlap", str(row["overlap"]),
        ) if row["overlap"] in (0, 10) else None  # fmt: skip
        if run is None:
            continue
        doc = json.loads(run.stdout)
        assert row["chunks"] == doc["summary"]["chunks"]
        assert row["produced_overlap_median"] == doc["overlap"]["produced_median"]
        assert row["no_overlap"] == doc["overlap"]["no_overlap"]
        assert "evidence_coverage" in row and "recall_at_k" in row

"""python -m pyapp size / budget / sweep / corpus: JSON on stdout; bad input is one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import pyapp


def test_size_reproduces_reference_003s_default_example_with_the_actual_figure() -> None:
    done = pyapp(
        "size",
        *("--documents", "500", "--avg-tokens", "1200", "--size", "512", "--overlap", "15%"),
        *("--top-k", "5", "--budget", "128000", "--dim", "1536", "--bytes-per-value", "4"),
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["stride"] == 435 and doc["chunks_per_document"] == 3
    assert doc["index_entries"] == 1500
    assert doc["retrieved_tokens_per_query"] == 2560
    assert (doc["budget_share"], doc["budget_left"]) == (0.02, 125440)
    assert (doc["stored_tokens_nominal"], doc["inflation_nominal"]) == (768000, 1.28)
    assert doc["stored_tokens_actual"] == 677000
    assert doc["inflation_actual"] == pytest.approx(677000 / 600000)
    assert doc["limit_inflation"] == pytest.approx(512 / 435)
    assert doc["vector_bytes"] == 1500 * 1536 * 4


def test_budget_reproduces_reference_000s_two_checks() -> None:
    base = ("budget", "--window", "8192", "--system", "500", "--question", "100")
    fits = json.loads(pyapp(*base, "--top-k", "5", "--size", "512").stdout)
    assert (fits["available"], fits["retrieved"], fits["fits"]) == (7592, 2560, True)
    assert (fits["max_top_k"], fits["chunks_in_window"]) == (14, 16)
    overflows = json.loads(pyapp(*base, "--top-k", "8", "--size", "1024").stdout)
    assert (overflows["retrieved"], overflows["fits"]) == (8192, False)


def test_sweep_prints_rows_for_a_file(tmp_path: Path) -> None:
    path = tmp_path / "doc.txt"
    path.write_text("One two three. Four five six. Seven eight nine ten.", encoding="utf-8")
    done = pyapp("sweep", str(path), "--unit", "word", "--size", "4", "--overlap", "1")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    assert [(r["overlap"], r["cut"]) for r in rows if r["series"] == "overlap"] == [
        (0, 2),
        (1, 0),
        (2, 0),
    ]


def test_corpus_prints_totals_and_notes_uncounted_files_on_stderr(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one two three four five", encoding="utf-8")
    (tmp_path / "b.txt").write_bytes(b"\xff")
    done = pyapp("corpus", str(tmp_path), "--unit", "word", "--size", "2", "--workers", "1")
    assert done.returncode == 0
    doc = json.loads(done.stdout)
    assert (doc["documents"], doc["chunks"], doc["errors_total"]) == (1, 3, 1)
    assert done.stderr.decode().count("\n") == 1 and b"not counted" in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("size", "--documents", "500", "--avg-tokens", "1200", "--size", "512", "--overlap", "512"),
        ("size", "--documents", "0", "--avg-tokens", "1200", "--size", "512"),
        ("size", "--documents", "5"),
        ("budget", "--window", "8192", "--top-k", "five", "--size", "512"),
        ("sweep", "/no/such/file.txt", "--size", "4"),
        ("sweep", "-", "--size", "4", "--overlap", "100%"),
        ("corpus", ".", "--size", "0"),
        ("corpus", ".", "--workers", "0"),
        ("corpus", "/no/such/folder"),  # nothing at all could be counted
    ],
)
def test_bad_input_is_one_stderr_line_and_exit_2_without_a_traceback(args: tuple[str, ...]) -> None:
    done = pyapp(*args, stdin=b"a b c")
    assert done.returncode == 2
    assert done.stdout == b""
    err = done.stderr.decode()
    assert err.count("\n") == 1 and "Traceback" not in err


def test_size_takes_the_recursive_splitter_and_measures_the_text(tmp_path: Path) -> None:
    text = tmp_path / "doc.txt"
    text.write_text("Para one has words.\n\n" + "word " * 200, "utf-8")
    base = ("size", "--documents", "3", "--size", "20", "--overlap", "5")
    flags = ("--splitter", "recursive", "--encoding", "cl100k_base", "--text", str(text))
    done = pyapp(*base, *flags)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    from pyapp.core.chunkings import chunking_of
    from pyapp.core.params import parse_params

    params = parse_params(
        unit="token", encoding="cl100k_base", size=20, overlap=5, splitter="recursive"
    )
    chunking = chunking_of(text.read_text("utf-8"), params)
    assert doc["chunks_per_document"] == chunking.count
    assert doc["stored_tokens_actual"] == 3 * chunking.processed
    assert doc["measured"]["chunks"] == chunking.count
    refused = pyapp(*base, "--splitter", "recursive")
    assert refused.returncode == 2 and b"--text" in refused.stderr
    assert len(refused.stderr.decode().splitlines()) == 1

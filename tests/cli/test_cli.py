"""python -m pyapp: the export JSON on stdout; bad input is one stderr line and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import pyapp

TEN_WORDS = b"one two three four five six seven eight nine ten"


def test_the_issues_done_when_command_gives_the_visualizers_figures() -> None:
    done = pyapp(
        "chunk",
        "-",
        "--unit",
        "word",
        "--size",
        "4",
        "--overlap",
        "1",
        "--tokens-per-unit",
        "1",
        "--price",
        "1",
        stdin=TEN_WORDS,
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    s = doc["summary"]
    assert (s["chunks"], s["processed_units"], s["repeated_units"]) == (3, 12, 2)
    assert (s["extra_volume"], s["estimated_cost"]) == (0.2, 0.000012)
    assert [(c["start"] + 1, c["end"]) for c in doc["chunks"]] == [(1, 4), (4, 7), (7, 10)]


def test_cli_output_is_byte_identical_to_the_apis_export(tmp_path: Path) -> None:
    from pyapp.web.api import handle

    text = "Zwölf Wörter 🦜 und 日本語\r\n" * 3
    path = tmp_path / "doc.txt"
    path.write_bytes(text.encode())
    done = pyapp("chunk", str(path), "--unit", "token", "--size", "6", "--overlap", "50%")
    request = {"op": "export", "text": text, "unit": "token", "size": 6, "overlap": "50%"}
    exported = json.loads(handle(json.dumps(request)))["result"]["json"]
    assert done.stdout == exported.encode()


def test_no_caps_lifts_the_chunk_cap() -> None:
    capped = json.loads(pyapp("chunk", "--size", "1", stdin=b"w " * 300).stdout)
    assert capped["capped"]["cap"] == "chunks" and capped["chunks"] == []
    lifted = json.loads(pyapp("chunk", "--size", "1", "--no-caps", stdin=b"w " * 300).stdout)
    assert lifted["capped"] is None and len(lifted["chunks"]) == 300


@pytest.mark.parametrize(
    ("args", "stdin", "fragment"),
    [
        (["chunk", "--size", "4", "--overlap", "4"], TEN_WORDS, "overlap (4) must be smaller"),
        (["chunk", "--size", "4", "--overlap", "100%"], TEN_WORDS, "lower the overlap"),
        (["chunk", "--size", "abc"], TEN_WORDS, "size must be a number"),
        (["chunk", "--size", "0"], TEN_WORDS, "size must be at least 1"),
        (["chunk"], TEN_WORDS, "--size"),
        (["chunk", "--size", "4", "--unit", "line"], TEN_WORDS, "invalid choice"),
        (["chunk", "--size", "4", "--encoding", "gpt2"], TEN_WORDS, "invalid choice"),
        (["chunk", "--size", "4", "--bogus"], TEN_WORDS, "unrecognized arguments"),
        (
            ["chunk", "--size", "4", "--tokens-per-unit", "-1"],
            TEN_WORDS,
            "chunk: --tokens-per-unit: tokens per unit must not be negative",
        ),
        (
            ["chunk", "--size", "4", "--price", "free"],
            TEN_WORDS,
            "--price: price per million tokens must be a number, got 'free'",
        ),
        (["chunk", "--size", "4"], b"caf\xe9", "not UTF-8 (byte 0xe9 at offset 3)"),
        (["chunk", "/no/such/file.txt", "--size", "4"], b"", "check the path"),
        (["chunk", "--size", "4"], b"x" * 1_000_001, "over the 1,000,000-byte limit"),
        (["frobnicate"], b"", "invalid choice"),
        ([], b"", "required"),
    ],
)
def test_bad_input_is_one_line_on_stderr_with_exit_two_and_no_traceback(
    args: list[str], stdin: bytes, fragment: str
) -> None:
    done = pyapp(*args, stdin=stdin)
    stderr = done.stderr.decode()
    assert done.returncode == 2
    assert done.stdout == b""
    assert stderr.count("\n") == 1 and stderr.endswith("\n")
    assert fragment in stderr
    assert "Traceback" not in stderr


# ---- stdout that cannot be written ---------------------------------------------------

BIG = b"one two three " * 40_000  # 560 KB: several MB of JSON at size 4, no caps


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_on_stdout_is_one_line_and_exit_two() -> None:
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "pyapp", "chunk", "-", "--size", "4"],
            input=TEN_WORDS,
            stdout=full,
            stderr=subprocess.PIPE,
            check=False,
        )
    stderr = done.stderr.decode()
    assert done.returncode == 2
    assert stderr.count("\n") == 1 and "cannot write the output (No space left" in stderr
    assert "Traceback" not in stderr


def test_a_reader_that_stops_early_ends_the_output_quietly() -> None:
    """``python -m pyapp chunk ... | head``: no traceback, the status of a SIGPIPE."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pyapp", "chunk", "-", "--size", "4", "--no-caps"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(BIG)
    process.stdin.close()
    assert process.stdout.read(10) == b'{\n  "schem'
    process.stdout.close()
    assert process.wait(timeout=60) == 141
    assert process.stderr is not None and process.stderr.read() == b""

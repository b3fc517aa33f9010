"""Every download names the text it was computed on, and ``python -m pyapp evidence``
refuses evidence that does not fit FILE (one line, exit 2, naming the line) instead
of checking other passages than the ones meant."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pyapp.web.api import handle

CRLF = "First paragraph.\r\n\r\nSecond paragraph.\r\n\r\nThird paragraph ends here.\r\n"
LF = CRLF.replace("\r\n", "\n")  # what a browser text box makes of it


def pyapp(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "pyapp", *args], capture_output=True, check=False)


def ask(**request: Any) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(handle(json.dumps(request)))
    assert answer["ok"], answer
    result: dict[str, Any] = answer["result"]
    return result


def one_line_refusal(done: subprocess.CompletedProcess[bytes]) -> str:
    assert done.returncode == 2, done.stdout
    assert done.stdout == b""
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    return lines[0]


def page_export(text: str) -> str:
    """The evidence list as the page exports it, made on ``text``."""
    items = [{"id": "third", "start": text.index("Third"), "end": text.index(" ends")}]
    return str(ask(op="evidence", text=text, size=4, evidence=items, export=True)["jsonl"])


def test_the_evidence_list_export_names_its_text_in_its_last_line() -> None:
    lines = page_export(LF).splitlines()
    assert [json.loads(line)["id"] for line in lines[:-1]] == ["third"]
    named = json.loads(lines[-1])["text"]
    assert named == {
        "sha256": hashlib.sha256(LF.encode()).hexdigest(),
        "bytes": len(LF.encode()),
        "chars": len(LF),
        "line_breaks": {"crlf": 0, "cr": 0, "lf": 5},
    }


def test_evidence_made_on_the_lf_copy_is_refused_on_the_crlf_original(tmp_path: Path) -> None:
    (tmp_path / "crlf.txt").write_bytes(CRLF.encode())
    (tmp_path / "lf.txt").write_bytes(LF.encode())
    (tmp_path / "ev.jsonl").write_text(page_export(LF), "utf-8")
    message = one_line_refusal(
        pyapp("evidence", str(tmp_path / "crlf.txt"), "--evidence", str(tmp_path / "ev.jsonl"))
    )
    assert message.startswith(
        "python -m pyapp evidence: --evidence: line 2 does not fit this text: names another"
        " text (64 bytes, SHA-256 "
    )
    assert "line breaks 5 LF) than this one (69 bytes" in message
    assert "line breaks 5 CRLF)" in message
    # On the text it was made on, it checks the passage meant.
    done = pyapp("evidence", str(tmp_path / "lf.txt"), "--evidence", str(tmp_path / "ev.jsonl"))
    assert done.returncode == 0, done.stderr
    (item,) = json.loads(done.stdout)["evidence"]
    assert LF[item["start"] : item["end"]] == "Third paragraph"


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ('{"id": "b", "start": 70, "end": 90}', "end (90) is past the end of the text (64 code"),
        (
            '{"id": "b", "start": 20, "end": 35, "quote": "Third paragraph"}',
            "quote 'Third paragraph' does not match the text at [20, 35), which is",
        ),
        (
            '{"text": {"sha256": "' + "0" * 64 + '"}}',
            f"names another text (SHA-256 {'0' * 12}…) than this one (64 bytes",
        ),
    ],
    ids=["an-offset-past-the-end", "a-quote-that-differs", "a-text-line-naming-another-text"],
)
def test_a_line_that_does_not_fit_the_text_is_refused_naming_it(
    tmp_path: Path, bad: str, said: str
) -> None:
    (tmp_path / "lf.txt").write_bytes(LF.encode())
    good = '{"id": "a", "quote": "Second paragraph"}'
    (tmp_path / "ev.jsonl").write_text(f"{good}\n{bad}\n", "utf-8")
    message = one_line_refusal(
        pyapp("evidence", str(tmp_path / "lf.txt"), "--evidence", str(tmp_path / "ev.jsonl"))
    )
    assert message.startswith("python -m pyapp evidence: --evidence: line 2 does not fit this")
    assert said in message


def test_the_sweep_refuses_evidence_made_on_another_text_too(tmp_path: Path) -> None:
    (tmp_path / "crlf.txt").write_bytes(CRLF.encode())
    (tmp_path / "ev.jsonl").write_text(page_export(LF), "utf-8")
    evidence = ["--evidence", str(tmp_path / "ev.jsonl")]
    message = one_line_refusal(pyapp("sweep", str(tmp_path / "crlf.txt"), "--size", "4", *evidence))
    assert message.startswith("python -m pyapp sweep: --evidence: line 2 does not fit this text")


def test_the_page_lists_a_line_that_does_not_fit_and_keeps_the_rest() -> None:
    jsonl = '{"id": "a", "quote": "Second paragraph"}\n{"id": "b", "start": 70, "end": 90}\n'
    result = ask(op="evidence", text=LF, size=4, evidence_jsonl=jsonl)
    assert [item["id"] for item in result["evidence"]] == ["a"]
    assert [(e["line"], e["id"]) for e in result["errors"]] == [(2, "b")]


@pytest.mark.parametrize("text", [CRLF, LF, CRLF.replace("\r\n", "\r"), "\ufeff" + CRLF])
def test_the_chunk_download_and_the_evidence_report_name_the_text_they_were_computed_on(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "text.txt"
    path.write_bytes(text.encode())
    done = pyapp("chunk", str(path), "--size", "4", "--overlap", "1")
    assert done.returncode == 0, done.stderr
    body = text.removeprefix("\ufeff")
    expected = {
        "sha256": hashlib.sha256(body.encode()).hexdigest(),
        "bytes": len(body.encode()),
        "chars": len(body),
        "line_breaks": {
            "crlf": body.count("\r\n"),
            "cr": body.count("\r") - body.count("\r\n"),
            "lf": body.count("\n") - body.count("\r\n"),
        },
    }
    assert json.loads(done.stdout)["text"] == expected
    # The page's download of the same text is the same bytes.
    assert ask(op="export", text=text, size=4, overlap=1)["json"].encode() == done.stdout
    (tmp_path / "ev.jsonl").write_text('{"id": 1, "quote": "Second"}\n', "utf-8")
    done = pyapp(
        "evidence",
        str(path),
        "--evidence",
        str(tmp_path / "ev.jsonl"),
        "--size",
        "4",
        "--overlap",
        "1",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["text"] == expected

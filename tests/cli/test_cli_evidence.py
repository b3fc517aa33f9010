"""python -m pyapp evidence: the evidence document on stdout; bad input is one stderr
line and exit 2, and a bad line among good ones is listed while the rest counts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

TEXT = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
GOOD = '{"id": "g", "quote": "gamma delta epsilon", "question": "Where is gamma?"}'


def pyapp(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "pyapp", *args], input=stdin, capture_output=True, check=False
    )


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "text.txt").write_text(TEXT, encoding="utf-8")
    return tmp_path


def run(folder: Path, evidence: str | bytes, *flags: str) -> subprocess.CompletedProcess[bytes]:
    path = folder / "evidence.jsonl"
    path.write_bytes(evidence.encode() if isinstance(evidence, str) else evidence)
    return pyapp("evidence", str(folder / "text.txt"), "--evidence", str(path), *flags)


def one_line_refusal(done: subprocess.CompletedProcess[bytes]) -> str:
    assert done.returncode == 2, done.stdout
    assert done.stdout == b""
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    return lines[0]


def test_the_command_prints_the_evidence_document(files: Path) -> None:
    done = run(files, GOOD, "--size", "4", "--overlap", "1", "--top-k", "1")
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    doc = json.loads(done.stdout)
    assert doc["schema"] == "pyapp.evidence/2"
    assert doc["params"] == {
        "unit": "word", "encoding": None, "size": 4, "overlap": 1, "top_k": 1,
    }  # fmt: skip
    (item,) = doc["evidence"]
    assert (item["status"], item["whole_in"], item["touches"]) == ("split", [], [0, 1])
    assert doc["summary"]["min_overlap_for_evidence"] == 2
    assert item["retrieval"]["rank_touching"] == 1
    assert doc["retrieval"]["recall_at_k"] == 0


def test_the_defaults_are_the_pages_word_40_overlap_8_and_top_k_5(files: Path) -> None:
    doc = json.loads(run(files, GOOD).stdout)
    assert doc["params"] == {
        "unit": "word", "encoding": None, "size": 40, "overlap": 8, "top_k": 5,
    }  # fmt: skip


def test_the_output_is_byte_identical_to_the_ops_export(files: Path) -> None:
    from pyapp.web.api import handle

    text = "Zwölf Wörter 🦜 und 日本語\r\n" * 3
    (files / "text.txt").write_text(text, encoding="utf-8")
    lines = '{"id": 1, "start": 6, "end": 14, "question": "Wörter?"}\n{"id": 2, "quote": "🦜"}'
    done = run(files, lines, "--unit", "token", "--size", "6", "--overlap", "50%")
    request = {
        "op": "evidence", "text": text, "unit": "token", "size": 6, "overlap": "50%",
        "evidence_jsonl": lines, "export": True,
    }  # fmt: skip
    exported = json.loads(handle(json.dumps(request)))["result"]["json"]
    assert done.stdout == exported.encode()


def test_a_bad_line_among_good_ones_is_listed_and_the_rest_counts(files: Path) -> None:
    lines = f'{GOOD}\n{{"id": "x", "quote": "a"}}\nnot json\n'
    done = run(files, lines, "--size", "4", "--overlap", "1")
    assert done.returncode == 0
    assert done.stderr.decode().splitlines() == [
        "python -m pyapp evidence: 2 evidence lines not used: see errors in the output"
    ]
    doc = json.loads(done.stdout)
    assert [i["id"] for i in doc["evidence"]] == ["g"]
    assert [(e["line"], e["id"]) for e in doc["errors"]] == [(2, "x"), (3, None)]
    assert doc["errors"][0]["message"].startswith("quote 'a' occurs 12 times, at 0, 4, 9,")


@pytest.mark.parametrize(
    "bad",
    [
        '{"id": "big", "start": ' + "1" * 5000 + ', "end": 3}',
        '{"id": "s\\ud800", "quote": "alpha"}',
        '{"id": "q", "quote": "alpha", "question": "\\udc00?"}',
    ],
    ids=["a-5000-digit-offset", "a-lone-surrogate-in-an-id", "a-lone-surrogate-in-a-question"],
)
def test_a_line_no_report_could_hold_is_a_line_error_not_a_crash(files: Path, bad: str) -> None:
    done = run(files, f"{GOOD}\n{bad}\n")
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    doc = json.loads(done.stdout)
    assert [item["id"] for item in doc["evidence"]] == ["g"]
    assert [error["line"] for error in doc["errors"]] == [2]
    assert doc["errors"][0]["id"] is None or doc["errors"][0]["id"] == "q"


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"id": 1, "start": 4, "end": 4}', "end (4) must be greater than start (4)"),
        ('{"id": 1, "start": 9, "end": 2}', "end (2) must be greater than start (9)"),
        ('{"id": 1, "start": -2, "end": 2}', "start must not be negative, got -2"),
        ('{"start": 0, "end": 5}', "id is missing"),
        ('{"id": 1, "start": 0}', "end is missing"),
        ('{"id": 1}', "give start and end (code-point offsets), or a quote"),
        ('{"id": 1, "start": 0.5, "end": 5}', "start must be a whole number of code points"),
        ('{"id": 1, "start": "0", "end": 5}', "start must be a whole number of code points"),
        ('{"id": 1, "quote": "omega"}', "quote 'omega' does not occur in the text"),
        (
            '{"id": 1, "quote": "eta"}',
            "quote 'eta' occurs 4 times, at 7, 32, 36 and 42",
        ),  # b-eta, z-eta, eta, th-eta
        ('{"id": 1, "start": 5, "end": 6}', "[5, 6) holds only whitespace"),
        ("id,start,end", "not JSON (Expecting value at column 1)"),
        ('[{"id": 1, "start": 0, "end": 5}]', "a JSON list, not an object"),
    ],
)
def test_a_file_whose_only_line_is_bad_is_refused_in_one_line(
    files: Path, line: str, said: str
) -> None:
    message = one_line_refusal(run(files, line))
    assert message.startswith(
        "python -m pyapp evidence: --evidence: no evidence item could be used: line 1: "
    )
    assert said in message


def test_a_file_that_is_not_json_lines_names_its_first_line_and_how_many_more(
    files: Path,
) -> None:
    message = one_line_refusal(run(files, "id,start,end\n1,0,5\n2,6,10\n"))
    assert "line 1: not JSON" in message and message.endswith("(and 2 more lines)")


@pytest.mark.parametrize(
    ("evidence", "said"),
    [
        ("", "--evidence: the evidence is empty"),
        ("\n  \n", "--evidence: the evidence is empty"),
        (b"\xff\xfe{}", "--evidence: "),
        ('{"id": 1}\n' * 10_001, "over the 10,000-item limit"),
    ],
)
def test_an_unusable_evidence_file_is_refused_in_one_line(
    files: Path, evidence: str | bytes, said: str
) -> None:
    assert said in one_line_refusal(run(files, evidence))


def test_an_evidence_file_that_is_not_utf8_says_so(files: Path) -> None:
    message = one_line_refusal(run(files, b"\xff\xfe{}"))
    assert "is not UTF-8 (byte 0xff at offset 0)" in message


def test_a_missing_evidence_file_or_a_folder_blames_the_evidence_flag(files: Path) -> None:
    missing = pyapp("evidence", str(files / "text.txt"), "--evidence", str(files / "nope"))
    assert "--evidence: cannot read" in one_line_refusal(missing)
    folder = pyapp("evidence", str(files / "text.txt"), "--evidence", str(files))
    assert "--evidence: " in (said := one_line_refusal(folder)) and "not a regular file" in said


def test_text_and_evidence_cannot_both_come_from_stdin() -> None:
    message = one_line_refusal(pyapp("evidence", "-", "--evidence", "-", stdin=b"x"))
    assert "cannot both be stdin" in message


def test_the_evidence_flag_is_required() -> None:
    assert "--evidence" in one_line_refusal(pyapp("evidence", "-", stdin=b"x"))


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (("--top-k", "0"), "--top-k: top-k must be at least 1, got '0'"),
        (("--top-k", "many"), "--top-k: top-k must be a number"),
        (("--size", "4", "--overlap", "4"), "--overlap: overlap (4) must be smaller than size"),
        (("--size", "0"), "--size: size must be at least 1"),
        (("--unit", "line"), "invalid choice: 'line'"),
    ],
)
def test_bad_settings_are_refused_naming_the_flag(
    files: Path, flags: tuple[str, ...], said: str
) -> None:
    assert said in one_line_refusal(run(files, GOOD, *flags))


def test_a_text_over_the_limit_is_refused(files: Path) -> None:
    (files / "text.txt").write_bytes(b"x" * 1_000_001)
    assert "over the 1,000,000-byte limit" in one_line_refusal(run(files, GOOD))


def test_the_sweep_takes_the_same_evidence_file(files: Path) -> None:
    path = files / "evidence.jsonl"
    path.write_text(GOOD + "\nnot json", encoding="utf-8")
    done = pyapp("sweep", str(files / "text.txt"), "--size", "4", "--evidence", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().splitlines() == [
        "python -m pyapp sweep: 1 evidence line not used: see evidence.errors in the output"
    ]
    rows = json.loads(done.stdout)["rows"]
    assert {(r["size"], r["overlap"], r["evidence_whole"]) for r in rows} >= {(4, 2, 1), (4, 0, 0)}
    lonely = pyapp("sweep", str(files / "text.txt"), "--size", "4", "--top-k", "3")
    assert "--top-k needs --evidence" in one_line_refusal(lonely)

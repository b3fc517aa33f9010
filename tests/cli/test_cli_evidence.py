"""python -m pyapp evidence: the evidence document on stdout; bad input is one stderr
line and exit 2, and a bad line among good ones is listed while the rest counts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import one_line_refusal, pyapp

from pyapp.core.dense import embed_texts
from pyapp.core.evidence_report import Vectors
from pyapp.embedder import DirStore, LazyEmbedder
from pyapp.planning.sweep import sweep_dense_texts, sweep_text

TEXT = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
GOOD = '{"id": "g", "quote": "gamma delta epsilon", "question": "Where is gamma?"}'


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "text.txt").write_text(TEXT, encoding="utf-8")
    return tmp_path


def run(folder: Path, evidence: str | bytes, *flags: str) -> subprocess.CompletedProcess[bytes]:
    path = folder / "evidence.jsonl"
    path.write_bytes(evidence.encode() if isinstance(evidence, str) else evidence)
    return pyapp("evidence", str(folder / "text.txt"), "--evidence", str(path), *flags)


def test_the_command_prints_the_evidence_document(files: Path) -> None:
    done = run(files, GOOD, "--size", "4", "--overlap", "1", "--top-k", "1")
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    doc = json.loads(done.stdout)
    assert doc["schema"] == "pyapp.evidence/3"
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


# ---- dense retrieval (--retriever minilm|both, --cache) ----------------------------

DENSE_TEXT = (
    "The harbour opened in 1820. Ships brought tea and cloth from the east.\n"
    "A fire burned the customs house in 1901; it was rebuilt in stone.\n"
    "Today the harbour serves ferries and a small fishing fleet."
)
DENSE_LINES = "\n".join(
    json.dumps({"id": i, "quote": q, "question": question})
    for i, (q, question) in enumerate(
        [
            ("A fire burned the customs house", "What happened to the customs house?"),
            ("serves ferries", "What uses the harbour now?"),
        ]
    )
)


def dense_run(folder: Path, *flags: str) -> subprocess.CompletedProcess[bytes]:
    (folder / "evidence.jsonl").write_text(DENSE_LINES, encoding="utf-8")
    return pyapp(
        "evidence", str(folder / "text.txt"), "--evidence", str(folder / "evidence.jsonl"),
        "--unit", "word", "--size", "8", "--overlap", "2", "--top-k", "2", *flags,
    )  # fmt: skip


def test_a_second_dense_run_embeds_nothing_and_an_edit_only_the_changed_chunk(
    tmp_path: Path,
) -> None:
    (tmp_path / "text.txt").write_text(DENSE_TEXT, encoding="utf-8")
    cache = str(tmp_path / "cache")
    first = dense_run(tmp_path, "--retriever", "both", "--cache", cache)
    assert first.returncode == 0, first.stderr
    # 33 words at size 8, overlap 2: 6 chunks, and 2 questions.
    assert first.stderr.decode().splitlines() == [
        "python -m pyapp evidence: 8 of 8 texts to embed (0 from the cache), about 1 s"
    ]
    doc = json.loads(first.stdout)
    assert doc["schema"] == "pyapp.evidence/3" and doc["retriever"] == "both"
    dense = doc["dense_retrieval"]
    assert dense["model_sha256"] == (
        "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
    )
    assert dense["questions"] == 2 and dense["skipped"] is None
    assert set(dense["range_metrics"]) == {
        "questions", "recall", "precision", "iou", "precision_omega", "per_question",
    }  # fmt: skip
    assert all(isinstance(i["dense_retrieval"]["rank_touching"], int) for i in doc["evidence"])
    assert (
        doc["retrieval"]["range_metrics"]["precision_omega"]
        == (dense["range_metrics"]["precision_omega"])
    )
    second = dense_run(tmp_path, "--retriever", "both", "--cache", cache)
    assert second.stderr.decode().splitlines() == [
        "python -m pyapp evidence: 0 of 8 texts to embed (8 from the cache), about 0 s"
    ]
    assert second.stdout == first.stdout
    # One word of the last chunk changed ("fleet." -> "fleets."): that chunk alone.
    (tmp_path / "text.txt").write_text(DENSE_TEXT.replace("fleet.", "fleets."), encoding="utf-8")
    third = dense_run(tmp_path, "--retriever", "minilm", "--cache", cache)
    assert third.stderr.decode().splitlines() == [
        "python -m pyapp evidence: 1 of 8 texts to embed (7 from the cache), about 1 s"
    ]
    assert json.loads(third.stdout)["retrieval"] is None


def test_without_onnxruntime_dense_retrieval_is_one_line_and_bm25_still_works(
    tmp_path: Path,
) -> None:
    (tmp_path / "text.txt").write_text(DENSE_TEXT, encoding="utf-8")
    (tmp_path / "evidence.jsonl").write_text(DENSE_LINES, encoding="utf-8")
    blocked = (
        "import sys; sys.modules['onnxruntime'] = None;"
        " from pyapp.cli import main; sys.exit(main())"
    )
    args = ["evidence", str(tmp_path / "text.txt"), "--evidence", str(tmp_path / "evidence.jsonl")]
    done = subprocess.run(
        [sys.executable, "-c", blocked, *args, "--retriever", "minilm"],
        capture_output=True, check=False,
    )  # fmt: skip
    line = one_line_refusal(done)
    assert "pip install 'pyapp[embed]'" in line and "--retriever bm25" in line
    fine = subprocess.run([sys.executable, "-c", blocked, *args], capture_output=True, check=False)
    assert fine.returncode == 0, fine.stderr
    assert json.loads(fine.stdout)["dense_retrieval"] is None


def test_a_damaged_model_file_is_one_line_naming_its_sha256(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pyapp import embedder
    from pyapp.cli import main

    damaged = tmp_path / "model.onnx"
    damaged.write_bytes(embedder.model_path().read_bytes()[:-1] + b"\0")
    monkeypatch.setattr(embedder, "model_path", lambda: damaged)
    (tmp_path / "text.txt").write_text(DENSE_TEXT, encoding="utf-8")
    (tmp_path / "evidence.jsonl").write_text(DENSE_LINES, encoding="utf-8")
    status = main(
        ["evidence", str(tmp_path / "text.txt"), "--evidence", str(tmp_path / "evidence.jsonl"),
         "--retriever", "minilm"]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    (line,) = err.splitlines()
    assert "sha256" in line and "not the pinned 8199be6f" in line


def test_the_sweep_adds_dense_columns_says_its_work_first_and_reuses_the_cache(
    tmp_path: Path,
) -> None:
    (tmp_path / "text.txt").write_text(DENSE_TEXT, encoding="utf-8")
    (tmp_path / "evidence.jsonl").write_text(DENSE_LINES, encoding="utf-8")
    args = ["sweep", str(tmp_path / "text.txt"), "--size", "8", "--overlap", "2"]
    evidence = ["--evidence", str(tmp_path / "evidence.jsonl"), "--cache", str(tmp_path / "c")]
    line = one_line_refusal(pyapp(*args, "--retriever", "minilm"))
    assert "--retriever minilm|both needs --evidence" in line
    first = pyapp(*args, *evidence, "--retriever", "minilm")
    assert first.returncode == 0, first.stderr
    (said,) = first.stderr.decode().splitlines()
    assert said.startswith("python -m pyapp sweep: ") and "(0 from the cache), about" in said
    rows = json.loads(first.stdout)["rows"]
    assert all({"dense_recall_at_k", "dense_iou"} <= set(row) for row in rows)
    again = pyapp(*args, *evidence, "--retriever", "both")
    assert b" 0 of " in again.stderr and again.stdout == first.stdout


def test_the_recursive_splitters_sweep_has_dense_columns_of_its_own_chunks(
    tmp_path: Path,
) -> None:
    (tmp_path / "text.txt").write_text(DENSE_TEXT, encoding="utf-8")
    (tmp_path / "evidence.jsonl").write_text(DENSE_LINES, encoding="utf-8")
    args = ["sweep", str(tmp_path / "text.txt"), "--evidence", str(tmp_path / "evidence.jsonl"),
            "--splitter", "recursive", "--unit", "char", "--size", "60", "--overlap", "15",
            "--top-k", "2", "--cache", str(tmp_path / "c")]  # fmt: skip
    done = pyapp(*args, "--retriever", "minilm")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    texts = sweep_dense_texts(DENSE_TEXT, splitter="recursive", unit="char", size=60,
                              overlap=15, evidence_jsonl=DENSE_LINES)  # fmt: skip
    assert f": {len(texts)} of {len(texts)} texts to embed" in done.stderr.decode()
    vectors = Vectors(embed_texts(texts, LazyEmbedder(), DirStore(tmp_path / "c")))
    engine = sweep_text(DENSE_TEXT, splitter="recursive", unit="char", size=60, overlap=15,
                        evidence_jsonl=DENSE_LINES, top_k=2, vectors=vectors).to_json()  # fmt: skip
    assert [(r["dense_recall_at_k"], r["dense_iou"]) for r in rows] == [
        (r["dense_recall_at_k"], r["dense_iou"]) for r in engine["rows"]
    ]
    assert all(r["dense_iou"] is not None for r in rows)

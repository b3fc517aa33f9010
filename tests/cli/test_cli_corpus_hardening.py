"""python -m pyapp corpus stays bounded and cleans up after itself.

Each test drives the command as a person would and checks what it prints:
memory per record, special files, signals, the bound on workers, file names
that are not UTF-8, surrogates and byte-order marks, gzip, links and loops,
and each real file counted once.
"""

from __future__ import annotations

import gzip
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from corpus_helpers import corpus, descendants, group, wait_for_exit, wait_until, write_slow_corpus

from pyapp.planning.corpus import max_workers

MiB = 1 << 20


def reasons(doc: dict[str, object], key: str = "errors") -> dict[str, str]:
    return {Path(e["path"]).name: e["reason"] for e in doc[key]}  # type: ignore[attr-defined]


# ------------------------------------------------------------------ memory per record


def _peak_rss(*args: str | Path) -> int:
    process = subprocess.Popen(
        [sys.executable, "-m", "pyapp", "corpus", *map(str, args), "--workers", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return usage.ru_maxrss * 1024


@pytest.mark.parametrize("unit", ["word", "token"])
def test_a_large_single_jsonl_record_peaks_near_its_own_size_not_per_unit(
    tmp_path: Path, unit: str
) -> None:
    """No list of token ids, no list of words: a 10 MB record of 3.3 million words
    and tokens adds a few copies of itself to the process, not one object per unit."""
    record = json.dumps({"text": "ab cd ef gh " * 833_334}).encode() + b"\n"
    (tmp_path / "big.jsonl").write_bytes(record)
    (tmp_path / "small.jsonl").write_bytes(b'{"text": "ab cd"}\n')
    base = _peak_rss(tmp_path / "small.jsonl", "--unit", unit)
    peak = _peak_rss(tmp_path / "big.jsonl", "--unit", unit)
    assert peak - base < 6 * len(record), f"{(peak - base) / len(record):.1f}x the record"


def test_a_document_over_64_mib_is_listed_unread_and_the_rest_counts(tmp_path: Path) -> None:
    with open(tmp_path / "huge.txt", "wb") as handle:
        handle.truncate(64 * MiB + 1)  # sparse: no disk used
    with open(tmp_path / "huge.jsonl", "wb") as handle:
        handle.write(b'{"text": "')
        handle.seek(64 * MiB + 16)
        handle.write(b'"}\n{"text": "next line counts"}\n')
    (tmp_path / "ok.txt").write_text("one two", encoding="utf-8")
    doc = corpus(tmp_path, "--unit", "word", timeout=60).doc
    assert (doc["documents"], doc["units"]) == (2, 5)
    errors = {(Path(e["path"]).name, e["line"]): e["reason"] for e in doc["errors"]}
    assert errors == {
        ("huge.txt", None): "document is 67,108,865 bytes, over the limit of 67,108,864 bytes"
        " per document: split it",
        ("huge.jsonl", 1): "document is over the limit of 67,108,864 bytes per document: split it",
    }
    assert doc["input"]["max_document_bytes"] == 64 * MiB


# ------------------------------------------------------------------ special files


def test_a_fifo_in_a_folder_is_listed_with_a_reason_instead_of_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x.txt")
    (tmp_path / "a.txt").write_text("one two", encoding="utf-8")
    doc = corpus(tmp_path, "--unit", "word", timeout=30).doc
    assert doc["documents"] == 1
    assert reasons(doc) == {
        "x.txt": "not a regular file (a FIFO): skipped, since reading it could block or never end"
    }


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def test_dev_zero_named_directly_is_listed_not_read(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one two", encoding="utf-8")
    done = corpus("/dev/zero", tmp_path / "a.txt", "--unit", "word", timeout=30,
                  preexec_fn=_limit_memory)  # fmt: skip
    doc = done.doc
    assert doc["documents"] == 1
    assert reasons(doc)["zero"].startswith("not a regular file (a character device)")


# ------------------------------------------------------------------ signals


@pytest.mark.parametrize(
    ("how", "status"),
    [("SIGTERM", 128 + 15), ("SIGINT", 128 + 2), ("Ctrl-C", 128 + 2)],
)
def test_a_signal_stops_the_local_workers_and_exits_quietly(
    tmp_path: Path, how: str, status: int
) -> None:
    write_slow_corpus(tmp_path / "docs")
    command = [sys.executable, "-m", "pyapp", "corpus", str(tmp_path / "docs"), "--no-progress"]
    with group([*command, "--workers", "2"]) as process:
        assert wait_until(lambda: len(descendants(process.pid)) >= 2, 60, watching=process.pid), (
            "no workers started"
        )
        workers = descendants(process.pid)
        if how == "Ctrl-C":  # the terminal signals the whole foreground group
            os.killpg(process.pid, signal.SIGINT)
        else:
            process.send_signal(getattr(signal, how))
        out, err = process.communicate(timeout=30)
        assert wait_for_exit(workers, 10), "workers left"
    assert process.returncode == status, err.decode()
    assert b"Traceback" not in err and out == b""


# ------------------------------------------------------------------ workers


def test_workers_far_beyond_the_machine_are_refused_at_once_with_the_bound(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one two", encoding="utf-8")
    done = corpus(tmp_path, "--unit", "word", workers=100_000, timeout=30)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.count("\n") == 1
    assert f"--workers must be from 1 to {max_workers()} (twice the" in done.stderr


# ------------------------------------------------------------------ file names


def test_file_names_that_are_not_utf8_come_out_escaped_in_valid_utf8_json(tmp_path: Path) -> None:
    folder = os.fsencode(tmp_path)
    with open(folder + b"/bad\xffname.txt", "wb") as handle:
        handle.write(b"caf\xe9")  # not UTF-8 inside either: listed under errors
    with open(folder + b"/ok\xfe.txt", "wb") as handle:
        handle.write(b"one two three")
    done = corpus(
        tmp_path, "--unit", "word", env={"PYTHONIOENCODING": "utf-8", "LC_ALL": "C.UTF-8"}
    )
    doc = json.loads(done.stdout.decode("utf-8"))  # strict: every byte is valid UTF-8
    assert doc["errors"][0]["path"] == f"{tmp_path}/bad\\xffname.txt"
    assert doc["largest_documents"][0]["path"] == f"{tmp_path}/ok\\xfe.txt"


# ------------------------------------------------------------------ surrogates and BOMs


def test_a_jsonl_record_with_a_lone_surrogate_is_listed_like_chunk_refuses_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"text": "\\ud800"}\n{"text": "ok \\ud83e\\udd9c"}\n', encoding="utf-8")
    doc = corpus(path, "--unit", "char").doc
    assert (doc["documents"], doc["units"]) == (1, 4)  # a proper pair is one character
    assert [(e["line"], e["reason"]) for e in doc["errors"]] == [
        (1, "text has an unpaired surrogate U+D800 at character 0, which UTF-8 cannot hold:"
            " remove it")
    ]  # fmt: skip


def test_a_jsonl_file_starting_with_a_bom_keeps_its_first_record(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"text": "one two"}\n{"text": "three"}\n')
    doc = corpus(path, "--unit", "word").doc
    assert (doc["documents"], doc["units"], doc["errors_total"]) == (2, 3, 0)
    assert doc["boms_removed"] == 1


def test_a_leading_bom_is_not_text_in_any_reader_and_the_output_says_how_many_went(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_bytes("\ufeffhello".encode())
    (tmp_path / "b.md").write_bytes(b"hello")
    (tmp_path / "c.jsonl").write_text('{"text": "\\ufeffhello"}\n', encoding="utf-8")
    (tmp_path / "d.txt").write_bytes("he\ufeffllo".encode())  # not leading: it is text
    doc = corpus(tmp_path, "--unit", "char").doc
    assert doc["units"] == 5 + 5 + 5 + 6
    assert doc["boms_removed"] == 2


# ------------------------------------------------------------------ gzip


def test_gzipped_text_and_jsonl_in_a_folder_are_read_and_a_bad_one_listed(tmp_path: Path) -> None:
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(b"one two three"))
    (tmp_path / "b.jsonl.gz").write_bytes(
        gzip.compress(b'{"text": "four five"}\n{"text": "six"}\n')
    )
    (tmp_path / "c.csv.gz").write_bytes(gzip.compress(b"a,b"))  # not a known suffix: ignored
    (tmp_path / "d.md.gz").write_bytes(b"not gzip at all")
    doc = corpus(tmp_path, "--unit", "word").doc
    assert (doc["documents"], doc["units"]) == (3, 6)
    assert list(reasons(doc)) == ["d.md.gz"]
    assert reasons(doc)["d.md.gz"].startswith("not a valid .gz file")


# ------------------------------------------------------------------ links, loops, duplicates


def test_a_symlink_loop_named_directly_is_called_a_loop(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one two", encoding="utf-8")
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    doc = corpus(tmp_path / "loop", tmp_path / "a.txt", "--unit", "word").doc
    assert reasons(doc) == {
        "loop": "symbolic link loop (the link leads back to itself): fix or remove the link"
    }


def test_a_symlink_loop_inside_a_folder_is_called_a_loop_and_the_rest_counts(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("one two", encoding="utf-8")
    os.symlink(tmp_path / "x.txt", tmp_path / "x.txt")
    os.symlink(tmp_path / "y", tmp_path / "z")
    os.symlink(tmp_path / "z", tmp_path / "y")
    doc = corpus(tmp_path, "--unit", "word").doc
    assert doc["documents"] == 1
    assert set(reasons(doc)) == {"x.txt", "y", "z"}
    assert all("symbolic link loop" in reason for reason in reasons(doc).values())


def test_a_link_back_to_an_enclosing_folder_is_skipped_as_a_loop(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("one two", encoding="utf-8")
    os.symlink(tmp_path, tmp_path / "sub" / "up")
    doc = corpus(tmp_path, "--unit", "word").doc
    assert (doc["documents"], doc["errors_total"]) == (1, 0)
    assert doc["skipped"] == [
        {
            "path": str(tmp_path / "sub" / "up"),
            "reason": f"symbolic link loop: leads back to {tmp_path}",
        }
    ]


def test_overlapping_paths_and_links_to_a_file_count_each_real_file_once(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("one two three", encoding="utf-8")
    os.symlink(tmp_path / "sub" / "a.txt", tmp_path / "link.txt")
    os.link(tmp_path / "sub" / "a.txt", tmp_path / "hard.txt")
    doc = corpus(tmp_path, tmp_path / "sub", tmp_path / "sub" / "a.txt", "--unit", "word").doc
    assert (doc["documents"], doc["units"]) == (1, 3)
    first = tmp_path / "hard.txt"  # sorted first of the three names of one file
    assert doc["skipped_total"] == 4
    assert sorted((e["path"], e["reason"]) for e in doc["skipped"]) == sorted(
        [
            (str(tmp_path / "link.txt"), f"same file as {first}, counted once"),
            (str(tmp_path / "sub"), f"same folder as {tmp_path / 'sub'}, read once"),
            (str(tmp_path / "sub" / "a.txt"), f"same file as {first}, counted once"),
            (str(tmp_path / "sub" / "a.txt"), f"same file as {first}, counted once"),
        ]
    )


def test_a_broken_link_with_a_known_suffix_is_listed(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one two", encoding="utf-8")
    os.symlink(tmp_path / "gone.txt", tmp_path / "broken.txt")
    os.symlink(tmp_path / "gone", tmp_path / "other")  # no known suffix: nothing to read
    doc = corpus(tmp_path, "--unit", "word").doc
    assert reasons(doc) == {"broken.txt": "broken symbolic link (its target does not exist)"}

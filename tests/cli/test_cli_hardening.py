"""The command line against hostile input: huge numbers, endless or special inputs,
closed streams and Ctrl-C each end in one clear line (or a quiet exit), fast, in
bounded memory, never a traceback or a hang."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

#: A hang fails instead of blocking CI. Not a speed check: the slowest run here (a
#: million spaces in tokens, 2 s alone) took over 20 s beside two CPU hogs and the
#: browser tests, so the guard leaves room for a machine that busy.
TIMEOUT_S = 120


def pyapp(
    *args: str, stdin: bytes | int | None = b"", **kwargs: object
) -> subprocess.CompletedProcess[bytes]:
    options: dict[str, object] = {"capture_output": True, "timeout": TIMEOUT_S, "check": False}
    if isinstance(stdin, bytes):
        options["input"] = stdin
    else:
        options["stdin"] = stdin
    options.update(kwargs)
    return subprocess.run([sys.executable, "-m", "pyapp", *args], **options)  # type: ignore[call-overload, no-any-return]


def assert_one_clean_line(done: subprocess.CompletedProcess[bytes], fragment: str) -> None:
    err = done.stderr.decode("utf-8")
    assert done.returncode == 2, err
    assert "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert fragment in err, err
    assert len(err) < 400, err


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["chunk", "-", "--size", "4", "--price", "1e400"], "--price: price per million"),
        (["chunk", "-", "--size=-1e5000"], "--size: size must be at least 1"),
        (
            ["chunk", "-", "--size", "4", "--overlap", "1e5000"],
            "--overlap: overlap must be at most",
        ),
        (["chunk", "-", "--size", "1" + "0" * 4300], "--size: size must be at most"),
        (["chunk", "-", "--size", "4", "--tokens-per-unit", "1e100000"], "tokens per unit"),
        (["chunk", "-", "--size", "4", "--price", "1e99999999"], "at most 1,000,000"),
        (["sweep", "-", "--size", "1e5000"], "--size: size must be at most"),
        (
            ["size", "--documents", "1", "--avg-tokens", "9", "--size", "4", "--dim", "1e5000"],
            "--dim: embedding dimension must be at most",
        ),
        (["budget", "--window", "1e5000", "--top-k", "1", "--size", "4"], "--window"),
    ],
)
def test_huge_numbers_are_refused_at_once_with_the_fields_range(
    args: list[str], fragment: str
) -> None:
    began = time.perf_counter()
    done = pyapp(*args, stdin=b"one two three")
    assert_one_clean_line(done, fragment)
    assert time.perf_counter() - began < TIMEOUT_S


def test_a_message_quotes_at_most_forty_characters_of_what_was_typed() -> None:
    done = pyapp("chunk", "-", "--size", "x" * 100_000, stdin=b"a")
    assert_one_clean_line(done, "size must be a number")
    assert "x" * 41 not in done.stderr.decode()


def test_an_endless_stdin_is_refused_after_one_byte_past_the_limit() -> None:
    with open("/dev/zero", "rb") as zero:
        done = pyapp("chunk", "-", "--size", "4", stdin=zero.fileno())
    assert_one_clean_line(done, "stdin is 1,000,001 bytes or more, over the 1,000,000-byte limit")


def test_yes_piped_into_chunk_is_refused_instead_of_growing_without_end() -> None:
    yes = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
    try:
        assert yes.stdout is not None
        done = pyapp("chunk", "-", "--size", "4", stdin=yes.stdout.fileno())
    finally:
        yes.kill()
        yes.wait()
    assert_one_clean_line(done, "over the 1,000,000-byte limit")


def test_a_300_mb_file_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    with big.open("wb") as handle:  # sparse: 300 MB of zeros that cost no disk
        handle.truncate(300_000_000)
    probe = (
        "import resource, subprocess, sys;"
        " done = subprocess.run([sys.executable, '-m', 'pyapp', 'chunk', sys.argv[1],"
        " '--size', '4'], capture_output=True);"
        " print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(big)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=True,
    )
    status, peak_kib = map(int, done.stdout.split())
    assert status == 2
    assert peak_kib < 150_000, f"peak RSS {peak_kib} KiB: the file was read whole"


def test_a_named_pipe_is_refused_instead_of_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    done = pyapp("chunk", str(fifo), "--size", "4")
    assert_one_clean_line(done, "is not a regular file")


def test_a_device_named_as_the_file_is_refused() -> None:
    assert_one_clean_line(pyapp("chunk", "/dev/zero", "--size", "4"), "is not a regular file")


def test_a_folder_named_as_the_file_is_refused(tmp_path: Path) -> None:
    assert_one_clean_line(pyapp("chunk", str(tmp_path), "--size", "4"), "is not a regular file")


def test_a_closed_stdin_is_one_line_not_a_traceback() -> None:
    done = subprocess.run(
        ["bash", "-c", f"exec {sys.executable} -m pyapp chunk - --size 4 <&-"],
        capture_output=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert_one_clean_line(done, "stdin is closed")


def test_a_closed_stdout_is_one_line_not_a_traceback() -> None:
    done = subprocess.run(
        ["bash", "-c", f"echo one two | exec {sys.executable} -m pyapp chunk - --size 4 >&-"],
        capture_output=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert_one_clean_line(done, "cannot write the output")


def blocked_on_a_pipe(pid: int) -> bool:
    """Waits until process ``pid`` sleeps in a read of a pipe (Linux: its wchan),
    which it reaches within microseconds of its last read; False after 30 s (a hang).
    A signal sent before then may land between two reads, where no read is
    interrupted by it, and the command would wait on stdin forever."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if "pipe_read" in Path(f"/proc/{pid}/wchan").read_text():
            return True
    return False


def test_ctrl_c_is_a_quiet_exit_130() -> None:
    reader, writer = os.pipe()  # stdin that never ends: the command waits on it
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "pyapp", "chunk", "-", "--size", "4"],
            stdin=reader,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # As from a terminal: a suite started in the background (`cmd &` in a
            # script) inherits SIGINT ignored, and Python keeps an ignored SIGINT.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        # A write of more than a pipe holds returns only once the child has read
        # from it; then it is in its read of stdin, and blocks again waiting for more.
        assert os.write(writer, b"word " * 40_000) == 200_000  # under the limit
        assert blocked_on_a_pipe(child.pid), "the command never waited on stdin"
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=TIMEOUT_S)
    finally:
        os.close(reader)
        os.close(writer)
    assert child.returncode == 130, err
    assert b"Traceback" not in err and b"KeyboardInterrupt" not in err


def test_a_file_name_that_is_not_utf8_is_shown_escaped(tmp_path: Path) -> None:
    name = os.fsdecode(bytes(tmp_path) + b"/bad\xffname.txt")
    done = pyapp("chunk", name, "--size", "4", env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert_one_clean_line(done, "bad\\xffname.txt")


def test_the_cli_says_on_stderr_when_a_cap_withholds_the_chunks() -> None:
    done = pyapp("chunk", "-", "--size", "1", stdin=b"w " * 300)
    assert done.returncode == 0
    doc = json.loads(done.stdout)
    assert doc["chunks"] == [] and doc["capped"]["cap"] == "chunks"
    err = done.stderr.decode()
    assert len(err.strip().splitlines()) == 1
    assert "300 chunks is over the cap of 256" in err and "--no-caps" in err
    lifted = pyapp("chunk", "-", "--size", "1", "--no-caps", stdin=b"w " * 300)
    assert lifted.stderr == b""


def test_a_million_spaces_are_chunked_in_tokens_with_exit_0() -> None:
    """tiktoken alone panics on a run this long. o200k_base has one token for 128
    spaces: 10**6 = 7,812 x 128 + 64, so 7,813 tokens."""
    done = pyapp("chunk", "-", "--unit", "token", "--size", "512", stdin=b" " * 10**6)
    assert done.returncode == 0, done.stderr.decode()
    summary = json.loads(done.stdout)["summary"]
    assert (summary["units"], summary["chunks"], summary["input_chars"]) == (7813, 16, 10**6)

"""Running ``python -m pyapp ARGS`` in a child process, as a person at a shell does."""

from __future__ import annotations

import subprocess
import sys


def pyapp(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """The command's exit code, stdout and stderr, with ``stdin`` as its input."""
    return subprocess.run(
        [sys.executable, "-m", "pyapp", *args], input=stdin, capture_output=True, check=False
    )


def one_line_refusal(done: subprocess.CompletedProcess[bytes]) -> str:
    """The one line a refused command printed, after checking that it was refused as
    the command line promises: exit 2, nothing on stdout, one line and no traceback."""
    assert done.returncode == 2, done.stdout
    assert done.stdout == b""
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    return lines[0]

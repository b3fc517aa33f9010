"""Running ``python -m pyapp ARGS`` in a child process, as a person at a shell does."""

from __future__ import annotations

import subprocess
import sys


def pyapp(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """The command's exit code, stdout and stderr, with ``stdin`` as its input."""
    return subprocess.run(
        [sys.executable, "-m", "pyapp", *args], input=stdin, capture_output=True, check=False
    )

"""Running ``python -m pyapp corpus`` in a child process, and watching its children."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Done:
    returncode: int
    stdout: bytes
    stderr: str

    @property
    def doc(self) -> Any:
        assert self.returncode == 0, self.stderr
        return json.loads(self.stdout.decode("utf-8"))


def corpus(
    *args: str | Path,
    workers: int | None = 1,
    timeout: float = 120,
    env: dict[str, str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
) -> Done:
    """``python -m pyapp corpus ARGS --no-progress [--workers N]``, in a process group
    of its own that is ended afterwards: a failing run leaves no worker behind."""
    command = [sys.executable, "-m", "pyapp", "corpus", *map(str, args), "--no-progress"]
    if workers is not None:
        command += ["--workers", str(workers)]
    with group(command, env={**os.environ, **(env or {})}, preexec_fn=preexec_fn) as process:
        out, err = process.communicate(timeout=timeout)
    return Done(process.returncode, out, err.decode("utf-8", "replace"))


@contextmanager
def group(command: list[str], **options: Any) -> Iterator[subprocess.Popen[bytes]]:
    """The command in a new session (its own process group); on the way out the
    whole group is killed, whatever the command left running."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, **options
    )
    try:
        yield process
    finally:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _parents() -> dict[int, int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            parents[int(entry)] = int(fields[1])
    return parents


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (Linux /proc)."""
    parents = _parents()
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    """Running, and not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def wait_until(condition: Callable[[], bool], seconds: float, *, watching: int) -> bool:
    """Waits on process ``watching`` (an exit ends the wait at once) and checks
    ``condition`` each time it wakes, at most every 50 ms; False after ``seconds``."""
    deadline = time.monotonic() + seconds
    with _pidfd(watching) as fd:
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if fd is not None and select.select([fd], [], [], min(left, 0.05))[0]:
                return condition()  # it exited: nothing more will start
    return True


def wait_for_exit(pids: set[int], seconds: float) -> bool:
    """Waits on each process's own exit (a pidfd becomes readable when it ends, zombie
    or reaped); False when one is still running after ``seconds``."""
    deadline = time.monotonic() + seconds
    for pid in pids:
        with _pidfd(pid) as fd:
            if fd is None:
                continue  # already gone
            left = max(0.0, deadline - time.monotonic())
            if not select.select([fd], [], [], left)[0] and alive(pid):
                return False
    return True


@contextmanager
def _pidfd(pid: int) -> Iterator[int | None]:
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        yield None
        return
    try:
        yield fd
    finally:
        os.close(fd)


def write_slow_corpus(folder: Path, *, files: int = 40, kilobytes: int = 500) -> None:
    """Enough token work (tens of seconds on one core) that a signal lands mid-run."""
    words = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu " * 8).split()
    line = " ".join(f"{w}{i % 97}" for i, w in enumerate(words)) + ".\n"
    body = (line * (kilobytes * 1024 // len(line) + 1)).encode()
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(files):
        (folder / f"doc{n:03d}.txt").write_bytes(body)

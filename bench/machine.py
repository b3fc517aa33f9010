"""The machine a benchmark ran on, in one line, for the header of its results."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def _first(path: str, prefix: str) -> str | None:
    """The value of the first ``prefix: value`` line of ``path``, if it can be read."""
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(prefix):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def machine() -> str:
    """CPUs, CPU model, RAM and kernel, e.g. "2 CPUs (nproc), AMD EPYC, 23.5 GiB RAM, Linux 6.1"."""
    cpu = _first("/proc/cpuinfo", "model name") or platform.processor() or "unknown CPU"
    memory = _first("/proc/meminfo", "MemTotal")
    ram = f"{int(memory.split()[0]) / 1024 / 1024:.1f} GiB" if memory else "unknown"
    return (
        f"{os.cpu_count()} CPUs (nproc), {cpu}, {ram} RAM, {platform.system()} {platform.release()}"
    )

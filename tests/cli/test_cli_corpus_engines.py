"""python -m pyapp corpus --engine dask: the local pool's JSON on a local cluster or on
a cluster named by --scheduler or DASK_SCHEDULER_ADDRESS; one line without the extra;
Ctrl-C closes the cluster and leaves no process behind."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus_helpers import corpus, descendants, group, wait_for_exit, wait_until, write_slow_corpus

WITHOUT_DASK = (
    "import sys; sys.modules['distributed'] = None; sys.modules['dask'] = None;"
    " from pyapp.cli.main import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    (root / "a.txt").write_text("Hello world. " * 40, encoding="utf-8")
    (root / "sub").mkdir()
    (root / "sub" / "b.md").write_text("# Title\n\nBody text, 日本語 🦜.", encoding="utf-8")
    lines = [json.dumps({"text": f"record {n} " * n, "id": n}) for n in range(30)]
    lines[7] = "not json"
    (root / "c.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def without_timing(stdout: bytes) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(stdout)
    doc.pop("timing")
    return doc


def same_bytes(a: bytes, b: bytes) -> bool:
    """Byte-identical once the timing object (the last key) is cut off."""
    return a[: a.rindex(b'  "timing"')] == b[: b.rindex(b'  "timing"')]


def test_engine_dask_on_a_local_cluster_prints_the_local_pools_json(docs: Path) -> None:
    args = (docs, "--size", "16", "--overlap", "4", "--id-column", "id")
    local = corpus(*args, workers=2)
    dask = corpus(*args, "--engine", "dask", workers=1)
    assert dask.returncode == local.returncode == 0, dask.stderr
    assert same_bytes(dask.stdout, local.stdout)
    assert without_timing(dask.stdout)["errors"][0]["line"] == 8
    assert "Traceback" not in dask.stderr and dask.stderr.count("\n") == 1  # "1 ... not counted"


@pytest.fixture(scope="module")
def tcp_cluster() -> Iterator[Any]:
    """A cluster on the loopback interface, its worker in this test process."""
    from distributed import LocalCluster

    with LocalCluster(
        processes=False,
        n_workers=1,
        threads_per_worker=1,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address=":0",
        scheduler_kwargs={"dashboard": False},
    ) as cluster:
        yield cluster


def test_a_scheduler_named_by_the_environment_runs_the_count_there(
    docs: Path, tcp_cluster: Any
) -> None:
    address = tcp_cluster.scheduler_address
    assert address.startswith("tcp://127.0.0.1:")
    local = corpus(docs, workers=1)
    env = {"DASK_SCHEDULER_ADDRESS": address}
    remote = corpus(docs, "--engine", "dask", workers=None, env=env)
    assert remote.returncode == 0, remote.stderr
    assert same_bytes(remote.stdout, local.stdout)
    assert "count_part" in tcp_cluster.scheduler.task_prefixes  # it ran on that cluster
    flag = corpus(docs, "--engine", "dask", "--scheduler", address, workers=None)
    assert same_bytes(flag.stdout, local.stdout)


def test_corpus_help_names_the_engines_and_the_percent_default() -> None:
    done = corpus("--help", workers=None, timeout=30)
    help_text = done.stdout.decode()
    assert done.returncode == 0, done.stderr
    assert "--engine {local,dask}" in help_text and "percent of --size (15%)" in help_text


def test_without_the_dask_extra_engine_dask_says_how_to_install_it_in_one_line(
    docs: Path,
) -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_DASK, "corpus", str(docs), "--engine", "dask"],
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == (
        "python -m pyapp corpus: --engine dask needs Dask, which is not installed:"
        " pip install 'pyapp[dask]'\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--scheduler", "tcp://127.0.0.1:9"), "--scheduler needs --engine dask"),
        (
            ("--engine", "dask", "--scheduler", "tcp://127.0.0.1:9", "--workers", "2"),
            "--workers sizes a local cluster: leave it out when a scheduler is given",
        ),
        (("--report", "/no/such/folder/r.html"), "cannot write the report to /no/such/folder"),
        (("--text-column", ""), "--text-column must be a name of 1 to 256 characters"),
    ],
)
def test_contradictory_flags_are_refused_at_once_in_one_line(
    docs: Path, args: tuple[str, ...], message: str
) -> None:
    done = corpus(docs, *args, workers=None, timeout=30)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.count("\n") == 1 and message in done.stderr


def test_ctrl_c_closes_the_dask_cluster_and_leaves_no_process(tmp_path: Path) -> None:
    write_slow_corpus(tmp_path / "docs")
    command = [sys.executable, "-m", "pyapp", "corpus", str(tmp_path / "docs"), "--no-progress"]
    with group([*command, "--engine", "dask", "--workers", "1"]) as process:
        assert wait_until(lambda: len(descendants(process.pid)) >= 2, 60, watching=process.pid), (
            "no cluster started"
        )
        started = descendants(process.pid)
        os.killpg(process.pid, signal.SIGINT)  # what a terminal does on Ctrl-C
        out, err = process.communicate(timeout=60)
        assert wait_for_exit(started, 10), "left behind"
    assert process.returncode == 130, err.decode()
    assert out == b"" and err == b"", err.decode()


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("nonsense:::", "--scheduler 'nonsense:::' is not an address"),
        ("", "--scheduler is empty: give tcp://HOST:PORT"),
        ("inproc://x", "names a scheduler inside one process"),
        ("http://x:1", "unknown scheme 'http'"),
    ],
    ids=["nonsense", "empty", "inproc", "http"],
)
def test_a_scheduler_address_no_client_could_use_is_one_line_at_once(
    docs: Path, address: str, message: str
) -> None:
    """Before, a Client was made and failed while parsing: the right line, then a
    20 s wait and Client.__del__'s traceback (which the line count catches)."""
    done = corpus(docs, "--engine", "dask", "--scheduler", address, workers=None, timeout=60)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr

"""``corpus --report PATH`` never swaps a node that is not a file: a device, FIFO,
socket or folder is refused in one line (exit 2) before anything is counted, a
symbolic link is written through to its target, and a new report gets the
permissions the umask gives."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from corpus_helpers import corpus


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    (root / "a.txt").write_text("Hello world. " * 40, encoding="utf-8")
    return root


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _socket(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()  # the node stays


def _device(path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # what /dev/null is


def _folder(path: Path) -> None:
    path.mkdir()


def _link_to_a_fifo(path: Path) -> None:
    os.mkfifo(path.with_name("fifo"))
    path.symlink_to("fifo")


def _link_loop(path: Path) -> None:
    path.symlink_to(path.name)


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (_fifo, "it is a FIFO"),
        (_socket, "it is a socket"),
        (_device, "it is a character device"),
        (_folder, "it is a folder"),
        (_link_to_a_fifo, "it is a FIFO"),
        (_link_loop, "symbolic link loop"),
    ],
    ids=["fifo", "socket", "device", "folder", "link_to_a_fifo", "link_loop"],
)
def test_a_report_path_that_is_not_a_file_is_refused_and_left_as_it_was(
    docs: Path, tmp_path: Path, make: Callable[[Path], None], said: str
) -> None:
    path = tmp_path / "report.html"
    make(path)
    before = os.lstat(path)
    done = corpus(docs, "--report", path, timeout=60)
    assert done.returncode == 2 and done.stdout == b"", done.stderr
    assert done.stderr.count("\n") == 1 and said in done.stderr, done.stderr
    assert "cannot write the report to" in done.stderr
    after = os.lstat(path)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def _umask(mask: int) -> Callable[[], None]:
    return lambda: os.umask(mask) and None


@pytest.mark.parametrize("mask", [0o022, 0o027], ids=["umask_022", "umask_027"])
def test_a_new_report_gets_the_permissions_the_umask_gives(
    docs: Path, tmp_path: Path, mask: int
) -> None:
    path = tmp_path / "report.html"
    done = corpus(docs, "--report", path, preexec_fn=_umask(mask), timeout=60)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask
    assert path.read_text(encoding="utf-8").startswith("<!doctype html>")


def test_a_report_through_a_link_replaces_the_target_and_keeps_link_and_mode(
    docs: Path, tmp_path: Path
) -> None:
    target = tmp_path / "site" / "latest.html"
    target.parent.mkdir()
    target.write_text("old", encoding="utf-8")
    target.chmod(0o604)
    link = tmp_path / "report.html"
    link.symlink_to(target)
    new_name_link = tmp_path / "fresh.html"
    new_name_link.symlink_to(tmp_path / "site" / "fresh-target.html")  # not there yet
    assert corpus(docs, "--report", link, timeout=60).returncode == 0
    assert corpus(docs, "--report", new_name_link, timeout=60).returncode == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert stat.S_IMODE(target.stat().st_mode) == 0o604  # an existing file keeps its mode
    assert new_name_link.is_symlink()
    assert (tmp_path / "site" / "fresh-target.html").read_text(encoding="utf-8").startswith("<!")
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == [
        "fresh-target.html",
        "latest.html",
    ]


def test_the_report_is_the_only_file_the_package_writes() -> None:
    """Every other output goes to stdout; a new place that writes a file must go
    through pyapp/cli/output_file.py (and its rules) or be added here knowingly."""
    import re

    import pyapp

    writes = re.compile(
        r"""open\([^)]*["'][wax]b?\+?["']|os\.replace|os\.rename|\.write_text\(|\.write_bytes\("""
        r"""|mkstemp|NamedTemporaryFile|O_CREAT|shutil\.(copy|move)"""
    )
    root = Path(pyapp.__file__).parent
    found = {
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if writes.search(path.read_text(encoding="utf-8"))
    }
    # embedder.py: the embedding cache (``--cache DIR``) writes only files of its own,
    # named by sha256 under DIR/<model sha256>/, each a scratch file renamed into place;
    # a path the user names is only ever the folder that holds them.
    assert found == {"cli/output_file.py", "embedder.py"}, found

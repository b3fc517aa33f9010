"""``static/engine/ask.js``: the one wrapper around ``engine.call`` that the panels, the
main view and the text view share. Run in Node on the built module (``dist/``, which
holds the generated facts.js it imports), with stand-in engines."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ASK = ROOT / "dist" / "static" / "engine" / "ask.js"

SCRIPT = """
const { askEngine } = await import(process.argv[1]);
const engines = {
  failing: { call: async () => { throw new Error("handle() raised MemoryError"); } },
  superseded: { call: async () => null },
  refusing: {
    call: async () => ({ ok: false, op: "size", error: { field: "size", message: "no" } }),
  },
  answering: { call: async (purpose, request) => ({ ok: true, op: request.op, result: purpose }) },
};
const out = {};
for (const [name, engine] of Object.entries(engines)) {
  out[name] = await askEngine(engine, "size", { op: "size" });
}
console.log(JSON.stringify(out));
"""


def test_an_engine_failure_is_answered_as_a_refusal_and_nothing_else_changes() -> None:
    node = shutil.which("node")
    if node is None or not ASK.exists():
        pytest.fail("node and a built dist/ are needed: run `python build.py` first")
    done = subprocess.run(
        [node, "--input-type=module", "-e", SCRIPT, ASK.as_uri()],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    out = json.loads(done.stdout)
    assert out["failing"] == {
        "ok": False,
        "failed": True,
        "error": {"field": None, "message": "The engine failed: handle() raised MemoryError"},
    }
    assert out["superseded"] is None
    refusal = {"field": "size", "message": "no"}
    assert out["refusing"] == {"ok": False, "op": "size", "error": refusal}
    assert out["answering"] == {"ok": True, "op": "size", "result": "size"}

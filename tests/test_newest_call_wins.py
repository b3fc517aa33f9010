"""Newest call wins: the page's one rule for stale answers (static/engine/engine-client.js).

The client runs in Node against a scripted worker: each scenario makes calls, lets the
worker answer them in the order it chooses (a slow older answer after a newer one), and
reports what every call resolved to and what the client posted. The real page's code
paths only draw an answer that is not ``null``, so an answer reported ``null`` here is
one never shown.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pyapp.facts import VIEW_FOLLOWERS, page_facts

ROOT = Path(__file__).resolve().parents[1]

# A fake Worker that records what the client posts and answers when told to; then the
# scenarios, each printing {"got": {name: answer}, "posted": [...]} as one JSON line.
RUNNER = r"""
const posted = [];
let worker = null;
globalThis.Worker = class {
  constructor() { worker = this; }
  postMessage(message) { posted.push(message); }
  terminate() {}
};
const { Engine } = await import(process.argv[1]);
const answer = (id, result) => worker.onmessage({ data: {
  type: "result", id, response: JSON.stringify({ ok: true, op: "chunk", result }) } });
const calls = (purpose) => posted.filter((m) => m.type === "call" && m.purpose === purpose);
const drops = () => posted.filter((m) => m.type === "drop").map((m) => m.id);
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

async function scenario(name, body) {
  posted.length = 0;
  const engine = new Engine();
  const got = {};
  const track = (key, promise) => promise.then((value) => { got[key] = value?.result ?? value; });
  await body(engine, track);
  await settle();
  console.log(JSON.stringify({ name, got, posted: posted.map((m) => ({ ...m, request: undefined })),
    drops: drops() }));
}

const view = (n) => ({ op: "chunk", text: "one two", size: String(n) });

// Two keystrokes: the older view's answer comes after the newer one's.
await scenario("slow older answer", async (engine, track) => {
  track("older", engine.call("view", view(1)));
  track("newer", engine.call("view", view(2)));
  const [older, newer] = calls("view").map((m) => m.id);
  answer(newer, "newer's result");
  await settle();
  answer(older, "older's late result");
});

// A view's background followers (its checks, a text-view page), a panel's call, and a
// newer view: the followers are dropped, the panel's call is not.
await scenario("a newer view drops its followers", async (engine, track) => {
  track("checks", engine.call("checks", { op: "checks", text: "a b", size: "1" }));
  track("segments", engine.call("segments", { op: "segments", text: "a b", size: "1" }));
  track("size", engine.call("size", { op: "size", size: "1" }));
  track("view", engine.call("view", view(3)));
  for (const purpose of ["checks", "segments", "size", "view"]) {
    answer(calls(purpose)[0].id, purpose);
  }
});

// A follower does not drop the view it follows.
await scenario("a follower leaves the view", async (engine, track) => {
  track("view", engine.call("view", view(4)));
  track("checks", engine.call("checks", { op: "checks", text: "a b", size: "1" }));
  answer(calls("view")[0].id, "view");
  answer(calls("checks")[0].id, "checks");
});

// A text over the byte limit is answered by the client: it supersedes as a posted call does.
await scenario("a refusal here supersedes too", async (engine, track) => {
  track("older", engine.call("view", view(5)));
  track("checks", engine.call("checks", { op: "checks", text: "a b", size: "1" }));
  track("refused", engine.call("view", { op: "chunk", text: "a".repeat(1_000_001), size: "5" }));
  answer(calls("view")[0].id, "older's late result");
});
"""


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no Node: the build needs it, and so does this test")
    # The page's modules as they are in the tree, and the facts module the build
    # generates beside them.
    site = tmp_path_factory.mktemp("site") / "static"
    shutil.copytree(ROOT / "static", site)
    body = json.dumps(page_facts(), sort_keys=True)
    (site / "facts.js").write_text(f"export const FACTS = Object.freeze({body});\n", "utf-8")
    client = (site / "engine" / "engine-client.js").as_uri()
    done = subprocess.run(
        [node, "--input-type=module", "-e", RUNNER, client],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    return {line["name"]: line for line in lines}


def test_a_slow_older_answer_after_a_newer_one_is_not_shown(
    outcomes: dict[str, dict[str, Any]],
) -> None:
    run = outcomes["slow older answer"]
    assert run["got"] == {"older": None, "newer": "newer's result"}
    older, newer = (m["id"] for m in run["posted"] if m["type"] == "call")
    # The worker is told to forget the older call: it never computes it if not begun.
    assert run["drops"] == [older] and newer != older


def test_a_newer_view_drops_the_calls_that_follow_a_view_and_no_other(
    outcomes: dict[str, dict[str, Any]],
) -> None:
    run = outcomes["a newer view drops its followers"]
    assert {"checks", "segments"} <= set(VIEW_FOLLOWERS) and "size" not in VIEW_FOLLOWERS
    assert run["got"] == {"checks": None, "segments": None, "size": "size", "view": "view"}
    ids = {m["purpose"]: m["id"] for m in run["posted"] if m["type"] == "call"}
    assert sorted(run["drops"]) == sorted([ids["checks"], ids["segments"]])


def test_a_call_that_follows_the_view_leaves_the_view_alone(
    outcomes: dict[str, dict[str, Any]],
) -> None:
    run = outcomes["a follower leaves the view"]
    assert run["got"] == {"view": "view", "checks": "checks"}
    assert run["drops"] == []


def test_a_refusal_the_client_answers_itself_supersedes_like_a_posted_call(
    outcomes: dict[str, dict[str, Any]],
) -> None:
    run = outcomes["a refusal here supersedes too"]
    assert run["got"]["older"] is None and run["got"]["checks"] is None
    refused = run["got"]["refused"]
    assert refused["ok"] is False and refused["error"]["field"] == "text"
    assert len(run["drops"]) == 2
    # The over-limit text never crossed: only the two earlier calls were posted.
    assert [m["purpose"] for m in run["posted"] if m["type"] == "call"] == ["view", "checks"]

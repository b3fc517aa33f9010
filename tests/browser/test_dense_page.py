"""Dense retrieval in the page as a person uses it: choose all-MiniLM-L6-v2 for
passages with questions, watch the model load and the texts embed, read the figures
(the command line's, to the digit), download the report (the command line's, byte for
byte), and reload: this browser's cache answers with no model call.

One visit and its reload: the model loads once (about 37 MB from the site)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import WAIT_MS, configure, expect_figure, native, open_ready, wait_until_ready
from playwright.sync_api import expect

import build
from pyapp.weights import EMBEDDING_MODEL

pytestmark = pytest.mark.browser

TEXT = (
    "The harbour opened in 1820. Ships brought tea and cloth from the east.\n"
    "A fire burned the customs house in 1901; it was rebuilt in stone.\n"
    "Today the harbour serves ferries and a small fishing fleet."
)
LINES = [
    {"id": "fire", "quote": "A fire burned the customs house",
     "question": "What happened to the customs house?"},
    {"id": "now", "quote": "serves ferries", "question": "What uses the harbour now?"},
]  # fmt: skip
MODEL_FILE = EMBEDDING_MODEL.to_json()["file"]
MODEL_LOAD_MS = 120_000  # first use: ONNX Runtime Web and the model, on a shared machine


def cli(tmp_path: Path, *flags: str, body: str = TEXT) -> dict[str, Any]:
    text = tmp_path / "text.txt"
    text.write_text(body, encoding="utf-8")
    evidence = tmp_path / "cli.jsonl"
    evidence.write_text("\n".join(json.dumps(line) for line in LINES), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pyapp", "evidence", str(text), "--evidence", str(evidence),
         "--unit", "word", "--size", "8", "--overlap", "2", "--top-k", "2", *flags],
        capture_output=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    return {"bytes": done.stdout, "doc": json.loads(done.stdout)}


def load_passages(page: Any, tmp_path: Path, body: str = TEXT) -> None:
    configure(page, text=body, unit="word", size=8, overlap=2)
    chunks = str(native("chunk", text=body, unit="word", size=8, overlap=2)["summary"]["chunks"])
    expect_figure(page, "summary-chunks", chunks, chunks)
    budget = page.locator("#budget-panel > details:has(> summary h2)")
    if budget.count() == 1 and budget.get_attribute("open") is None:
        # From the keyboard: after a reload the evidence list comes back from storage
        # above this panel, and a click aimed as it grew once landed beside the fold
        # (two CPU hogs running); a focused summary opens on Enter wherever it moved.
        budget.locator("> summary").press("Enter")
        expect(budget).to_have_attribute("open", "")
    page.get_by_test_id("budget-top-k").fill("2")
    source = tmp_path / "evidence.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in LINES) + "\n", encoding="utf-8")
    page.locator("summary", has_text="Open or paste JSON Lines").click()
    page.get_by_test_id("evidence-file").set_input_files(str(source))
    panel = page.get_by_test_id("evidence-panel")
    expect(panel).to_have_attribute("data-state", "ready", timeout=WAIT_MS)
    expect(page.get_by_test_id("evidence-item")).to_have_count(2, timeout=WAIT_MS)


def kept_for_dense(page: Any) -> set[str]:
    """The runtime's and the model's files the service worker's caches hold, read from
    the caches themselves (not from the page's indicator)."""
    urls = page.evaluate(
        """async () => { const out = [];
             for (const name of await caches.keys()) {
               for (const r of await (await caches.open(name)).keys()) out.push(r.url); }
             return out; }"""
    )
    paths = {url.split("/", 3)[3].split("?")[0] for url in urls}
    return {p for p in paths if p.startswith(("ort/", "models/"))}


# What the page's own thread reads and posts while it embeds: every message event's
# data (from either worker) and every message it posts to a worker, each described by
# its type, the binary bytes it carries (buffers and typed arrays, nested or not) and
# whether it holds the model's ids (a `rows` list, or an answer naming `"ids"`). And the
# progress text's updates against the animation frames drawn meanwhile.
WATCH_MAIN_THREAD = """() => {
  const seen = { read: [], sent: [], updates: 0, frames: 0, stop: false };
  const describe = (data) => {
    let binary = 0, ids = false;
    const walk = (v, depth) => {
      if (v instanceof ArrayBuffer) binary += v.byteLength;
      else if (ArrayBuffer.isView(v)) binary += v.byteLength;
      else if (typeof v === "string") ids ||= v.includes('"ids"');
      else if (v && typeof v === "object" && depth < 4 && !(v instanceof MessagePort)) {
        if ("rows" in v && Array.isArray(v.rows)) ids = true;
        for (const x of Object.values(v)) walk(x, depth + 1);
      }
    };
    walk(data, 0);
    return { type: String(data?.type ?? typeof data), binary, ids };
  };
  const data = Object.getOwnPropertyDescriptor(MessageEvent.prototype, "data");
  Object.defineProperty(MessageEvent.prototype, "data", { configurable: true,
    get() { const d = data.get.call(this); seen.read.push(describe(d)); return d; } });
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, options) {
    seen.sent.push(describe(message));
    return post.call(this, message, options);
  };
  new MutationObserver((records) => { seen.updates += records.length; })
    .observe(document.querySelector('[data-testid="dense-progress-text"]'),
             { childList: true, characterData: true, subtree: true });
  const tick = () => { seen.frames += 1; if (!seen.stop) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  window.__mainThread = seen;
}"""


def plan_keys(body: str, scope: str = "evidence") -> list[str]:
    """The texts the dense check of ``body`` embeds (its chunks and the questions), or
    the sweep's (every setting's chunks and the questions), as the engine names them."""
    lines = "\n".join(json.dumps(line) for line in LINES)
    answer = native(
        "dense_plan", text=body, unit="word", size=8, overlap=2, evidence_jsonl=lines, scope=scope
    )
    return list(answer["keys"])


def test_minilm_loads_on_first_use_matches_the_cli_and_the_cache_answers_after_a_reload(
    app: Any, tmp_path: Path, session: Any
) -> None:
    load_passages(app, tmp_path)
    # Before the first use the service worker holds neither the runtime nor the model,
    # and the page says dense retrieval is not available offline yet.
    expect(app.get_by_test_id("dense-offline")).to_have_attribute("data-value", "no")
    expect(app.get_by_test_id("dense-offline")).to_contain_text("not available offline yet")
    assert kept_for_dense(app) == set()
    expect(app.get_by_test_id("dense-progress")).to_be_hidden()
    # Every stage the progress shows, as it shows it.
    app.get_by_test_id("dense-progress").evaluate(
        """(el) => { el.dataset.seen = "";
           new MutationObserver(() => { const s = el.dataset.stage;
             if (s && !el.dataset.seen.split(" ").includes(s)) el.dataset.seen += " " + s; })
           .observe(el, { attributes: true, attributeFilter: ["data-stage"] }); }"""
    )
    app.evaluate(WATCH_MAIN_THREAD)
    app.get_by_test_id("retriever").select_option("minilm")
    status = app.get_by_test_id("dense-status")
    expect(status).to_have_attribute("data-embedded", "8", timeout=MODEL_LOAD_MS)
    seen = app.get_by_test_id("dense-progress").get_attribute("data-seen").split()
    assert {"runtime", "model", "session", "embed"} <= set(seen), seen
    # The ids and the hidden states went from worker to worker: the page's thread read
    # the batch's vectors (so the watch saw the dense traffic) but no binary data and
    # no ids, and posted none. Its progress was drawn at most once a frame within a
    # stage (a new stage at once: seven at most).
    watched = app.evaluate("() => { window.__mainThread.stop = true; return window.__mainThread; }")
    carried = [m for m in watched["read"] + watched["sent"] if m["binary"] or m["ids"]]
    assert carried == [], carried
    assert "embedded" in {m["type"] for m in watched["read"]}, watched["read"]
    assert 0 < watched["updates"] <= watched["frames"] + 7, watched
    expect(app.get_by_test_id("dense-progress-text")).to_contain_text("Embedded 8 of 8 texts")
    expect(status).to_have_attribute("data-cached", "0")

    native = cli(tmp_path, "--retriever", "minilm")
    dense = native["doc"]["dense_retrieval"]
    expect(app.get_by_test_id("dense-recall")).to_have_attribute(
        "data-value", str(dense["recall_at_k"]), timeout=WAIT_MS
    )
    for metric, testid in (("recall", "recall"), ("precision", "precision"), ("iou", "iou"),
                           ("precision_omega", "precision-omega")):  # fmt: skip
        cell = app.get_by_test_id(f"range-minilm-{testid}")
        assert float(cell.get_attribute("data-value")) == dense["range_metrics"][metric]["mean"]
        assert float(cell.get_attribute("data-std")) == dense["range_metrics"][metric]["std"]
    ranks = app.get_by_test_id("evidence-dense-rank").evaluate_all(
        "els => els.map((e) => [e.dataset.rankWhole, e.dataset.rankTouching])"
    )
    assert ranks == [
        [str(i["dense_retrieval"]["rank_whole"] or ""), str(i["dense_retrieval"]["rank_touching"])]
        for i in native["doc"]["evidence"]
    ]
    assert app.get_by_test_id("range-bm25-iou").count() == 0  # BM25 was not asked for

    with app.expect_download() as reported:
        app.get_by_test_id("evidence-download").click()
    assert Path(reported.value.path()).read_bytes() == native["bytes"]

    # Both side by side: BM25's figures beside the dense ones, nothing embedded again.
    app.get_by_test_id("retriever").select_option("both")
    expect(app.get_by_test_id("range-bm25-iou")).to_have_count(1, timeout=WAIT_MS)
    expect(status).to_have_attribute("data-cached", "8")
    both = cli(tmp_path, "--retriever", "both")["doc"]
    bm25_iou = app.get_by_test_id("range-bm25-iou").get_attribute("data-value")
    assert float(bm25_iou) == both["retrieval"]["range_metrics"]["iou"]["mean"]

    # After a reload the cache answers: the model is never loaded, nothing is embedded.
    app.evaluate("() => navigator.serviceWorker.ready.then(() => true)")  # it controls the next
    app.reload()
    load_passages(app, tmp_path)
    app.get_by_test_id("retriever").select_option("minilm")
    expect(status).to_have_attribute("data-cached", "8", timeout=WAIT_MS)
    expect(status).to_have_attribute("data-embedded", "0")
    expect(status).to_have_attribute("data-calls", "0")
    expect(app.get_by_test_id("dense-recall")).to_have_attribute(
        "data-value", str(dense["recall_at_k"])
    )

    # The page now controls the service worker's cache: what it says is what it holds.
    offline = app.get_by_test_id("dense-offline")
    expect(offline).to_have_attribute("data-value", "yes", timeout=WAIT_MS)
    assert kept_for_dense(app) == {"ort/ort.wasm.min.mjs", "ort/ort-wasm-simd-threaded.wasm",
                                   "ort/ort-wasm-simd-threaded.mjs", MODEL_FILE}  # fmt: skip
    expect(offline).to_contain_text("works offline now")

    # Offline, an edited text embeds its new chunks: the model comes from that cache.
    session.allow_console_error(r"(?i)sw\.js|service ?worker|Failed to fetch|ERR_")
    app.context.set_offline(True)
    try:
        app.reload()
        edited = TEXT + " A new quay opened in 2020."
        load_passages(app, tmp_path, body=edited)
        app.get_by_test_id("retriever").select_option("minilm")
        new = len(set(plan_keys(edited)) - set(plan_keys(TEXT)))
        assert new > 0
        expect(status).to_have_attribute("data-embedded", str(new), timeout=MODEL_LOAD_MS)
        expect(status).to_have_attribute("data-cached", str(len(plan_keys(edited)) - new))
        assert int(status.get_attribute("data-calls")) > 0
    finally:
        app.context.set_offline(False)
    offline_dense = cli(tmp_path, "--retriever", "minilm", body=edited)["doc"]["dense_retrieval"]
    expect(app.get_by_test_id("dense-recall")).to_have_attribute(
        "data-value", str(offline_dense["recall_at_k"]), timeout=WAIT_MS
    )
    expect(offline).to_have_attribute("data-value", "yes")


def test_the_sweep_says_its_work_first_can_be_cancelled_and_adds_the_clis_dense_columns(
    app: Any, tmp_path: Path
) -> None:
    load_passages(app, tmp_path)
    fold = app.get_by_test_id("sweep-fold")
    if fold.get_attribute("open") is None:
        fold.locator("> summary").click()
    box = app.get_by_test_id("sweep-dense")
    expect(box).to_be_visible(timeout=WAIT_MS)
    app.get_by_test_id("sweep-dense-plan").click()
    note = app.get_by_test_id("sweep-dense-note")
    expect(note).to_contain_text("texts (every setting's chunks and the questions) to embed")
    expect(note).to_contain_text("about")
    # The texts of every setting: those this browser embedded already (an earlier test's
    # dense check of the same text, on this test process's page) are in its cache.
    texts = len(set(plan_keys(TEXT, scope="sweep")))
    planned = int(box.get_attribute("data-embed"))
    assert planned > 0 and texts > 8  # more settings than one: more chunks than one check's
    expect(note).to_contain_text(f"{planned} of {texts} texts")
    # Cancelled at once (while the model loads, or embeds if it was loaded already).
    app.get_by_test_id("sweep-dense-run").click()
    app.get_by_test_id("sweep-dense-cancel").click()
    expect(box).to_have_attribute("data-stage", "cancelled", timeout=MODEL_LOAD_MS)
    expect(note).to_contain_text("Cancelled")
    # Asked again, it goes on from what was kept, runs to the end, and the rows carry
    # the command line's figures.
    app.get_by_test_id("sweep-dense-plan").click()
    expect(note).to_contain_text(f"of {texts} texts")
    left = int(box.get_attribute("data-embed"))
    assert 0 < left <= planned
    app.get_by_test_id("sweep-dense-run").click()
    expect(box).to_have_attribute("data-embedded", str(left), timeout=MODEL_LOAD_MS)
    expect(box).to_have_attribute("data-cached", str(texts - left))
    cells = app.locator('[data-testid="sweep-table"] td[data-key="dense_recall_at_k"]')
    expect(cells.first).to_be_attached(timeout=WAIT_MS)
    shown = cells.evaluate_all("els => els.map((e) => Number(e.dataset.value))")
    text = tmp_path / "text.txt"
    evidence = tmp_path / "cli.jsonl"
    evidence.write_text("\n".join(json.dumps(line) for line in LINES), encoding="utf-8")
    text.write_text(TEXT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pyapp", "sweep", str(text), "--evidence", str(evidence),
         "--unit", "word", "--size", "8", "--overlap", "2", "--top-k", "2",
         "--retriever", "minilm"],
        capture_output=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    rows = json.loads(done.stdout)["rows"]
    assert shown == [row["dense_recall_at_k"] for row in rows]
    ious = app.locator('[data-testid="sweep-table"] td[data-key="dense_iou"]').evaluate_all(
        "els => els.map((e) => Number(e.dataset.value))"
    )
    assert ious == [row["dense_iou"] for row in rows]


class DamagedModel:
    """What the test's server answers for the model file: one byte changed, until
    ``whole`` is set."""

    def __init__(self) -> None:
        body = bytearray((Path(__file__).resolve().parents[2] / "dist" / MODEL_FILE).read_bytes())
        body[len(body) // 2] ^= 0xFF
        self.body = bytes(body)
        self.whole = False


@pytest.fixture
def damaged_site(built_site: Path) -> Iterator[tuple[str, DamagedModel]]:
    """The built site, served by a server of this test's own that answers the model
    file with one byte changed (from the server, as a bad mirror or disk would: not
    through the browser's request interception, which copies 23 MB through the test's
    driver at each fetch)."""
    model = DamagedModel()

    class Handler(build.SiteHandler):
        def do_GET(self) -> None:  # noqa: N802  (http.server's name)
            if model.whole or self.path.split("?")[0].lstrip("/") != MODEL_FILE:
                super().do_GET()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(model.body)))
            self.end_headers()
            self.wfile.write(model.body)

    with build.serving_in_background(built_site, Handler) as url:
        yield url, model


def test_a_damaged_model_is_refused_inline_and_nothing_is_lost(
    page: Any, session: Any, damaged_site: tuple[str, DamagedModel], tmp_path: Path
) -> None:
    """The site serves a model file with one byte changed. On a first visit the model's
    worker refuses it by its sha256; once the service worker controls the page, the
    service worker refuses it, saying why. Either way the panel says so above BM25's
    figures and keeps the text and the passages; once the file is whole again, the
    next check loads it."""
    url, model = damaged_site
    session.origin = url.rstrip("/")
    open_ready(page, url)
    load_passages(page, tmp_path)
    bm25 = page.get_by_test_id("retrieval-recall").get_attribute("data-value")
    assert bm25 not in (None, "")
    assert page.evaluate("() => navigator.serviceWorker.controller") is None  # a first visit
    page.get_by_test_id("retriever").select_option("minilm")
    error = page.get_by_test_id("evidence-error")
    expect(error).to_be_visible(timeout=MODEL_LOAD_MS)
    expect(error).to_contain_text("the model file has sha256")
    expect(error).to_contain_text(f"not the pinned {EMBEDDING_MODEL.sha256[:12]}")
    expect(error).to_contain_text("damaged")
    expect(error).to_contain_text("The figures below are BM25's")
    expect(page.get_by_test_id("evidence-panel")).to_have_attribute("data-dense", "failed")
    # Nothing is lost: the text, the two passages checked, BM25's figure, the choice.
    assert page.get_by_test_id("text-input").input_value() == TEXT
    expect(page.get_by_test_id("evidence-item")).to_have_count(2)
    expect(page.get_by_test_id("retrieval-recall")).to_have_attribute("data-value", bm25)
    expect(page.get_by_test_id("dense-recall")).to_have_attribute("data-value", "")
    page.get_by_test_id("retriever").select_option("bm25")
    expect(error).to_be_hidden()
    expect(page.get_by_test_id("retrieval-recall")).to_have_attribute("data-value", bm25)

    # The service worker controls the page now: it checks the file as it keeps it.
    page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    wait_until_ready(page)
    load_passages(page, tmp_path)
    assert page.evaluate("() => navigator.serviceWorker.controller !== null")
    page.get_by_test_id("retriever").select_option("minilm")
    expect(error).to_be_visible(timeout=MODEL_LOAD_MS)
    expect(error).to_contain_text(f"{MODEL_FILE} has sha256")
    expect(error).to_contain_text(f"not this build's {EMBEDDING_MODEL.sha256[:12]}")
    expect(page.get_by_test_id("evidence-item")).to_have_count(2)
    expect(page.get_by_test_id("retrieval-recall")).to_have_attribute("data-value", bm25)

    # The file whole again: the next dense check loads it and embeds.
    model.whole = True
    page.get_by_test_id("retriever").select_option("both")
    status = page.get_by_test_id("dense-status")
    expect(status).to_have_attribute("data-embedded", "8", timeout=MODEL_LOAD_MS)
    expect(error).to_be_hidden()
    native = cli(tmp_path, "--retriever", "minilm")["doc"]["dense_retrieval"]
    expect(page.get_by_test_id("dense-recall")).to_have_attribute(
        "data-value", str(native["recall_at_k"])
    )

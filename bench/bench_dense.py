"""Dense retrieval benchmark (a script, not a test): all-MiniLM-L6-v2 over 1 MB.

    python bench/bench_dense.py [--bytes N] [--no-page]

Rows, natively and in the page, one run (run it once: 1 MB is about a thousand
256-token chunks, a minute or more per side on a shared core):

* **native throughput**: :func:`pyapp.core.dense.embed_texts` (batches of one length,
  onnxruntime, pooling, normalization) against a bare onnxruntime loop over the same
  id batches on the same session (one thread), interleaved: the batches in
  ``--rounds`` blocks, each run by both, in turn first; the median of the blocks'
  bare/ours ratios, in wall and CPU time, should be at least 0.8. Beside it, in CPU
  time against the model's: the tokenization (:func:`~pyapp.core.dense.plan`), the
  pooling and the rest, and the ``--cache`` folder's writes and reads;
* **native memory**: the process's peak RSS after embedding;
* **page** (built ``dist/``, headless Chromium): the evidence panel with
  ``retriever = minilm`` on the same text (token unit, bert-base-uncased, 254-token
  chunks), first use (runtime and model load, reported apart) and chunks per second
  against native; the main thread meanwhile, until the figures are drawn: the Long
  Tasks API's entries over 50 ms, and from a trace every task's wall and CPU time
  (garbage collection apart: the Long Tasks API does not report it);
  the page's JS heap after (CDP ``Runtime.getHeapUsage``, the page only, not its workers);
* **agreement**: every chunk's page vector (read back from the page's IndexedDB)
  against the native one: the smallest cosine (should be at least 0.9999); and the
  ranks: for each question, every pair of chunks whose native scores differ by more
  than 1e-4 is in the same order in the page's scores.
"""

from __future__ import annotations

import argparse
import base64
import functools
import http.server
import json
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engine import english  # noqa: E402
from machine import machine  # noqa: E402

from pyapp.core.dense import (  # noqa: E402
    Plan,
    batches,
    cosine_scores,
    embed_texts,
    model_ids,
    plan,
    text_key,
    unpack,
)
from pyapp.core.evidence_report import dense_texts  # noqa: E402
from pyapp.core.params import parse_params  # noqa: E402
from pyapp.embedder import DirStore, open_embedder  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SIZE = 254  # word pieces per chunk: with [CLS] and [SEP], the model's 256
QUESTIONS = ["Where is the evidence index?", "What does the retrieval budget hold?",
             "How does the chunk overlap the window?"]  # fmt: skip


def evidence_lines(text: str) -> str:
    lines = []
    for n, question in enumerate(QUESTIONS):
        at = len(text) * (n + 1) // (len(QUESTIONS) + 1)
        lines.append(
            json.dumps({"id": f"q{n}", "start": at, "end": at + 120, "question": question})
        )
    return "\n".join(lines)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def native_rows(
    text: str, lines: str, *, bare_loop: bool = True, rounds: int = 6
) -> dict[str, Any]:
    """Ours and the bare loop interleaved: the id batches cut into ``rounds`` blocks,
    each block run by both on one session (one thread), in turn first (ours, bare;
    then bare, ours; ...), so both meet the same load; the ratio is each block's
    bare/ours, and the row is their median, in wall and in CPU time."""
    params = parse_params(unit="token", encoding="bert-base-uncased", size=SIZE, overlap=0)
    texts = dense_texts(text, params, jsonl=lines)
    model_ids("warm")  # the vocabulary read once, before any clock
    began = _clocks()
    work = plan(texts)
    tokenize = [b - a for a, b in zip(began, _clocks(), strict=True)]
    embedder = open_embedder(threads=1)
    session, np = embedder._session, embedder._np
    every = batches(work.missing)

    def bare(block: list[list[str]]) -> None:
        for batch in block:
            ids = np.array([work.missing[k] for k in batch], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                     "token_type_ids": np.zeros_like(ids)}  # fmt: skip
            session.run(["last_hidden_state"], feeds)

    vectors: dict[str, list[float]] = {}

    def ours(block: list[list[str]]) -> None:
        part = Plan({}, {k: work.missing[k] for batch in block for k in batch})
        assert batches(part.missing) == block  # the same batches the bare loop runs
        vectors.update(embed_texts(part, embedder))

    bare(every[-1:])  # the session's first run (its allocations) timed by neither
    step = -(-len(every) // rounds)
    blocks = [every[i : i + step] for i in range(0, len(every), step)]
    spent = {"ours": [0.0, 0.0], "bare": [0.0, 0.0]}
    ratios: dict[str, list[float]] = {"wall": [], "cpu": []}
    for n, block in enumerate(blocks):
        took = {}
        for name in ("ours", "bare") if n % 2 == 0 else ("bare", "ours"):
            if name == "bare" and not bare_loop:
                continue
            began = _clocks()
            (ours if name == "ours" else bare)(block)
            took[name] = [b - a for a, b in zip(began, _clocks(), strict=True)]
            spent[name] = [x + y for x, y in zip(spent[name], took[name], strict=True)]
        if bare_loop:
            ratios["wall"].append(took["bare"][0] / took["ours"][0])
            ratios["cpu"].append(took["bare"][1] / took["ours"][1])
    with tempfile.TemporaryDirectory() as folder:
        store = DirStore(folder)
        began = _clocks()
        for key, vector in vectors.items():
            store.put(key, vector)
        for key in vectors:
            store.get(key)
        cache = [b - a for a, b in zip(began, _clocks(), strict=True)]
    return {
        "texts": len(texts), "chunks": len(texts) - len(QUESTIONS), "batches": len(every),
        "rounds": len(blocks), "ours_s": spent["ours"][0], "bare_s": spent["bare"][0],
        "ours_cpu": spent["ours"][1], "bare_cpu": spent["bare"][1], "ratios": ratios,
        "tokenize_s": tokenize[1], "cache_s": cache[1],
        "vectors": vectors, "texts_list": texts,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }  # fmt: skip


def page_rows(text: str, lines: str) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    import build

    class Quiet(build.SiteHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    handler = functools.partial(Quiet, directory=str(build.DIST))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    with sync_playwright() as p:
        chromium = build.find_chromium() or "/usr/bin/chromium"
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(url)
        page.wait_for_selector('[data-testid="status"][data-state="ready"]', timeout=120_000)
        page.get_by_test_id("text-input").fill(text, timeout=600_000)
        page.get_by_test_id("unit-token").check()
        page.get_by_test_id("encoding-select").select_option("bert-base-uncased")
        page.get_by_test_id("size-input").fill(str(SIZE))
        page.get_by_test_id("overlap-input").fill("0")
        page.locator("summary", has_text="Open or paste JSON Lines").click()
        page.get_by_test_id("evidence-jsonl").fill(lines)
        page.get_by_test_id("evidence-paste-add").click()
        page.wait_for_selector(
            '[data-testid="evidence-panel"][data-state="ready"]', timeout=300_000
        )
        page.evaluate("""() => { window.__tasks = []; new PerformanceObserver((l) => {
            for (const e of l.getEntries()) window.__tasks.push(Math.round(e.duration)); })
            .observe({ type: "longtask", buffered: false }); }""")
        trace = Path(tempfile.mkdtemp()) / "trace.json"
        browser.start_tracing(page=page, path=str(trace), categories=["toplevel"])
        began = time.perf_counter()
        page.get_by_test_id("retriever").select_option("minilm")
        page.wait_for_selector('[data-testid="dense-status"][data-embedded]', timeout=3_600_000)
        wall = time.perf_counter() - began
        # Until the figures are drawn: the evidence call with every vector, and its render.
        page.wait_for_selector('[data-testid="dense-recall"]:not([data-value=""])')
        status = page.get_by_test_id("dense-status")
        load_ms = float(status.get_attribute("data-load-ms") or "nan")
        long_tasks = page.evaluate("() => window.__tasks")
        browser.stop_tracing()
        cdp = page.context.new_cdp_session(page)
        heap = cdp.send("Runtime.getHeapUsage")["usedSize"] / 1e6
        stored = page.evaluate("""() => new Promise((resolve) => {
            const open = indexedDB.open("rag-overlap-dense");
            open.onsuccess = () => { const out = {}; const tx = open.result.transaction("vectors");
              const cursor = tx.objectStore("vectors").openCursor();
              cursor.onsuccess = () => { const c = cursor.result;
                if (c) { out[c.key] = c.value; c.continue(); } };
              tx.oncomplete = () => resolve(out); }; })""")
        browser.close()
    server.shutdown()
    vectors = {k.split(":", 1)[1]: unpack(base64.b64decode(v)) for k, v in stored.items()}
    return {"wall_s": wall, "load_ms": load_ms, "long_tasks": long_tasks, "heap_mb": heap,
            "vectors": vectors, "main_tasks": main_thread_tasks(trace)}  # fmt: skip


def main_thread_tasks(trace: Path) -> list[tuple[float, float, str]]:
    """Every task of the page's main thread in a trace (category ``toplevel``): wall
    and CPU milliseconds, and where it was posted from (a GC task names V8's heap)."""
    data = json.loads(trace.read_text("utf-8"))
    events = data["traceEvents"] if isinstance(data, dict) else data
    threads = {
        (e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"
    }
    busiest: dict[tuple[int, int], list[tuple[float, float, str]]] = {}
    for e in events:
        where = (e.get("pid"), e.get("tid"))
        if (
            e.get("name") == "ThreadControllerImpl::RunTask"
            and threads.get(where) == "CrRendererMain"
        ):
            posted = f"{e['args'].get('src_file', '')}:{e['args'].get('src_func', '')}"
            busiest.setdefault(where, []).append((e["dur"] / 1000, e.get("tdur", 0) / 1000, posted))
    trace.unlink()
    return max(busiest.values(), key=len, default=[])  # the page's (the busiest) renderer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bytes", type=int, default=1_000_000)
    parser.add_argument("--no-page", action="store_true")
    parser.add_argument("--no-bare", action="store_true", help="skip the bare onnxruntime loop")
    parser.add_argument("--rounds", type=int, default=6, help="ours and bare, in turn first")
    args = parser.parse_args()
    text = english(args.bytes)
    lines = evidence_lines(text)
    print(f"# dense retrieval, {args.bytes:,} bytes, {machine()}")
    native = native_rows(text, lines, bare_loop=not args.no_bare, rounds=args.rounds)
    n = native["texts"]
    print(f"native: {n:,} texts ({native['chunks']:,} chunks, {native['batches']} batches) in"
          f" {native['ours_s']:.1f} s = {n / native['ours_s']:.1f} texts/s"
          f" ({native['ours_cpu']:.1f} s CPU)")  # fmt: skip
    if not args.no_bare:
        wall, cpu = native["ratios"]["wall"], native["ratios"]["cpu"]
        rounds = native["rounds"]
        each = f"wall {' '.join(f'{r:.3f}' for r in wall)}, CPU {' '.join(f'{r:.3f}' for r in cpu)}"
        print(f"native: bare onnxruntime loop over the same batches, interleaved in {rounds}"
              f" rounds: {native['bare_s']:.1f} s ({native['bare_cpu']:.1f} s CPU);"
              f" bare/ours per round: {each}; median wall {_median(wall):.3f},"
              f" CPU {_median(cpu):.3f} (target >= 0.8)")  # fmt: skip
        model, ours_cpu = native["bare_cpu"], native["ours_cpu"]
        tok, cache = native["tokenize_s"], native["cache_s"]
        print(f"native: beside the model's {model:.1f} s CPU: tokenization (plan) {tok:.2f} s"
              f" ({tok / model:.1%}); batching, pooling and normalization"
              f" {ours_cpu - model:.2f} s ({(ours_cpu - model) / model:.1%}); the --cache"
              f" folder (every vector written and read) {cache:.2f} s ({cache / model:.1%});"
              f" bare/(ours + tokenization) {model / (ours_cpu + tok):.3f} in CPU")  # fmt: skip
    print(f"native: peak RSS {native['peak_rss_mb']:.0f} MB after embedding")
    if args.no_page:
        return 0
    page = page_rows(text, lines)
    embed_s = page["wall_s"] - page["load_ms"] / 1000
    print(f"page: first use {page['wall_s']:.1f} s, of which loading runtime and model"
          f" {page['load_ms'] / 1000:.1f} s; embedding {n / embed_s:.1f} texts/s ="
          f" {native['ours_s'] / embed_s:.2f}x native;"
          f" page JS heap {page['heap_mb']:.0f} MB")  # fmt: skip
    long = page["long_tasks"]
    print(f"page: Long Tasks API meanwhile: {len(long)} over 50 ms"
          + (f", longest {max(long)} ms" if long else ""))  # fmt: skip
    tasks = page["main_tasks"]
    gc = [t for t in tasks if "/heap/" in t[2]]
    rest = [t for t in tasks if "/heap/" not in t[2]]
    for name, group in (("script, style, layout, paint", rest), ("garbage collection", gc)):
        if not group:
            continue
        wall, cpu = max(group), max(group, key=lambda t: t[1])
        over = sum(t[0] > 50 for t in group)
        print(f"page: main-thread {name} tasks (trace): {len(group):,}, {over} over 50 ms wall;"
              f" longest {wall[0]:.0f} ms wall ({wall[1]:.0f} ms CPU, posted from {wall[2]});"
              f" most CPU {cpu[1]:.0f} ms ({cpu[0]:.0f} ms wall, {cpu[2]})")  # fmt: skip
    ours, theirs = native["vectors"], page["vectors"]
    keys = [text_key(t) for t in native["texts_list"]]
    missing = [k for k in keys if k not in theirs]
    cosines = [
        sum(a * b for a, b in zip(ours[k], theirs[k], strict=True)) for k in keys if k in theirs
    ]
    print(f"agreement: {len(cosines):,} vectors compared ({len(missing)} missing in the page);"
          f" smallest cosine {min(cosines):.7f} (target >= 0.9999)")  # fmt: skip
    chunk_keys = keys[: native["chunks"]]
    flipped = pairs = 0
    for question in QUESTIONS:
        q = text_key(question)
        a = cosine_scores(ours[q], [ours[k] for k in chunk_keys])
        b = cosine_scores(theirs[q], [theirs[k] for k in chunk_keys])
        order = sorted(range(len(a)), key=lambda i: -a[i])
        for i, j in zip(order, order[1:], strict=False):
            if a[i] - a[j] > 1e-4:
                pairs += 1
                flipped += b[i] < b[j]
    print(
        f"agreement: {pairs:,} neighbouring pairs with native scores > 1e-4 apart,"
        f" {flipped} in another order in the page"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

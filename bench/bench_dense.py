"""Dense retrieval benchmark (a script, not a test): all-MiniLM-L6-v2 over 1 MB.

    python bench/bench_dense.py [--bytes N] [--no-page] [--no-bare] [--write]

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
  against native, in wall time and in CPU time (the embedder's worker thread, from
  the trace, against native's process time); the main thread meanwhile, until the
  figures are drawn: the Long Tasks API's entries over 50 ms, and from a trace
  (``toplevel``, ``devtools.timeline`` and ``v8``) every task's wall and CPU (thread)
  time, its share of the embedding's wall time, and for each task over 50 ms what
  ran in it (the event inside that used the most CPU: a script function, a timer,
  a garbage collection, a layout); the load average before and after; the page's JS
  heap after (CDP ``Runtime.getHeapUsage``, the page only, not its workers);
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
import os
import platform
import resource
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engine import english  # noqa: E402
from machine import machine  # noqa: E402
from results import put_section  # noqa: E402

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
TRACE_CATEGORIES = ["toplevel", "devtools.timeline", "v8", "blink.user_timing"]
EMBED_MARK = "bench:embed"  # the page's user-timing mark as the embedder is chosen
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


def chunk_count(text: str) -> int:
    """The setting's chunks, as the engine counts them (the page's summary figure)."""
    from pyapp.web.api import handle

    request = {"op": "chunk", "text": text, "unit": "token", "encoding": "bert-base-uncased",
               "size": SIZE, "overlap": 0}  # fmt: skip
    return int(json.loads(handle(json.dumps(request)))["result"]["summary"]["chunks"])


def poll(page: Any, selector: str, seconds: float) -> None:
    """Waits until ``selector`` matches, asking once a second."""
    deadline = time.monotonic() + seconds
    while page.locator(selector).count() == 0:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{selector} did not appear in {seconds:.0f} s")
        time.sleep(1)


def page_rows(
    text: str, lines: str, keep_trace: Path | None = None, settle: float = 30
) -> dict[str, Any]:
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
        # The view of this setting on screen before the passages go in (a list added
        # while an older setting's view was on its way was left "checking").
        page.wait_for_selector(
            f'[data-testid="summary-chunks"][data-value="{chunk_count(text)}"]', timeout=600_000
        )
        page.locator("summary", has_text="Open or paste JSON Lines").click()
        page.get_by_test_id("evidence-jsonl").fill(lines)
        page.get_by_test_id("evidence-paste-add").click()
        try:
            page.wait_for_selector(
                '[data-testid="evidence-panel"][data-state="ready"]', timeout=300_000
            )
        except Exception:
            panel = page.get_by_test_id("evidence-panel")
            print(f"the evidence panel stayed {panel.get_attribute('data-state')!r}:"
                  f" {panel.inner_text()[:400]!r}", file=sys.stderr)  # fmt: skip
            raise
        page.evaluate("""() => { window.__tasks = []; new PerformanceObserver((l) => {
            for (const e of l.getEntries())
              window.__tasks.push([Math.round(e.startTime), Math.round(e.duration)]); })
            .observe({ type: "longtask", buffered: false }); }""")
        trace = Path(tempfile.mkdtemp()) / "trace.json"
        browser.start_tracing(page=page, path=str(trace), categories=TRACE_CATEGORIES)
        # The page left alone first: the collection of what loading 1 MB left behind
        # (the memory reducer's, some seconds later) is the page's, not the embedder's.
        time.sleep(settle)
        embed_at = page.evaluate("() => { performance.mark(MARK); return performance.now(); }"
                                 .replace("MARK", json.dumps(EMBED_MARK)))  # fmt: skip
        load_before = os.getloadavg()
        memory_before = renderer_memory_mb()
        began = time.perf_counter()
        page.get_by_test_id("retriever").select_option("minilm")
        # Polled every second rather than waited on with wait_for_selector, whose
        # polling would add its own tasks to the page's thread being measured.
        poll(page, '[data-testid="dense-status"][data-embedded]', 3600)
        wall = time.perf_counter() - began
        # Until the figures are drawn: the evidence call with every vector, and its render.
        poll(page, '[data-testid="dense-recall"]:not([data-value=""])', 600)
        drawn = time.perf_counter() - began
        load_after = os.getloadavg()
        memory_after = renderer_memory_mb()
        status = page.get_by_test_id("dense-status")
        load_ms = float(status.get_attribute("data-load-ms") or "nan")
        every = page.evaluate("() => window.__tasks")
        long_tasks = [d for at, d in every if at >= embed_at]
        idle_long = [d for at, d in every if at < embed_at]
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
    return {"wall_s": wall, "drawn_s": drawn, "load_ms": load_ms, "long_tasks": long_tasks,
            "idle_long_tasks": idle_long, "settle_s": settle,
            "heap_mb": heap, "vectors": vectors, "load": (load_before, load_after),
            "renderer_mb": (memory_before, memory_after),
            **read_trace(trace, keep_trace)}  # fmt: skip


def renderer_memory_mb() -> dict[str, float] | None:
    """This benchmark's Chromium renderer processes (the page with its workers, the
    engine's and the model's, and the service worker), read from /proc: their resident
    memory now and at its peak (VmRSS and VmHWM summed), in MB; None without /proc."""
    proc = Path("/proc")
    if not (proc / "self" / "status").exists():
        return None
    parents: dict[int, int] = {}
    for entry in proc.iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    mine, grew = {os.getpid()}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in mine} - mine
        grew = bool(more)
        mine |= more
    now = peak = 0.0
    for pid in mine:
        try:
            if b"--type=renderer" not in (proc / str(pid) / "cmdline").read_bytes():
                continue
            fields = dict(
                line.split(":", 1)
                for line in (proc / str(pid) / "status").read_text().splitlines()
                if ":" in line
            )
        except OSError:
            continue
        now += int(fields["VmRSS"].split()[0]) / 1024
        peak += int(fields["VmHWM"].split()[0]) / 1024
    return {"now": now, "peak": peak}


TASK = "ThreadControllerImpl::RunTask"


def _what(event: dict[str, Any]) -> str:
    """An event inside a task, named for a reader: a script function by its file and
    name, an event or timer by its kind, a collection or a layout by itself."""
    data = event.get("args", {}).get("data", {}) or {}
    name = str(event.get("name", ""))
    if name == "FunctionCall" or name == "EvaluateScript":
        where = str(data.get("url", "")).rsplit("/", 1)[-1]
        return f"{name} {where}:{data.get('functionName', '') or '(anonymous)'}"
    if name == "EventDispatch":
        return f"EventDispatch {data.get('type', '')}"
    return name


def read_trace(trace: Path, keep: Path | None = None) -> dict[str, Any]:
    """From a trace: every task of the page's main thread (wall and CPU milliseconds,
    where it was posted from, and the event inside it that used the most CPU); and each
    worker thread's CPU seconds in all (the busiest is the embedder's)."""
    data = json.loads(trace.read_text("utf-8"))
    if keep is None:
        trace.unlink()
    else:
        trace.replace(keep)
    events = data["traceEvents"] if isinstance(data, dict) else data
    threads = {
        (e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"
    }
    by_thread: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for e in events:
        if e.get("ph") == "X" and "dur" in e:
            by_thread.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    marks = [e["ts"] for e in events if e.get("name") == EMBED_MARK]
    mark = min(marks) if marks else float("-inf")
    mains = [t for t in by_thread if threads.get(t) == "CrRendererMain"]
    main = max(mains, key=lambda t: sum(e["name"] == TASK for e in by_thread[t]), default=None)
    tasks: list[dict[str, Any]] = []
    for e in sorted(by_thread.get(main, []) if main else [], key=lambda e: e["ts"]):
        if e["name"] == TASK:
            posted = f"{e['args'].get('src_file', '')}:{e['args'].get('src_func', '')}"
            tasks.append({"wall": e["dur"] / 1000, "cpu": e.get("tdur", 0) / 1000,
                          "ts": e["ts"], "end": e["ts"] + e["dur"], "posted": posted,
                          "inside": None, "inside_cpu": 0.0})  # fmt: skip
    # What ran inside each long task (tasks do not overlap), and when (seconds from the
    # embedder's choice): its events by CPU, the
    # three that used the most (a wrapper such as "Receive mojo message" and what it
    # ran both show), at most one per name.
    long = [t for t in tasks if t["wall"] > 50 or t["cpu"] > 20]
    first = next((t["ts"] for t in tasks if t["ts"] >= mark), tasks[0]["ts"] if tasks else 0)
    if long and main:
        inner = sorted((e for e in by_thread[main] if e["name"] != TASK), key=lambda e: e["ts"])
        i = 0
        for task in long:
            task["at_s"] = (task["ts"] - first) / 1e6
            while i < len(inner) and inner[i]["ts"] < task["ts"]:
                i += 1
            j = i
            named: dict[str, float] = {}
            while j < len(inner) and inner[j]["ts"] < task["end"]:
                cpu = inner[j].get("tdur", inner[j]["dur"]) / 1000
                what = _what(inner[j])
                named[what] = max(named.get(what, 0.0), cpu)
                j += 1
            top = sorted(named.items(), key=lambda kv: -kv[1])[:3]
            if top:
                task["inside"] = ", ".join(f"{w} {c:.0f} ms" for w, c in top)
                task["inside_cpu"] = top[0][1]
    workers = sorted(
        (sum(e.get("tdur", 0) for e in by_thread[t] if e["name"] == TASK and e["ts"] >= mark)
         / 1e6
         for t in by_thread if threads.get(t, "").startswith("DedicatedWorker")),
        reverse=True,
    )  # fmt: skip
    during = [t for t in tasks if t["ts"] >= mark]
    before = [t for t in tasks if t["ts"] < mark]
    return {"main_tasks": during, "idle_tasks": before, "worker_cpu_s": workers}


def _load(pair: tuple[tuple[float, ...], tuple[float, ...]]) -> str:
    return f"{pair[0][0]:.1f} before, {pair[1][0]:.1f} after"


def _task(t: dict[str, Any]) -> str:
    inside = f"; inside, by CPU: {t['inside']}" if t["inside"] else ""
    at = f" at {t['at_s']:.1f} s" if "at_s" in t else ""
    posted = t["posted"].split("(", 1)[0]  # a C++ signature without its parameters
    return f"{t['wall']:.0f} ms wall, {t['cpu']:.0f} ms CPU{at} (posted from {posted}{inside})"


def native_table(native: dict[str, Any], bare_loop: bool) -> list[str]:
    n = native["texts"]
    rows = [
        "| row | figure | target |",
        "|---|---|---|",
        f"| native: ours, {n:,} texts ({native['chunks']:,} chunks, {native['batches']} batches)"
        f" | {native['ours_s']:.1f} s wall, {native['ours_cpu']:.1f} s CPU"
        f" ({n / native['ours_s']:.1f} texts/s wall) | |",
    ]
    if bare_loop:
        wall, cpu = native["ratios"]["wall"], native["ratios"]["cpu"]
        model, ours_cpu = native["bare_cpu"], native["ours_cpu"]
        tok, cache = native["tokenize_s"], native["cache_s"]
        rows += [
            f"| native: bare loop, same batches, same session, interleaved in"
            f" {native['rounds']} blocks | {native['bare_s']:.1f} s wall, {model:.1f} s CPU | |",
            f"| bare/ours per block, CPU | {' '.join(f'{r:.3f}' for r in cpu)}:"
            f" **median {_median(cpu):.3f}** | ≥ 0.8 |",
            f"| bare/ours per block, wall | {' '.join(f'{r:.3f}' for r in wall)}:"
            f" median {_median(wall):.3f} | |",
            f"| beside the model's {model:.1f} s CPU: tokenization (ids of every text)"
            f" | {tok:.2f} s ({tok / model:.1%}) | |",
            f"| batching, pooling and normalization | {ours_cpu - model:.2f} s"
            f" ({(ours_cpu - model) / model:.1%}) | |",
            f"| the `--cache` folder, every vector written and read back | {cache:.2f} s"
            f" ({cache / model:.1%}) | |",
            f"| bare/(ours + tokenization), CPU | {model / (ours_cpu + tok):.3f} | |",
        ]  # fmt: skip
    rows.append(f"| native: peak RSS after embedding | {native['peak_rss_mb']:.0f} MB | |")
    return rows


def page_table(native: dict[str, Any], page: dict[str, Any]) -> list[str]:
    n = native["texts"]
    embed_s = page["wall_s"] - page["load_ms"] / 1000
    workers = page["worker_cpu_s"]
    embedder_cpu = workers[0] if workers else float("nan")
    long = page["long_tasks"]
    tasks = page["main_tasks"]
    busy = sum(t["cpu"] for t in tasks) / 1000
    gc = [t for t in tasks if "/heap/" in t["posted"]]
    rest = [t for t in tasks if "/heap/" not in t["posted"]]
    rows = [
        "| row | figure | target |",
        "|---|---|---|",
        f"| first use: runtime and model loaded ({page['load_ms'] / 1000:.1f} s of it), then"
        f" {n:,} texts embedded | {page['wall_s']:.1f} s; {n / embed_s:.2f} texts/s ="
        f" **{native['ours_s'] / embed_s:.2f}× native's wall** (both under the load below) | |",
        f"| the same in CPU time: the embedder's worker thread against native's process"
        f" | {embedder_cpu:.1f} s against {native['ours_cpu']:.1f} s ="
        f" **{native['ours_cpu'] / embedder_cpu:.2f}× native** (the other worker threads:"
        f" {', '.join(f'{w:.1f} s' for w in workers[1:]) or 'none'}) | |",
        f"| load average (1 min) over the page row | {_load(page['load'])} | as quiet as"
        " could be had |",
        f"| main thread, Long Tasks API, until the figures are drawn | {len(long)} over 50 ms"
        + (f", longest {max(long)} ms" if long else "") + " | none over 50 ms |",
        f"| main thread, trace: its CPU in all, while embedding and drawing"
        f" ({page['drawn_s']:.1f} s wall) | {busy:.2f} s = {busy / page['drawn_s']:.1%} of the"
        f" wall time, in {len(tasks):,} tasks | |",
    ]  # fmt: skip
    for name, group in (("script, style, layout and paint tasks", rest), ("GC tasks", gc)):
        if not group:
            continue
        wall = max(group, key=lambda t: t["wall"])
        cpu = max(group, key=lambda t: t["cpu"])
        over = [t for t in group if t["wall"] > 50]
        over_cpu = sum(t["cpu"] > 50 for t in group)
        rows += [
            f"| main thread, trace, {name}: over 50 ms | {len(over)} in wall time,"
            f" **{over_cpu} in CPU time**, of {len(group):,} | |",
            f"| … the longest in wall time | {_task(wall)} | |",
            f"| … the most CPU | {_task(cpu)} | |",
        ]
    idle, idle_long = page["idle_tasks"], page["idle_long_tasks"]
    if idle:
        over = [t for t in idle if t["wall"] > 50]
        most = max(idle, key=lambda t: t["cpu"])
        rows.append(
            f"| before it, the page left alone for {page['settle_s']:.0f} s (passages checked"
            f" with BM25, text and setting on screen): main-thread tasks over 50 ms"
            f" | Long Tasks API {len(idle_long)}"
            + (f" (longest {max(idle_long)} ms)" if idle_long else "")
            + f"; trace {len(over)} in wall time, {sum(t['cpu'] > 50 for t in idle)} in CPU"
            f" time; the most CPU: {_task(most)} | |"
        )  # fmt: skip
    rows.append(f"| page JS heap after (its workers not counted) | {page['heap_mb']:.0f} MB | |")
    before, after = page["renderer_mb"]
    if before is not None and after is not None:
        rows.append(
            "| the page's renderer process (the page, both workers, the service worker):"
            f" resident memory | {before['now']:,.0f} MB before embedding, {after['now']:,.0f} MB"
            f" after, {after['peak']:,.0f} MB at its peak | |"
        )
    return rows


def agreement_table(native: dict[str, Any], page: dict[str, Any]) -> list[str]:
    ours, theirs = native["vectors"], page["vectors"]
    keys = [text_key(t) for t in native["texts_list"]]
    missing = [k for k in keys if k not in theirs]
    cosines = [
        sum(a * b for a, b in zip(ours[k], theirs[k], strict=True)) for k in keys if k in theirs
    ]
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
    return [
        f"| agreement: smallest cosine, page vector against native, every text"
        f" | {min(cosines):.7f} ({len(cosines):,} of {len(keys):,}; {len(missing)} missing)"
        " | ≥ 0.9999 |",
        f"| agreement: neighbouring chunk pairs > 1e-4 apart natively, in another order in"
        f" the page | {flipped} of {pairs:,} | 0 |",
    ]  # fmt: skip


def wait_for_quiet(below: float | None, most: float) -> float:
    """Seconds waited until the 1-minute load average fell below ``below`` (checked
    every 10 s, at most ``most`` seconds); 0 when no bound is asked for."""
    if below is None:
        return 0.0
    began = time.monotonic()
    while os.getloadavg()[0] >= below and time.monotonic() - began < most:
        time.sleep(10)
    return time.monotonic() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bytes", type=int, default=1_000_000)
    parser.add_argument("--no-page", action="store_true")
    parser.add_argument("--no-bare", action="store_true", help="skip the bare onnxruntime loop")
    parser.add_argument("--rounds", type=int, default=6, help="ours and bare, in turn first")
    parser.add_argument("--write", action="store_true", help="put the rows into bench/RESULTS.md")
    parser.add_argument("--trace", type=Path, help="keep the page's trace in this file")
    parser.add_argument(
        "--quiet-below",
        type=float,
        default=None,
        metavar="LOAD",
        help="before the native rows and the page row, wait until the 1-minute load average is"
        " below LOAD (at most --quiet-wait seconds)",
    )
    parser.add_argument("--quiet-wait", type=float, default=900, metavar="S")
    parser.add_argument("--settle", type=float, default=30, metavar="S",
                        help="seconds the page is left alone (traced) before the embedder is"
                        " chosen")  # fmt: skip
    args = parser.parse_args()
    text = english(args.bytes)
    lines = evidence_lines(text)
    native_waited = wait_for_quiet(args.quiet_below, args.quiet_wait)
    began = os.getloadavg()
    native = native_rows(text, lines, bare_loop=not args.no_bare, rounds=args.rounds)
    native_load = (began, os.getloadavg())
    out = [
        "## Dense retrieval: all-MiniLM-L6-v2 natively and in the page"
        " (`python bench/bench_dense.py`)",
        "",
        f"Written by `python bench/bench_dense.py{' --write' if args.write else ''}`:"
        f" {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}, {machine()}, CPython"
        f" {platform.python_version()}; English prose, {args.bytes:,} bytes, token unit,"
        f" `bert-base-uncased`, {SIZE}-token chunks ({SIZE + 2} with `[CLS]` and `[SEP]`),"
        f" overlap 0, {len(QUESTIONS)} questions; one run. Load average (1 min) over the"
        f" native rows: {_load(native_load)}"
        + (
            f" (they began after {native_waited:.0f} s of waiting for a load average below"
            f" {args.quiet_below:g})."
            if args.quiet_below is not None
            else "."
        ),  # fmt: skip
        "",
        *native_table(native, not args.no_bare),
    ]
    if not args.no_page:
        waited = wait_for_quiet(args.quiet_below, args.quiet_wait)
        page = page_rows(text, lines, args.trace, args.settle)
        quiet = ""
        if args.quiet_below is not None and waited < args.quiet_wait:
            quiet = (f" It began once the load average was below {args.quiet_below:g}"
                     f" (after {waited:.0f} s).")  # fmt: skip
        elif args.quiet_below is not None:
            quiet = (f" The load average stayed above {args.quiet_below:g} for {waited:.0f} s:"
                     " it began anyway.")  # fmt: skip
        out += ["", "**In the page** (the same text; the evidence panel with"
                f" `retriever = minilm`).{quiet}", "", *page_table(native, page),
                *agreement_table(native, page)]  # fmt: skip
        over = [t for t in page["main_tasks"] if t["wall"] > 50]
        if over:
            out += ["", "Main-thread tasks over 50 ms in wall time, the longest first:", ""]
            out += [f"- {_task(t)}" for t in sorted(over, key=lambda t: -t["wall"])[:8]]
    print("\n".join(out))
    if args.write:
        put_section("bench_dense", "\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

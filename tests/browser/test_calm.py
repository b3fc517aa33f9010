"""The text is kept, files open, and the page is calm: driven as a person would, a
few visits each checking what a person notices in one sitting.

- The text comes back after a reload and after the tab is closed and the page
  opened again, never leaves the machine, and Clear removes it.
- A local file opens from the file input or a drop; a file over the byte limit or
  not UTF-8 is refused before the box takes it, the offset of the bad byte named.
- Fields never move when a hint or an error shows; the download waits, saying why,
  while a field is refused; arrow keys step the numbers; the planning panels are
  folded and start from the main view; no internal names anywhere.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from helpers import WAIT_MS, cli_chunk, configure, error_slot, native, open_ready
from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]

KEPT = "Kept words, one two three four five six seven eight nine ten eleven."

# Internal names the page and README must never show: the reference texts' numbers
# and the issue tracker's.
INTERNAL = re.compile(r"(?i)\breferences? ?0\d\d\b|\(reference\b|\bissue \d")


def chunks_shown(page: Any, text: str, **settings: Any) -> None:
    expected = native("chunk", text=text, **settings)["summary"]["chunks"]
    expect(page.get_by_test_id("summary-chunks")).to_have_attribute(
        "data-value", str(expected), timeout=WAIT_MS
    )


# ---- the text is kept ------------------------------------------------------------------

# Everything the page keeps in this browser: localStorage and its IndexedDB records.
STORED = """async () => {
  const db = await new Promise((resolve, reject) => {
    const request = indexedDB.open("rag-chunk-visualizer");
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const records = await new Promise((resolve) => {
    const request = db.transaction("text").objectStore("text").getAll();
    request.onsuccess = () => resolve(request.result);
  });
  db.close();
  return JSON.stringify([Object.values(localStorage), records]);
}"""


# Sets window.__written: a promise that resolves once a text holding `wanted` has been
# written to IndexedDB (its transaction complete), the page's own write after an edit;
# false after 30 s.
WRITTEN = """(wanted) => {
  const put = IDBObjectStore.prototype.put;
  window.__written = new Promise((resolve) => {
    setTimeout(() => resolve(false), 30000); // a hang bound: the write follows in 0.3 s
    IDBObjectStore.prototype.put = function (value, key) {
      const request = put.call(this, value, key);
      if (typeof value?.text === "string" && value.text.includes(wanted)) {
        this.transaction.addEventListener("complete", () => resolve(true), { once: true });
      }
      return request;
    };
  });
}"""


def test_the_text_comes_back_after_a_reload_and_a_new_tab_and_clear_removes_it(
    page: Any, context: Any, session: Any, site_url: str
) -> None:
    posted: list[str] = []
    context.on("request", lambda request: posted.append(request.post_data or ""))
    url = f"{site_url}#unit=word&size=4&overlap=1&om=units&price=1"
    open_ready(page, url)
    page.evaluate(WRITTEN, "Kept words")
    configure(page, text=KEPT)
    chunks_shown(page, KEPT, unit="word", size=4, overlap=1)
    expect(page.get_by_test_id("text-input")).to_have_value(KEPT)
    assert page.evaluate("() => window.__written") is True  # after the pause in typing
    assert "Kept words" in page.evaluate(STORED)

    page.reload()
    open_ready(page, url)
    expect(page.get_by_test_id("text-input")).to_have_value(KEPT)
    chunks_shown(page, KEPT, unit="word", size=4, overlap=1)  # the same numbers, not the sample's

    # The tab closed, the page opened again in a new one.
    page.close()
    again = context.new_page()
    open_ready(again, url)
    expect(again.get_by_test_id("text-input")).to_have_value(KEPT)

    # The text never left: not in a URL, not in a request body, not to another site.
    assert session.foreign_requests() == []
    assert not any("Kept words" in request for request in session.requests + posted)
    # The share link carries the settings, and says in words that the text stays here.
    link = again.get_by_test_id("share-link")
    expect(link).to_have_attribute("href", re.compile(r"^#unit=word&size=4&overlap=1"))
    expect(again.get_by_test_id("share-note")).to_contain_text("settings only, never your text")

    # Clear empties the box and forgets the text: what is kept says the box was emptied
    # (so the next visit opens empty, not with the sample).
    again.get_by_test_id("clear-text").click()
    expect(again.get_by_test_id("text-input")).to_have_value("")
    expect(again.get_by_test_id("summary-chunks")).to_have_attribute("data-value", "0")
    stored = again.evaluate(STORED)
    assert "Kept words" not in stored and '"emptied":true' in stored, stored
    again.close()


# A tab whose IndexedDB write never finishes (it was closed first): only the copy it
# leaves in localStorage when hidden keeps its text.
# The tab's IndexedDB writes begin but never finish: each put is counted and its
# request never answers, as when a tab closes with its write still under way.
HELD_WRITES = """(() => {
  const held = { puts: 0 };
  Object.defineProperty(window, "__held", { value: held });
  IDBObjectStore.prototype.put = function () {
    held.puts += 1;
    return { onsuccess: null, onerror: null, result: undefined, error: null };
  };
})();"""

# Resolves once the page has begun an IndexedDB write (the pause after the edit is over).
WRITE_BEGUN = """async () => {
  while (window.__held.puts === 0) await new Promise((resolve) => requestAnimationFrame(resolve));
  return true;
}"""

# Resolves once the page's IndexedDB record holds `text` (the write after the pause).
HELD = """async (text) => {
  for (;;) {
    const db = await new Promise((resolve, reject) => {
      const request = indexedDB.open("rag-chunk-visualizer");
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const record = await new Promise((resolve) => {
      const request = db.transaction("text").objectStore("text").get("current");
      request.onsuccess = () => resolve(request.result);
    });
    db.close();
    if (record?.text === text) return true;
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
}"""


def test_the_newest_text_wins_over_a_closed_tabs_unwritten_copy(
    page: Any, context: Any, site_url: str
) -> None:
    url = f"{site_url}#unit=word&size=4&overlap=1&om=units&price=1"
    tab_b = page
    open_ready(tab_b, url)
    # Tab A: an edit, then the tab is hidden and closed while its write is under way
    # (begun after the pause, not finished): the text it was writing is kept.
    tab_a = context.new_page()
    tab_a.add_init_script(HELD_WRITES)
    open_ready(tab_a, url)
    older = "Older words typed in tab A, one two three four five."
    configure(tab_a, text=older)
    assert tab_a.evaluate(WRITE_BEGUN) is True
    tab_a.evaluate("() => window.dispatchEvent(new PageTransitionEvent('pagehide'))")
    assert older in tab_a.evaluate(STORED)  # its copy, in localStorage
    tab_a.close()
    # Tab B: a later edit, written to IndexedDB after the pause.
    newer = "Newer words typed in tab B afterwards, six seven eight nine."
    configure(tab_b, text=newer)
    assert tab_b.evaluate(HELD, newer) is True
    # The next visit opens with the newer text, and no stale copy is left behind.
    visit = context.new_page()
    open_ready(visit, url)
    expect(visit.get_by_test_id("text-input")).to_have_value(newer)
    chunks_shown(visit, newer, unit="word", size=4, overlap=1)
    assert older not in visit.evaluate(STORED)
    visit.close()


# ---- files ----------------------------------------------------------------------------

# Counts File/Blob reads, so a test can see that a refused file was never read.
READ_SPY = """(() => {
  const reads = { count: 0 };
  Object.defineProperty(window, "__reads", { value: reads });
  const arrayBuffer = Blob.prototype.arrayBuffer;
  Blob.prototype.arrayBuffer = function () { reads.count += 1; return arrayBuffer.call(this); };
})();"""

DROP = """([name, bytes]) => {
  const box = document.querySelector('[data-testid="text-input"]');
  const data = new DataTransfer();
  data.items.add(new File([new Uint8Array(bytes)], name, { type: "text/csv" }));
  const over = new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true });
  box.dispatchEvent(over);
  const drop = new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true });
  box.dispatchEvent(drop);
  return [over.defaultPrevented, drop.defaultPrevented];
}"""

FIRST_INVALID = """async (cases) => {
  const { firstInvalidUtf8 } = await import("./static/view/file-open.js");
  return cases.map((bytes) => firstInvalidUtf8(Uint8Array.from(bytes)));
}"""

# Byte strings that are not UTF-8 in each way a decoder meets: a stray continuation
# byte, an overlong form, a surrogate, past U+10FFFF, a sequence cut short (inside
# and at the end), a lead byte never used.
NOT_UTF8 = [
    b"ok \x80",
    b"ab\xc0\xaf",
    b"x\xed\xa0\x80y",
    b"\xf4\x90\x80\x80",
    b"caf\xc3",
    b"\xe2\x82(",
    b"\xf0\x9f\x98",
    b"fine \xe2\x82\xac then \xff",
    b"\xf5\x80\x80\x80",
]


def python_offset(data: bytes) -> int:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return -1


def test_files_open_from_the_input_and_a_drop_and_bad_files_are_refused_unread(
    page: Any, site_url: str, tmp_path: Path
) -> None:
    page.add_init_script(READ_SPY)
    open_ready(page, f"{site_url}#unit=char&size=30&overlap=5&om=units&price=1")
    box = page.get_by_test_id("text-input")
    flags = ("--unit", "char", "--size", "30", "--overlap", "5", "--price", "1")

    # A Markdown file with a byte-order mark: the box holds it as the command line
    # reads it, the page says the mark is not text, and the download is the CLI's.
    text = "\ufeff# Notes 🫨\n\nCafé crème, naïve, 日本語. Second line of the notes file."
    notes = tmp_path / "notes.md"
    notes.write_bytes(text.encode())
    page.get_by_test_id("open-file").set_input_files(str(notes))
    expect(box).to_have_value(text)
    chunks_shown(page, text, unit="char", size=30, overlap=5)
    expect(page.get_by_test_id("bom-note")).to_be_visible()
    with page.expect_download() as info:
        page.get_by_test_id("download-json").click()
    saved = tmp_path / "download.json"
    info.value.save_as(saved)
    assert saved.read_bytes() == cli_chunk(text, *flags)
    # Named after the document, the unit and the settings (the engine's rule).
    assert info.value.suggested_filename == "notes-char-30-5.json"

    # Dropped onto the box: the page reads it (the browser does not open it in the tab).
    csv = "name,count\nalpha,1\nbeta,2\n"
    assert page.evaluate(DROP, ["table.csv", list(csv.encode())]) == [True, True]
    expect(box).to_have_value(csv)
    expect(page.get_by_test_id("bom-note")).to_be_hidden()
    chunks_shown(page, csv, unit="char", size=30, overlap=5)
    reads = page.evaluate("() => window.__reads.count")

    # Over the byte limit: refused from its size, unread, the box unchanged.
    big = tmp_path / "big.txt"
    big.write_bytes(b"a" * 1_000_001)
    page.get_by_test_id("open-file").set_input_files(str(big))
    error = error_slot(page, "text")
    expect(error).to_contain_text("big.txt not opened: it is 1,000,001 bytes")
    expect(error).to_contain_text("1,000,000-byte limit")
    expect(box).to_have_value(csv)
    assert page.evaluate("() => window.__reads.count") == reads

    # Not UTF-8: refused, naming the first bad byte's offset as Python does.
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("Grüße aus Köln".encode("latin-1"))
    page.get_by_test_id("open-file").set_input_files(str(bad))
    at = python_offset(bad.read_bytes())
    said = f"latin1.txt not opened: it is not UTF-8 (byte 0xfc at offset {at})"
    expect(error).to_contain_text(said)
    expect(box).to_have_value(csv)
    # A refused file leaves the download named after the file the box still holds.
    with page.expect_download() as info:
        page.get_by_test_id("download-json").click()
    assert info.value.suggested_filename == "table-char-30-5.json"
    offsets = page.evaluate(FIRST_INVALID, [list(case) for case in NOT_UTF8])
    assert offsets == [python_offset(case) for case in NOT_UTF8]
    assert page.evaluate(FIRST_INVALID, [list("ok 🫨 ✓".encode())]) == [-1]

    # CRLF and CR-only files keep their exact text: the counts, the download and an
    # evidence passage selected in the box are the command line's on the same file,
    # though the box shows LF; the page says so, and says when an edit makes them LF.
    note = page.get_by_test_id("breaks-note")
    for name, breaks in (("windows.txt", "\r\n"), ("classic-mac.txt", "\r")):
        exact = breaks.join(["First line 🫨", "", "Second paragraph.", "Third paragraph", ""])
        path = tmp_path / name
        path.write_bytes(exact.encode())
        page.get_by_test_id("open-file").set_input_files(str(path))
        shown = exact.replace("\r\n", "\n").replace("\r", "\n")
        expect(box).to_have_value(shown)
        expect(note).to_be_visible()
        expect(note).to_contain_text("CRLF line breaks" if breaks == "\r\n" else "CR line breaks")
        expect(page.get_by_test_id("count-bytes")).to_have_attribute(
            "data-value", str(len(exact.encode())), timeout=WAIT_MS
        )
        chunks_shown(page, exact, unit="char", size=30, overlap=5)
        with page.expect_download() as info:
            page.get_by_test_id("download-json").click()
        saved = tmp_path / f"{name}.json"
        info.value.save_as(saved)
        assert saved.read_bytes() == cli_file(path, *flags), name
        # A passage selected in the box is the same passage of the exact text.
        at = len(shown[: shown.index("Third")].encode("utf-16-le")) // 2
        box.evaluate("(el, [a, b]) => { el.focus(); el.setSelectionRange(a, b); }", [at, at + 15])
        page.get_by_test_id("evidence-add").click()
        start = exact.index("Third")
        item = page.locator(
            f'[data-testid="evidence-item"][data-start="{start}"][data-end="{start + 15}"]'
        )
        expect(item).to_have_count(1, timeout=WAIT_MS)
        page.get_by_test_id("evidence-clear").click()
    # An edit: the text is the box's now, with LF line breaks, and the page says so.
    box.press("Control+End")
    box.type("!")
    expect(note).to_contain_text("line breaks are LF")
    edited = shown + "!"
    expect(page.get_by_test_id("count-bytes")).to_have_attribute(
        "data-value", str(len(edited.encode())), timeout=WAIT_MS
    )
    chunks_shown(page, edited, unit="char", size=30, overlap=5)


def cli_file(path: Path, *flags: str) -> bytes:
    """What ``python -m pyapp chunk FILE`` prints for the file itself, byte for byte."""
    done = subprocess.run(
        [sys.executable, "-m", "pyapp", "chunk", str(path), *flags],
        capture_output=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


# ---- a calm page ----------------------------------------------------------------------

FIELDS = [
    "text-input",
    "unit-word",
    "size-input",
    "overlap-input",
    "tokens-per-unit-input",
    "price-input",
    "model-select",
    "download-json",
]


def boxes(page: Any) -> dict[str, Any]:
    """Where each main field is on the page (not the viewport: a scroll is not a move),
    and how big."""
    x, y = page.evaluate("() => [window.scrollX, window.scrollY]")
    out = {}
    for testid in FIELDS:
        b = page.get_by_test_id(testid).bounding_box()
        if b:
            b = {**b, "x": b["x"] + x, "y": b["y"] + y}
        out[testid] = {k: round(v) for k, v in b.items()} if b else None
    return out


def test_fields_stay_put_the_download_waits_and_arrow_keys_step(app: Any) -> None:
    text = " ".join(f"w{i}" for i in range(60))
    configure(app, text=text, unit="word", size="40", overlap="8")
    chunks_shown(app, text, unit="word", size=40, overlap=8)
    before = boxes(app)

    # Typing "12" over overlap 8, then an overlap the size cannot take, then a price
    # that is not a number: the messages show, and nothing moves or grows.
    overlap = app.get_by_test_id("overlap-input")
    overlap.fill("")
    overlap.press_sequentially("12", delay=40)
    chunks_shown(app, text, unit="word", size=40, overlap=12)
    assert boxes(app) == before
    overlap.fill("40")
    expect(error_slot(app, "overlap")).to_be_visible(timeout=WAIT_MS)
    assert boxes(app) == before
    # The download waits, and says which field it waits for.
    expect(app.get_by_test_id("download-json")).to_be_disabled()
    reason = app.get_by_test_id("download-reason")
    expect(reason).to_be_visible()
    expect(reason).to_contain_text("Overlap")
    configure(app, overlap="8", price="cheap")
    expect(error_slot(app, "price_per_million")).to_be_visible(timeout=WAIT_MS)
    expect(reason).to_contain_text("Price per million")
    configure(app, price="1", tpu="1")
    expect(app.get_by_test_id("download-json")).to_be_enabled(timeout=WAIT_MS)
    expect(reason).to_be_hidden()
    # One token, not "1 tokens".
    expect(app.get_by_test_id("tokens-per-unit-hint")).to_contain_text("1 token per word")

    # Arrow keys step the number fields, within their bounds; Shift steps by ten.
    size = app.get_by_test_id("size-input")
    size.press("ArrowUp")
    expect(size).to_have_value("41")
    chunks_shown(app, text, unit="word", size=41, overlap=8)
    size.press("ArrowDown")
    size.press("ArrowDown")
    expect(size).to_have_value("39")
    size.press("Shift+ArrowUp")
    expect(size).to_have_value("49")
    chunks_shown(app, text, unit="word", size=49, overlap=8)
    size.fill("1")
    size.press("ArrowDown")
    expect(size).to_have_value("1")  # a size is at least 1
    price = app.get_by_test_id("price-input")
    price.fill("0.25")
    price.press("ArrowDown")
    expect(price).to_have_value("0.24")  # one step of the last decimal place typed
    app.get_by_test_id("overlap-mode-percent").check()
    overlap.fill("100")
    overlap.press("ArrowUp")
    expect(overlap).to_have_value("100")  # a percentage stops at 100


def test_panels_fold_until_opened_start_from_the_main_view_and_no_internal_name_shows(
    fresh_app: Any,
) -> None:
    app = fresh_app  # the panels start from the main view when first opened
    text = " ".join(f"word{i}" for i in range(300))
    configure(app, text=text, unit="token", size="64", overlap="16")
    expected = native("chunk", text=text, unit="token", size=64, overlap=16)
    chunks_shown(app, text, unit="token", size=64, overlap=16)
    # Folded: the chunk view comes first, and nothing of the panels is shown.
    for name in ("sizing", "budget", "sweep"):
        expect(app.get_by_test_id(f"{name}-fold")).not_to_have_attribute("open", "")
    expect(app.get_by_test_id("sizing-documents")).to_be_hidden()
    chunks_top = app.locator("#chunks-panel").bounding_box()["y"]
    assert app.locator("#tools").bounding_box()["y"] > chunks_top

    # Opened: sizing holds this text's own token count and the main size and overlap.
    app.get_by_test_id("sizing-fold").locator("summary").first.click()
    sizing = app.get_by_test_id("sizing-panel")
    expect(sizing.get_by_test_id("sizing-avg-tokens")).to_have_value(
        str(expected["counts"]["tokens"])
    )
    expect(sizing.get_by_test_id("sizing-size")).to_have_value("64")
    expect(sizing.get_by_test_id("sizing-overlap")).to_have_value("16")
    source = sizing.get_by_test_id("sizing-source")
    expect(source).to_contain_text("From the main view")
    plan = native("size", documents=1, avg_tokens=expected["counts"]["tokens"], size=64, overlap=16)
    expect(sizing.get_by_test_id("sizing-index-entries")).to_have_attribute(
        "data-value", str(plan["index_entries"]), timeout=WAIT_MS
    )
    app.get_by_test_id("budget-fold").locator("summary").first.click()
    expect(app.get_by_test_id("budget-size")).to_have_value("64")

    # It follows the main view until a person types in it; "Use this text" brings it back.
    configure(app, size="80")
    expect(sizing.get_by_test_id("sizing-size")).to_have_value("80", timeout=WAIT_MS)
    sizing.get_by_test_id("sizing-documents").fill("1000")
    expect(source).to_contain_text("Your own figures")
    # A refused panel field shows its message in space kept for it: nothing moves. (The
    # places are read once the panel has answered for 1,000 documents: its new figures
    # could still move a field on a busy machine.)
    plan = native(
        "size", documents=1000, avg_tokens=expected["counts"]["tokens"], size=80, overlap=16
    )
    expect(sizing.get_by_test_id("sizing-index-entries")).to_have_attribute(
        "data-value", str(plan["index_entries"]), timeout=WAIT_MS
    )
    fields = sizing.locator("input[data-param]:visible")
    where = [f.bounding_box() for f in fields.all()]
    sizing.get_by_test_id("sizing-dim").fill("wide")
    expect(sizing.locator('[data-field="sizing.dim"]')).to_be_visible(timeout=WAIT_MS)
    assert [f.bounding_box() for f in fields.all()] == where
    sizing.get_by_test_id("sizing-dim").fill("")
    configure(app, size="96")
    chunks_shown(app, text, unit="token", size=96, overlap=16)
    expect(sizing.get_by_test_id("sizing-size")).to_have_value("80")
    sizing.get_by_test_id("sizing-use-text").click()
    expect(sizing.get_by_test_id("sizing-size")).to_have_value("96")
    expect(source).to_contain_text("From the main view")

    # No internal names anywhere on the page, every panel open, in text or labels.
    app.get_by_test_id("sweep-fold").locator("summary").first.click()
    closed = app.locator("details:not([open]) > summary:visible")
    while closed.count() > 0:
        closed.first.click()
    shown = app.evaluate(
        """() => [document.body.innerText,
                  ...[...document.querySelectorAll("[title], [aria-label], [placeholder]")]
                    .flatMap((e) => [e.title, e.ariaLabel, e.placeholder])].join("\\n")"""
    )
    assert not INTERNAL.findall(shown)

"""The text view and the caps a person can lift, driven as a person would.

The text view's contract: each segment is an element ``data-testid="segment"``
with ``data-start``/``data-end`` (code points) and ``data-chunks`` (the 0-based
chunk indices of the export); its text is the source text of that range; for a
text under the whole-view limit every segment is in the page, in order. Every
expectation is the engine's own export, computed natively.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from helpers import RECORD_POSTS, WAIT_MS, cli_chunk, configure, native, put_text, release_held
from playwright.sync_api import expect

from pyapp.facts import MAX_CHUNKS

VIEW = '[data-testid="text-view"]'
# A point inside the text view over no part of the text: [x, y], or null.
GAP = """(view) => {
  const box = view.getBoundingClientRect();
  for (let y = box.bottom - 3; y > box.top; y -= 4) {
    const x = box.left + box.width / 2;
    const under = document.elementFromPoint(x, y);
    if (under && view.contains(under) && !under.closest('[data-testid="segment"]')) return [x, y];
  }
  return null;
}"""
TEXT_VIEW_JS = Path(__file__).resolve().parents[2] / "static" / "view" / "text-view.js"

# Scrolls the view to twelve places, a frame at each, as a fling or a dragged scrollbar.
FLING = """async () => {
  const view = document.querySelector('[data-testid="text-view"]');
  for (const at of [0.9, 0.1, 0.5, 0.52, 0.54, 0.3, 0.31, 0.7, 0.2, 0.21, 0.6, 0.4]) {
    view.scrollTop = view.scrollHeight * at;
    await new Promise((r) => requestAnimationFrame(r));
  }
}"""

# The pages that meet the view's box: whether each is drawn, and its segments as
# [start, end, text].
PAGES_IN_SIGHT = """() => {
  const view = document.querySelector('[data-testid="text-view"]');
  const box = view.getBoundingClientRect();
  return [...view.querySelectorAll(".tv-page")].filter((page) => {
    const r = page.getBoundingClientRect();
    return r.bottom > box.top && r.top < box.bottom;
  }).map((page) => ({
    page: Number(page.dataset.page), filled: page.dataset.filled,
    segments: [...page.children].map((s) => [Number(s.dataset.start), Number(s.dataset.end),
                                              s.textContent]),
  }));
}"""

# The find box's current match as marked (the text of its highlight), and whether it
# lies in the view's box, on its first lines.
CURRENT_MATCH = """() => {
  const ranges = [...CSS.highlights.get("find-current")];
  const view = document.querySelector('[data-testid="text-view"]').getBoundingClientRect();
  const box = ranges[0].getBoundingClientRect();
  return { texts: ranges.map((r) => r.toString()),
           in_sight: box.top >= view.top && box.bottom <= view.top + 60 && box.top < box.bottom };
}"""

# Selects from the middle of a drawn page's last segment to the middle of the next
# page's first one (as a drag would), and returns what the selection reads and the
# code points it spans.
SELECT_ACROSS_PAGES = """() => {
  const pages = [...document.querySelectorAll('.tv-page[data-filled="true"]')];
  const at = pages.findIndex((p, i) => i + 1 < pages.length
    && Number(pages[i + 1].dataset.page) === Number(p.dataset.page) + 1);
  if (at < 0) return null;
  const last = pages[at].lastElementChild;
  const next = pages[at + 1].firstElementChild;
  const half = (seg) => [...seg.textContent].length >> 1;
  const selection = document.getSelection();
  const from = last.firstChild, to = next.firstChild;
  const cut = (node, n) => [...node.data].slice(0, n).join("").length;
  selection.setBaseAndExtent(from, cut(from, half(last)), to, cut(to, half(next)));
  const selected = selection.toString();
  selection.removeAllRanges();
  return { selected, start: Number(last.dataset.start) + half(last),
           end: Number(next.dataset.start) + half(next) };
}"""

READ_SEGMENTS = """els => els.map(e => [Number(e.dataset.start), Number(e.dataset.end),
                                       e.dataset.chunks, e.textContent])"""


def rendered(page: Any, chunks: int) -> None:
    """Waits until the text view has drawn the result of ``chunks`` chunks."""
    page.wait_for_selector(f'{VIEW}[data-rendered="true"][data-chunks="{chunks}"]', timeout=WAIT_MS)


def export_chunks(text: str, **settings: Any) -> list[dict[str, Any]]:
    """The export's chunks with the caps lifted (what the CLI prints with --no-caps)."""
    chunks: list[dict[str, Any]] = json.loads(
        native("export", text=text, caps=False, **settings)["json"]
    )["chunks"]
    return chunks


def held_by(chunks: list[dict[str, Any]], point: int) -> str:
    """The export's chunks holding code point ``point``, as data-chunks writes them."""
    return " ".join(str(c["index"]) for c in chunks if c["char_start"] <= point < c["char_end"])


# ---- the contract, in every unit, then pointing at it ----------------------------------

CASES = [
    # Word mode at overlap 0: the whitespace between chunks is held by none.
    ("word", 3, 0, "Fixed windows  cut text.\n\nOverlap repeats the end of one chunk. " * 3),
    ("word", 4, 2, "one two three four five six seven eight nine ten eleven twelve"),
    # CJK and emoji in character mode: code points, not UTF-16 units.
    ("char", 7, 3, "日本語のテキスト。🦜🦜 naïve 👩\u200d👧 text, ends here. " * 3),
    # Token mode: an emoji split over byte tokens is a character two chunks share.
    ("token", 3, 1, "Parrots 🦜🦜🦜 and 日本語のテキスト。 Tokens cut 😀 here. " * 2),
]


def test_the_text_view_tiles_the_text_and_each_part_names_the_chunks_that_hold_it(
    app: Any,
) -> None:
    for unit, size, overlap, text in CASES:
        configure(app, unit=unit, size=str(size), overlap=str(overlap), text=text)
        chunks = export_chunks(text, unit=unit, size=size, overlap=overlap)
        rendered(app, len(chunks))
        segments = app.locator('[data-testid="segment"]').evaluate_all(READ_SEGMENTS)
        points = list(text)  # code points
        # In order, tiling the whole text: rebuilt from the segments it is the text.
        assert "".join(s[3] for s in segments) == text, unit
        assert [s[0] for s in segments] == [0, *(s[1] for s in segments[:-1])], unit
        assert segments[-1][1] == len(points)
        for start, end, names, shown in segments:
            assert shown == "".join(points[start:end]), (unit, start, end)
            # Every code point of a segment is held by exactly the chunks it names...
            assert {held_by(chunks, p) for p in range(start, end)} == {names}, (unit, start)
        # ...and each segment is the longest such run: neighbours name other chunks.
        assert all(a[2] != b[2] for a, b in zip(segments, segments[1:], strict=False)), unit
        kinds = {s[2].count(" ") + 1 if s[2] else 0 for s in segments}
        if overlap:
            assert 2 in kinds, f"{unit}: the overlap is a segment of two chunks"
        if unit == "word" and overlap == 0:
            assert 0 in kinds, "word mode at overlap 0 leaves the whitespace to no chunk"

    # A whole text of many blocks, drawn a frame's worth at a time: all of it, in order.
    text = "".join(
        f"Overlap repeats the end of chunk {i}." + ("\n" if i % 10 == 9 else " ")
        for i in range(400)
    )
    configure(app, unit="word", size="2", overlap="1", text=text)
    rendered(app, native("chunk", text=text, unit="word", size=2, overlap=1)["summary"]["chunks"])
    expect(app.locator(f"{VIEW}[data-mode='whole']")).to_have_count(1)
    assert app.locator(".tv-page").count() > 10
    segments = app.locator('[data-testid="segment"]').evaluate_all(READ_SEGMENTS)
    assert "".join(s[3] for s in segments) == text
    assert [s[0] for s in segments] == [0, *(s[1] for s in segments[:-1])]

    # Pointing at the text: ten words, size 4, overlap 2 (the second case again).
    text = CASES[1][3]
    configure(app, unit="word", size="4", overlap="2", text=text)
    chunks = export_chunks(text, unit="word", size=4, overlap=2)
    rendered(app, len(chunks))
    caption = app.get_by_test_id("text-view-focus")
    # "three four" is held by chunks 1 and 2 (the first chunk's tail, the second's head).
    shared = app.locator('[data-testid="segment"][data-chunks="0 1"]')
    shared.hover()
    first, second = chunks[0], chunks[1]
    expect(caption).to_have_text(
        f"Held by 2 chunks: chunk 1 · words 1–4 · characters [0, {first['char_end']});"
        f" chunk 2 · words 3–6 · characters [{second['char_start']}, {second['char_end']})."
        " Click or press Enter for chunk 1's card."
    )
    # The whole of both chunks is highlighted, and their bars on the strip.
    highlighted = app.evaluate(
        "() => [...CSS.highlights.get('chunk-active')].map((range) => range.toString())"
    )
    assert highlighted == [text[0 : second["char_end"]]]
    overview = app.get_by_test_id("overview")
    # On the strip, the bars from chunk 1's start to chunk 2's end are outlined.
    strip = native(
        "strip",
        text=text,
        unit="word",
        size=4,
        overlap=2,
        columns=int(overview.get_attribute("data-columns") or "0"),
    )
    first_bar = max(c for c, a in enumerate(strip["from"]) if a <= 0)
    last_bar = max(c for c, a in enumerate(strip["from"]) if a <= second["char_end"] - 1)
    expect(overview).to_have_attribute("data-pointed", f"{first_bar} {last_bar}")
    expect(overview.get_by_test_id("overview-pointed")).to_be_visible()

    # A new text draws new parts: the old parts' caption and highlight go with them,
    # though the pointer has not moved (it is over no part of the shorter text now).
    app.locator(f'[data-testid="segment"][data-chunks="{len(chunks) - 1}"]').hover()
    expect(caption).to_contain_text(f"chunk {len(chunks)} · words")
    configure(app, text="Two words.")
    rendered(app, 1)
    expect(caption).to_have_text("")
    assert app.evaluate("() => CSS.highlights.get('chunk-active')?.size ?? 0") == 0
    configure(app, text=text)
    rendered(app, len(chunks))

    # By keyboard: Tab from the strip (one Tab stop) past "go to chunk" and find into the
    # text, arrows part by part (the mouse put aside: over another part, it would name
    # that one when a part scrolled in under it).
    app.mouse.move(0, 0)
    overview.get_by_test_id("overview-strip").focus()
    for control in ("goto-chunk", "find-input"):
        app.keyboard.press("Tab")
        expect(app.get_by_test_id(control)).to_be_focused()
    app.keyboard.press("Tab")
    segment = app.locator('[data-testid="segment"]').first
    expect(segment).to_be_focused()
    expect(caption).to_have_text(
        f"chunk 1 · words 1–4 · characters [0, {first['char_end']})."
        " Click or press Enter for chunk 1's card."
    )
    app.keyboard.press("ArrowRight")
    expect(shared).to_be_focused()
    expect(caption).to_contain_text("Held by 2 chunks")
    # The mouse over no part of the view (below the text) leaves the caption to the
    # part the keyboard is on.
    gap = app.locator(VIEW).evaluate(GAP)
    assert gap is not None
    app.mouse.move(*gap)
    assert app.evaluate(f"() => document.querySelector('{VIEW}').matches(':hover')")
    expect(caption).to_contain_text("Held by 2 chunks")
    app.keyboard.press("Enter")
    card = app.locator("#chunk-0")
    expect(card).to_be_focused()
    expect(card).to_be_in_viewport()
    # A click on the last chunk's own words goes to its card.
    last = len(chunks) - 1
    app.locator(f'[data-testid="segment"][data-chunks="{last}"]').click()
    expect(app.locator(f"#chunk-{last}")).to_be_focused()
    expect(app.locator(f"#chunk-{last}")).to_be_in_viewport()


# ---- the caps: the default, and a choice -------------------------------------------------


def test_lifting_the_caps_shows_every_card_near_the_view_and_downloads_what_the_cli_prints(
    app: Any, tmp_path: Path
) -> None:
    text = "Sentence one is here. " * 241  # 964 words: 482 chunks of 2 words
    configure(app, unit="word", size="2", overlap="0", text=text)
    notice = app.get_by_test_id("cap-notice")
    expect(notice).to_have_attribute("data-cap", "chunks", timeout=WAIT_MS)
    lift = app.get_by_test_id("lift-caps")
    expect(lift).to_have_text("Show all 482 chunks anyway")
    cli = cli_chunk(text, "--unit", "word", "--size", "2", "--overlap", "0", "--no-caps")
    # What lifting costs: the download's size, about (the engine's estimate, within 2%).
    estimate = native("chunk", text=text, unit="word", size=2, overlap=0)["capped"]["export_bytes"]
    assert abs(estimate - len(cli)) < 0.02 * len(cli)
    # (pyapp.chunks/5 lists every boundary too: 481 entries more than the third version.)
    expect(app.get_by_test_id("lift-cost")).to_contain_text("about 220 kB of JSON")
    expect(app.get_by_test_id("chunk")).to_have_count(0)
    expect(app.get_by_test_id("download-json")).to_be_hidden()

    lift.click()
    expect(notice).to_be_hidden()
    expect(app.get_by_test_id("lift-note")).to_contain_text("482 chunks, over the 256-chunk cap")
    cards = app.get_by_test_id("chunk")
    expect(app.locator("#chunk-0")).to_be_visible(timeout=WAIT_MS)
    list_ = app.locator("#chunk-list")
    expect(list_).to_have_attribute("data-rendered", "true")
    assert 0 < cards.count() < 60, "only the cards near the view are in the page"
    # Scrolled to the end, the last card is there, and still only a few of them.
    list_.evaluate("el => { el.scrollTop = el.scrollHeight; }")
    expect(app.locator("#chunk-481")).to_be_visible(timeout=WAIT_MS)
    expect(app.locator("#chunk-481 .chunk-title")).to_have_text("Chunk 482")
    assert cards.count() < 60
    # The download is the command line's --no-caps export, byte for byte.
    download = app.get_by_test_id("download-json")
    expect(download).to_be_enabled()
    with app.expect_download() as got:
        download.click()
    saved = tmp_path / got.value.suggested_filename
    got.value.save_as(saved)
    assert saved.read_bytes() == cli
    assert len(json.loads(cli)["chunks"]) == 482 > MAX_CHUNKS

    # From the text: a click on chunk 301's words brings its card into view.
    app.locator('[data-testid="segment"][data-chunks="300"]').first.click()
    expect(app.locator("#chunk-300")).to_be_focused(timeout=WAIT_MS)
    expect(app.locator("#chunk-300")).to_be_in_viewport()
    # Every card in sight there is drawn (under load the cards near it may still have
    # been on their way: their call is not the settings' change below).
    expect(list_).to_have_attribute("data-rendered", "true")

    # The choice holds when the settings change, until the caps are put back; the
    # settings' one view call brings the cards in sight (no cards call of their own).
    app.evaluate(RECORD_POSTS)
    app.evaluate("() => { window.__spy.hold = 'checks'; }")  # the download's size waits
    configure(app, overlap="1")
    lift_note = app.get_by_test_id("lift-note")
    expect(lift_note).to_contain_text("963 chunks", timeout=WAIT_MS)
    expect(lift_note).to_contain_text("its size follows in a moment")
    # When the checks come (the sentences cut, the download's size), "Put the caps back"
    # stays where it is, under the pointer: the last check's words hold their place.
    restore = app.get_by_test_id("restore-caps")
    before = restore.bounding_box()
    release_held(app)
    expect(lift_note).to_contain_text("kB of JSON", timeout=WAIT_MS)
    assert restore.bounding_box() == before
    expect(cards.first).to_have_attribute("aria-label", re.compile(r"^Chunk \d+ of 963$"))
    expect(list_).to_have_attribute("data-rendered", "true")
    assert app.locator("#chunk-list .chunk-loading").count() == 0
    posted = app.evaluate("() => window.__posted")
    assert "view" in posted and "cards" not in posted, posted
    assert cards.count() < 60
    restore.click()
    expect(notice).to_be_visible(timeout=WAIT_MS)
    expect(cards).to_have_count(0)
    expect(app.get_by_test_id("lift-caps")).to_have_text("Show all 963 chunks anyway")


# ---- a megabyte cut into a hundred thousand chunks --------------------------------------


def megabyte_of_prose() -> str:
    """About 1,000,000 bytes of words, a paragraph break every ten sentences."""
    words = [
        "the",
        "window",
        "moves",
        "on",
        "by",
        "its",
        "stride",
        "and",
        "the",
        "overlap",
        "repeats",
        "what",
        "came",
        "before",
    ]
    sentences = [" ".join(words[i % 7 : i % 7 + 8]).capitalize() + "." for i in range(70)]
    paragraph = " ".join(sentences[:10]) + "\n\n"
    text = "".join(sentences[i % 70] + " " if i % 11 else paragraph for i in range(40_000))
    return text[: 1_000_000 - 10]


def test_a_megabyte_in_a_hundred_thousand_chunks_is_drawn_only_near_the_view(app: Any) -> None:
    text = megabyte_of_prose()
    expected = native("chunk", text=text, unit="word", size=2, overlap=1)["summary"]["chunks"]
    assert expected > 100_000
    configure(app, unit="word", size="2", overlap="1")
    # Count the segments the page adds to the view in each task while it draws, by page.
    app.get_by_test_id("text-view").evaluate(
        """(view) => {
          const seen = { batches: [] };
          window.__drawn = seen;
          new MutationObserver((records) => {
            const pages = {};
            const add = (page, n) => { if (n) pages[page] = (pages[page] ?? 0) + n; };
            for (const r of records) for (const n of r.addedNodes) {
              if (n.nodeType !== 1) continue;
              if (n.matches('[data-testid="segment"]')) add(r.target.dataset.page, 1);
              else for (const page of [n, ...n.querySelectorAll(".tv-page")]) {
                const drawn = page.querySelectorAll(':scope > [data-testid="segment"]');
                add(page.dataset.page, drawn.length);
              }
            }
            if (Object.keys(pages).length) seen.batches.push(pages);
          }).observe(view, { childList: true, subtree: true });
        }"""
    )
    put_text(app, text)
    view = app.get_by_test_id("text-view")
    expect(view).to_have_attribute("data-chunks", str(expected), timeout=60_000)
    expect(view).to_have_attribute("data-mode", "paged")
    expect(view).to_have_attribute("data-rendered", "true", timeout=WAIT_MS)
    segments = app.locator('[data-testid="segment"]')
    drawn = segments.evaluate_all(READ_SEGMENTS)
    # Only the pages near the view are drawn, each part exactly the source's text.
    assert 0 < len(drawn) < 20_000 < expected
    assert drawn[0][0] == 0
    assert all(text[a:b] == shown for a, b, _, shown in drawn)

    # The strip is a handful of elements however many bars and chunks it draws (a
    # path per tint), not an element per bar to create, style and lay out at each answer.
    overview = app.get_by_test_id("overview")
    expect(overview).to_have_attribute("data-chunks", str(expected), timeout=WAIT_MS)
    columns = int(overview.get_attribute("data-columns") or "0")
    assert columns > 100
    assert overview.locator("svg *").count() < 20 < columns

    # Dragged to the middle, the view draws the middle, and the strip's frame follows.
    view.evaluate("el => { el.scrollTop = el.scrollHeight / 2; }")
    in_middle = re.compile(r"^[3-6]\d{5}$")
    expect(view).to_have_attribute("data-visible-start", in_middle, timeout=WAIT_MS)
    expect(view).to_have_attribute("data-rendered", "true", timeout=WAIT_MS)
    start = view.get_attribute("data-visible-start")
    expect(overview).to_have_attribute("data-visible-start", start or "")
    drawn = segments.evaluate_all(READ_SEGMENTS)
    assert len(drawn) < 20_000
    assert all(text[a:b] == shown for a, b, _, shown in drawn)
    # A click on the strip, three quarters along, shows that part of the text.
    strip = overview.locator("svg")
    box = strip.bounding_box()
    assert box is not None
    strip.click(position={"x": box["width"] * 0.75, "y": 6})
    target = round(len(text) * 0.75)
    expect(view).to_have_attribute("data-visible-start", re.compile(r"^7\d{5}$"), timeout=WAIT_MS)
    expect(view).to_have_attribute("data-rendered", "true", timeout=WAIT_MS)
    low, high = (
        int(view.get_attribute(f"data-visible-{edge}") or "-1") for edge in ("start", "end")
    )
    assert low - 500 <= target < high, (low, target, high)  # give or take a line
    # No task draws a screenful: each draws one page, or pages holding no more than a
    # frame's worth of segments (text-view.js's SLICE), so no frame lays out more.
    budget = int(re.findall(r"^const SLICE = (\d+);", TEXT_VIEW_JS.read_text(), re.M)[0])
    batches = app.evaluate("() => window.__drawn.batches")
    assert all(len(b) == 1 or sum(b.values()) <= budget for b in batches), batches
    assert max(sum(b.values()) for b in batches) < 2_000, batches

    # Go to a chunk far along: its first words are at the top of the view, drawn.
    view.scroll_into_view_if_needed()
    chunk = 150_000
    start = native("goto", text=text, unit="word", size=2, overlap=1, chunk=str(chunk))
    goto = app.get_by_test_id("goto-chunk")
    goto.fill(str(chunk))
    goto.press("Enter")
    said = app.get_by_test_id("find-result")
    expect(said).to_have_text(
        f"Chunk {chunk:,}: characters [{start['char_start']:,}, {start['char_end']:,})."
    )
    first = view.locator(f'[data-testid="segment"][data-start="{start["char_start"]}"]')
    expect(first).to_be_in_viewport(timeout=WAIT_MS)
    assert str(chunk - 1) in (first.get_attribute("data-chunks") or "").split()
    end = int(first.get_attribute("data-end") or 0)
    assert first.text_content() == text[start["char_start"] : end]
    top = first.bounding_box()
    frame = view.bounding_box()
    assert top is not None and frame is not None
    assert 0 <= top["y"] - frame["y"] <= 40, (top, frame)  # on the view's first lines

    # Find: the next match is gone to, in sight, marked whole, and the next after it.
    query = "repeats what came before"
    find = app.get_by_test_id("find-input")
    find.fill(query)
    find.press("Enter")
    expect(said).to_contain_text("Match 1 of")
    expect(view).to_have_attribute("data-find-shown", re.compile(r"^\d+ \d+$"), timeout=WAIT_MS)
    find.press("Enter")
    expect(said).to_contain_text("Match 2 of")
    expect(view).to_have_attribute("data-find-shown", re.compile(r"^\d+ \d+$"), timeout=WAIT_MS)
    a, b = (int(n) for n in (view.get_attribute("data-find-shown") or "").split())
    assert view.get_attribute("data-find-current") == f"{a} {b}"
    assert text[a:b] == query and text.find(query, text.find(query) + 1) == a
    current = app.evaluate(CURRENT_MATCH)
    assert current["texts"] == [query]
    assert current["in_sight"], current  # inside the view's box, on its first lines

    # Selected across a page's end into the next page, the text reads as the source.
    picked = app.evaluate(SELECT_ACROSS_PAGES)
    assert picked is not None, "two pages side by side are drawn"
    assert picked["selected"] == text[picked["start"] : picked["end"]], picked
    # The view keeps one Tab stop, as the strip does.
    expect(view.locator("[tabindex]")).to_have_count(1)
    expect(overview.locator("[tabindex]")).to_have_count(1)

    # Flung through the text, a frame at each place: once it settles, every page in sight
    # is drawn, once, each its own stretch of the source text.
    app.evaluate(FLING)
    expect(view).to_have_attribute("data-rendered", "true", timeout=WAIT_MS)
    pages = app.evaluate(PAGES_IN_SIGHT)
    edges = native("segments", text=text, unit="word", size=2, overlap=1, page=0, pages=1)
    starts = edges["page_starts"]
    assert pages and all(p["filled"] == "true" for p in pages), pages
    for p in pages:
        tiles = [starts[p["page"]], *(s[1] for s in p["segments"])]
        assert [s[0] for s in p["segments"]] == tiles[:-1], p["page"]
        assert tiles[-1] == starts[p["page"] + 1], p["page"]
        assert all(text[a:b] == shown for a, b, shown in p["segments"])
    drawn = segments.evaluate_all(READ_SEGMENTS)
    assert len({s[0] for s in drawn}) == len(drawn), "no part drawn twice"

    # The page answers input at once meanwhile.
    app.get_by_test_id("price-input").fill("3")
    expect(app.get_by_test_id("price-input")).to_have_value("3")

"""The page's layout as a person meets it: nothing covers anything, the phone leads
with the answer, tabs and tables fit, and the size and overlap sliders.

- With every panel open, at 320, 375, 768, 1280 and 1920 px wide and at the top,
  middle and bottom of the page, no visible piece of text lies under another one or
  under any other box, and none is cut off by a box that hides its overflow.
- At 375 px, the summary's top is on the first screen after a paste; the settings
  are one compact bar that opens into a drawer; no tab label or table is clipped.
- The size and overlap sliders sit beside their number fields, move with the
  keyboard, keep in step with the fields both ways, change the figures at once, and
  take their ranges from the engine's answer.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers import WAIT_MS, configure, native, put_text
from playwright.sync_api import expect

WIDTHS = (320, 375, 768, 1280, 1920)

TEXT = (
    "Retrieval needs the whole passage. A fixed window cuts text without looking at it, "
    "so a sentence on a boundary is split in two.\n\nOverlap repeats the end of each chunk "
    "at the start of the next: the split sentence is still found whole in one of them, "
    "at the price of embedding and storing the repeated words twice."
)

# Every piece of visible text on screen, as rectangles in the viewport (one per line
# box, from Range.getClientRects), and what is wrong with it:
# - "covered": the box on top at the middle of the text's line is neither the text's
#   own element, nor inside it, nor one of its ancestors (so something else is over it);
# - "overlaps": two pieces of text, in unrelated elements, share more than 2 px each way;
# - "clipped": an ancestor that hides its overflow (overflow hidden or clip, not a
#   scroll box a person can scroll) cuts off part of the text.
# Text in a visually hidden element (1 px or less), or under transparent or hidden
# boxes, is not something a person sees, and is left out.
FIND_FAULTS = """async (y) => {
  // Scrolled to `y`, and looked at once the page has drawn that screen (cards drawn
  // only in sight are laid out in the frame after they come into it).
  window.scrollTo(0, y);
  for (let i = 0; i < 2; i++) await new Promise((done) => requestAnimationFrame(done));
  const W = innerWidth, H = innerHeight;
  const tiny = (r) => r.width <= 1 || r.height <= 1;
  const name = (e) => {
    const id = e.closest("[data-testid]")?.dataset.testid ?? e.closest("[id]")?.id ?? "";
    const cls = e.className ? "." + String(e.className).split(" ")[0] : "";
    return `${e.tagName.toLowerCase()}${cls}@${id}`;
  };
  // A sticky header may have its own panel's content scroll under it (a caption kept in
  // sight over the text it names); nothing may lie over another panel.
  const stuck = (e) => {
    for (let up = e; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).position === "sticky") return up;
    }
    return null;
  };
  const ownHeader = (a, b) => {
    const header = stuck(a) ?? stuck(b);
    return header !== null && a.closest(".panel") === b.closest(".panel")
      && header.closest(".panel") === a.closest(".panel");
  };
  // Visually hidden: in a box of a pixel or less, or under a clip (the screen-reader-only
  // pattern), so no one sees it.
  const hidden = (e) => {
    for (let up = e; up && up !== document.body; up = up.parentElement) {
      if (tiny(up.getBoundingClientRect()) || getComputedStyle(up).clip !== "auto") return true;
    }
    return false;
  };
  // What a person sees of a line inside the scroll boxes that hold it: a line scrolled
  // out of its box is not on screen (null, a scroll away, not a fault), and a line its
  // box cuts at an edge shows only the part inside the box.
  const inScrollBoxes = (r, e) => {
    let { left, right, top, bottom } = r;
    for (let up = e.parentElement; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      const scrolls = (v) => v === "auto" || v === "scroll";
      if (!scrolls(style.overflowX) && !scrolls(style.overflowY)) continue;
      const box = up.getBoundingClientRect();
      left = Math.max(left, box.left); right = Math.min(right, box.right);
      top = Math.max(top, box.top); bottom = Math.min(bottom, box.bottom);
      if (right <= left || bottom <= top) return null;
    }
    return { left, right, top, bottom, width: right - left, height: bottom - top };
  };
  const pieces = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.data.trim()) continue;
    const owner = node.parentElement;
    if (!owner || owner.closest("textarea, select, option, script, style, svg")) continue;
    if (!owner.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    if (hidden(owner)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const line of range.getClientRects()) {
      const r = inScrollBoxes(line, owner);
      if (r === null || tiny(r)) continue;
      if (r.bottom <= 0 || r.top >= H || r.right <= 0 || r.left >= W) continue;
      pieces.push({ owner, r, text: node.data.trim().slice(0, 30) });
    }
  }
  const faults = [];
  for (const { owner, r, text } of pieces) {
    // Clipped by an ancestor that hides what overflows it.
    for (let up = owner; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      const hides = (v) => v === "hidden" || v === "clip";
      if (!hides(style.overflowX) && !hides(style.overflowY)) continue;
      const box = up.getBoundingClientRect();
      if (tiny(box)) break; // a visually hidden wrapper: not seen at all
      const out = r.left < box.left - 1 || r.right > box.right + 1;
      if (out || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
        faults.push(`clipped: "${text}" in ${name(owner)} by ${name(up)}`);
      }
      break;
    }
    // Covered: what is on top at the middle of the line.
    const x = Math.min(Math.max((r.left + r.right) / 2, 0), W - 1);
    const y = Math.min(Math.max((r.top + r.bottom) / 2, 0), H - 1);
    let top = document.elementFromPoint(x, y);
    // A transparent control laid over its own label (the segmented radios) is the label.
    while (top && top !== owner && getComputedStyle(top).opacity === "0") top = top.parentElement;
    const apart = top && top !== owner && !owner.contains(top) && !top.contains(owner);
    if (apart && !ownHeader(top, owner)) {
      faults.push(`covered: "${text}" in ${name(owner)} under ${name(top)}`);
    }
  }
  // Two pieces of text over each other.
  pieces.sort((a, b) => a.r.top - b.r.top);
  for (let i = 0; i < pieces.length; i++) {
    const a = pieces[i];
    for (let j = i + 1; j < pieces.length && pieces[j].r.top < a.r.bottom - 2; j++) {
      const b = pieces[j];
      if (a.owner === b.owner || a.owner.contains(b.owner) || b.owner.contains(a.owner)) continue;
      if (ownHeader(a.owner, b.owner)) continue;
      const across = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
      const down = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (across > 2 && down > 2) {
        faults.push(`overlaps: "${a.text}" in ${name(a.owner)}, "${b.text}" in ${name(b.owner)}`);
      }
    }
  }
  return [...new Set(faults)];
}"""

# Tab labels and tables wider than the box they sit in (a label cut to "Evid", a table
# that runs off its panel); a table inside a scroll box counts only if the box scrolls.
FIND_CLIPPED_TABS_AND_TABLES = """() => {
  const faults = [];
  for (const tab of document.querySelectorAll(".segmented span, .mini-toggle span")) {
    if (!tab.checkVisibility()) continue;
    if (tab.scrollWidth > tab.clientWidth + 1) faults.push(`tab "${tab.textContent}" is clipped`);
  }
  for (const table of document.querySelectorAll("table")) {
    if (!table.checkVisibility()) continue;
    const panel = table.closest(".table-scroll") ?? table.closest(".panel");
    if (panel.scrollWidth > panel.clientWidth + 1) {
      const where = panel.closest("[id]").id;
      faults.push(`table in ${where} is ${panel.scrollWidth}px in ${panel.clientWidth}px`);
    }
  }
  return faults;
}"""


# What runs past the right edge of the page, so that the page scrolls sideways: the
# outermost such elements (their children are named by them).
FIND_WIDE = """() => {
  const W = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth <= W) return [];
  const wide = [...document.body.querySelectorAll("*")].filter(
    (e) => e.checkVisibility() && e.getBoundingClientRect().right > W + 1);
  return wide.filter((e) => !wide.includes(e.parentElement)).map(
    (e) => `${e.tagName.toLowerCase()}.${e.className}@${e.closest("[id]")?.id}: `
      + `${Math.round(e.getBoundingClientRect().right)}px`);
}"""


def open_every_panel(page: Any, splitter: str = "fixed") -> None:
    """Every fold open, an evidence passage listed (its figures, its sweep tab), the
    sweep drawn: the page at its fullest, as a person exploring it leaves it."""
    toggle = page.get_by_test_id("settings-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") == "false":
        toggle.click()  # a narrow screen: the settings' drawer open too
    if splitter == "recursive":  # its own settings in the column, and more sweep columns
        page.get_by_test_id("splitter").select_option("recursive")
        expect(page.get_by_test_id("recursive-settings")).to_be_visible()
    unit = "word" if splitter == "fixed" else "char"
    configure(page, text=TEXT, unit=unit, size="24" if unit == "word" else "120", overlap="4")
    page.get_by_test_id("evidence-jsonl").evaluate("(box) => box.closest('details').open = true")
    page.get_by_test_id("evidence-jsonl").fill(
        '{"id": "e1", "quote": "the split sentence is still found whole"}'
    )
    page.get_by_test_id("evidence-paste-add").click()
    expect(page.get_by_test_id("evidence-item")).to_have_count(1, timeout=WAIT_MS)
    page.get_by_test_id("sweep-fold").locator("summary").first.click()
    expect(page.get_by_test_id("sweep-metric-evidence-coverage")).to_have_count(1, timeout=WAIT_MS)
    closed = page.locator("details:not([open]) > summary:visible")
    while closed.count() > 0:  # outer ones first: an inner summary shows once its parent opens
        closed.first.click()
    expect(page.get_by_test_id("sweep-table").locator("tbody tr").first).to_be_visible()


# The recursive splitter adds its settings to the column and columns to the sweep table:
# the widths where those are tightest (a phone, a tablet, beside the settings).
@pytest.mark.parametrize(
    ("splitter", "widths"),
    [("fixed", WIDTHS), ("recursive", (375, 768, 1280))],
    ids=["fixed", "recursive"],
)
def test_no_text_is_covered_overlapped_or_clipped_at_any_width(
    app: Any, splitter: str, widths: tuple[int, ...]
) -> None:
    open_every_panel(app, splitter)
    found: dict[str, list[str]] = {}
    for width in widths:
        app.set_viewport_size({"width": width, "height": 800})
        height = app.evaluate("document.documentElement.scrollHeight")
        if wide := app.evaluate(FIND_WIDE):
            found[f"{width}px sideways"] = wide
        # Screen by screen, top to bottom: a sticky box covers only once scrolled.
        for where in range(0, height, 800):
            faults = app.evaluate(FIND_FAULTS, where)
            if faults:
                found[f"{width}px at {where}"] = faults
        if clipped := app.evaluate(FIND_CLIPPED_TABS_AND_TABLES):
            found[f"{width}px tabs and tables"] = clipped
    app.set_viewport_size({"width": 1280, "height": 900})
    assert found == {}, "\n".join(f"{k}:\n  " + "\n  ".join(v) for k, v in found.items())
    # Wide, the settings column has no bar and no scroll box of its own: scrolled
    # anywhere down the page, its last field is on screen, whole, with the sliders.
    expect(app.get_by_test_id("settings-toggle")).to_be_hidden()
    for where in (1200, 2400, app.evaluate("document.documentElement.scrollHeight")):
        app.evaluate("(y) => window.scrollTo(0, y)", where)
        for testid in ("price-input", "share-link", "size-slider", "overlap-slider"):
            box = app.get_by_test_id(testid).bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 900, (
                f"{testid} is cut off at scroll {where}: {box}"
            )
    app.evaluate("window.scrollTo(0, 0)")


# ---- a phone leads with the answer ------------------------------------------------------

PHONE = {"width": 375, "height": 667}


def test_on_a_phone_the_summary_follows_the_paste_and_the_settings_are_one_bar(app: Any) -> None:
    app.set_viewport_size(PHONE)
    try:
        toggle, drawer = app.get_by_test_id("settings-toggle"), app.get_by_test_id("settings-more")
        expect(toggle).to_be_visible()
        expect(toggle).to_have_attribute("aria-expanded", "false")
        expect(drawer).to_be_hidden()
        expect(app.get_by_test_id("size-input")).to_be_hidden()
        # A paste into the box at the top of the page: its figures are on the first screen.
        app.evaluate("window.scrollTo(0, 0)")
        app.get_by_test_id("text-input").focus()
        put_text(app, TEXT)
        expected = native("chunk", text=TEXT, unit="word", size=40, overlap=8)
        expect(app.get_by_test_id("summary-chunks")).to_have_attribute(
            "data-value", str(expected["summary"]["chunks"]), timeout=WAIT_MS
        )
        assert app.evaluate("scrollY") == 0
        summary_top = app.locator("#summary").bounding_box()["y"]
        assert summary_top < PHONE["height"] - 120, f"the summary starts {summary_top}px down"
        expect(app.get_by_test_id("summary-chunks")).to_be_in_viewport()
        # The bar names the settings the figures were made with.
        expect(app.get_by_test_id("settings-line")).to_have_text(
            "Chunks of 40 words, overlap 8 words"
        )
        # It opens into the drawer, and closes again.
        toggle.click()
        expect(toggle).to_have_attribute("aria-expanded", "true")
        expect(app.get_by_test_id("size-input")).to_be_visible()
        configure(app, size="30")
        expect(app.get_by_test_id("settings-line")).to_have_text(
            "Chunks of 30 words, overlap 8 words", timeout=WAIT_MS
        )
        # A field marked in red keeps the drawer open, so the mark is never hidden.
        configure(app, size="3")
        app.get_by_test_id("size-input").blur()
        expect(app.locator('[data-testid="error"][data-field="overlap"]')).to_be_visible(
            timeout=WAIT_MS
        )
        toggle.click()
        expect(toggle).to_have_attribute("aria-expanded", "false")
        expect(app.get_by_test_id("overlap-input")).to_be_visible()
        configure(app, size="40")
        expect(drawer).to_be_hidden(timeout=WAIT_MS)
        # Tabs and tables fit the phone's width, the sweep's with its evidence tab too.
        open_every_panel(app)
        assert app.evaluate(FIND_CLIPPED_TABS_AND_TABLES) == []
        assert app.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        tab = app.get_by_test_id("sweep-metric-evidence-coverage").locator("xpath=..")
        expect(tab).to_have_text("Evidence whole")
    finally:
        app.set_viewport_size({"width": 1280, "height": 900})


# ---- the sliders ------------------------------------------------------------------------


def shows(page: Any, size: int, overlap: int) -> None:
    """The fields, the sliders and the figures all show this size and overlap."""
    expected = native("chunk", text=TEXT, unit="word", size=size, overlap=overlap)
    expect(page.get_by_test_id("size-input")).to_have_value(str(size))
    expect(page.get_by_test_id("overlap-input")).to_have_value(str(overlap))
    expect(page.get_by_test_id("summary-processed")).to_have_attribute(
        "data-value", str(expected["summary"]["processed_units"]), timeout=WAIT_MS
    )
    for name in ("size", "overlap"):
        ranges = expected["sliders"][name]
        slider = page.get_by_test_id(f"{name}-slider")
        expect(slider).to_have_attribute("min", str(ranges["low"]), timeout=WAIT_MS)
        expect(slider).to_have_attribute("max", str(ranges["high"]))
        expect(slider).to_have_value(str(ranges["value"]))


def test_the_sliders_move_with_the_keyboard_and_keep_in_step_with_the_fields(app: Any) -> None:
    words = len(TEXT.split())
    configure(app, text=TEXT, unit="word", size="24", overlap="4")
    shows(app, 24, 4)
    size, overlap = app.get_by_test_id("size-slider"), app.get_by_test_id("overlap-slider")
    size.focus()
    size.press("ArrowRight")
    shows(app, 25, 4)
    size.press("ArrowLeft")
    size.press("ArrowLeft")
    shows(app, 23, 4)
    size.press("End")  # the whole text in one chunk: the slider goes no further
    shows(app, words, 4)
    size.press("Home")  # the smallest size above the overlap
    shows(app, 5, 4)
    size.press("PageUp")
    moved = int(app.get_by_test_id("size-input").input_value())
    assert 5 < moved < words
    shows(app, moved, 4)
    overlap.focus()
    overlap.press("End")  # size - 1, as the engine says
    shows(app, moved, moved - 1)
    overlap.press("Home")
    shows(app, moved, 0)
    overlap.press("ArrowUp")
    shows(app, moved, 1)
    # Dragged with the pointer, the figures follow as it moves.
    box = size.bounding_box()
    assert box is not None
    middle = box["y"] + box["height"] / 2
    app.mouse.move(box["x"] + 4, middle)
    app.mouse.down()
    app.mouse.move(box["x"] + box["width"] * 0.75, middle, steps=5)
    app.mouse.up()
    dragged = int(app.get_by_test_id("size-input").input_value())
    assert moved < dragged < words
    shows(app, dragged, 1)
    # Typed into the field, the number moves the slider.
    configure(app, size="30", overlap="6")
    shows(app, 30, 6)
    # In percent, the overlap slider counts percent, and reaches the last whole share
    # that rounds below the size.
    app.get_by_test_id("overlap-mode-percent").check()
    configure(app, overlap="20")
    expected = native(
        "chunk", text=TEXT, unit="word", size=30, overlap="20", overlap_mode="percent"
    )["sliders"]["overlap"]
    expect(overlap).to_have_attribute("max", str(expected["high"]), timeout=WAIT_MS)
    expect(overlap).to_have_value("20")
    overlap.focus()
    overlap.press("End")
    expect(app.get_by_test_id("overlap-input")).to_have_value(str(expected["high"]))
    expect(app.get_by_test_id("overlap-resolved")).to_have_attribute(
        "data-value", "29", timeout=WAIT_MS
    )

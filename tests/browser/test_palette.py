"""One palette across the views, the overview strip at any scale, jumps that land on a
card's top, and "go to chunk N" and find in the text view, driven as a person would.

The palette is read from the computed styles of the text view's segments, the cards,
the strip's bars and the legends, in light and dark; its colours are then seen
through the colour-vision-deficiency matrices of Machado, Oliveira and Fernandes
(2009, severity 1) for protanopia, deuteranopia and tritanopia, and must stay apart.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from helpers import WAIT_MS, configure, native, strip_tints
from playwright.sync_api import expect

VIEW = '[data-testid="text-view"]'
QUERY = "NEEDS whole passages. a window cuts"  # found case-insensitively

# ---- colour, as the eye (or a simulated one) sees it ----------------------------------

MACHADO = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}  # fmt: skip


def rgb(css: str) -> tuple[int, int, int]:
    """``rgb(1, 2, 3)`` (as computed styles write an opaque colour) as three bytes."""
    match = re.fullmatch(r"rgb\((\d+), (\d+), (\d+)\)", css)
    assert match, f"not an opaque colour: {css}"
    r, g, b = (int(v) for v in match.groups())
    return r, g, b


def linear(colour: tuple[int, int, int]) -> list[float]:
    out = []
    for v in colour:
        c = v / 255
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return out


def seen(colour: tuple[int, int, int], vision: str) -> list[float]:
    """Linear RGB as a person with ``vision`` sees it (``normal``: as it is)."""
    lin = linear(colour)
    if vision == "normal":
        return lin
    m = MACHADO[vision]
    return [min(1.0, max(0.0, sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3)]


def lab(lin: list[float]) -> tuple[float, float, float]:
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def distance(a: tuple[int, int, int], b: tuple[int, int, int], vision: str) -> float:
    """CIE76 colour difference (ΔE) of two colours as ``vision`` sees them."""
    la, lb = lab(seen(a, vision)), lab(seen(b, vision))
    return float(sum((p - q) ** 2 for p, q in zip(la, lb, strict=True)) ** 0.5)


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG contrast ratio."""
    la, lb = (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2] for c in (linear(a), linear(b)))
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)


# What each view paints for each meaning: [selector, CSS property] pairs read in the page.
READ_PALETTE = """() => {
  const style = (selector, property) => {
    const node = document.querySelector(selector);
    return node ? getComputedStyle(node)[property] : null;
  };
  return {
    a: [style('[data-testid="segment"].seg-even', 'backgroundColor'),
        style('.chunk.tint-a .fresh', 'backgroundColor'),
        style('.overview-svg .bar-a', 'fill'),
        style('[data-testid="legend-chunk-a"]', 'backgroundColor'),
        style('.swatch-fresh-a', 'backgroundColor')],
    b: [style('[data-testid="segment"].seg-odd', 'backgroundColor'),
        style('.chunk.tint-b .fresh', 'backgroundColor'),
        style('.overview-svg .bar-b', 'fill'),
        style('[data-testid="legend-chunk-b"]', 'backgroundColor'),
        style('.swatch-fresh-b', 'backgroundColor')],
    overlap: [style('[data-testid="segment"].seg-mixed', 'backgroundColor'),
              style('.chunk .repeated', 'backgroundColor'),
              style('.overview-svg .overlap-fill', 'fill'),
              style('[data-testid="legend-overlap"]', 'backgroundColor'),
              style('[data-testid="legend-card-overlap"]', 'backgroundColor')],
    stripes: [style('[data-testid="segment"].seg-mixed', 'backgroundImage'),
              style('.chunk .repeated', 'backgroundImage'),
              style('[data-testid="legend-overlap"]', 'backgroundImage'),
              style('[data-testid="legend-card-overlap"]', 'backgroundImage')],
    stripe: [style('.overview-svg .overlap-stripe', 'fill')],
    shared: style('[data-testid="overview-shared"]', 'fill'),
    pattern: document.querySelector('.overview-svg pattern')?.id ?? null,
    panel: style('.text-view', 'backgroundColor'),
    text: style('.text-view', 'color'),
  };
}"""

# The rule that draws the pointed chunk: what it sets (no background, no colour).
READ_POINTED_RULE = """() => {
  for (const sheet of document.styleSheets) {
    for (const rule of sheet.cssRules) {
      if (rule.selectorText === '::highlight(chunk-active)') {
        return rule.style.cssText;
      }
    }
  }
  return null;
}"""


def check_palette(app: Any, scheme: str) -> None:
    palette = app.evaluate(READ_PALETTE)
    colours = {}
    for meaning in ("a", "b", "overlap"):
        values = palette[meaning]
        assert None not in values, (scheme, meaning, values)
        assert len(set(values)) == 1, f"{scheme}: {meaning} differs between views: {values}"
        colours[meaning] = rgb(values[0])
    # The overlap's second cue: stripes, in the text, the cards, the legends and the strip.
    assert all("repeating-linear-gradient" in v for v in palette["stripes"]), palette["stripes"]
    assert palette["shared"] == f'url("#{palette["pattern"]}")'
    assert rgb(palette["stripe"][0]) != colours["overlap"]
    colours["panel"] = rgb(palette["panel"])
    for vision in ("normal", *MACHADO):
        for x, y in itertools.combinations(colours, 2):
            gap = distance(colours[x], colours[y], vision)
            assert gap >= 10, f"{scheme}, {vision}: {x} and {y} are {gap:.1f} apart"
    text = rgb(palette["text"])
    for meaning in ("a", "b"):
        assert contrast(text, colours[meaning]) >= 4.5, (scheme, meaning)


def test_one_palette_means_the_same_in_every_view_in_light_dark_and_colour_blind_eyes(
    app: Any,
) -> None:
    text = "Chunking cuts a text into windows. Each repeats the end of the last one. " * 30
    configure(app, unit="word", size="12", overlap="4", text=text)
    app.wait_for_selector(f'{VIEW}[data-rendered="true"]', timeout=WAIT_MS)
    expect(app.locator(".chunk.tint-b").first).to_be_attached(timeout=WAIT_MS)
    check_palette(app, "light")
    app.emulate_media(color_scheme="dark")
    try:
        check_palette(app, "dark")
    finally:
        app.emulate_media(color_scheme="light")

    # Pointing: the chunk is outlined, never repainted; the overlap keeps its stripes.
    rule = app.evaluate(READ_POINTED_RULE)
    assert "underline overline" in rule and "background" not in rule and "color:" not in rule, rule
    shared = app.locator('[data-testid="segment"].seg-mixed').nth(3)
    before = shared.evaluate(
        "el => [getComputedStyle(el).backgroundColor, getComputedStyle(el).backgroundImage]"
    )
    shared.hover()
    expect(app.get_by_test_id("text-view-focus")).to_contain_text("Held by 2 chunks")
    after = shared.evaluate(
        "el => [getComputedStyle(el).backgroundColor, getComputedStyle(el).backgroundImage]"
    )
    assert after == before
    assert app.evaluate("() => CSS.highlights.has('chunk-active')")
    pointed = app.get_by_test_id("overview-pointed")
    expect(pointed).to_be_visible()
    assert (
        pointed.evaluate("el => getComputedStyle(el).fill") == "none"
    )  # outlined on the strip too

    # The caption naming the part stays in view while the text view is: the view's top
    # at the window's top, the caption is still on screen (above the text, sticky).
    app.set_viewport_size({"width": 1280, "height": 500})
    try:
        view = app.get_by_test_id("text-view")
        view.evaluate("el => el.scrollIntoView({block: 'start'})")
        app.evaluate("() => window.scrollBy(0, 120)")
        box = view.bounding_box()
        assert box is not None
        app.mouse.move(box["x"] + 40, box["y"] + box["height"] * 0.6)
        caption = app.get_by_test_id("text-view-focus")
        expect(caption).not_to_be_empty()
        expect(caption).to_be_in_viewport(ratio=1)
    finally:
        app.set_viewport_size({"width": 1280, "height": 900})


# ---- the strip, and jumps that show the card's top -----------------------------------


def top_in_view(card: Any) -> None:
    """The card's top, its number and the first line of its repeated prefix, is in view."""
    expect(card).to_be_focused(timeout=WAIT_MS)
    expect(card.locator(".chunk-title")).to_be_in_viewport(ratio=1)
    top = card.evaluate(
        """el => { const r = el.getBoundingClientRect();
                   const t = el.querySelector('.chunk-text').getBoundingClientRect();
                   return [r.top, t.top + 20, innerHeight, r.height]; }"""
    )
    assert top[0] >= -1 and top[1] <= top[2], top
    assert top[3] > top[2], "the card is taller than the window (else any jump shows its top)"


def test_the_strip_has_a_bar_per_pixel_one_tab_stop_arrow_keys_and_jumps_show_the_cards_top(
    app: Any,
) -> None:
    words = [f"w{i}" for i in range(9_000)]
    text = " ".join(words)
    configure(app, unit="word", size="1500", overlap="100", text=text)
    app.wait_for_selector(f'{VIEW}[data-rendered="true"][data-chunks="7"]', timeout=WAIT_MS)
    overview = app.get_by_test_id("overview")
    strip = overview.get_by_test_id("overview-strip")
    width = round(strip.evaluate("el => el.getBoundingClientRect().width"))
    expect(overview).to_have_attribute("data-columns", str(width), timeout=WAIT_MS)
    engine = native("strip", text=text, unit="word", size=1500, overlap=100, columns=width)
    tints = strip_tints(overview)  # as many bars as pixels, each its chunk's tint
    assert tints == [
        ("bar-b" if k % 2 else "bar-a") if k >= 0 else "bar-none" for k in engine["chunk"]
    ]

    # One Tab stop: Tab reaches the strip, the next Tab leaves it.
    app.get_by_test_id("derivation").locator("summary").focus()
    app.keyboard.press("Tab")
    expect(strip).to_be_focused()
    assert strip.get_attribute("role") == "slider"
    app.keyboard.press("Tab")
    expect(strip).not_to_be_focused()
    assert (
        app.evaluate("() => document.activeElement.closest('[data-testid=\"overview\"]')") is None
    )
    # Arrow keys move chunk by chunk; Enter jumps to that card's top.
    strip.focus()
    app.keyboard.press("Home")
    expect(overview).to_have_attribute("data-cursor", "0")
    app.keyboard.press("ArrowRight")
    second = engine["chunk"].index(1)  # the first bar that leads to chunk 2
    expect(overview).to_have_attribute("data-cursor", str(second))
    expect(app.get_by_test_id("overview-readout")).to_contain_text("Chunk 2 of 7")
    app.keyboard.press("ArrowRight")
    app.keyboard.press("ArrowLeft")
    expect(overview).to_have_attribute("data-cursor", str(second))
    app.keyboard.press("Enter")
    top_in_view(app.locator("#chunk-1"))
    strip.focus()
    app.keyboard.press("End")
    expect(overview).to_have_attribute("data-cursor", str(width - 1))
    app.keyboard.press("Enter")
    top_in_view(app.locator("#chunk-6"))
    # A click on a bar: the same jump.
    box = strip.bounding_box()
    assert box is not None
    fourth = engine["chunk"].index(3)
    strip.click(position={"x": fourth + 1.5, "y": box["height"] / 2})
    top_in_view(app.locator("#chunk-3"))

    # From the text view: a click on a part, or Enter on it, goes to its chunk's top.
    part = app.locator('[data-testid="segment"][data-chunks="4"]').first
    line = part.evaluate(
        """el => { el.scrollIntoView({block: 'center'});
                   const v = el.closest('[data-testid="text-view"]').getBoundingClientRect();
                   const top = Math.max(v.top, 0) + 30;
                   const bottom = Math.min(v.bottom, innerHeight) - 10;
                   const rects = [...el.getClientRects()];
                   const r = rects.find((r) => r.top >= top && r.bottom <= bottom);
                   return [r.left + 4, r.top + r.height / 2]; }"""
    )
    app.mouse.click(line[0], line[1])  # on one of its lines in sight
    top_in_view(app.locator("#chunk-4"))
    segment = app.locator('[data-testid="segment"][tabindex="0"]')  # the view's one Tab stop
    segment.focus()
    held = (segment.get_attribute("data-chunks") or "").split()
    app.keyboard.press("Enter")
    top_in_view(app.locator(f"#chunk-{held[0]}"))

    # Go to chunk N, from the keyboard.
    goto = app.get_by_test_id("goto-chunk")
    goto.focus()
    app.keyboard.type("6")
    app.keyboard.press("Enter")
    top_in_view(app.locator("#chunk-5"))


def test_an_evidence_link_shows_its_cards_top(app: Any) -> None:
    words = [f"w{i}" for i in range(6_000)]
    text = " ".join(words)
    configure(app, unit="word", size="1500", overlap="0", text=text)
    app.wait_for_selector(f'{VIEW}[data-rendered="true"][data-chunks="4"]', timeout=WAIT_MS)
    passage = "w4600 w4601 w4602"  # in the fourth chunk
    start = text.index(passage)
    box = app.get_by_test_id("text-input")
    box.evaluate(
        "(el, [a, b]) => { el.focus(); el.setSelectionRange(a, b); }", [start, start + len(passage)]
    )
    fold = app.locator("#evidence-panel > details:has(> summary h2)")
    if fold.count() == 1 and fold.get_attribute("open") is None:
        fold.locator("summary").first.click()
    app.get_by_test_id("evidence-add").click()
    item = app.get_by_test_id("evidence-item")
    expect(item).to_have_attribute("data-chunks", "3", timeout=WAIT_MS)
    app.locator("#chunk-0").scroll_into_view_if_needed()
    item.get_by_test_id("evidence-go").click()
    top_in_view(app.locator("#chunk-3"))


# ---- go to chunk N, and find ---------------------------------------------------------


def test_go_to_chunk_and_find_work_from_the_keyboard_and_name_the_chunks_holding_a_match(
    app: Any,
) -> None:
    text = "Retrieval needs whole passages. A window cuts some of them.\n" * 12
    configure(app, unit="word", size="7", overlap="3", text=text)
    chunks = native("chunk", text=text, unit="word", size=7, overlap=3)["summary"]["chunks"]
    app.wait_for_selector(f'{VIEW}[data-rendered="true"][data-chunks="{chunks}"]', timeout=WAIT_MS)
    goto = app.get_by_test_id("goto-chunk")
    found = app.get_by_test_id("find-result")
    # A number past the last chunk is refused in words, the engine's.
    goto.focus()
    app.keyboard.type("99")
    app.keyboard.press("Enter")
    expect(found).to_have_text(f"there is no chunk 99: type a chunk number from 1 to {chunks}")
    expect(goto).to_have_attribute("aria-invalid", "true")
    app.keyboard.press("Control+A")
    app.keyboard.type("5")
    app.keyboard.press("Enter")
    card = app.locator("#chunk-4")
    expect(card).to_be_focused(timeout=WAIT_MS)
    expect(card.locator(".chunk-title")).to_be_in_viewport(ratio=1)
    expect(goto).not_to_have_attribute("aria-invalid", "true")

    # Find: Tab from "go to chunk" to the find box, type, Enter goes match to match.
    goto.focus()
    app.keyboard.press("Tab")
    find = app.get_by_test_id("find-input")
    expect(find).to_be_focused()
    app.keyboard.type(QUERY)
    engine = native("find", text=text, unit="word", size=7, overlap=3, query=QUERY)
    assert engine["count"] == 12 and engine["cut"] > 0  # some matches fall across a boundary
    listed = ", ".join(str(k + 1) for k in engine["chunks"][:8])
    expect(found).to_contain_text(f"12 matches in chunks {listed}", timeout=WAIT_MS)
    expect(found).to_contain_text(f"{engine['cut']} cut across chunks")
    view = app.get_by_test_id("text-view")
    expect(view).to_have_attribute("data-matches", "12")
    assert app.evaluate("() => CSS.highlights.get('find-match').size") == 12
    app.keyboard.press("Enter")
    first = f"{engine['starts'][0]} {engine['ends'][0]}"
    expect(view).to_have_attribute("data-find-current", first)
    app.keyboard.press("Enter")
    expect(view).to_have_attribute(
        "data-find-current", f"{engine['starts'][1]} {engine['ends'][1]}"
    )
    expect(found).to_contain_text("Match 2 of 12")
    app.keyboard.press("Shift+Enter")
    expect(view).to_have_attribute("data-find-current", first)
    highlighted = app.evaluate("() => [...CSS.highlights.get('find-current')][0].toString()")
    assert highlighted.lower() == QUERY.lower()
    app.keyboard.press("Escape")
    expect(found).to_have_text("")
    assert not app.evaluate("() => CSS.highlights.has('find-match')")

    # A "go to" answer names chunks of this text and these settings: a new size takes
    # it away, as it does an error about a chunk number.
    goto.fill("2")
    goto.press("Enter")
    expect(found).to_contain_text("Chunk 2: characters [", timeout=WAIT_MS)
    configure(app, size="8")
    expect(found).to_have_text("", timeout=WAIT_MS)
    goto.fill("99")
    goto.press("Enter")
    expect(goto).to_have_attribute("aria-invalid", "true")
    configure(app, size="7")
    expect(found).to_have_text("", timeout=WAIT_MS)
    expect(goto).not_to_have_attribute("aria-invalid", "true")

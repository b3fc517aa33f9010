"""The size fitted to the model, no cost without a price, and settings kept, in the page,
as a person uses them: choose each model preset, take the fit, see no chunk over; open
the page again and find the settings; open a share link and see its settings win."""

from __future__ import annotations

import json
from typing import Any

from helpers import WAIT_MS, configure, js_number, native, open_ready, put_text
from playwright.sync_api import expect

from pyapp.facts import page_facts

FACTS = page_facts()
VOCABULARY_TIMEOUT_MS = 90_000  # the largest vocabulary (tekken) on a loaded machine
# Windows that start inside these words re-encode longer on their own, in every encoding.
MIXED = "Overlap  keeps\tboundaries.\nZwölf Wörter 🦜 und 日本語のテキスト, e\u0301 ok?\n" * 6
LONG = " ".join(f"Sentence {i} of a longer document, written to fill windows." for i in range(90))


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


def test_the_fit_leaves_no_chunk_over_for_every_preset_and_the_recursive_splitter(
    page: Any, site_url: str
) -> None:
    open_ready(page, f"{site_url}#unit=token&size=12&overlap=1&om=units")
    put_text(page, MIXED)
    model_select = page.get_by_test_id("model-select")
    # Every preset, at a small typed limit (so the fit has work on a small text) of 12.
    for model in FACTS["models"]:
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
    # all-MiniLM-L6-v2 at 512 fits at 254, the 512-token ones at 600 fit at 510 or less.
    put_text(page, LONG)
    for model in (m for m in FACTS["models"] if m["encoding"] == "bert-base-uncased"):
        model_select.select_option(model["name"])
        limit = model["max_tokens"]["value"]
        configure(page, size=str(limit + 100), overlap="0")
        expect(page.get_by_test_id("limit-summary")).to_have_attribute(
            "data-state", "over", timeout=WAIT_MS
        )
        fit = take_the_fit(page, LONG, size=limit + 100, overlap=0, model=model["name"])
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
    take_the_fit(page, LONG, size=600, overlap=0, model="all-MiniLM-L6-v2", splitter="recursive")

    # Word mode counts no model tokens: nothing to fit, no offer.
    page.get_by_test_id("splitter").select_option("fixed")
    page.get_by_test_id("unit-word").check()
    expect(page.get_by_test_id("fit-line")).to_be_hidden()


def test_no_price_shows_no_cost_and_the_settings_come_back_unless_a_link_names_its_own(
    page: Any, context: Any, site_url: str
) -> None:
    open_ready(page, site_url)
    # The default price is blank: the tokens are estimated, the cost is not shown.
    expect(page.get_by_test_id("price-input")).to_have_value("")
    expect(page.get_by_test_id("summary-tokens")).not_to_have_attribute(
        "data-value", "", timeout=WAIT_MS
    )
    expect(page.get_by_test_id("summary-cost")).to_be_hidden()
    assert "price=" not in page.url

    # Settings changed, then a price entered: the cost appears, the engine's.
    text = "one two three four five six seven eight nine ten eleven twelve"
    configure(page, text=text, unit="char", size="7", overlap="2", price="3")
    expected = native("chunk", text=text, unit="char", size=7, overlap=2, price_per_million="3")
    cost = page.get_by_test_id("summary-cost")
    expect(cost).to_have_attribute(
        "data-value", js_number(expected["summary"]["estimated_cost"]), timeout=WAIT_MS
    )
    expect(cost).to_be_visible()
    page.get_by_test_id("cut-marks-toggle").uncheck()  # a setting that is not a number

    # The page opened again without a link's settings: they come back, with the text.
    page.close()
    again = context.new_page()
    open_ready(again, site_url)
    expect(again.get_by_test_id("unit-char")).to_be_checked()
    expect(again.get_by_test_id("size-input")).to_have_value("7")
    expect(again.get_by_test_id("overlap-input")).to_have_value("2")
    expect(again.get_by_test_id("price-input")).to_have_value("3")
    expect(again.get_by_test_id("cut-marks-toggle")).not_to_be_checked()
    expect(again.get_by_test_id("text-input")).to_have_value(text)
    expect(again.get_by_test_id("summary-chunks")).to_have_attribute(
        "data-value", str(expected["summary"]["chunks"]), timeout=WAIT_MS
    )
    # Kept in this browser only: the settings, as the share link writes them.
    kept = again.evaluate("() => localStorage.getItem('rag-chunk-visualizer:settings')")
    assert kept is not None and "size=7" in kept and text.split()[0] not in kept
    again.close()

    # A share link's settings win over the kept ones, and are kept from then on.
    link = context.new_page()
    open_ready(link, f"{site_url}#unit=word&size=5&overlap=1&om=units")
    expect(link.get_by_test_id("unit-word")).to_be_checked()
    expect(link.get_by_test_id("size-input")).to_have_value("5")
    expect(link.get_by_test_id("overlap-input")).to_have_value("1")
    expect(link.get_by_test_id("price-input")).to_have_value("")
    expect(link.get_by_test_id("cut-marks-toggle")).to_be_checked()
    words = native("chunk", text=text, unit="word", size=5, overlap=1)
    expect(link.get_by_test_id("summary-chunks")).to_have_attribute(
        "data-value", str(words["summary"]["chunks"]), timeout=WAIT_MS
    )
    expect(link.get_by_test_id("summary-cost")).to_be_hidden()
    link.close()
    last = context.new_page()
    open_ready(last, site_url)
    expect(last.get_by_test_id("unit-word")).to_be_checked()
    expect(last.get_by_test_id("size-input")).to_have_value("5")
    assert json.dumps(text)[1:-1] not in last.url  # the text never went into a link
    last.close()

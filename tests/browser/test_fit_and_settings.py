"""No cost without a price, and settings kept, in the page, as a person uses them: open
the page again and find the settings; open a share link and see its settings win.
(The fit to each model preset is checked in test_models.py, on the page that has
loaded every vocabulary.)"""

from __future__ import annotations

import json
from typing import Any

from helpers import WAIT_MS, configure, js_number, native, open_ready
from playwright.sync_api import expect


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

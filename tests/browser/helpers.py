"""Helpers the page tests share: the native answer to compare with, and a page opened to ready."""

from __future__ import annotations

import json
from typing import Any

from pyapp.web.api import handle

BOOT_TIMEOUT_MS = 60_000


def native(op: str, **request: Any) -> dict[str, Any]:
    """The engine's answer, computed natively: what the page must show."""
    response = json.loads(handle(json.dumps({"op": op, **request})))
    assert response["ok"], response
    result: dict[str, Any] = response["result"]
    return result


def js_number(value: float) -> str:
    """How the page writes a number into data-value (JavaScript's String(n))."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value)


def open_ready(page: Any, url: str) -> Any:
    """Navigate and wait until start-up ends; fail if it ended in an error."""
    page.goto(url)
    page.wait_for_selector(
        '[data-testid="status"][data-state="ready"], [data-testid="status"][data-state="error"]',
        timeout=BOOT_TIMEOUT_MS,
    )
    status = page.get_by_test_id("status")
    # Once ready, the first computation may already have turned it to "busy".
    assert status.get_attribute("data-state") != "error", status.inner_text()
    return page

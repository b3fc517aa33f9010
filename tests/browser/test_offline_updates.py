"""The service worker never mixes two builds: a page and everything it loads come
from one version, a new version takes over only once it is complete, and a
failed install leaves nothing behind."""

from __future__ import annotations

import http.server
import os
import re
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import open_ready

import build


def make_build(dist: Path, target: Path, name: str) -> list[str]:
    """A copy of dist/ whose page says which build it is, in its HTML and in each of
    its module scripts, with the service worker of that copy. Returns the modules."""
    shutil.copytree(dist, target)
    index = target / "index.html"
    html = index.read_text("utf-8")
    # The entry, which index.html's inline script adds, and the page's own module,
    # which start.js loads.
    assert f'"{build.ENTRY_MODULE}"' in html, "index.html does not add its entry"
    modules = [build.ENTRY_MODULE, build.APP_MODULE]
    index.write_text(html.replace("<html ", f'<html data-html-build="{name}" ', 1), "utf-8")
    # The parts of the page boot.js fetches after the first frame say it too.
    later = target / build.LATER_PAGE
    first = '<template data-later="1">'
    text = later.read_text("utf-8")
    assert first in text, "later.html has no second part"
    later.write_text(text.replace(first, f'{first}<i hidden data-later-build="{name}"></i>'))
    for module in modules:
        path = target / module
        path.write_text(
            path.read_text("utf-8")
            + f'\ndocument.documentElement.dataset.{Path(module).stem}Build = "{name}";\n',
            "utf-8",
        )
    files = {
        p.relative_to(target).as_posix(): p
        for p in sorted(target.rglob("*"))
        if p.is_file() and p.name != "sw.js"
    }
    _, text = build.service_worker_text(files)
    (target / "sw.js").write_text(text, "utf-8")
    # A later build is newer: http.server answers If-Modified-Since by the second.
    later = time.time() + {"A": 0, "B": 60}[name]
    for path in target.rglob("*"):
        os.utime(path, (later, later))
    return modules


class Switch:
    """Which build the server serves now, and which of its paths fail."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.failing: set[str] = set()


@pytest.fixture
def two_builds(built_site: Path, tmp_path: Path) -> Iterator[tuple[str, Switch, list[str]]]:
    modules = make_build(built_site, tmp_path / "A", "A")
    make_build(built_site, tmp_path / "B", "B")
    switch = Switch(tmp_path / "A")

    class Handler(build.SiteHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(switch.root), **kwargs)

        def do_GET(self) -> None:  # noqa: N802  (http.server's name)
            if self.path.split("?")[0].lstrip("/") in switch.failing:
                self.send_error(500, "failing on purpose")
                return
            super().do_GET()

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/", switch, modules
    finally:
        server.shutdown()
        server.server_close()


def builds_seen(page: Any, modules: list[str]) -> set[str]:
    """Every build marker on the page: the HTML's, its later parts' and each module's."""
    data = page.evaluate("() => ({...document.documentElement.dataset})")
    later = page.locator("[data-later-build]").get_attribute("data-later-build")
    seen = {data.get("htmlBuild"), later}
    for module in modules:
        stem = Path(module).stem
        key = stem + "Build"
        seen.add(data.get(re.sub(r"-(\w)", lambda m: m.group(1).upper(), key)))
    return seen


#: Waits (up to a minute) for the page's service worker to be active: the page
#: registers it once the engine is ready, and its install fetches the whole build.
ACTIVE = """async () => {
  const late = new Promise((resolve) => setTimeout(() => resolve("late"), 60000));
  const active = navigator.serviceWorker.ready.then(() => "active");
  const seen = await Promise.race([active, late]);
  if (seen === "active") return seen;
  const registration = await navigator.serviceWorker.getRegistration();
  const worker = registration?.installing ?? registration?.waiting ?? registration?.active;
  return `not active after 60 s: ${registration ? worker?.state ?? "no worker" : "not registered"}`;
}"""


#: Checks for a new version and resolves with how its install ended ("installed" or
#: "redundant"). The page registers its service worker at each load, which checks
#: for a new version too, so that install may be under way or done already: it is
#: the one waited for then. The new worker's own statechange events are waited on
#: (its state read once more as the listener is added, for a change made before it);
#: 30 s without one is a hang bound, not a clock.
NOT_FOUND = "no new version found in 5 s"
UPDATE = """async () => {
  const NOT_FOUND = "no new version found in 5 s";
  const registration = await navigator.serviceWorker.getRegistration();
  const settled = (worker) => new Promise((resolve) => {
    const seen = () => {
      if (worker.state === "installed" || worker.state === "activated") resolve("installed");
      if (worker.state === "redundant") resolve("redundant");
    };
    worker.addEventListener("statechange", seen);
    seen();
    setTimeout(() => resolve(`still ${worker.state} after 30 s`), 30000);
  });
  if (registration.installing) return settled(registration.installing);
  if (registration.waiting) return "installed";
  const found = new Promise((resolve) => registration.addEventListener(
    "updatefound", () => resolve(registration.installing), { once: true }));
  await registration.update();
  const none = new Promise((resolve) => setTimeout(() => resolve(null), 5000));
  const worker = registration.installing ?? registration.waiting
    ?? await Promise.race([found, none]);
  return worker === null ? NOT_FOUND : settled(worker);
}"""


def update(page: Any) -> str:
    """How the install of the version the server now serves ended. Asked up to three
    times: an ``update()`` that meets an install the page started itself may end
    with no new worker of its own (without this the test hung on ``updatefound``)."""
    for _ in range(3):
        ended: str = page.evaluate(UPDATE)
        if ended != NOT_FOUND:
            return ended
    return ended


#: Asks the waiting version to take over; resolves once it controls the page.
TAKE_OVER = """async () => {
  const registration = await navigator.serviceWorker.getRegistration();
  if (!registration.waiting) return `no waiting version (active: ${registration.active?.state})`;
  const changed = new Promise((resolve) => navigator.serviceWorker.addEventListener(
    "controllerchange", () => resolve("changed"), { once: true }));
  registration.waiting.postMessage({ type: "skip-waiting" });
  const late = new Promise((resolve) => setTimeout(() => resolve("no controllerchange"), 10000));
  return Promise.race([changed, late]);
}"""


def test_a_failed_update_keeps_the_whole_old_build_and_a_complete_one_takes_over_whole(
    page: Any, session: Any, two_builds: tuple[str, Switch, list[str]]
) -> None:
    url, switch, modules = two_builds
    session.origin = url.rstrip("/")
    session.allow_console_error(r"(?i)HTTP 500|failing on purpose|Failed to load resource")
    open_ready(page, url)
    assert page.evaluate(ACTIVE) == "active"
    open_ready(page, url)  # the second visit is the one the service worker serves
    assert page.evaluate("() => navigator.serviceWorker.controller !== null")
    assert builds_seen(page, modules) == {"A"}
    old_caches = page.evaluate("() => caches.keys()")

    # Build B appears, but one of its modules fails to download.
    switch.root = switch.root.parent / "B"
    switch.failing = {modules[-1]}
    assert update(page) == "redundant"
    assert page.evaluate("() => caches.keys()") == old_caches  # nothing of B is left
    open_ready(page, url)
    assert builds_seen(page, modules) == {"A"}

    # B is served whole: it installs, and waits while a page of A is open.
    switch.failing = set()
    assert update(page) == "installed"
    open_ready(page, url)
    assert builds_seen(page, modules) == {"A"}

    # The page asks the waiting version to take over, then reloads: all of it is B.
    assert page.evaluate(TAKE_OVER) == "changed"
    open_ready(page, url)
    assert builds_seen(page, modules) == {"B"}
    caches = page.evaluate("() => caches.keys()")
    assert len(caches) == 1 and caches != old_caches

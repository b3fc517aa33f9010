"""The native side of dense retrieval: ``onnxruntime`` runs the model file, and a
directory keeps the embeddings (``--cache DIR``). Only the model runs here; the ids,
pooling and normalization are :mod:`pyapp.core.dense`'s.

``onnxruntime`` is an optional extra (``pip install 'pyapp[embed]'``): without it,
asking for dense retrieval is one error that says so. The model file is checked
against its sha256 (:data:`~pyapp.weights.EMBEDDING_MODEL`) before it is opened, so a
damaged or replaced file is refused, never run.

**The cache** (:class:`DirStore`): ``DIR/<model sha256>/<key[:2]>/<key>.f64``, one
file per text (``key``: :func:`~pyapp.core.dense.text_key`), 384 little-endian doubles.
Files are written whole (a temporary file, then renamed), and one that cannot be read
back is embedded again.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from array import array
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from .core.dense import DIMENSION, pack, unpack
from .errors import InputError
from .weights import DATA_DIR, EMBEDDING_MODEL

__all__ = ["DirStore", "LazyEmbedder", "NativeEmbedder", "model_path", "open_embedder"]

MISSING_EXTRA = (
    "dense retrieval (--retriever minilm or both) needs onnxruntime, which is not"
    " installed: pip install 'pyapp[embed]', or use --retriever bm25"
)


def model_path() -> Path:
    """Where the build put the model file (``python build.py vocab``)."""
    folder = resources.files("pyapp").joinpath(DATA_DIR, EMBEDDING_MODEL.folder)
    return Path(str(folder)) / EMBEDDING_MODEL.file


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_model(path: Path) -> bytes:
    """The model file's bytes, refused unless they are the pinned file."""
    if not path.is_file():
        raise InputError(
            "model",
            f"the model file {path} is missing: run `python build.py vocab`, then reinstall",
        )
    got = _sha256(path)
    if got != EMBEDDING_MODEL.sha256:
        raise InputError(
            "model",
            f"the model file {path} has sha256 {got}, not the pinned"
            f" {EMBEDDING_MODEL.sha256}: it is damaged or not {EMBEDDING_MODEL.name};"
            " run `python build.py vocab` to restore it",
        )
    return path.read_bytes()


class NativeEmbedder:
    """``onnxruntime`` on the pinned model; ``calls`` counts the batches it ran and
    ``rows`` the texts."""

    def __init__(self, session: Any, numpy: Any) -> None:
        self._session = session
        self._np = numpy
        self.calls = 0
        self.rows = 0

    def hidden_states(self, rows: list[list[int]]) -> list[Sequence[float]]:
        np = self._np
        ids = np.array(rows, dtype=np.int64)
        feeds = {
            "input_ids": ids,
            "attention_mask": np.ones_like(ids),
            "token_type_ids": np.zeros_like(ids),
        }
        (hidden,) = self._session.run([EMBEDDING_MODEL.output], feeds)
        self.calls += 1
        self.rows += len(rows)
        out: list[Sequence[float]] = []
        for row in hidden:  # float32 as the page's bytes are: a C copy, no Python floats
            values = array("f")
            values.frombytes(np.ascontiguousarray(row, dtype=np.float32).tobytes())
            out.append(values)
        return out


def _runtime() -> tuple[Any, Any]:
    try:
        import numpy
        import onnxruntime
    except ImportError:
        raise InputError("retriever", MISSING_EXTRA) from None
    return numpy, onnxruntime


def open_embedder(path: Path | None = None, *, threads: int | None = None) -> NativeEmbedder:
    """The embedder on the model file at ``path`` (default: :func:`model_path`)."""
    numpy, onnxruntime = _runtime()
    data = check_model(path if path is not None else model_path())
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    if threads is not None:
        options.intra_op_num_threads = threads
    session = onnxruntime.InferenceSession(
        data, sess_options=options, providers=["CPUExecutionProvider"]
    )
    return NativeEmbedder(session, numpy)


class LazyEmbedder:
    """:func:`open_embedder` on the first batch, so a run the cache answers whole never
    loads the model; the runtime must be installed all the same (checked at once)."""

    def __init__(self, path: Path | None = None) -> None:
        _runtime()
        self._path = path
        self.embedder: NativeEmbedder | None = None

    @property
    def calls(self) -> int:
        """Batches the model ran (0 when it was never opened)."""
        return self.embedder.calls if self.embedder is not None else 0

    @property
    def rows(self) -> int:
        """Texts the model embedded."""
        return self.embedder.rows if self.embedder is not None else 0

    def open(self) -> NativeEmbedder:
        """The embedder, opened now if it was not yet (the model file checked first)."""
        if self.embedder is None:
            self.embedder = open_embedder(self._path)
        return self.embedder

    def hidden_states(self, rows: list[list[int]]) -> list[Sequence[float]]:
        return self.open().hidden_states(rows)


class DirStore:
    """Embeddings kept in a directory, under the model's sha256."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root) / EMBEDDING_MODEL.sha256
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError("cache", f"cannot use {root} as the cache: {exc.strerror}") from None

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.f64"

    def get(self, key: str) -> list[float] | None:
        try:
            return unpack(self._path(key).read_bytes())
        except (OSError, ValueError):
            return None

    def put(self, key: str, vector: list[float]) -> None:
        if len(vector) != DIMENSION:
            raise ValueError(f"a vector of {len(vector)} numbers, not {DIMENSION}")
        path = self._path(key)
        try:
            path.parent.mkdir(exist_ok=True)
            handle, scratch = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(handle, "wb") as out:
                out.write(pack(vector))
            os.replace(scratch, path)
        except OSError as exc:
            raise InputError("cache", f"cannot write to the cache {self.root}: {exc}") from None

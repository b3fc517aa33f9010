"""Fitting the chunk size to a model: the largest size at which every chunk of the text,
encoded on its own, with the model's special tokens, fits its input limit; exact
against chunking at every size, and honest where a fixed size cannot guarantee it."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

import pyapp.planning.fit as fit_module
from pyapp.core.chunking import chunk_text
from pyapp.core.params import parse_params
from pyapp.figures import round_half_up
from pyapp.models import MODELS
from pyapp.planning.fit import fit_size
from pyapp.web.api import handle

ENGLISH = " ".join(
    f"Sentence {i} of a longer document, written so that windows fill up." for i in range(60)
)
# Words WordPiece splits into pieces, CJK, an emoji, a combining accent, CRLF: windows
# that start inside them re-encode longer on their own.
MIXED = "Overlap  keeps\tboundaries.\r\nZwölf Wörter 🦜 und 日本語のテキスト, e\u0301 ok?\n" * 6


def answer(op: str, **request: Any) -> dict[str, Any]:
    body = json.loads(handle(json.dumps({"op": op, **request})))
    assert body["ok"], body
    result: dict[str, Any] = body["result"]
    return result


def over(text: str, **fields: Any) -> int:
    summary = answer("chunk", text=text, unit="token", caps=False, **fields)["summary"]
    count: int = summary["chunks_over_limit"]
    return count


def test_minilm_at_512_fits_at_254_and_then_no_chunk_is_over() -> None:
    fields = {"size": 512, "overlap": 0, "model": "all-MiniLM-L6-v2"}
    assert over(ENGLISH, **fields) > 0  # 512-token windows are over its 256
    fit = answer("fit", text=ENGLISH, unit="token", **fields)
    assert fit["label"] == "Fit: size 254 so every chunk fits all-MiniLM-L6-v2's 256 tokens"
    assert (fit["limit"], fit["size"], fit["special_tokens"], fit["current"]) == (
        254,
        254,
        2,
        False,
    )
    assert fit["over_at_limit"] == 0 and fit["largest"] <= 254
    assert "cannot guarantee this on every text" in fit["note"]
    assert over(ENGLISH, **{**fields, "size": fit["size"]}) == 0
    again = answer("fit", text=ENGLISH, unit="token", **{**fields, "size": 254})
    assert again["current"] is True


@pytest.mark.parametrize(
    ("model", "max_tokens"),
    [
        ("all-MiniLM-L6-v2", 6),
        ("all-MiniLM-L6-v2", 12),
        ("text-embedding-3-small", 9),
        ("llama-3.1-8b", 12),
        ("qwen2.5-7b", 6),
        ("mistral-nemo", 9),
    ],
)
def test_the_fit_is_the_largest_size_with_no_chunk_over_as_chunking_at_each_size_says(
    model: str, max_tokens: int
) -> None:
    fields = {"model": model, "max_tokens": max_tokens, "overlap": 1}
    fit = answer("fit", text=MIXED, unit="token", size=max_tokens, **fields)
    size = fit["size"]
    assert size is not None and size < fit["limit"]  # these windows re-encode longer alone
    assert over(MIXED, size=size, **fields) == 0
    for larger in range(size + 1, fit["limit"] + 1):  # nothing larger fits
        assert over(MIXED, size=larger, **fields) > 0, larger
    assert fit["over_at_limit"] == over(MIXED, size=fit["limit"], **fields) > 0
    assert fit["largest_at_limit"] > fit["limit"]
    assert fit["tried"] == fit["limit"] - size + 1
    assert "so a fixed size cannot guarantee the fit" in fit["note"]
    assert f"Size {size:,} is the largest" in fit["note"]


@pytest.mark.parametrize("model", list(MODELS))
def test_every_presets_fit_leaves_no_chunk_over_its_limit(model: str) -> None:
    """At a small typed limit (so the fit has work on a small text), and at the
    preset's own limit where this text is longer than it. The page shows this answer
    (tests/browser/test_models.py takes it for one preset of each encoding)."""
    fields = {"model": model, "max_tokens": 12, "overlap": 1}
    assert over(MIXED, size=12, **fields) > 0  # size 12 is over 12 less the specials
    fit = answer("fit", text=MIXED, unit="token", size=12, **fields)
    assert fit["size"] is not None and fit["label"].endswith("fits your input limit of 12 tokens")
    assert over(MIXED, **{**fields, "size": fit["size"]}) == 0
    limit = MODELS[model].max_tokens.value
    if MODELS[model].encoding == "bert-base-uncased":  # 256 or 512 tokens: this text is longer
        assert over(ENGLISH, size=limit + 100, overlap=0, model=model) > 0
        own = answer("fit", text=ENGLISH, unit="token", size=limit + 100, overlap=0, model=model)
        assert own["label"].endswith(f"fits {model}'s {limit} tokens"), own["label"]
        assert over(ENGLISH, size=own["size"], overlap=0, model=model) == 0


def test_a_percentage_overlap_is_taken_of_the_fitted_size() -> None:
    params = parse_params(unit="token", size=512, overlap="20%", model="all-MiniLM-L6-v2")
    fit = fit_size(ENGLISH, params)
    assert fit.size == 254 and fit.overlap == round_half_up(fit.size * 20 / 100) == 51


def test_an_overlap_not_below_the_limit_is_named_as_the_reason() -> None:
    params = parse_params(unit="token", size=400, overlap=300, model="all-MiniLM-L6-v2")
    fit = fit_size(ENGLISH, params)
    assert fit.size is None and fit.reason is not None
    assert "the overlap (300) is not below size 254: lower the overlap" in fit.reason


def test_the_search_is_bounded_and_says_where_it_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fit_module, "FIT_SIZES", 1)
    params = parse_params(unit="token", size=12, overlap=1, model="all-MiniLM-L6-v2", max_tokens=12)
    fit = fit_size(MIXED, params)
    assert fit.size is None and fit.tried == 1
    assert fit.reason == (
        "no size from 10 down to 10 fits every chunk of this text (1 sizes tried):"
        " lower the size by hand and check again"
    )


def test_a_limit_that_would_encode_too_many_chunks_is_refused_before_it_is_tried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fit_module, "FIT_WINDOWS", 10)
    params = parse_params(unit="token", size=12, overlap=1, model="all-MiniLM-L6-v2", max_tokens=12)
    fit = fit_size(MIXED, params)
    assert fit.size is None and fit.tried == 0
    assert fit.reason is not None and fit.reason.startswith("at size 10 this text makes")
    assert "more than the 10 the fit encodes one by one" in fit.reason


def test_the_recursive_splitter_fits_at_the_limit_or_names_the_piece_it_cannot_split() -> None:
    fields = {"splitter": "recursive", "size": 512, "overlap": 0, "model": "all-MiniLM-L6-v2"}
    fit = answer("fit", text=ENGLISH, unit="token", **fields)
    assert fit["size"] == 254 and over(ENGLISH, **{**fields, "size": 254}) == 0
    # With only ". " to split at, a 300-token run with no ". " stays whole at every size.
    run = "word " * 300
    text = f"A start. {run}. An end."
    seps = {**fields, "separators": json.dumps([". "])}
    stuck = answer("fit", text=text, unit="token", **seps)
    assert stuck["size"] is None and stuck["tried"] == 1
    assert "no separator left to split them at" in stuck["reason"]
    assert over(text, **{**seps, "size": 254}) > 0 and over(text, **{**seps, "size": 100}) > 0


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"unit": "word", "size": 40, "model": "gte-small"}, "unit"),
        ({"unit": "token", "size": 40}, "max_tokens"),
    ],
)
def test_a_fit_without_tokens_or_a_limit_is_refused_naming_the_field(
    fields: dict[str, Any], field: str
) -> None:
    body = json.loads(handle(json.dumps({"op": "fit", "text": ENGLISH, **fields})))
    assert body["ok"] is False and body["error"]["field"] == field


def test_the_command_line_prints_the_fit_the_page_gets(tmp_path: Any) -> None:
    path = tmp_path / "doc.txt"
    path.write_text(MIXED, "utf-8")
    flags = ["--model", "all-MiniLM-L6-v2", "--max-tokens", "12", "--overlap", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "pyapp", "fit", str(path), *flags], capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr
    page = answer("fit", text=MIXED, unit="token", size=10_000_000, overlap=1,
                  model="all-MiniLM-L6-v2", max_tokens=12)  # fmt: skip
    assert json.loads(done.stdout) == page
    refused = subprocess.run(
        [sys.executable, "-m", "pyapp", "fit", str(path), "--unit", "word", "--model", "gte-small"],
        capture_output=True,
        check=False,
    )
    assert refused.returncode == 2 and refused.stdout == b""
    assert refused.stderr.decode().strip() == (
        "python -m pyapp fit: --unit: the fit counts the model's tokens: choose the token unit"
    )


def test_after_the_fit_the_export_has_no_chunk_over() -> None:
    params = parse_params(unit="token", size=12, overlap=1, model="gte-small", max_tokens=12)
    fit = fit_size(MIXED, params)
    assert fit.size is not None
    report = chunk_text(MIXED, parse_params(unit="token", size=fit.size, overlap=1,
                                            model="gte-small", max_tokens=12))  # fmt: skip
    assert report.summary.chunks_over_limit == 0
    assert all((c.tokens_alone or 0) + 2 <= 12 for c in report.chunks)

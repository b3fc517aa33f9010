"""Model presets and tokens_alone: each chunk's text encoded by itself, checked
against the model's maximum (its special tokens included) or against the size."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pyapp.core.chunking import chunk_text
from pyapp.core.params import parse_params
from pyapp.core.tokenizers import get_tokenizer
from pyapp.errors import InputError
from pyapp.facts import ENCODINGS, page_facts
from pyapp.models import MODELS
from pyapp.web.api import handle

REQUIRED = [
    "text-embedding-3-small", "text-embedding-3-large", "text-embedding-ada-002",
    "all-MiniLM-L6-v2", "bge-small-en-v1.5", "bge-base-en-v1.5", "gte-small", "gte-base",
    "llama-3.1-8b", "qwen2.5-7b", "mistral-nemo",
]  # fmt: skip


def test_every_required_preset_exists_and_every_figure_names_a_dated_source() -> None:
    assert set(REQUIRED) <= set(MODELS)
    for model in MODELS.values():
        assert model.encoding in ENCODINGS
        for figure in (model.max_tokens, model.special_tokens, model.dimension,
                       model.price_per_million):  # fmt: skip
            if figure is not None:
                assert (
                    figure.source and figure.url.startswith("https://") and figure.date[:2] == "20"
                )


def test_the_page_facts_offer_the_presets_and_each_vocabularys_licence() -> None:
    facts = page_facts()
    assert [m["name"] for m in facts["models"]] == list(MODELS)
    by_name = {e["name"]: e for e in facts["encodings"]}
    assert by_name["llama3"]["vocabulary"]["licence"] == "Llama 3 Community License"
    assert by_name["o200k_base"]["vocabulary"] is None
    assert "Claude" in facts["no_offline_tokenizer"]


def test_a_preset_sets_encoding_maximum_and_price_and_each_can_be_overridden() -> None:
    p = parse_params(unit="token", size=100, model="all-MiniLM-L6-v2")
    assert (p.encoding, p.max_tokens, p.special_tokens) == ("bert-base-uncased", 256, 2)
    q = parse_params(unit="token", size=100, model="text-embedding-3-small")
    assert (q.encoding, q.max_tokens, str(q.price_per_million)) == ("cl100k_base", 8192, "1/50")
    r = parse_params(unit="token", size=100, model="text-embedding-3-small",
                     encoding="o200k_base", max_tokens="500", price_per_million="3")  # fmt: skip
    assert (r.encoding, r.max_tokens, r.price_per_million) == ("o200k_base", 500, 3)


def test_an_unknown_model_or_a_maximum_below_the_special_tokens_is_refused_with_a_hint() -> None:
    with pytest.raises(InputError, match="unknown model 'gpt-9'.*choose one of"):
        parse_params(unit="token", size=4, model="gpt-9")
    with pytest.raises(InputError, match=r"maximum input tokens \(2\) must be more than"):
        parse_params(unit="token", size=4, model="bge-small-en-v1.5", max_tokens=2)


def test_tokens_alone_is_each_chunks_text_encoded_by_itself() -> None:
    text = "Overlap  keeps\tboundaries.\r\nZwölf Wörter 🦜 und 日本語のテキスト, e\u0301 ok?\n"
    params = parse_params(unit="token", size=5, overlap=2, encoding="bert-base-uncased")
    report = chunk_text(text, params)
    tok = get_tokenizer("bert-base-uncased")
    assert [c.tokens_alone for c in report.chunks] == [tok.count(c.text) for c in report.chunks]
    # The window "lf Wörter 🦜 und" starts at "##lf" of "zwolf": alone, "lf" is
    # more tokens than the window holds.
    assert report.summary.max_tokens_alone == max(c.tokens_alone or 0 for c in report.chunks)
    over = sum(1 for c in report.chunks if (c.tokens_alone or 0) > 5)
    assert report.summary.chunks_over_limit == over > 0


def test_with_a_model_the_limit_is_its_maximum_less_its_special_tokens() -> None:
    text = "one two three four five six seven eight nine ten"
    for maximum, over in [(12, 0), (6, 0), (5, 2), (4, 2)]:  # 4 tokens a chunk + [CLS] [SEP]
        params = parse_params(unit="token", size=4, overlap=0, model="gte-small",
                              max_tokens=maximum)  # fmt: skip
        report = chunk_text(text, params)
        assert [c.tokens_alone for c in report.chunks] == [4, 4, 2]
        assert report.summary.chunks_over_limit == over


def test_word_mode_has_no_tokens_alone() -> None:
    report = chunk_text("a b c", parse_params(unit="word", size=2, model="gte-base"))
    assert report.summary.max_tokens_alone is None and report.chunks[0].tokens_alone is None


def test_the_view_flags_cards_over_the_limit_and_the_summary_counts_them() -> None:
    request = {"op": "chunk", "text": "one two three four five six seven eight nine ten",
               "unit": "token", "size": 4, "overlap": 0, "model": "gte-small",
               "max_tokens": 5}  # fmt: skip
    result = json.loads(handle(json.dumps(request)))["result"]
    assert [c["over_limit"] for c in result["chunks"]] == [True, True, False]
    assert [c["tokens_alone"] for c in result["chunks"]] == [4, 4, 2]
    assert result["summary"]["chunks_over_limit"] == 2
    assert result["params"]["model"] == "gte-small" and result["params"]["max_tokens"] == 5
    assert "tokens_alone + 2 > 5" in result["derivation"]["chunks_over_limit"]["inputs"]


def test_the_cli_takes_a_model_and_its_overrides_and_names_the_flag_on_bad_input() -> None:
    run = [sys.executable, "-m", "pyapp", "chunk", "-", "--unit", "token", "--size", "3"]
    done = subprocess.run([*run, "--model", "bge-small-en-v1.5"], input="alpha beta gamma delta",
                          capture_output=True, text=True)  # fmt: skip
    doc = json.loads(done.stdout)
    assert doc["params"]["encoding"] == "bert-base-uncased" and doc["params"]["max_tokens"] == 512
    bad = subprocess.run([*run, "--model", "bge-small-en-v1.5", "--max-tokens", "1"],
                         input="a b", capture_output=True, text=True)  # fmt: skip
    assert (
        bad.returncode == 2 and "--max-tokens" in bad.stderr and len(bad.stderr.splitlines()) == 1
    )


def test_size_and_budget_take_the_models_dimension_and_window() -> None:
    size = subprocess.run([sys.executable, "-m", "pyapp", "size", "--documents", "10",
                           "--avg-tokens", "100", "--size", "50", "--model", "bge-base-en-v1.5"],
                          capture_output=True, text=True)  # fmt: skip
    assert json.loads(size.stdout)["params"]["dim"] == 768
    budget = subprocess.run([sys.executable, "-m", "pyapp", "budget", "--model", "qwen2.5-7b",
                             "--top-k", "5", "--size", "512"],
                            capture_output=True, text=True)  # fmt: skip
    assert json.loads(budget.stdout)["params"]["window"] == 131072

"""Engine benchmark (a script, not a test): 1,000,000 bytes of English, every unit.

    python bench/bench_engine.py [--repeat N]

Measures, natively and in one run:
* the full result per unit: the export with caps lifted (every chunk, JSON text)
  and the page's capped view (summary, derivations, overview);
* token mode with rank loading timed on its own, on both backends;
* tiktoken's own encode of the same text, the anchor for the ratios.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyapp.core import tokenizers  # noqa: E402
from pyapp.core.chunking import chunk_text  # noqa: E402
from pyapp.core.export import dumps  # noqa: E402
from pyapp.core.params import parse_params  # noqa: E402
from pyapp.web.api import handle  # noqa: E402

TARGET_BYTES = 1_000_000
VOCABULARY = """
the of and to in a is that for it as was with be by on not he this are or his from at which
but have an they you were her she there been one all we their has would when if so chunk
overlap window retrieval embedding document token boundary sentence evidence index vector
budget context query answer model stride size unit paragraph section heading
"""
WORDS = VOCABULARY.split()


def english(n_bytes: int, *, seed: int = 1) -> str:
    """Deterministic English-like prose of exactly ``n_bytes`` ASCII bytes."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < n_bytes:
        words = [rng.choice(WORDS) for _ in range(rng.randrange(6, 18))]
        sentence = " ".join(words).capitalize() + rng.choice([". ", ". ", ", ", "? ", ".\n\n"])
        parts.append(sentence)
        total += len(sentence)
    return "".join(parts)[:n_bytes]


def timed(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - began)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="best of N (default 3)")
    args = parser.parse_args()
    text = english(TARGET_BYTES)
    assert len(text.encode()) == TARGET_BYTES
    rows: list[tuple[str, float]] = []

    began = time.perf_counter()
    ranks = tokenizers.load_ranks("o200k_base")
    rows.append(("load o200k ranks (bundled, hash-checked)", time.perf_counter() - began))
    began = time.perf_counter()
    native = tokenizers.get_tokenizer("o200k_base", backend="tiktoken")
    rows.append(("build tiktoken.Encoding from them", time.perf_counter() - began))
    began = time.perf_counter()
    pure = tokenizers.get_tokenizer("o200k_base", backend="pure")
    rows.append(("build pure encoder from them", time.perf_counter() - began))
    del ranks

    anchor = timed(lambda: native.encode(text), args.repeat)
    rows.append(("tiktoken encode_ordinary (anchor)", anchor))
    rows.append(("pure encode, cold piece memo (heap merge)", timed(lambda: pure.encode(text), 1)))

    from pyapp.core import units

    for unit in ("word", "char", "token"):
        params = parse_params(unit=unit, size=512, overlap=64, caps=False)

        def export(params: object = params) -> str:
            units._encode.cache_clear()
            return dumps(chunk_text(text, params))  # type: ignore[arg-type]

        rows.append((f"{unit}: full export, no caps (512/64)", timed(export, args.repeat)))

        def view(unit: str = unit) -> str:
            units._encode.cache_clear()
            request = {"op": "chunk", "unit": unit, "size": 512, "overlap": 64, "text": text}
            return handle(json.dumps(request))

        rows.append((f"{unit}: page view via handle (capped)", timed(view, args.repeat)))

    def pure_token() -> str:
        units._encode.cache_clear()
        params = parse_params(unit="token", size=512, overlap=64, caps=False)
        return dumps(chunk_text(text, params, backend="pure"))

    rows.append(("token (pure backend): full export, no caps", timed(pure_token, 1)))
    one_piece = "a" * TARGET_BYTES
    rows.append(("1,000,000 x 'a', tiktoken encode", timed(lambda: native.encode(one_piece), 1)))
    rows.append(("1,000,000 x 'a', pure encode", timed(lambda: pure.encode(one_piece), 1)))

    print(
        f"text: {TARGET_BYTES:,} bytes, {len(text.split()):,} words, "
        f"{len(native.encode(text)):,} o200k tokens; best of {args.repeat} unless one-shot"
    )
    print(f"{'measure':<48} {'seconds':>9} {'x tiktoken':>11}")
    for label, seconds in rows:
        print(f"{label:<48} {seconds:>9.3f} {seconds / anchor:>11.1f}")


if __name__ == "__main__":
    main()

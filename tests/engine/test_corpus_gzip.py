"""A gzip file is read as ``gzip`` reads it, member after member; bytes after the
last member are said to be ignored, never the reason the whole file is lost."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from pyapp.core.params import parse_params
from pyapp.planning.corpus import count_corpus

PARAMS = parse_params(unit="word", size=4, overlap=0)


def lines(*texts: str) -> bytes:
    return b"".join(json.dumps({"text": t}).encode() + b"\n" for t in texts)


def test_a_gzip_with_trailing_bytes_counts_every_member_and_says_what_it_ignored(
    tmp_path: Path,
) -> None:
    path = tmp_path / "records.jsonl.gz"
    path.write_bytes(
        gzip.compress(lines("one two", "three")) + gzip.compress(lines("four five six")) + b"junk!"
    )
    doc = count_corpus([str(path)], PARAMS, workers=1).to_json(timing=False)
    assert (doc["documents"], doc["units"]) == (3, 6)
    (error,) = doc["errors"]
    assert error["reason"] == (
        "5 bytes after the gzip data were ignored (they do not begin another gzip member);"
        " the 2 member(s) before them were read"
    )


def test_zeros_after_a_gzip_are_padding_and_a_truncated_gzip_is_still_an_error(
    tmp_path: Path,
) -> None:
    padded = tmp_path / "padded.txt.gz"
    padded.write_bytes(gzip.compress(b"alpha beta gamma") + b"\0" * 512)
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(gzip.compress(b"delta " * 1000)[:-12])
    doc = count_corpus([str(padded), str(cut)], PARAMS, workers=1).to_json(timing=False)
    assert (doc["documents"], doc["units"]) == (1, 3)
    (error,) = doc["errors"]
    assert error["path"].endswith("cut.txt.gz") and "not a valid .gz file" in error["reason"]

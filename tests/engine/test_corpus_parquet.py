"""Parquet as a user expects it read: text in any of Arrow's string forms, a row that
is not UTF-8 listed by its row while the rest counts, and memory bounded by bytes
per batch (a few large values never come in a batch of a thousand rows)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pyapp.core.params import parse_params
from pyapp.planning.corpus import count_corpus

PARAMS = parse_params(unit="char", size=8, overlap=0)
TEXTS = ["one", "two two", "three three three", "two two"]


def count(path: Path) -> dict[str, object]:
    doc: dict[str, object] = count_corpus([str(path)], PARAMS, workers=1).to_json(timing=False)
    return doc


@pytest.mark.parametrize(
    "column",
    [
        pa.array(TEXTS).dictionary_encode(),
        pa.array(TEXTS, pa.string_view()),
        pa.array(TEXTS, pa.large_string()).dictionary_encode(),
    ],
    ids=["dictionary", "string_view", "dictionary_of_large_string"],
)
def test_dictionary_and_string_view_text_columns_are_read_as_text(
    tmp_path: Path, column: pa.Array
) -> None:
    plain = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"text": TEXTS}), plain)
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"text": column}), other)
    assert not pa.types.is_string(pq.read_schema(other).field("text").type)  # as written
    expected, got = count(plain), count(other)
    assert got["errors"] == [] and got["documents"] == 4
    same = ("units", "chunks", "chunks_per_document", "units_per_document")
    assert {k: got[k] for k in same} == {k: expected[k] for k in same}
    rows = [(d["row"], d["units"]) for d in got["largest_documents"]]  # type: ignore[attr-defined]
    assert rows == [(d["row"], d["units"]) for d in expected["largest_documents"]]  # type: ignore[attr-defined]


def test_a_row_that_is_not_utf8_is_listed_by_its_row_and_the_others_count(
    tmp_path: Path,
) -> None:
    raw = pa.array([b"good one", b"bad \xff here", b"good two"], pa.binary())
    path = tmp_path / "mixed.parquet"
    pq.write_table(pa.table({"text": raw.view(pa.string())}), path)
    doc = count(path)
    assert doc["documents"] == 2
    (error,) = doc["errors"]  # type: ignore[misc]
    assert error["row"] == 1 and "not UTF-8 (byte 0xff at offset 4)" in error["reason"]


_WRITE = """
import sys, pyarrow as pa, pyarrow.parquet as pq
values = [chr(65 + i) + "a" * ({size} - 1) for i in range({rows})]
# One page per value (as a writer that cuts pages by size makes them), one row group.
pq.write_table(pa.table({{"text": values}}), sys.argv[1], use_dictionary=False,
               write_batch_size=1, data_page_size=1 << 20)
"""

_READ = """
import json, sys, pyarrow as pa
from pyapp.core.params import parse_params
from pyapp.planning.corpus import count_corpus
result = count_corpus([sys.argv[1]], parse_params(unit="char", size=1000, overlap=0), workers=1)
print(json.dumps({"units": result.totals.units, "peak": pa.default_memory_pool().max_memory()}))
"""


def test_large_parquet_values_are_read_a_few_at_a_time_not_a_thousand_rows(
    tmp_path: Path,
) -> None:
    """16 values of 8 MB (128 MB in one row group): a batch of 1,024 rows would hold
    them all (Arrow's peak about 140 MB); batches bounded at 16 MB of text hold two."""
    rows, size = 16, 8 << 20
    path = tmp_path / "large.parquet"
    write = _WRITE.format(rows=rows, size=size)
    subprocess.run([sys.executable, "-c", write, str(path)], check=True, timeout=120)
    assert path.stat().st_size < size  # compressed: the file itself is small
    done = subprocess.run(
        [sys.executable, "-c", _READ, str(path)],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    measured = json.loads(done.stdout)
    assert measured["units"] == rows * size
    assert measured["peak"] < 80 << 20, measured  # about 46 MB; the whole group is 128 MB

"""The local pool and Dask give the same JSON to the byte (timing aside), on folders,
JSONL, Parquet, gzip, ``file://`` and ``memory://``, bad records included; Dask runs
in this process (``LocalCluster(processes=False)``), so the tests stay fast."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from distributed import LocalCluster

from pyapp.core.chunkings import chunking_of
from pyapp.core.params import parse_params
from pyapp.core.units import strip_bom
from pyapp.planning.corpus import count_corpus
from pyapp.planning.corpus import counting as counting_module

PARAMS = parse_params(unit="token", size=8, overlap=2)

TEXTS = [
    "The first record, short.",
    "A longer record " + "that keeps going with more words " * 12,
    "\ufeffA record that starts with a byte-order mark.",
    "",
    "Zwölf Wörter 🦜 und 日本語, then some more plain English to tokenize.",
    *(f"Record number {n}: " + "lorem ipsum dolor sit amet " * (n % 7) for n in range(20)),
]


def jsonl_lines() -> list[bytes]:
    lines = [json.dumps({"text": t, "id": f"r{i}"}).encode() for i, t in enumerate(TEXTS)]
    lines[3:3] = [b"not json", b'{"id": "no text"}', b'{"text": "\\ud800 lone"}', b"", b"\xff\xfe"]
    return lines


#: The Parquet file's rows: the same texts, with a null as row 5.
ROWS: list[str | None] = [*TEXTS[:5], None, *TEXTS[5:]]


def write_parquet(path: Path) -> None:
    table = pa.table({"body": ROWS, "doc_id": list(range(len(ROWS)))})
    pq.write_table(table, path, row_group_size=4)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    (root / "folder" / "sub").mkdir(parents=True)
    (root / "folder" / "a.txt").write_text(TEXTS[1], encoding="utf-8")
    (root / "folder" / "sub" / "b.md").write_text(TEXTS[4], encoding="utf-8")
    (root / "folder" / "sub" / "c.txt.gz").write_bytes(gzip.compress(TEXTS[2].encode()))
    (root / "folder" / "empty.txt").write_bytes(b"")
    (root / "folder" / "bad.txt").write_bytes(b"caf\xe9")
    (root / "records.jsonl").write_bytes(b"\xef\xbb\xbf" + b"\n".join(jsonl_lines()) + b"\n")
    write_parquet(root / "records.parquet")
    return root


@pytest.fixture(scope="module")
def memory_corpus(files: Path) -> Iterator[str]:
    import fsspec

    fs = fsspec.filesystem("memory")
    for path in sorted((files / "folder").rglob("*")):
        if path.is_file():
            fs.pipe(f"/pyapp-test/{path.relative_to(files)}", path.read_bytes())
    fs.pipe("/pyapp-test/records.jsonl", (files / "records.jsonl").read_bytes())
    fs.pipe("/pyapp-test/records.parquet", (files / "records.parquet").read_bytes())
    yield "memory://pyapp-test"
    fs.rm("/pyapp-test", recursive=True)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    with LocalCluster(
        processes=False,
        n_workers=1,
        threads_per_worker=2,
        dashboard_address=":0",
        scheduler_kwargs={"dashboard": False},
    ) as cluster:
        yield cluster.scheduler_address


def as_bytes(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc, ensure_ascii=False, indent=2).encode()


def inputs(name: str, files: Path, memory: str) -> tuple[list[str], dict[str, Any]]:
    parquet = {"text_field": "body", "id_field": "doc_id"}
    return {
        "folder": ([str(files / "folder")], {}),
        "jsonl": ([str(files / "records.jsonl")], {"id_field": "id"}),
        "parquet": ([str(files / "records.parquet")], parquet),
        "file-url": ([f"file://{files / 'folder'}", f"file://{files / 'records.jsonl'}"], {}),
        "memory": ([memory], {}),
    }[name]


@pytest.mark.parametrize("name", ["folder", "jsonl", "parquet", "file-url", "memory"])
def test_dask_and_the_local_pool_print_the_same_json_to_the_byte(
    name: str, files: Path, memory_corpus: str, scheduler: str
) -> None:
    paths, options = inputs(name, files, memory_corpus)
    # Small parts, so files are split and parts finish in any order.
    small = {"part_bytes": 200, **options}
    # memory:// lives in this process only: its local run counts here too.
    workers = 1 if name == "memory" else 2
    local = count_corpus(paths, PARAMS, workers=workers, **small).to_json(timing=False)
    dask = count_corpus(paths, PARAMS, engine="dask", scheduler=scheduler, **small)
    whole = count_corpus(paths, PARAMS, workers=1, **options).to_json(timing=False)
    assert as_bytes(dask.to_json(timing=False)) == as_bytes(local) == as_bytes(whole)
    assert local["documents"] > 0 and local["errors_total"] + local["documents"] > 1
    assert dask.engine == "dask" and set(dask.timing) >= {"startup_seconds", "count_seconds"}


def test_jsonl_split_between_workers_keeps_the_files_line_numbers(
    files: Path, scheduler: str
) -> None:
    doc = count_corpus(
        [str(files / "records.jsonl")], PARAMS, engine="dask", scheduler=scheduler, part_bytes=64
    ).to_json()
    lines = jsonl_lines()
    assert [(e["line"], e["reason"][:14]) for e in doc["errors"]] == [
        (4, "not JSON (Expe"),
        (5, "no string fiel"),
        (6, "text has an un"),
        (8, "not UTF-8 (byt"),
    ]
    assert lines[3] == b"not json"  # line 4 of the file
    assert doc["documents"] == len(TEXTS)
    assert doc["boms_removed"] == 2  # the file's, and the record that starts with one


def test_parquet_counts_what_the_same_records_count_as_jsonl(files: Path, tmp_path: Path) -> None:
    good = [json.dumps({"body": t, "doc_id": i}) for i, t in enumerate(ROWS) if t is not None]
    (tmp_path / "same.jsonl").write_text("\n".join(good) + "\n", encoding="utf-8")
    options: dict[str, Any] = {"text_field": "body", "id_field": "doc_id", "workers": 1}
    from_jsonl = count_corpus([str(tmp_path / "same.jsonl")], PARAMS, **options).to_json()
    from_parquet = count_corpus([str(files / "records.parquet")], PARAMS, **options).to_json()
    for key in ("documents", "units", "chunks", "processed_units", "chunks_per_document",
                "units_per_document", "boms_removed"):  # fmt: skip
        assert from_parquet[key] == from_jsonl[key], key
    assert [(e["id"], e["units"]) for e in from_parquet["largest_documents"]] == [
        (e["id"], e["units"]) for e in from_jsonl["largest_documents"]
    ]
    assert from_parquet["errors"] == [
        {"path": str(files / "records.parquet"), "line": None, "row": 5, "reason": "body is null"}
    ]


def test_a_parquet_file_without_the_text_column_names_its_columns_and_the_flag(
    files: Path,
) -> None:
    doc = count_corpus([str(files / "records.parquet")], PARAMS, workers=1).to_json()
    assert doc["documents"] == 0
    assert doc["errors"][0]["reason"] == (
        "no column 'text' (it has: body, doc_id): name the right one with --text-column"
    )
    numbers = count_corpus(
        [str(files / "records.parquet")], PARAMS, workers=1, text_field="doc_id"
    ).to_json()
    assert numbers["errors"][0]["reason"] == (
        "column 'doc_id' holds int64, not text: name the text column with --text-column"
    )


def test_the_tokenizer_is_built_once_per_worker_not_per_document(
    files: Path, scheduler: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str] = []
    real = counting_module._token_counter

    def spy(encoding: str) -> Any:
        built.append(encoding)
        return real(encoding)

    monkeypatch.setattr(counting_module, "_token_counter", spy)
    monkeypatch.setattr(counting_module, "_built", {})
    paths = [str(files / "folder"), str(files / "records.jsonl")]
    local = count_corpus(paths, PARAMS, workers=1, part_bytes=100)
    assert local.totals.documents > 20 and built == ["o200k_base"]
    dask = count_corpus(paths, PARAMS, engine="dask", scheduler=scheduler, part_bytes=100)
    # The in-process cluster's worker shares this process, so it built nothing more.
    assert dask.totals.documents == local.totals.documents and built == ["o200k_base"]


class _Panic(BaseException):
    """Like pyo3's PanicException: a BaseException that is not an Exception."""


@pytest.mark.parametrize("engine", ["local", "dask"])
def test_a_document_the_tokenizer_fails_on_is_listed_and_the_others_count(
    tmp_path: Path, scheduler: str, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = counting_module._token_counter

    def failing(encoding: str) -> Any:
        count = real(encoding)

        def counter(text: str) -> int:
            if "PANIC" in text:
                raise _Panic("called `Result::unwrap()` on an `Err` value")
            return count(text)

        return counter

    monkeypatch.setattr(counting_module, "_token_counter", failing)
    monkeypatch.setattr(counting_module, "_built", {})
    (tmp_path / "a.txt").write_text("one two three")
    (tmp_path / "b.txt").write_text("a PANIC here")
    (tmp_path / "c.txt").write_text("four five")
    options: dict[str, Any] = {"scheduler": scheduler} if engine == "dask" else {"workers": 1}
    result = count_corpus([str(tmp_path)], PARAMS, engine=engine, **options)
    assert result.totals.documents == 2 and result.totals.errors_total == 1
    (error,) = result.totals.errors
    assert error.where.path.endswith("b.txt") and "_Panic" in error.reason


@pytest.mark.parametrize("engine", ["local", "dask"])
def test_a_document_of_a_million_spaces_is_counted_with_the_others(
    tmp_path: Path, scheduler: str, engine: str
) -> None:
    """tiktoken alone panics on it; o200k_base has one token for 128 spaces, and the
    last space goes with the word: 7,813 + 1 tokens, and 2 for "one two"."""
    (tmp_path / "spaces.txt").write_text(" " * 10**6 + "x")
    (tmp_path / "words.txt").write_text("one two")
    options: dict[str, Any] = {"scheduler": scheduler} if engine == "dask" else {"workers": 1}
    result = count_corpus([str(tmp_path)], PARAMS, engine=engine, **options)
    assert result.totals.errors_total == 0
    assert result.totals.documents == 2 and result.totals.units == 7814 + 2


def test_the_dask_bar_says_what_the_cluster_is_doing_then_counts_parts(
    files: Path, scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [str(files / "folder"), str(files / "records.jsonl")]
    count_corpus(paths, PARAMS, engine="dask", scheduler=scheduler, progress=True, part_bytes=100)
    err = capsys.readouterr().err
    assert f"corpus (dask): connecting to the scheduler at {scheduler}" in err
    assert "corpus (dask): loading the tokenizer on every worker" in err
    assert "0/" in err and "parts" in err  # the count of parts done, from 0


def test_a_local_dask_cluster_says_it_is_starting(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count_corpus([str(files / "folder")], PARAMS, engine="dask", workers=1, progress=True)
    err = capsys.readouterr().err
    assert "corpus (dask): starting a local cluster of 1 worker process" in err
    assert err.index("starting a local cluster") < err.index("loading the tokenizer")


def test_the_dask_bar_is_drawn_again_each_tick_in_which_no_part_finished(
    files: Path, scheduler: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No clock: the first three waits are made to time out, as a long part would."""
    from pyapp.planning.corpus import dask_cluster

    real = dask_cluster._next
    timeouts = iter(range(3))

    def slow(finished: Any) -> Any:
        if next(timeouts, None) is not None:
            raise TimeoutError
        return real(finished)

    monkeypatch.setattr(dask_cluster, "_next", slow)
    paths = [str(files / "folder")]
    count_corpus(paths, PARAMS, engine="dask", scheduler=scheduler, progress=True)
    frames = capsys.readouterr().err.split("\r")
    assert sum("0/1 parts" in frame for frame in frames) >= 1 + 3  # drawn, then once a tick


RECURSIVE = parse_params(
    unit="token", encoding="cl100k_base", size=8, overlap=2, splitter="recursive"
)


def test_the_recursive_splitter_is_counted_from_each_documents_chunks_on_both_engines(
    files: Path, scheduler: str
) -> None:
    # The totals are the sums over each document's real chunking, not the closed form
    # (which gives other figures for these settings), the same on the pool and Dask.
    counted = [strip_bom(t)[0] for t in TEXTS]
    chunkings = [chunking_of(t, RECURSIVE) for t in counted]
    paths, options = [str(files / "records.jsonl")], {"id_field": "id", "part_bytes": 200}
    local = count_corpus(paths, RECURSIVE, workers=2, **options).to_json(timing=False)
    dask = count_corpus(paths, RECURSIVE, engine="dask", scheduler=scheduler, **options)
    assert as_bytes(dask.to_json(timing=False)) == as_bytes(local)
    assert local["documents"] == len(TEXTS)
    assert local["chunks"] == sum(c.count for c in chunkings)
    assert local["processed_units"] == sum(c.processed for c in chunkings)
    fixed = count_corpus(
        paths,
        parse_params(unit="token", encoding="cl100k_base", size=8, overlap=2),
        workers=1,
        **options,
    ).to_json(timing=False)
    assert (fixed["chunks"], fixed["processed_units"]) != (
        local["chunks"],
        local["processed_units"],
    )
    hist = {row["chunks"]: row["documents"] for row in local["chunks_per_document"]["histogram"]}
    assert sum(hist.values()) == len(TEXTS)
    assert sum(k * v for k, v in hist.items()) == local["chunks"]

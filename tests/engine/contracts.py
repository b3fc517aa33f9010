"""The invariants every chunk list must keep, asserted wherever chunks are made."""

from __future__ import annotations

from pyapp.core.chunking import Report
from pyapp.core.params import Params


def assert_contracts(source: str, report: Report) -> None:
    """The invariants every chunk list must keep, asserted wherever chunks are made."""
    params: Params = report.params
    data = source.encode("utf-8")
    chunks = report.chunks
    assert len(chunks) == report.summary.chunks
    assert sum(c.end - c.start for c in chunks) == report.summary.processed_units
    assert sum(c.repeated_units for c in chunks) == report.summary.repeated_units
    for i, c in enumerate(chunks):
        assert c.index == i
        assert source[c.char_start : c.char_end] == c.text
        assert c.repeated_prefix + c.fresh_text == c.text
        assert 0 < c.end - c.start <= params.size
        assert c.repeated_units + c.fresh_units == c.end - c.start
        assert c.start == i * params.stride
        if params.unit != "token":
            assert data[c.byte_start : c.byte_end] == c.text.encode("utf-8")
        else:
            # Exact token bytes, inside the widened whole-character text.
            inner = data[c.byte_start : c.byte_end]
            assert inner in c.text.encode("utf-8")
            assert len(source[: c.char_start].encode()) <= c.byte_start
            assert c.byte_end <= len(source[: c.char_end].encode())
    if chunks:
        assert chunks[0].start == 0
        assert chunks[-1].end == report.summary.units

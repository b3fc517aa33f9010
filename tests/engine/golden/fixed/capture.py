"""Capture the fixed window's answers on today's main, for the byte-identity test.

Run by hand: ``python tests/engine/golden/fixed/capture.py OUT.json``. Importing it (pytest's
doctest collection does) writes nothing.
"""

import json
import sys
from pathlib import Path

from pyapp.web.api import handle

CORPUS = (
    "# Title\n\nOverlap  keeps\tboundaries.\r\n"
    "Zwölf Wörter 🦜 und 日本語のテキスト。次の文！ e\u0301 ok?\n\n"
    "def f(x):\n    return x + 1\n\nA sentence. Another one... and 3.14 more!\n" * 3
)
EVIDENCE = "\n".join(
    json.dumps(x)
    for x in [
        {"id": "a", "quote": "Zwölf Wörter", "question": "Where is Zwölf?"},
        {"id": "b", "quote": "return x + 1", "question": "what does f return"},
        {"id": "c", "start": 10, "end": 40},
    ]
)
SETTINGS = [
    {"unit": "word", "size": 4, "overlap": 1},
    {"unit": "word", "size": 7, "overlap": 3},
    {"unit": "char", "size": 9, "overlap": 3},
    {"unit": "char", "size": 40, "overlap": 0},
    {"unit": "char", "size": 100, "overlap": "20%"},
    {"unit": "token", "size": 5, "overlap": 2},
    {"unit": "token", "size": 16, "overlap": 4, "encoding": "cl100k_base"},
    {"unit": "token", "size": 12, "overlap": 3, "encoding": "llama3"},
    {"unit": "token", "size": 12, "overlap": 3, "encoding": "qwen2"},
    {"unit": "token", "size": 12, "overlap": 3, "encoding": "tekken"},
    {"unit": "token", "size": 12, "overlap": 3, "model": "all-MiniLM-L6-v2"},
    {"unit": "word", "size": 1, "overlap": 0, "caps": False},
]


def main(path: Path) -> None:
    out = {}
    for i, s in enumerate(SETTINGS):
        base = {"text": CORPUS, **s}
        for op, extra in [
            ("export", {}),
            ("chunk", {}),
            ("chunk", {"checks": False}),
            ("checks", {}),
            ("segments", {}),
            ("cards", {"from": 3, "to": 9}),
            ("evidence", {"evidence_jsonl": EVIDENCE}),
            ("evidence", {"evidence_jsonl": EVIDENCE, "export": True}),
            ("sweep", {"evidence_jsonl": EVIDENCE}),
        ]:
            req = {"op": op, **base, **extra}
            key = f"{i}:{op}:{json.dumps(extra, sort_keys=True)}"
            out[key] = {"request": req, "answer": handle(json.dumps(req))}
    path.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", "utf-8")
    print(len(out), "answers")


if __name__ == "__main__":
    main(Path(sys.argv[1]))

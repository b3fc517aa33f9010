"""Run inside Pyodide by ``bench/pyodide_tokenizers.mjs``: times the pure tokenizer
(the page's) on every ``/texts/*.txt`` in every encoding named in
``/texts/encodings``, a fresh tokenizer each time (every memo empty; the
vocabulary already read), and leaves ``RESULT``: JSON ``{encoding: {text: {"cpu":
[s...], "wall": [s...], "tokens": n}}}``, one time per repeat. CPU seconds are Node's
``process.cpuUsage()`` (the wasm runs on its thread; on a shared machine the wall
time also counts the others' jobs)."""

import json
import time
from pathlib import Path

import js

from pyapp.core import tokenizers


def fresh(name):
    if name == "bert-base-uncased":
        return tokenizers._wordpiece_tokenizer("pure").encode_ordinary
    return tokenizers._bpe_tokenizer(name, "pure").encode_ordinary


def cpu():
    used = js.process.cpuUsage()
    return (used.user + used.system) / 1e6


def main():
    config = json.loads(Path("/texts/config.json").read_text("utf-8"))
    # As bytes: read as text, a carriage return would become a line feed.
    texts = {p.stem: p.read_bytes().decode("utf-8") for p in sorted(Path("/texts").glob("*.txt"))}
    out = {}
    for name in config["encodings"]:
        fresh(name)("warm")  # the vocabulary read and the tables built: not timed
        rows = out[name] = {}
        for label, text in texts.items():
            row = rows[label] = {"cpu": [], "wall": [], "tokens": None}
            for _ in range(config["repeat"]):
                encode = fresh(name)
                began, began_cpu = time.perf_counter(), cpu()
                row["tokens"] = len(encode(text))
                row["cpu"].append(cpu() - began_cpu)
                row["wall"].append(time.perf_counter() - began)
    return json.dumps(out)


RESULT = main()

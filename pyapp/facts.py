"""Every fact the engine, the command line and the page share, written once.

The page never restates these: ``build.py`` writes ``static/facts.js`` from
:func:`page_facts` into the built site, and the HTML's options are filled from
it. A test fails when a literal copy of a cap, a unit or an encoding appears in
the page's sources.

This module is a leaf: it imports only the standard library, so ``build.py``
(which runs before any dependency is installed) can read it too.

>>> MAX_BYTES, MAX_CHUNKS, MAX_PROCESSED_UNITS
(1000000, 256, 200000)
>>> BOUNDS["size"].high, BOUNDS["price_per_million"].describe()
(10000000, 'from 0 to 1,000,000')
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any, Final

from .models import MODELS, NO_OFFLINE_TOKENIZER
from .vocabularies import BUNDLED_RANKS, VOCABULARIES
from .weights import EMBEDDING_MODEL

__all__ = [
    "BACKGROUND_PURPOSES",
    "BOUNDS",
    "BUDGET_DEFAULTS",
    "BUDGET_EXAMPLES",
    "BYTE_LIMIT_REMEDIES",
    "CARDS_PER_CALL",
    "FIND_MATCHES_PLACED",
    "FIND_MAX_CHARS",
    "CHUNK_DEFAULTS",
    "DEFAULT_ENCODING",
    "ENCODINGS",
    "EVIDENCE_DEFAULTS",
    "FIELD_DEFAULTS",
    "MAX_BYTES",
    "MEASURE_UNIT",
    "MAX_CHUNKS",
    "MAX_CHUNKS_FILE_BYTES",
    "MAX_DIGITS",
    "MAX_EVIDENCE_ITEMS",
    "MAX_EVIDENCE_LISTED",
    "MAX_EXPONENT",
    "MAX_FIELD_CHARS",
    "MAX_IMPORTED_CHUNKS",
    "VERDICTS",
    "MAX_PROCESSED_UNITS",
    "MAX_OVERLAP_TRIES",
    "SLIDER_SIZE_MAX",
    "MAX_QUOTE",
    "OVERLAP_MODES",
    "OVER_BYTE_LIMIT",
    "MAX_DENSE_CHUNKS",
    "DENSE_PAGE_SECONDS_PER_TOKEN",
    "DENSE_SECONDS_PER_TOKEN",
    "MAX_RETRIEVAL_CHUNKS",
    "MAX_RETRIEVAL_PAIRS",
    "MAX_RETRIEVAL_UNITS",
    "MAX_SWEEP_RECALL_WORK",
    "KEEP_SEPARATOR",
    "RETRIEVERS",
    "PRESETS",
    "PURPOSES",
    "SENTENCE_RULE",
    "SEPARATOR_PRESETS",
    "SPLITTERS",
    "SPLITTER_FIELDS",
    "STRIP_COLUMNS_DEFAULT",
    "STRIP_COLUMNS_MAX",
    "SIZING_DEFAULTS",
    "SIZING_EXAMPLE",
    "TEXTS_HELD",
    "TEXT_VIEW_PAGE",
    "TEXT_VIEW_WHOLE",
    "UNITS",
    "VIEW_FOLLOWERS",
    "Bound",
    "Encoding",
    "Unit",
    "grouped",
    "over_byte_limit",
    "page_facts",
]

# ---------------------------------------------------------------------- caps
#: The input limit, in UTF-8 bytes. Absolute: no option lifts it.
MAX_BYTES: Final = 1_000_000
#: Past this many chunks the summary is shown, the chunk list and download withheld
#: (unless the person lifts the caps for this text).
MAX_CHUNKS: Final = 256
#: Past this many processed units, the same.
MAX_PROCESSED_UNITS: Final = 200_000
#: Evidence: at most this many items (lines) in one check.
MAX_EVIDENCE_ITEMS: Final = 10_000
#: Evidence: the chunk indices listed per item (``whole_in`` and ``touches``), summed
#: over the items; past it the lists are left out and the figures stay exact.
MAX_EVIDENCE_LISTED: Final = 200_000
#: The retrieval check indexes every chunk's text: past this many processed units
#: (the sum of the chunk lengths) it is skipped, and says so.
MAX_RETRIEVAL_UNITS: Final = 4_000_000
#: An imported chunks file (``audit --chunks``, the page's "Open chunks"): at most this
#: many bytes, the text's own limit.
MAX_CHUNKS_FILE_BYTES: Final = MAX_BYTES
#: An imported chunks file: at most this many chunks.
MAX_IMPORTED_CHUNKS: Final = 100_000
#: What re-anchoring says of each imported chunk, in the order a summary lists them
#: (:mod:`pyapp.core.anchor`).
VERDICTS: Final = ("given", "corrected", "normalized", "missing")
#: The retrieval check scores, per question, the chunks holding one of its terms (or
#: every chunk, when that is cheaper): past this many (term, chunk) steps in all
#: (``pyapp.core.bm25.ChunkIndex.pairs``) it is skipped before scoring any, and says
#: so. About a second natively at this many.
MAX_RETRIEVAL_PAIRS: Final = 25_000_000
#: The retrieval check indexes every chunk: past this many chunks it is skipped
#: before indexing any (about a third of a second natively at this many).
MAX_RETRIEVAL_CHUNKS: Final = 50_000
#: The page's sweep runs BM25 at each of its 16 settings, which costs about the text's
#: length times the questions (natively: 100,000 characters with 20 questions take
#: 0.4-0.6 s, with 100 questions 1.3-1.6 s; a megabyte with 100, 4-9 s), and a running
#: sweep holds up the next edit. Past this many code points x (questions + 10) the
#: ``sweep`` op leaves the questions out: coverage at every setting, recall for the
#: evidence check's own setting only. The command line's ``sweep`` has no such limit.
MAX_SWEEP_RECALL_WORK: Final = 3_000_000
#: Dense retrieval embeds every chunk of the setting: past this many chunks it is
#: skipped, and says so (a model call is tens of milliseconds per chunk).
MAX_DENSE_CHUNKS: Final = 20_000
#: About how long the model takes per id natively, for the estimate said before a long
#: run: ``bench/bench_dense.py`` on the shared 2-core development machine embedded 4.7
#: texts of about 256 ids a second (0.2 s each, on one loaded core).
DENSE_SECONDS_PER_TOKEN: Final = 0.0008
#: The same in the page (ONNX Runtime Web, WebAssembly, one thread), measured in the
#: same run: 0.8 texts a second.
DENSE_PAGE_SECONDS_PER_TOKEN: Final = 0.005


# ---------------------------------------------------------------------- messages
#: Every refusal over a byte limit says this, in the engine, the command line and the
#: page alike: what is refused, its size in words ("1,000,002 bytes of UTF-8", "1,000,001
#: bytes or more"), the limit, what the limit is for ("" or " for a chunks file") and
#: what to do, by the kind of input.
OVER_BYTE_LIMIT: Final = "{what} is {size}, over the {limit}-byte limit{scope}: {remedy}"
BYTE_LIMIT_REMEDIES: Final = {
    "text": "shorten it or split it into several documents",
    "evidence": "split it and check each part",
    "chunks_file": "audit a part of the text and its chunks",
}


def over_byte_limit(
    what: str, size: str, kind: str = "text", *, limit: int = MAX_BYTES, scope: str = ""
) -> str:
    """The refusal of ``what`` (``size`` in words) over ``limit`` bytes.

    >>> over_byte_limit("text", "1,000,002 bytes of UTF-8")
    'text is 1,000,002 bytes of UTF-8, over the 1,000,000-byte limit: shorten it or split it into several documents'
    """  # noqa: E501
    remedy = BYTE_LIMIT_REMEDIES[kind]
    return OVER_BYTE_LIMIT.format(
        what=what, size=size, limit=f"{limit:,}", scope=scope, remedy=remedy
    )


#: The boundary check's sentence rule as people read it (:mod:`pyapp.core.sentences`
#: implements it; its doctests are its examples). The page shows exactly this, and
#: README.md and docs/protocol.md quote it (``tests/test_single_source.py``). A
#: `backticked` run is code.
SENTENCE_RULE: Final = (
    "A run of `.`, `!` or `?` ends a sentence when whitespace or the end of the text"
    " follows it, so `?!` and `...` are one ending, and `3.14` or `v1.2` end none. The"
    " full-width `。`, `！` and `？` end a sentence even with no space after them, since"
    " Chinese and Japanese text never puts one there. A blank line also ends a sentence,"
    " so headings and list items count on their own. A sentence runs from its first to"
    " its last character that is not whitespace, and is cut when no single chunk holds"
    " all of it. Known limits: `e.g. this` ends a sentence, and a quote after the full"
    " stop keeps it going."
)


# ---------------------------------------------------------------------- the text view
#: A text shorter than this many code points is laid out whole in the text view
#: (every segment in the page); a longer one page by page, only near what is seen.
#: It is also the most code points one ``segments`` answer covers.
TEXT_VIEW_WHOLE: Final = 100_000
#: The text view's pages are at least this many code points (each ends after a line
#: break when one comes within three pages more). The page draws a page whole in one
#: frame (a page is one paragraph of inline layout), so a page is kept small: at word
#: size 2 a page of 1,024 code points is about 400 segments, a few milliseconds to
#: style, lay out and paint.
TEXT_VIEW_PAGE: Final = 1_024
#: The most chunk cards one ``cards`` answer holds (cards past the caps come by range).
CARDS_PER_CALL: Final = 500
#: The overview strip: one bar per pixel of its width, up to this many (an 8K screen's
#: width); a caller that names no width gets the default.
STRIP_COLUMNS_MAX: Final = 8_192
STRIP_COLUMNS_DEFAULT: Final = 1_000
#: The text view's find box: the longest search, and the most matches one answer
#: places (every match is counted, and the chunks holding them all named).
FIND_MAX_CHARS: Final = 1_000
FIND_MATCHES_PLACED: Final = 5_000


# ---------------------------------------------------------------------- units
@dataclass(frozen=True, slots=True)
class Unit:
    name: str
    label: str
    singular: str
    plural: str
    #: What a unit is, precisely, for derivations ("code points", not "characters").
    measure: str
    hint: str


UNITS: Final = {
    "word": Unit(
        "word",
        "Word",
        "word",
        "words",
        "words",
        "Runs of non-whitespace. Splits on whitespace only; not language-aware.",
    ),
    "char": Unit(
        "char",
        "Character",
        "character",
        "characters",
        "code points",
        "Unicode code points, whitespace included.",
    ),
    "token": Unit(
        "token",
        "Token",
        "token",
        "tokens",
        "tokens",
        "Real tokens from the chosen encoding, counted exactly here in your browser.",
    ),
}


@dataclass(frozen=True, slots=True)
class Encoding:
    name: str
    label: str


#: Token encodings, in the order the page lists them. Every one is exact and offline;
#: the four after OpenAI's read a vocabulary file (:mod:`pyapp.vocabularies`) that the
#: page loads only when the encoding is chosen.
ENCODINGS: Final = {
    "o200k_base": Encoding("o200k_base", "o200k_base (GPT-4o and later)"),
    "cl100k_base": Encoding(
        "cl100k_base", "cl100k_base (GPT-4, GPT-3.5, text-embedding-3, ada-002)"
    ),
    "bert-base-uncased": Encoding(
        "bert-base-uncased",
        "BERT uncased WordPiece (all-MiniLM-L6-v2, bge-small/base-en-v1.5, gte-small/base)",
    ),
    "llama3": Encoding("llama3", "Llama 3 (Llama 3, 3.1, 3.2, 3.3)"),
    "qwen2": Encoding("qwen2", "Qwen2 (Qwen2, Qwen2.5, Qwen3)"),
    "tekken": Encoding("tekken", "Mistral tekken (Mistral NeMo, Pixtral)"),
}
DEFAULT_ENCODING: Final = "o200k_base"

#: The English preset (OpenAI's rule of thumb): tokens per unit when none is typed.
PRESETS: Final = {"word": Fraction(4, 3), "char": Fraction(1, 4), "token": Fraction(1)}


# ---------------------------------------------------------------------- the engine's memory
#: How many texts the engine holds for ``text_ref`` (and how many each per-text
#: cache keeps). The page remembers one fewer, so a ref it still uses is held.
TEXTS_HELD: Final = 4

#: Message purposes between the page and the worker: a newer call of a purpose
#: supersedes the older one. Background purposes wait behind every other call.
PURPOSES: Final = (
    "view",
    "counts",
    "export",
    "sweep",
    "size",
    "budget",
    "evidence",
    "evidence-export",
    "segments",
    "cards",
    "text",
    "strip",
    "find",
    "goto",
    "warm",
    "checks",
    "audit",
    "compare",
    "lens",
    "dense",
    "fit",
)
BACKGROUND_PURPOSES: Final = ("sweep", "warm", "checks", "dense", "evidence", "fit")
#: Purposes whose calls belong to one main view (its checks, the text view's pages, the
#: cards past the caps, the sweep and the evidence check of its settings): a newer
#: ``view`` call drops them too.
VIEW_FOLLOWERS: Final = ("checks", "segments", "cards", "sweep", "evidence")


# ---------------------------------------------------------------------- field bounds
#: A typed number is refused before any arithmetic when it has more significant
#: digits than this, or an exponent beyond :data:`MAX_EXPONENT`.
MAX_DIGITS: Final = 30
MAX_EXPONENT: Final = 30
#: A message quotes at most this many characters of what was typed.
MAX_QUOTE: Final = 40
#: A field longer than this is not a number anyone typed (the URL keeps no more).
MAX_FIELD_CHARS: Final = 64


@dataclass(frozen=True, slots=True)
class Bound:
    """The range of one numeric field: ``low <= value <= high`` (``low < value`` when
    ``low_open``), whole numbers only when ``whole``."""

    whole: bool
    low: int | Fraction
    high: int | Fraction
    low_open: bool = False

    def describe(self) -> str:
        low = grouped(self.low)
        above = f"above {low}" if self.low_open else f"from {low}"
        return f"{above} to {grouped(self.high)}"

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["low"], out["high"] = float(self.low), float(self.high)
        return out


def grouped(value: int | Fraction) -> str:
    """A bound as a person reads it: ``1,000,000``, ``0.5``."""
    value = Fraction(value)
    if value.denominator == 1:
        return f"{value.numerator:,}"
    return str(float(value))


#: Sizes and overlaps go to ten million units: ten times the most units a
#: 1,000,000-byte text can hold in any unit. Planning fields get ranges wide
#: enough for any real corpus or model, and narrow enough that no figure grows
#: past what a float shows exactly.
BOUNDS: Final = {
    "size": Bound(True, 1, 10_000_000),
    "overlap": Bound(True, 0, 9_999_999),
    "overlap_percent": Bound(False, 0, 100),
    "tokens_per_unit": Bound(False, 0, 10_000),
    "price_per_million": Bound(False, 0, 1_000_000),
    "documents": Bound(True, 1, 1_000_000_000_000),
    "avg_tokens": Bound(False, 0, 1_000_000_000, low_open=True),
    "top_k": Bound(True, 1, 1_000_000),
    "budget": Bound(True, 1, 1_000_000_000),
    "dim": Bound(True, 1, 1_000_000),
    "bytes_per_value": Bound(False, 0, 1024, low_open=True),
    "window": Bound(True, 1, 1_000_000_000),
    "system": Bound(True, 0, 1_000_000_000),
    "question": Bound(True, 0, 1_000_000_000),
    "answer": Bound(True, 0, 1_000_000_000),
    "budget_top_k": Bound(True, 0, 1_000_000),
    "max_tokens": Bound(True, 1, 1_000_000_000),
}


#: How an overlap is given: in units, or as a percentage of the size.
OVERLAP_MODES: Final = ("units", "percent")


# ---------------------------------------------------------------------- defaults
#: What an omitted field of a chunking request means: the door (``handle``),
#: ``parse_params``' signature and the command line's ``chunk`` and ``sweep`` flags read
#: these (the page starts from :data:`CHUNK_DEFAULTS`). ``size`` has none: it is required.
FIELD_DEFAULTS: Final = {
    "unit": "word",
    "overlap": "0",
    "overlap_mode": "units",
    "encoding": DEFAULT_ENCODING,
    "splitter": "fixed",
    "separators_preset": "default",
    "keep_separator": "start",
}
#: The unit ``audit`` and ``compare`` (the ops and the commands) count chunk sizes in
#: when none is given: another tool's chunks are characters first.
MEASURE_UNIT: Final = "char"
#: The main view's settings when the URL names none.
CHUNK_DEFAULTS: Final = {
    "unit": "word",
    "size": "40",
    "overlap": "8",
    "overlap_mode": "units",
    "encoding": DEFAULT_ENCODING,
    # Blank: no price until one is entered (or a model preset lists one), so no cost.
    "price_per_million": "",
}

#: Index sizing: the values of the optional fields when none is given.
SIZING_DEFAULTS: Final = {"overlap": "0", "top_k": "5", "budget": "128000", "bytes_per_value": "4"}

#: Context budget: the values of the optional fields when none is given.
BUDGET_DEFAULTS: Final = {"system": "0", "question": "0", "answer": "0"}

#: Evidence check: how many chunks the retrieval check puts into the context (the
#: page takes the budget panel's top-k when one is typed).
EVIDENCE_DEFAULTS: Final = {"top_k": "5", "retriever": "bm25"}
#: The evidence check's retrievers: BM25, the dense all-MiniLM-L6-v2, or both.
RETRIEVERS: Final = ("bm25", "minilm", "both")

#: Worked examples the page offers. Index sizing: 500 documents of 1,200 tokens,
#: chunk 512 with 15% overlap, top-k 5, a 128,000-token budget (1,500 vectors).
SIZING_EXAMPLE: Final = {
    "documents": "500",
    "avg_tokens": "1200",
    "size": "512",
    "overlap": "15",
    "overlap_mode": "percent",
    "top_k": "5",
    "budget": "128000",
}
#: Context budget: an 8,192-token window, a 500-token system prompt and a
#: 100-token question; top-k 5 of 512 tokens fits, top-k 8 of 1,024 overflows.
BUDGET_EXAMPLES: Final = {
    "fits": {"window": "8192", "system": "500", "question": "100", "answer": "0",
             "top_k": "5", "size": "512"},
    "overflows": {"window": "8192", "system": "500", "question": "100", "answer": "0",
                  "top_k": "8", "size": "1024"},
}  # fmt: skip


#: The chunkers: the fixed window, and LangChain's ``RecursiveCharacterTextSplitter``
#: (its length units: characters or tokens; word mode is none of its length functions).
SPLITTERS: Final = {
    "fixed": {"label": "Fixed window", "units": ["word", "char", "token"]},
    "recursive": {"label": "Recursive (LangChain)", "units": ["char", "token"]},
}
#: Why the recursive splitter has no word unit (the page says it beside the control).
NO_WORD_UNIT: Final = (
    "LangChain's splitter counts characters or tokens; words are none of its length functions"
)
#: The size slider reaches the text's own length (a longer chunk changes nothing),
#: but no further than this many units; the number field beside it takes any size.
SLIDER_SIZE_MAX: Final = 8192
#: The smallest overlap keeping every evidence item whole has no closed form for the
#: recursive splitter: it is found by chunking again at overlap 0, 1, 2, ... this many.
MAX_OVERLAP_TRIES: Final = 200
#: The request fields that say which splitter chunks and how: every op that chunks
#: takes them (the page's tools forward them from the view's request).
SPLITTER_FIELDS: Final = (
    "splitter", "separators_preset", "separators", "separator_regex", "keep_separator", "strip",
)  # fmt: skip
#: Where a kept separator goes (``start`` is LangChain's ``keep_separator=True``).
KEEP_SEPARATOR: Final = ("start", "end", "none")
#: ``RecursiveCharacterTextSplitter.get_separators_for_language`` for these languages
#: (langchain-text-splitters 1.1.3): regular expressions all, as ``from_language``
#: sets ``is_separator_regex=True``. ``default`` is the constructor's default list,
#: literal separators.
SEPARATOR_PRESETS: Final[dict[str, tuple[str, ...]]] = {
    "default": ("\n\n", "\n", " ", ""),
    "markdown": (
        "\n#{1,6} ", "```\n", "\n\\*\\*\\*+\n", "\n---+\n", "\n___+\n", "\n\n", "\n", " ", "",
    ),
    "python": ("\nclass ", "\ndef ", "\n\tdef ", "\n\n", "\n", " ", ""),
    "js": (
        "\nfunction ", "\nconst ", "\nlet ", "\nvar ", "\nclass ", "\nif ", "\nfor ",
        "\nwhile ", "\nswitch ", "\ncase ", "\ndefault ", "\n\n", "\n", " ", "",
    ),
    "html": (
        "<body", "<div", "<p", "<br", "<li", "<h1", "<h2", "<h3", "<h4", "<h5", "<h6",
        "<span", "<table", "<tr", "<td", "<th", "<ul", "<ol", "<header", "<footer", "<nav",
        "<head", "<style", "<script", "<meta", "<title", "",
    ),
    "latex": (
        "\n\\\\chapter{", "\n\\\\section{", "\n\\\\subsection{", "\n\\\\subsubsection{",
        "\n\\\\begin{enumerate}", "\n\\\\begin{itemize}", "\n\\\\begin{description}",
        "\n\\\\begin{list}", "\n\\\\begin{quote}", "\n\\\\begin{quotation}",
        "\n\\\\begin{verse}", "\n\\\\begin{verbatim}", "\n\\\\begin{align}", "$$", "$", " ",
        "",
    ),
}  # fmt: skip


def page_facts() -> dict[str, Any]:
    """What the page needs of all this, as JSON (``static/facts.js`` is made from it).

    >>> facts = page_facts()
    >>> facts["caps"]["chunks"], [u["name"] for u in facts["units"]]
    (256, ['word', 'char', 'token'])
    """
    return {
        "caps": {
            "bytes": MAX_BYTES,
            "chunks": MAX_CHUNKS,
            "processed_units": MAX_PROCESSED_UNITS,
            "evidence_items": MAX_EVIDENCE_ITEMS,
            "evidence_listed": MAX_EVIDENCE_LISTED,
            "retrieval_units": MAX_RETRIEVAL_UNITS,
            "chunks_file_bytes": MAX_CHUNKS_FILE_BYTES,
            "imported_chunks": MAX_IMPORTED_CHUNKS,
            "retrieval_pairs": MAX_RETRIEVAL_PAIRS,
            "retrieval_chunks": MAX_RETRIEVAL_CHUNKS,
            "dense_chunks": MAX_DENSE_CHUNKS,
        },
        "units": [asdict(unit) for unit in UNITS.values()],
        "encodings": [
            {
                **asdict(encoding),
                "vocabulary": (VOCABULARIES[name].to_json() if name in VOCABULARIES else None),
                "licence": _licence(name),
            }
            for name, encoding in ENCODINGS.items()
        ],
        "models": [model.to_json() for model in MODELS.values()],
        "no_offline_tokenizer": NO_OFFLINE_TOKENIZER,
        "default_encoding": DEFAULT_ENCODING,
        "presets": {unit: float(value) for unit, value in PRESETS.items()},
        "presets_shown": {unit: _preset_shown(value) for unit, value in PRESETS.items()},
        "texts_kept": TEXTS_HELD - 1,
        "text_view": {"whole": TEXT_VIEW_WHOLE, "page": TEXT_VIEW_PAGE},
        "strip_columns_max": STRIP_COLUMNS_MAX,
        "find": {"max_chars": FIND_MAX_CHARS, "placed": FIND_MATCHES_PLACED},
        "cards_per_call": CARDS_PER_CALL,
        "verdicts": list(VERDICTS),
        "purposes": list(PURPOSES),
        "retrievers": list(RETRIEVERS),
        "embedding_model": EMBEDDING_MODEL.to_json(),
        "background_purposes": list(BACKGROUND_PURPOSES),
        "view_followers": list(VIEW_FOLLOWERS),
        "max_field_chars": MAX_FIELD_CHARS,
        "bounds": {name: bound.to_json() for name, bound in BOUNDS.items()},
        "defaults": {
            "chunk": CHUNK_DEFAULTS,
            "sizing": SIZING_DEFAULTS,
            "budget": BUDGET_DEFAULTS,
            "evidence": EVIDENCE_DEFAULTS,
            "fields": FIELD_DEFAULTS,
        },
        "examples": {"sizing": SIZING_EXAMPLE, "budget": BUDGET_EXAMPLES},
        "splitters": SPLITTERS,
        "no_word_unit": NO_WORD_UNIT,
        "keep_separator": list(KEEP_SEPARATOR),
        "overlap_modes": list(OVERLAP_MODES),
        "separator_presets": {name: list(seps) for name, seps in SEPARATOR_PRESETS.items()},
        "splitter_fields": list(SPLITTER_FIELDS),
        "sentence_rule": SENTENCE_RULE,
        "messages": {
            "over_byte_limit": OVER_BYTE_LIMIT,
            "byte_limit_remedies": BYTE_LIMIT_REMEDIES,
        },
    }


def _licence(encoding: str) -> dict[str, str]:
    """Where an encoding's vocabulary comes from and under which licence, for the page.

    >>> _licence("o200k_base")["licence"], _licence("llama3")["package"]
    ('MIT', 'llama-models')
    """
    vocab = VOCABULARIES.get(encoding)
    source = BUNDLED_RANKS if vocab is None else vocab.to_json()
    return {key: source[key] for key in ("package", "version", "licence", "licence_url")}


def _preset_shown(value: Fraction) -> str:
    """``4/3`` as ``1.333``: how the ratio field shows a preset."""
    return f"{float(value):.3f}".rstrip("0").rstrip(".")

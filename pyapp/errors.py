"""The engine's exceptions: bad input names the field to fix; a tokenizer
that cannot load says why, and nothing falls back silently."""

from __future__ import annotations

__all__ = [
    "FIELD_NAMES",
    "EngineError",
    "InputError",
    "TokenizerError",
    "VocabularyMissing",
    "field_name",
]

#: How a message names a field for people, where its name is not plain words
#: (``field`` itself stays the API's name: the page keys on it).
FIELD_NAMES: dict[str, str] = {
    "tokens_per_unit": "tokens per unit",
    "price_per_million": "price per million tokens",
    "overlap_mode": "overlap mode",
    "avg_tokens": "average document length",
    "top_k": "top-k",
    "budget": "context budget",
    "dim": "embedding dimension",
    "bytes_per_value": "bytes per value",
    "window": "context window",
    "system": "system prompt",
    "answer": "reserved answer",
    "max_tokens": "maximum input tokens",
}


def field_name(field: str) -> str:
    """The field in words, for messages.

    >>> field_name("price_per_million"), field_name("size")
    ('price per million tokens', 'size')
    """
    return FIELD_NAMES.get(field, field)


class EngineError(Exception):
    """Base class for every error the engine reports on purpose.

    ``field`` names the input to blame (``"size"``, ``"overlap"``, ...) or is
    ``None``; ``message`` says what to change.
    """

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message

    def to_json(self) -> dict[str, str | None]:
        return {"field": self.field, "message": self.message}


class InputError(EngineError, ValueError):
    """A parameter or the text is not acceptable.

    >>> err = InputError("size", "size must be at least 1, got 0: raise the size")
    >>> err.field, str(err)
    ('size', 'size must be at least 1, got 0: raise the size')
    """


class TokenizerError(EngineError, RuntimeError):
    """A tokenizer backend could not be loaded or built (never a silent fallback)."""


class VocabularyMissing(TokenizerError):
    """An encoding's vocabulary file is not installed: ``vocabulary`` names the
    encoding. The browser's worker installs that vocabulary's wheel when an answer
    names it, and asks again; so which encodings a request needs is decided here, by
    what the engine reads, never by the page."""

    def __init__(self, vocabulary: str, message: str) -> None:
        super().__init__("encoding", message)
        self.vocabulary = vocabulary

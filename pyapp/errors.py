"""The engine's exceptions: bad input names the field to fix; a tokenizer
that cannot load says why, and nothing falls back silently."""

from __future__ import annotations

__all__ = ["EngineError", "InputError", "TokenizerError"]


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

"""User-facing errors.

Anything a user can cause (a wrong name, a missing or malformed file) raises
:class:`IsarcasmError`.  The CLI turns it into one line on stderr and a non-zero
exit code, without a traceback; programming errors keep their tracebacks.
"""
from __future__ import annotations

import unicodedata
from pathlib import Path


def one_line(text: str) -> str:
    """``text`` safe to print as one line: line breaks and other control characters, and lone
    surrogates (bytes of a non-UTF-8 file name), become escapes such as ``\\n`` or ``\\udcff``."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == " " else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    if unicodedata.category(ch) in ("Zs",):  # a space other than " " (no-break space ...): printable enough
        return ch
    return ascii(ch)[1:-1]


class IsarcasmError(Exception):
    """A problem the user can fix; the message says what is wrong and how to fix it."""


class DataError(IsarcasmError):
    """A data file is missing, malformed, or does not match its checksum."""

    @classmethod
    def at(cls, path: str | Path, row: int | None, problem: str) -> "DataError":
        """An error located in a file (and row, 1-based as an editor shows it)."""
        where = f"{path}:{row}" if row is not None else str(path)
        return cls(one_line(f"{where}: {problem}"))

"""User-facing errors.

Anything a user can cause (a wrong name, a missing or malformed file) raises
:class:`IsarcasmError`.  The CLI turns it into one line on stderr and a non-zero
exit code, without a traceback; programming errors keep their tracebacks.
"""
from __future__ import annotations

import re
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


#: Characters besides C0 that change what a terminal shows instead of being shown: DEL and C1
#: controls, line and paragraph separators, the bidirectional marks, embeddings, overrides and
#: isolates (an RLO makes the rest of a line read backwards), and lone surrogates (which no output
#: can encode).
_BEYOND_C0 = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
#: What :func:`shown` escapes: those, and the C0 controls (tab included: it would split a TSV
#: column; ESC starts colour, cursor and title sequences).
HIDDEN = re.compile(f"[\x00-\x1f{_BEYOND_C0}]")
_JSON_HIDDEN = re.compile(f"[{_BEYOND_C0}]")  # json.dumps escapes C0 itself; its own line breaks must stay


def shown(text: str) -> str:
    """A text (a user's, a corpus') as printed for a person: every :data:`HIDDEN` character as its
    Python escape (``\\x1b``, ``\\u202e``), everything else, emoji joiners included, as it is."""
    return HIDDEN.sub(lambda match: ascii(match.group())[1:-1], text)


def tsv_field(text: str) -> str:
    """A text as one field of a tab-separated line: :func:`shown`, with backslashes doubled first, so
    a typed ``\\t`` (shown ``\\\\t``) never prints like a real tab (shown ``\\t``)."""
    return shown(text.replace("\\", "\\\\"))


def json_shown(document: str) -> str:
    """A document of ``json.dumps`` with every :data:`HIDDEN` character as a JSON escape
    (``\\u202e``): the same values once parsed, and nothing a terminal acts on when printed."""
    return _JSON_HIDDEN.sub(lambda match: f"\\u{ord(match.group()):04x}", document)


class IsarcasmError(Exception):
    """A problem the user can fix; the message says what is wrong and how to fix it."""


class DataError(IsarcasmError):
    """A data file is missing, malformed, or does not match its checksum."""

    @classmethod
    def at(cls, path: str | Path, row: int | None, problem: str) -> "DataError":
        """An error located in a file (and row, 1-based as an editor shows it)."""
        where = f"{path}:{row}" if row is not None else str(path)
        return cls(one_line(f"{where}: {problem}"))

"""Strict, well-reported reading of the text files corpora come in.

Every helper here raises :class:`DataError` naming the file and row, so a
reader never lets a ``UnicodeDecodeError`` or ``KeyError`` reach the user.
"""
from __future__ import annotations

import codecs
import csv
import gzip
import hashlib
import io
import json
import os
import stat
import tomllib
import zlib
from pathlib import Path
from typing import Any, Callable, Iterator

from .errors import DataError
from .limits import GZIP_ENV, MAX_DEPTH, ROWS, parse_size

#: The most a ``.gz`` file may decompress to (bytes): a few kilobytes of gzip can hold gigabytes of
#: zeros, which would fill the memory before any check sees a row.  ``ISARCASM_MAX_GZIP_BYTES``
#: raises it for a larger corpus.
MAX_DECOMPRESSED = 2 << 30


def max_decompressed() -> int:
    """:data:`MAX_DECOMPRESSED`, or ``$ISARCASM_MAX_GZIP_BYTES`` when set: a size (``4G``, bytes), a
    value that is none refused in one line (never ignored for the default)."""
    value = os.environ.get(GZIP_ENV, "")
    return parse_size(value, GZIP_ENV) if value.strip() else MAX_DECOMPRESSED


class _Bounded(io.RawIOBase):
    """A gzip file's decompressed bytes, refused (:class:`DataError`, one line) beyond ``limit``, and
    a damaged stream reported as one, not as zlib's or gzip's exception."""

    def __init__(self, path: Path, limit: int):
        self.path, self.limit, self.total = path, limit, 0
        self.stream = gzip.open(path, "rb")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        try:
            count = self.stream.readinto(buffer)
        except (OSError, EOFError, zlib.error) as exc:
            raise DataError.at(self.path, None, f"not a valid gzip file ({exc})") from None
        self.total += count
        if self.total > self.limit:
            raise DataError.at(self.path, None, f"decompresses to more than {self.limit:,} bytes, the limit for a "
                                                "compressed file; set ISARCASM_MAX_GZIP_BYTES higher if it is "
                                                "really that large, or pass it uncompressed")
        return count

    def close(self) -> None:
        self.stream.close()
        super().close()


def is_gzip(path: Path) -> bool:
    return path.suffix.lower() == ".gz"


def open_binary(path: Path) -> io.BufferedReader:
    """The file's bytes as a stream, decompressed (within :func:`max_decompressed`) when the name ends in ``.gz``."""
    return io.BufferedReader(_Bounded(path, max_decompressed())) if is_gzip(path) else path.open("rb")


#: What a path that is no regular file is, by its ``stat`` mode.
_NOT_REGULAR = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def require_file(path: Path, missing: str | None = None) -> Path:
    """``path`` when it is a regular file (or a link to one): the one check of every file a user names.

    Nothing there: ``missing`` (the caller's own advice), else ``PATH: file not found``.  Something
    else there is "not a regular file" and says what it is: a directory is no file, and reading a
    FIFO or a device would wait for a writer or never end.
    """
    try:
        mode = Path(path).stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        raise (DataError(missing) if missing else DataError.at(path, None, "file not found")) from None
    except OSError as exc:
        raise DataError.at(path, None, f"cannot read it ({exc.strerror or exc})") from None
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _NOT_REGULAR if test(mode)), "not a file")
        raise DataError.at(path, None, f"not a regular file ({kind}); give the path of a file")
    return Path(path)


def read_bytes(path: Path) -> bytes:
    """The file's content, gunzipped when the name ends in ``.gz``."""
    require_file(path)
    with open_binary(path) as handle:
        return handle.read()


def read_text(path: Path) -> str:
    """Decode as UTF-8 (a BOM is dropped); bad bytes are reported with their line."""
    data = read_bytes(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataError.at(
            path, line, f"not valid UTF-8 (byte 0x{data[exc.start]:02x}); re-save the file as UTF-8"
        ) from None
    if not text.strip():
        raise DataError.at(path, None, "file is empty")
    return text


def content_sha256(path: Path, chunk: int = 1 << 20) -> str:
    """sha256 of the content (of the decompressed content for ``.gz``), streamed: no decompression bound
    (a large vectors file is hashed in constant memory), and a broken gzip raises ``OSError`` as a file
    whose content differs (``data verify`` reports it as a mismatch)."""
    digest = hashlib.sha256()
    opener = gzip.open if is_gzip(path) else open
    with opener(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


#: The longest CSV field accepted (the csv module's default, 128 KiB, would refuse a long text).
MAX_FIELD = 1 << 30
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _decode_problem(path: Path) -> DataError:
    """The first line of ``path`` that is not UTF-8, found by streaming it (for a decoding error
    met while reading in large chunks, whose position says nothing about the line)."""
    with open_binary(path) as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1 and raw.startswith(_UTF16_BOMS):
                return DataError.at(path, None, "is UTF-16 (it starts with a UTF-16 byte-order mark); "
                                                "re-save the file as UTF-8")
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                return DataError.at(path, number, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x}); "
                                                  "re-save the file as UTF-8")
    return DataError.at(path, None, "not valid UTF-8; re-save the file as UTF-8")


#: The longest line read, in characters.  A line of a text file is one record (a tweet, a dialogue turn, a
#: word vector), thousands of characters at most; a longer one is a damaged file, refused before it
#: fills the memory (docs/reliability.md).
MAX_LINE = 1 << 24


def text_lines(path: Path, newline: str | None = None) -> Iterator[tuple[int, str]]:
    """Stream ``(line_number, line)`` of a UTF-8 text file (a BOM is dropped), one line in memory at a time.

    ``newline`` is :func:`open`'s: ``None`` splits on ``\\n``, ``\\r\\n`` and ``\\r`` and strips them;
    ``""`` keeps the line ends, as :mod:`csv` needs.  A ``.gz`` file is read decompressed, as it streams.
    Characters such as U+2028 or ``\\x1c``, which ``str.splitlines`` would also split on, stay inside
    their line.
    Non-UTF-8 bytes and NUL characters (a UTF-16 or binary file) stop with the line, and so does a line past
    :data:`~preprocessing.limits.ROWS`.
    """
    require_file(path)
    limit = ROWS.limit()
    with io.TextIOWrapper(open_binary(path), encoding="utf-8-sig", errors="strict", newline=newline) as handle:
        number = 0
        try:
            while line := handle.readline(MAX_LINE + 1):
                number += 1
                ROWS.check(path, number, limit)
                if len(line) > MAX_LINE:
                    raise DataError.at(path, number, f"a line of more than {MAX_LINE:,} characters, longer than any "
                                                     "record; is it one record per line?")
                if "\x00" in line:
                    raise DataError.at(path, number, "NUL character: a UTF-16 or binary file? re-save it as "
                                                     "UTF-8 text")
                yield number, (line[:-1] if newline is None and line.endswith("\n") else line)
        except UnicodeDecodeError:
            raise _decode_problem(path) from None


def read_csv(path: Path, required: tuple[str, ...], delimiter: str = ",",
             strict: bool = False) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield ``(row_number, row)`` with header columns checked; row 1 is the header.

    Row numbers count CSV records, not physical lines (quoted fields may hold newlines).
    The file is streamed, so memory holds one row at a time.  A required column
    named twice is refused (which one would be meant?).  ``strict`` also refuses
    malformed quoting (a quote left open to the end of the file, text after a
    closing quote) instead of reading it the lenient csv way.
    """
    csv.field_size_limit(MAX_FIELD)
    lines = (line for _, line in text_lines(path, newline=""))
    reader = csv.reader(lines, delimiter=delimiter, strict=strict)
    number = 0
    try:
        header = None
        for number, row in enumerate(reader, start=1):  # blank lines before the header are skipped
            if any(cell.strip() for cell in row):
                header = row
                break
        if header is None:
            raise DataError.at(path, None, "file is empty")
        missing = [c for c in required if c not in header]
        if missing:
            raise DataError.at(path, number, f"missing column(s) {', '.join(missing)}; the header has: "
                                             f"{', '.join(header) or 'nothing'}")
        twice = [c for c in dict.fromkeys(required) if header.count(c) > 1]
        if twice:
            raise DataError.at(path, number, f"column(s) {', '.join(twice)} appear more than once in the header")
        for number, cells in enumerate(reader, start=number + 1):
            if len(cells) > len(header):
                raise DataError.at(path, number, f"more fields than the {len(header)} header columns")
            if not cells:  # a blank line
                continue
            yield number, dict(zip(header, cells + [None] * (len(header) - len(cells))))
    except csv.Error as exc:
        raise DataError.at(path, number + 1, f"malformed CSV ({exc}); check the quotes on this row") from None


class NestedTooDeep(DataError, ValueError):
    """A JSON or TOML document nested deeper than :data:`~preprocessing.limits.MAX_DEPTH`.  A
    :class:`DataError` (one line naming the file), and a ``ValueError`` as the parsers' own errors are, so
    a reader that takes a malformed file for a damaged one (a cache rebuilt, a run not finished) takes
    this one so."""


def json_value(text: str, path: Path | str, row: int | None = None) -> Any:
    """``json.loads(text)``, nested at most :data:`~preprocessing.limits.MAX_DEPTH` deep, else
    :class:`NestedTooDeep` naming ``path`` (and ``row``, a line of JSON Lines): the one way the suite parses
    JSON.  Malformed JSON raises ``json.JSONDecodeError``, for the reader to word."""
    return _bounded(json.loads, text, path, row)


def toml_value(text: str, path: Path | str) -> dict:
    """``tomllib.loads(text)``, bounded as :func:`json_value`; malformed TOML raises ``TOMLDecodeError``."""
    return _bounded(tomllib.loads, text, path, None)


def load_json(path: Path) -> Any:
    """The JSON in file ``path``, parsed by :func:`json_value`: for a reader with its own words for a
    missing or malformed file (``OSError``, ``ValueError``), and one that takes them for a damaged one."""
    return json_value(path.read_text(encoding="utf-8"), path)


def _bounded(parse: Callable[[str], Any], text: str, path: Path | str, row: int | None) -> Any:
    """``parse(text)``, refused when it nests deeper than :data:`MAX_DEPTH`: a parser that recurses past
    Python's limit, or a parsed value found deeper by an iterative walk (no reader recurses into it then)."""
    try:
        value = parse(text)
        deep = _deeper_than(value, MAX_DEPTH)
    except RecursionError:
        deep = True
    if deep:
        raise NestedTooDeep.at(path, row, f"nested more than {MAX_DEPTH} levels deep (arrays in arrays, objects or "
                                          "tables in tables), far deeper than any file the suite writes or a "
                                          "corpus holds; is it the right file?")
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    """True when lists and dicts nest more than ``limit`` deep in ``value``; without recursion."""
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def read_json(path: Path) -> Any:
    try:
        value = json_value(read_text(path), path)
    except json.JSONDecodeError as exc:
        raise DataError.at(path, exc.lineno, f"invalid JSON ({exc.msg})") from None
    return no_surrogates(value, path, None)


def surrogate_at(text: str) -> int | None:
    """The index of the first lone surrogate in ``text`` (half of a UTF-16 pair, e.g. ``\\ud800``),
    or None.  Decoding UTF-8 strictly never yields one; a JSON escape (``"\\ud800"``) or a command-line
    argument of bytes that are not UTF-8 does, and no tokenizer or output can encode it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def surrogate_problem(text: str, index: int) -> str:
    """How a lone surrogate is reported, the same in every command (files and options)."""
    return (f"a lone surrogate {ascii(text[index])[1:-1]} at character {index + 1} (half of a UTF-16 pair, from "
            "a JSON escape or bytes that are not UTF-8) is not text; fix or remove it")


def no_surrogates(value: Any, path: Path, row: int | None, where: str = "") -> Any:
    """``value`` (parsed JSON) when no string in it holds a lone surrogate; else a :class:`DataError`
    naming the file, the row (``row``: a line, for JSON Lines) and the value's place in the
    document (``["1_60"]["utterance"]``), so every command refuses such a text before it is read."""
    if isinstance(value, str):
        index = surrogate_at(value)
        if index is not None:
            raise DataError.at(path, row, f"{where + ': ' if where else ''}{surrogate_problem(value, index)}")
    elif isinstance(value, dict):
        for key, item in value.items():
            no_surrogates(key, path, row, f"{where} key".strip())
            no_surrogates(item, path, row, f"{where}[{json.dumps(key)}]")
    elif isinstance(value, list):
        for number, item in enumerate(value):
            no_surrogates(item, path, row, f"{where}[{number}]")
    return value


def parse_label(path: Path, row: int | str | None, value: Any, mapping: dict[str, int]) -> int:
    """Map a raw label (a string, or a JSON number) to its index, or fail naming the allowed values.

    ``row`` is a line number, or a record key such as ``"item 3"`` for JSON files.
    """
    key = "" if value is None else str(value).strip()
    if key not in mapping:
        allowed = ", ".join(repr(k) for k in mapping)
        raise DataError.at(path, row, f"label {key!r} is not one of {allowed}")
    return mapping[key]


def usual_mode(directory: bool = False) -> int:
    """The mode ``open``/``mkdir`` give a new file or folder under the current umask.

    Atomic writes go through :mod:`tempfile`, whose files and folders are
    owner-only (0o600/0o700); they get this mode instead, so results, runs and
    caches in a shared folder stay readable by its other users.
    """
    umask = os.umask(0)
    os.umask(umask)
    return (0o777 if directory else 0o666) & ~umask

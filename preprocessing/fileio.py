"""Strict, well-reported reading of the text files corpora come in.

Every helper here raises :class:`DataError` naming the file and row, so a
reader never lets a ``UnicodeDecodeError`` or ``KeyError`` reach the user.
"""
from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any, Iterator

from .errors import DataError


def read_bytes(path: Path) -> bytes:
    """The file's content, gunzipped when the name ends in ``.gz``."""
    if not path.is_file():
        raise DataError.at(path, None, "file not found")
    data = path.read_bytes()
    if path.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise DataError.at(path, None, f"not a valid gzip file ({exc})") from None
    return data


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
    """sha256 of the content (of the decompressed content for ``.gz``), streamed."""
    digest = hashlib.sha256()
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def read_csv(path: Path, required: tuple[str, ...], delimiter: str = ",") -> Iterator[tuple[int, dict[str, str]]]:
    """Yield ``(row_number, row)`` with header columns checked; row 1 is the header.

    Row numbers count CSV records, not physical lines (quoted fields may hold newlines).
    """
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""), delimiter=delimiter)
    header = reader.fieldnames or []
    missing = [c for c in required if c not in header]
    if missing:
        raise DataError.at(
            path, 1, f"missing column(s) {', '.join(missing)}; the header has: {', '.join(header) or 'nothing'}"
        )
    for number, row in enumerate(reader, start=2):
        if None in row:
            raise DataError.at(path, number, f"more fields than the {len(header)} header columns")
        yield number, row


def read_json(path: Path) -> Any:
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise DataError.at(path, exc.lineno, f"invalid JSON ({exc.msg})") from None


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

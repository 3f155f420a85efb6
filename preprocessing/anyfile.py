"""Any CSV/TSV/JSONL file as a corpus, gzipped or not (``.csv.gz``, ``.tsv.gz``, ``.jsonl.gz``).

Wherever a corpus name is accepted, a path to a user's own file works too, so
the models can be tried on new data without writing a reader.  The file is
checked as strictly as the registered corpora: every problem names the file
and row.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from .specs import BINARY_LABELS
from .errors import DataError
from .fileio import NestedTooDeep, json_value, no_surrogates, parse_label, read_csv, text_lines
from .records import Dataset, Record, id_problem

# Accepted label spellings (compared lower-cased): 1 = sarcastic.
LABELS = {"0": 0, "1": 1, "false": 0, "true": 1, "not_sarcastic": 0, "sarcastic": 1}
DEFAULT_SPLIT = "test"
FORMATS = (".csv", ".tsv", ".jsonl")


def file_format(path: str | Path) -> str:
    """The format a file's name declares: ``.csv``, ``.tsv`` or ``.jsonl`` (lower-cased), the one
    before ``.gz`` for a gzipped file (read decompressed, with the same checks); else its suffix."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes[-1:] == [".gz"] and suffixes[-2:-1]:
        return suffixes[-2]
    return suffixes[-1] if suffixes else ""


def file_stem(path: str | Path) -> str:
    """A file corpus' short name: its name without the format (and ``.gz``) suffix."""
    name = Path(path).name
    suffix = file_format(path) + (".gz" if Path(path).suffix.lower() == ".gz" else "")
    return name[:-len(suffix)] if suffix and name.lower().endswith(suffix) else Path(path).stem


def read_any_file(path: Path, text_col: str = "text", label_col: str = "label",
                  split_col: str | None = None) -> Dataset:
    """Read a binary-labelled corpus from ``path``.

    Labels may be 0/1, true/false or sarcastic/not_sarcastic.  Without
    ``split_col`` every row is in split ``"test"`` (a file given on its own is
    something to evaluate on).  Ids come from an ``id`` column when there is one,
    else from the row number (``row-<n>``, the number error messages use).  The
    language is assumed to be English.
    """
    path = Path(path)
    required = tuple(c for c in (text_col, label_col, split_col) if c)
    records: list[Record] = []
    first_row: dict[str, int] = {}
    for row_no, row in _rows(path, required):
        text = _text(path, row_no, row, text_col)
        label = parse_label(path, row_no, _cell(path, row_no, label_col, row.get(label_col)).lower(), LABELS)
        split = _cell(path, row_no, split_col, row.get(split_col)).strip() if split_col else DEFAULT_SPLIT
        if not split:
            raise DataError.at(path, row_no, f"empty split in column '{split_col}'")
        record_id = _cell(path, row_no, "id", row["id"]).strip() if "id" in row else f"row-{row_no}"
        if not record_id:
            raise DataError.at(path, row_no, "empty id")
        if id_problem(record_id):
            raise DataError.at(path, row_no, id_problem(record_id))
        if record_id in first_row:
            raise DataError.at(path, row_no, f"duplicate id {record_id!r} (first on row {first_row[record_id]})")
        first_row[record_id] = row_no
        records.append(Record(id=record_id, text=text, label=label, split=split))
    if not records:
        raise _no_rows(path)
    return Dataset(name=str(path), language="en", label_names=BINARY_LABELS, records=records)


def read_texts(path: Path, text_col: str = "text") -> list[str]:
    """The texts of a CSV/TSV/JSONL file, read and checked as :func:`read_any_file` reads them (quoted
    fields over several lines, the header not a text), with no label needed: what ``predict`` classifies."""
    path = Path(path)
    texts = [_text(path, row_no, row, text_col) for row_no, row in _rows(path, (text_col,))]
    if not texts:
        raise _no_rows(path)
    return texts


def _rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict]]:
    """``(row number, row)`` of a file in one of :data:`FORMATS`, with the ``required`` columns (or
    keys) checked present and filled; any other file type is refused."""
    suffix = file_format(path)
    if suffix not in FORMATS:
        raise DataError.at(path, None, f"unsupported file type {suffix or '(none)'}; use one of {', '.join(FORMATS)} "
                                       "(or the same gzipped: .csv.gz ...)")
    rows = _jsonl_rows(path, required) if suffix == ".jsonl" else read_csv(
        path, required, delimiter="\t" if suffix == ".tsv" else ",", strict=True)
    for row_no, row in rows:
        short = [c for c in required if row.get(c, "") is None]
        if short:
            raise DataError.at(path, row_no, f"fewer fields than the header: no value for column(s) {', '.join(short)}")
        yield row_no, row


def _text(path: Path, row_no: int, row: dict, text_col: str) -> str:
    """A row's text, refused when empty."""
    text = _cell(path, row_no, text_col, row.get(text_col))
    if not text.strip():
        raise DataError.at(path, row_no, f"empty text in column '{text_col}'")
    return text


def _no_rows(path: Path) -> DataError:
    return DataError.at(path, None, "file is empty" if file_format(path) == ".jsonl" else "no data rows after the header")


def _cell(path: Path, row_no: int, column: str, value) -> str:
    """A CSV cell or JSON value as text (JSON true -> "true", 1 -> "1"); a JSON array or object is refused."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        kind = "an array" if isinstance(value, list) else "an object"
        raise DataError.at(path, row_no, f"'{column}' holds {kind}; expected a string or a number")
    return str(value)


def _jsonl_rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict]]:
    """``(line_number, object)`` for each non-blank line, with the required keys checked; streamed."""
    for row_no, line in text_lines(path):
        if not line.strip():
            continue
        try:
            row = json_value(line, path, row_no)
        except json.JSONDecodeError as exc:
            raise DataError.at(path, row_no, f"invalid JSON ({exc.msg}, column {exc.colno})") from None
        except NestedTooDeep:
            raise
        except ValueError as exc:  # an integer of more than 4300 digits
            raise DataError.at(path, row_no, f"invalid JSON ({str(exc).split(';')[0]})") from None
        if not isinstance(row, dict):
            raise DataError.at(path, row_no, "expected one JSON object per line")
        no_surrogates(row, path, row_no)
        missing = [c for c in required if c not in row]
        if missing:
            raise DataError.at(path, row_no, f"missing key(s) {', '.join(missing)}; the object has: "
                                             f"{', '.join(row) or 'nothing'}")
        yield row_no, row

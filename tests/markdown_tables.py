"""Reading the reports' markdown tables in tests.

tabulate pads every cell to its column's width, so a test that looks for a row's content compares the
cells, not the padding: ``unpadded(text)`` writes each table line as ``| a | b |`` (an empty cell ``| |``).
``tables(text)`` parses the markdown with the parser ``report --html`` uses, so a test can check that a
report's table is read as one.
"""
from __future__ import annotations

from typing import NamedTuple

from markdown_it import MarkdownIt

_PARSER = MarkdownIt("commonmark").enable("table")


def unpadded(text: str) -> str:
    """``text`` with the padding of every table line's cells removed; other lines as they are."""
    return "\n".join(_unpad(line) if line.startswith("|") else line for line in text.split("\n"))


def _unpad(line: str) -> str:
    return "|" + "|".join(f" {cell} " if cell else " " for cell in cells(line)) + "|"


class Table(NamedTuple):
    """A markdown table as the parser read it (``rows``: the cells' inline texts, header first; it pads or
    cuts a row to the header's width) and its source ``lines`` (header, separator, rows)."""

    rows: list[list[str]]
    lines: list[str]


def tables(text: str) -> list[Table]:
    """Every markdown table in ``text``."""
    found, source = [], text.split("\n")
    tokens = _PARSER.parse(text)
    for token, following in zip(tokens, tokens[1:]):
        if token.type == "table_open":
            found.append(Table([], source[token.map[0]:token.map[1]]))
        elif token.type == "tr_open":
            found[-1].rows.append([])
        elif token.type in ("th_open", "td_open"):
            found[-1].rows[-1].append(following.content if following.type == "inline" else "")
    return found


def cells(line: str) -> list[str]:
    """The cells of one table line as written (no escaped pipes in the suite's tables)."""
    return [cell.strip() for cell in line.strip().strip("|").split("|")]

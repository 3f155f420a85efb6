"""Did a change keep the printed report?  Compare two printed reports of one command, number by number.

A change of wording or columns (a header renamed, a column that was empty everywhere left out) must leave
every number the report prints where it was.  This script reads two saved outputs of a command (say
``isarcasm reproduce table7 > before.txt`` at one commit and ``> after.txt`` at another), and compares:

- each markdown table row, keyed by its first cells that hold no number (corpus, model, metric, class...):
  the numbers it prints, in order, with the columns that hold only "—" in both outputs left out;
- each line outside the tables that starts with ``corpus/model:`` (the per-cell lines a study prints as it
  goes): its numbers, times ("… s") left out.

Commit ids and wall times are not numbers of the result and are never compared.  It prints one line per
difference and a final count; it exits 1 on any difference or a row that only one output has.

Usage::

    python benchmarks/same_table.py BEFORE.txt AFTER.txt
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

#: A number as a report prints it: signed, with decimals, or an integer.
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
#: The per-cell line of a study (``isarcasm/lstm: F1(sarcastic) 0.243 ± 0.058 over 5 seed(s), 5 reused, 178 s``).
_CELL_LINE = re.compile(r"^[\w.-]+/[\w.-]+: ")
_SECONDS = re.compile(r",? \d+ s\b")


def numbers(text: str) -> list[str]:
    return _NUMBER.findall(text)


def table_rows(text: str) -> dict[tuple, list[str]]:
    """Every table row of a report, by its table (its first two header cells), its leading cells that are words
    (corpus, model, metric) and its place among rows of the same key, as the numbers of its other cells."""
    rows: dict[tuple, list[str]] = {}
    header: tuple = ()
    for line in text.splitlines():
        if not line.startswith("|"):
            header = ()
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if set("".join(cells)) <= set("-: "):
            continue
        if not header:
            header = tuple(cells[:2])  # the table, by its first columns (corpus, model), which no change renames
            continue
        key_cells = []
        for cell in cells:
            if not re.search(r"[A-Za-z]", _NUMBER.sub("", cell)):  # a number, a "—": the row's values begin
                break
            key_cells.append(cell)
        key = (*header, *key_cells)
        place = sum(1 for existing in rows if existing[:-1] == key)
        rows[(*key, place)] = [n for cell in cells[len(key_cells):] for n in numbers(cell)]
    return rows


def cell_lines(text: str) -> dict[str, list[str]]:
    """The per-cell lines of a study, by ``corpus/model``, as their numbers without the times."""
    found = {}
    for line in text.splitlines():
        if _CELL_LINE.match(line):
            name, _, rest = line.partition(": ")
            found[name] = numbers(_SECONDS.sub("", rest))
    return found


def differences(before: str, after: str) -> tuple[list[str], int]:
    """One line per difference between two printed reports, and how many numbers were compared."""
    found, compared = [], 0
    for what, (a, b) in {"row": (table_rows(before), table_rows(after)),
                         "line": (cell_lines(before), cell_lines(after))}.items():
        for key in sorted(a.keys() | b.keys(), key=str):
            shown = " | ".join(map(str, key)) if isinstance(key, tuple) else key
            if key not in a or key not in b:
                found.append(f"{what} {shown}: only in {'after' if key in b else 'before'}")
                continue
            compared += len(a[key])
            if a[key] != b[key]:
                found.append(f"{what} {shown}: {a[key]} before, {b[key]} after")
    return found, compared


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    texts = [path.read_text(encoding="utf-8") for path in (args.before, args.after)]
    found, compared = differences(*texts)
    for line in found:
        print(line)
    print(f"{compared} numbers compared: {len(found)} differences")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

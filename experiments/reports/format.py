"""Formatting shared by the reports, the commands and benchmarks/ (no import beyond the standard
library and tabulate, a pure-Python module, so that a benchmark runs where the suite's other libraries are
not installed)."""
from __future__ import annotations

from tabulate import tabulate


def duration(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {secs:02d} s"




def failed_section(failed: list[dict]) -> list[str]:
    """The runs of a study that failed (training diverged: ``model``, ``cell``, ``seed``, ``reason``
    each), which no mean includes; nothing when none failed."""
    if not failed:
        return []
    return ["", f"## Failed runs ({len(failed)}; training diverged, never averaged in)", "",
            *(f"- {f['model']} on {f['cell']}, seed {f['seed']}: {f['reason']}" for f in failed)]


def table(rows: list[list], header: list[str]) -> str:
    """A plain aligned text table; a column of numbers (placeholders such as "—" aside) is right-aligned.
    Cells are printed as given: the caller chose each number's digits."""
    columns = list(zip(header, *rows))
    align = ["right" if _numbers(column[1:]) else "left" for column in columns]
    return tabulate(rows, header, tablefmt="simple", disable_numparse=True, colalign=align)


def markdown_table(rows: list[list], header: list[str]) -> list[str]:
    """A markdown (GitHub) table, as lines; cells are written as given, so no number is reformatted."""
    return tabulate(rows, header, tablefmt="github", disable_numparse=True).splitlines()


def _numbers(cells) -> bool:
    shown = [str(c) for c in cells if str(c) not in ("", "—")]
    return bool(shown) and all(_numeric(c) for c in shown)


def _numeric(value: str) -> bool:
    text = value.replace(",", "").replace("%", "").replace(".", "", 1).lstrip("-")
    return text.isdigit()

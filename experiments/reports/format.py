"""Formatting shared by the reports, the commands and benchmarks/ (no import beyond the standard
library, so that a benchmark runs where the suite's other libraries are not installed)."""
from __future__ import annotations


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


def table(rows: list[list[str]], header: list[str]) -> str:
    """A plain aligned text table (right-aligned numbers)."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    def fmt(row):
        return "  ".join(
            str(c).rjust(w) if _numeric(c) else str(c).ljust(w) for c, w in zip(row, widths)
        ).rstrip()
    lines = [fmt(header), "  ".join("-" * w for w in widths)]
    return "\n".join(lines + [fmt(r) for r in rows])


def _numeric(value) -> bool:
    text = str(value).replace(",", "").replace("%", "").replace(".", "", 1).lstrip("-")
    return text.isdigit()

"""Formatting shared by the reports."""
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

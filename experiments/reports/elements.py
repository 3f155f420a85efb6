"""The elements report (``isarcasm report EXPERIMENT --elements``): each training element of the authors'
code, alone on the paper's protocol, beside the paper as written on paired seeds.

See :func:`experiments.studies.fidelity.elements` for what is paired; this writes it as markdown, one table
per element, citing the element's lines in the authors' code and the results file it read.
"""
from __future__ import annotations

from itertools import groupby

from experiments.reports.format import markdown_table
from experiments.reports.merge import made_by
from experiments.results.schema import Result

F1, MACRO, RATE = "f1_sarcastic", "f1_macro", "predicted_positive_rate"
HEADER = ["model", "as written", "element alone", "Δ F1, paired", "higher in", "paired seeds",
          "share predicted sarcastic", "paper", "within ±0.03 of the paper", "paper inside min–max"]
MACRO_HEADER = ["model", "as written", "element alone", "Δ macro-F1, paired", "higher in", "paper F-score",
                "within ±0.03 of the paper", "paper inside min–max"]


def elements_markdown(result: Result) -> str:
    several = len({c["corpus"] for c in result.cells}) > 1
    lines = [f"# {result.title}", "",
             f"Sarcastic-class F1 on the test split: each element's runs beside the as-written runs of "
             f"`{result.as_written}` of the same seed (the same validation carving), mean ± std over the seeds "
             "both have. Δ F1: the element's F1 minus the as-written F1 of the same seed, averaged; higher in: the "
             "seeds where the element's is higher; share predicted sarcastic: the mean share of test tweets "
             "labelled sarcastic, as written → with the element; paper: the paper's sarcastic-class F1, and whether "
             "each mean over those seeds lies within 0.03 of it and whether it lies inside their min–max, as written → "
             "with the element. The named protocols "
             "(all their elements together) follow the single elements. Where the paper gives one F-score without "
             "precision or recall (Table 6), a second table sets macro-F1 of the same runs beside it. Commit "
             f"`{result.git_commit}`; no test of significance is claimed."]
    for label, rows in groupby(result.cells, key=lambda cell: cell["element"]):
        rows = list(rows)
        first = rows[0]
        lines += ["", f"## {label} (`{first['sources']}`)", ""]
        source = result.inputs.get(first["results"])
        if source is None:  # no results of this element were read
            # a row that records no command (an older results file): the command from its options
            command = first.get("command") or f"isarcasm reproduce {result.as_written} {first['options']}"
            lines.append(f"Not measured: no `{first['results']}` results; `{command}` makes them.")
            continue
        lines += [_made_by(first["results"], source), "",
                  *markdown_table([_row(row, several) for row in rows], HEADER)]
        if macro := [row for row in rows if "macro" in row]:
            lines += ["", "Macro-F1 of the same runs beside the paper's F-score:", "",
                      *markdown_table([_macro_row(row, several) for row in macro], MACRO_HEADER)]
    return "\n".join(lines) + "\n"


def _made_by(name: str, source: dict) -> str:
    """Which command (at which commit) made results ``name``: each sweep's, with its cells, for merged results."""
    if "parts" not in source:
        return f"Results `{name}` (commit `{source.get('git_commit')}`): `{source.get('command')}`."
    return f"Results `{name}`, merged from {len(source['parts'])} sweeps: {'; '.join(map(made_by, source['parts']))}."


def _row(row: dict, several: bool) -> list[str]:
    model = _model(row, several)
    if not row["measured"]:
        return [model, "—", f"not measured: {row['why']}", *["—"] * (len(HEADER) - 3)]
    base, other = row["base"], row["other"]
    shares = "—" if None in (base[RATE], other[RATE]) else f"{base[RATE]:.0%} → {other[RATE]:.0%}"
    paper = [f"{row['paper']:.3f}", *_near_the_paper(row)] if "paper" in row else ["—"] * 3
    return [model, _spread(base[F1]), _spread(other[F1]), f"{row['mean_delta']:+.3f}",
            f"{row['higher_in']} of {row['pairs']}", _seeds(row["seeds"]), shares, *paper]


def _macro_row(row: dict, several: bool) -> list[str]:
    macro = row["macro"]
    return [_model(row, several), _spread(macro["base"][MACRO]), _spread(macro["other"][MACRO]),
            f"{macro['mean_delta']:+.3f}", f"{macro['higher_in']} of {macro['pairs']}", f"{row['paper']:.3f}",
            *_near_the_paper(macro)]


def _near_the_paper(checks: dict) -> list[str]:
    """Within ±0.03 of the paper, and the paper inside min–max: as written → with the element."""
    return [f"{_yes(checks['base_' + test])} → {_yes(checks['other_' + test])}"
            for test in ("within_0.03", "paper_in_range")]


def _model(row: dict, several: bool) -> str:
    return f"{row['corpus']}/{row['model']}" if several else row["model"]


def _yes(within: bool) -> str:
    return "yes" if within else "no"


def _spread(summary: dict) -> str:
    return f"{summary['mean']:.3f} ± {summary['std']:.3f}"


def _seeds(seeds: list[int]) -> str:
    """``0–4`` for a run of consecutive seeds, else each."""
    ordered = sorted(seeds)
    if len(ordered) > 2 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}–{ordered[-1]}"
    return ", ".join(map(str, ordered))

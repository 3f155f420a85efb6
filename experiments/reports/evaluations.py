"""``isarcasm evaluate`` over several runs: each group's mean ± std beside the corpus' floor.

One evaluation is one seed's number; a researcher comparing models on their own file needs the
spread over seeds and the score of labelling every text sarcastic (on a file with many sarcastic
texts that floor can beat every model), so runs of the same model, training corpus and evaluated
corpus are summarised together.
"""
from __future__ import annotations

from experiments.reports.operating_point import all_sarcastic_floor
from experiments.runs.metrics import MAIN_METRICS, METRIC_NAMES, summary_stats


def evaluation_groups(results: list[dict]) -> dict[tuple[str, str, str], list[dict]]:
    """(model, training corpus, evaluated corpus) -> its evaluations, in the order given."""
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for result in results:
        groups.setdefault((result["model"], result["trained_on"], result["corpus"]), []).append(result)
    return groups


def evaluation_summary(results: list[dict], sarcastic_shares: dict[str, float]) -> list[dict]:
    """One row per group: the number of runs, each metric's statistics and the evaluated corpus'
    all-sarcastic floor (``sarcastic_shares``: evaluated corpus -> the share of sarcastic texts in
    the split scored; a corpus missing from it, e.g. multi-class, has no floor)."""
    rows = []
    for (model, trained_on, corpus), group in evaluation_groups(results).items():
        metrics = {m: summary_stats([r["test"][m] for r in group]) for m in MAIN_METRICS
                   if all(m in r["test"] for r in group)}
        share = sarcastic_shares.get(corpus)
        rows.append({"model": model, "trained_on": trained_on, "corpus": corpus, "runs": len(group),
                     "metrics": metrics, "all_sarcastic": None if share is None else all_sarcastic_floor(share)})
    return rows


def summary_lines(rows: list[dict]) -> list[str]:
    """The summary as console lines (one per group)."""
    lines = []
    for row in rows:
        parts = [f"{METRIC_NAMES[m]} {s['mean']:.3f} ± {s['std']:.3f}" for m, s in row["metrics"].items()]
        floor = row["all_sarcastic"]
        if floor is not None:
            parts.append(f"all-sarcastic floor F1(sarcastic) {floor['f1_sarcastic']:.3f}")
        lines.append(f"{row['model']} trained on {row['trained_on']}, on {row['corpus']} "
                     f"({row['runs']} run{'s' if row['runs'] != 1 else ''}): " + ", ".join(parts))
    return lines

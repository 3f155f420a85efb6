"""Did a change keep the distribution over seeds?  Compare two results of the same cells, seed by seed where they can.

The faithful-by-distribution sibling of ``same_numbers.py``: a change that alters floating-point
order (a faster path) cannot keep the digits, so it is held to the same distribution over seeds of
each cell's main metric and a companion (sarcastic-class F1 and the share of test texts predicted
sarcastic on binary cells; macro-F1 and accuracy on multi-class and multi-label ones), per cell and
selection rule (``best``, the paper's; ``grid``, the authors' code's), with a two-sided test per row,
Holm-adjusted, and a pooled test of each main metric with the 90% t interval of its difference (see
experiments/reports/distribution.py).  Where both sides hold the same seeds (six or more), a seed
is one pair: the sign-flip test of the per-seed differences, and the paired t interval.  Otherwise
the seeds are two samples: a permutation test of their splits, and Welch's t interval.  A pass says
these tests found no shift; the interval says how large a shift remains possible.

Usage::

    python benchmarks/same_distribution.py REFERENCE CANDIDATE [--reference-grid R --candidate-grid C]
        [--reference-seeds 0-4] [--candidate-seeds 5-9] [--corpus isarcasm] [--models lstm,cnn]

REFERENCE and CANDIDATE are each a results file, compared under the rule that chose its values
(``results/table7.json``: the ``best`` rule's; ``table7-authors-scripts.json``: the ``grid`` rule's; a
fidelity file names one protocol, ``table7-fidelity.json:as-written``), with the ``grid`` rule's results
of the same runs beside a ``best`` one given by ``--reference-grid``/``--candidate-grid``
(``table7-selection-grid.json``, ``table7-fidelity.json:as-written+grid``); or a run folder (an
experiment's folder of a run store, ``--output-dir``/table7), whose runs are scored under both rules
from their per-epoch records.

Exit status: 0 when the candidate passes, 1 when it fails, 2 on bad input (one line on stderr).
"""
from __future__ import annotations

import argparse
import sys

from experiments.reports.distribution import (
    CONFIDENCE,
    EXACT_LIMIT,
    PAIRED_MIN,
    METRICS_COMPARED,
    PERMUTATIONS,
    compare,
    load_side,
    restrict,
    smallest_p,
)
from experiments.reports.format import markdown_table
from experiments.reports.significance import holm
from preprocessing.errors import IsarcasmError


def seed_set(text: str | None) -> set[int] | None:
    """``0-4``, ``0,2,5-9`` -> the seeds; None -> all."""
    if text is None:
        return None
    seeds = set()
    try:
        for part in text.split(","):
            first, _, last = part.partition("-")
            seeds.update(range(int(first), int(last or first) + 1))
    except ValueError:
        raise IsarcasmError(f"seeds {text!r}: write them as 0-4 or 0,2,5-9") from None
    return seeds


def spread(summary: dict) -> str:
    return f"{summary['mean']:.3f} ± {summary['std']:.3f}"


def seeds_text(seeds: list[int]) -> str:
    """Seeds as ranges: [0, 1, 2, 5] -> 0-2,5."""
    runs, start = [], None
    for i, seed in enumerate(seeds):
        start = seed if start is None else start
        if i + 1 == len(seeds) or seeds[i + 1] != seed + 1:
            runs.append(f"{start}-{seed}" if seed != start else str(seed))
            start = None
    return ",".join(runs)


def print_report(result: dict, args) -> None:
    for name, source, grid, seeds in (("reference", args.reference, args.reference_grid, args.reference_seeds),
                                      ("candidate", args.candidate, args.candidate_grid, args.candidate_seeds)):
        print(f"{name}: {source}" + (f" (grid rule: {grid})" if grid else "") + f"; seeds {seeds or 'all'}")
    print(f"\nTwo-sided tests of the difference of means (candidate − reference): where both sides hold the same "
          f"seeds (at least {PAIRED_MIN}), paired, the sign-flip test of the per-seed differences; else a permutation "
          f"test of the seeds' splits, every split when there are at most {EXACT_LIMIT:,}, else "
          f"{args.permutations:,} random ones (seed {args.seed}); p Holm-adjusted over the {len(result['rows'])} rows; "
          f"{CONFIDENCE:.0%} t intervals of the pooled difference (paired, or Welch's).\n")
    print_rows(result["rows"], result["alpha"])
    print_pooled(result["pooled"])
    rejected = sum(row["rejects"] for row in result["rows"])
    pooled = "; ".join(f"pooled {pooled_name(metric)} Δ " + ", ".join(
        f"{row['rule']} {row['delta']:+.3f} {interval(row)} (p {row['p']:.3g}{', paired' if row['paired'] else ''})"
        for row in result["pooled"] if row["metric"] == metric)
        for metric in dict.fromkeys(row["metric"] for row in result["pooled"]))
    print(f"\nverdict: {'PASS' if result['passes'] else 'FAIL'}: {rejected} of {len(result['rows'])} rows reject at "
          f"{result['alpha']} after Holm; {pooled}; a pass needs no row rejecting and every pooled Δ within "
          f"±{result['margin']} with p > {result['alpha']}")


def interval(row: dict) -> str:
    return "[{:+.3f}, {:+.3f}]".format(*row["interval"])


def sizes(row: dict) -> str:
    """10 paired, or 5 / 10: the seeds a row's test set against each other."""
    n = (row["reference"]["n"], row["candidate"]["n"])
    return f"{n[0]} paired" if row["paired"] else f"{n[0]} / {n[1]}"


def print_rows(rows: list[dict], alpha: float) -> None:
    """The per-row table, the rejections per rule and metric, and a warning when rows this small cannot
    reject at all after Holm."""
    print("\n".join(markdown_table(
        [[row["rule"], METRICS_COMPARED[row["metric"]], row["corpus"], row["model"],
          sizes(row), spread(row["reference"]), spread(row["candidate"]),
          f"{row['delta']:+.3f}", f"{row['p']:.3g}", f"{row['p_holm']:.3g}", "**yes**" if row["rejects"] else "no"]
         for row in rows],
        ["rule", "metric", "corpus", "model", "seeds", "reference", "candidate", "Δ", "p", "p (Holm)", "rejects"])))
    print()
    for rule in dict.fromkeys(row["rule"] for row in rows):
        counts = [f"{name} {sum(r['rejects'] for r in mine)} of {len(mine)}"
                  for metric, name in METRICS_COMPARED.items()
                  if (mine := [r for r in rows if r["rule"] == rule and r["metric"] == metric])]
        print(f"rows rejected at {alpha} after Holm, rule {rule}: {'; '.join(counts)}")
    def floor_of(row):
        return smallest_p(row["reference"]["n"], row["candidate"]["n"], row["paired"])
    strongest = min(rows, key=floor_of)
    floor = floor_of(strongest)
    if holm([floor] + [1.0] * (len(rows) - 1))[0] > alpha:
        print(f"(with {sizes(strongest).replace(' / ', ' against ')} seeds a row's p is at least {floor:.3g}, above "
              f"{alpha} after Holm over {len(rows)} rows: such rows cannot reject; only the pooled test can fail the "
              "candidate)")


def pooled_name(metric: str) -> str:
    """sarcastic-F1, macro-F1: a metric's name as the verdict line writes it."""
    return METRICS_COMPARED[metric].replace(" ", "-")


def print_pooled(pooled: list[dict]) -> None:
    """One table per main metric (binary cells pool sarcastic F1, the others macro-F1)."""
    for metric in dict.fromkeys(row["metric"] for row in pooled):
        print()
        print("\n".join(markdown_table(
            [[f"rule {row['rule']}", str(row["cells"]),
              f"{seeds_text(row['seeds'][0])} / {seeds_text(row['seeds'][1])}", spread(row["reference"]),
              spread(row["candidate"]), f"{row['delta']:+.3f}", interval(row),
              f"{row['lower']} of {row['reference']['n']}" if row["paired"] else "—",
              f"{row['p']:.3g}" + (" (paired)" if row["paired"] else ""),
              "yes" if row["passes"] else "**no**"] for row in pooled if row["metric"] == metric],
            [f"pooled {METRICS_COMPARED[metric]} (per seed, the mean over the cells)", "cells", "seeds", "reference",
             "candidate", "Δ", f"{CONFIDENCE:.0%} interval", "seeds lower", "p", "passes"])))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference", help="results file (under the rule that chose it), FILE:PROTOCOL of a "
                        "fidelity file, or run folder")
    parser.add_argument("candidate", help="the same forms as REFERENCE")
    parser.add_argument("--reference-grid", help="the grid rule's results of the reference's runs")
    parser.add_argument("--candidate-grid", help="the grid rule's results of the candidate's runs")
    parser.add_argument("--reference-seeds", help="only these seeds of the reference (0-4, 0,2,5-9)")
    parser.add_argument("--candidate-seeds", help="only these seeds of the candidate")
    parser.add_argument("--corpus", help="only this corpus' cells (on both sides)")
    parser.add_argument("--models", help="only these models' cells (comma-separated; on both sides)")
    parser.add_argument("--permutations", type=int, default=PERMUTATIONS,
                        help="random splits where there are too many to enumerate")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random splits")
    args = parser.parse_args(argv)
    try:
        models = set(args.models.split(",")) if args.models else None
        sides = [restrict(load_side(source, grid), args.corpus, seed_set(seeds), models) for source, grid, seeds in
                 ((args.reference, args.reference_grid, args.reference_seeds),
                  (args.candidate, args.candidate_grid, args.candidate_seeds))]
        result = compare(*sides, permutations=args.permutations, seed=args.seed)
    except IsarcasmError as exc:
        print(f"same_distribution: {exc}", file=sys.stderr)
        return 2
    print_report(result, args)
    return 0 if result["passes"] else 1


if __name__ == "__main__":
    sys.exit(main())

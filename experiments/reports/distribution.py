"""Do two sets of runs come from the same distribution over seeds?  The criterion a faster path is held to.

A change that alters floating-point order (skipping padded steps, another backend, another batch
order) cannot keep the committed digits, but it should keep what the seeds' spread says: the same
distribution, cell by cell, of the cell's main metric (:func:`~experiments.runs.one.metrics.main_metric`)
and of one companion that shows where its predictions fall (:data:`COMPANION`): sarcastic-class F1
and the share of test texts predicted sarcastic on a binary cell, macro-F1 and accuracy on a
multi-class or multi-label one.  :func:`compare` tests that on the per-seed values of two results
(or run folders) of the same cells:

- each row (selection rule x metric x cell): a two-sided test of the difference of the means
  (candidate minus reference).  Paired where both sides hold the same seeds, at least
  :data:`PAIRED_MIN` of them: a seed fixes the validation split and the batch draw on both sides,
  so the per-seed differences are tested with the sign-flip test
  (:func:`experiments.reports.significance.sign_flip_test`), which sees a shift far smaller than
  the seeds' spread.  Otherwise unpaired: a permutation test of the pooled seeds' splits, every
  split enumerated when there are at most :data:`EXACT_LIMIT` (10 against 10 seeds is exact), else
  :data:`PERMUTATIONS` random ones from a seeded generator.  The rows' p-values are
  Holm-adjusted together (:func:`experiments.reports.significance.holm`);
- pooled, per rule and main metric: per seed, the main metric averaged over the cells that have it,
  tested the same way, with the :data:`CONFIDENCE` t interval of the difference (paired: of the
  mean per-seed difference; unpaired: Welch's).

A candidate passes when no row rejects at :data:`ALPHA` after Holm, and every pooled difference is
neither significant at :data:`ALPHA` nor larger than :data:`MARGIN`.  A pass says the test found no
shift; the pooled interval says how large a shift it leaves possible.
"""
from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
from scipy import stats

from experiments.reports.fidelity import PROTOCOL_RULES
from experiments.reports.significance import holm, sign_flip_test
from experiments.reports.table import run_ids
from experiments.results.files import load_results
from experiments.results.schema import Result
from experiments.runs.one.metrics import main_metric
from experiments.runs.one.store import METRICS, read_config, scored_runs
from experiments.runs.one.trajectory import run_under
from preprocessing.errors import IsarcasmError

ALPHA = 0.05
#: The largest pooled main-metric difference a passing candidate may show, significant or not.
MARGIN = 0.02
#: The compared metrics and how they are named, in the order the rows are listed.
METRICS_COMPARED = {"f1_sarcastic": "sarcastic F1", "predicted_positive_rate": "share predicted sarcastic",
                    "f1_macro": "macro-F1", "accuracy": "accuracy"}
#: Main metric -> the metric compared beside it.  On a binary cell the share predicted sarcastic shows
#: a candidate that trades one class for the other at the same F1.  A multi-class or multi-label task
#: has no one such share (one per class, or per label); accuracy (subset accuracy for multi-label) takes
#: its place: it rises while macro-F1 falls when predictions drift to the frequent classes.
COMPANION = {"f1_sarcastic": "predicted_positive_rate", "f1_macro": "accuracy"}
#: The selection rules compared: the paper's (``best``) and the authors' code's (``grid``).
RULES = ("best", "grid")
PERMUTATIONS = 20_000
#: Splits enumerated at most; C(20, 10) = 184,756, so 10 against 10 seeds is exact.
EXACT_LIMIT = 200_000
#: Fewer shared seeds than this and the two sides are tested unpaired: of the 2**n sign patterns of n
#: differences, all-plus and all-minus are as extreme as all seeds shifting one way, so 5 seeds give
#: p >= 0.0625 and only 6 or more can reject at 0.05.
PAIRED_MIN = 6
#: The confidence of the pooled difference's interval.
CONFIDENCE = 0.90
#: Fewer seeds than this on a side and a row's permutation test cannot reject at 0.05 (3 against 3
#: gives 20 splits, so p >= 0.1).
MIN_SEEDS = 4
#: A permuted difference equal to the observed one up to rounding counts as at least as extreme.
_TOLERANCE = 1e-12

Cell = tuple[str, str]  # (corpus, model)
#: rule -> cell -> metric -> seed -> value
Side = dict[str, dict[Cell, dict[str, dict[int, float]]]]


# --- the statistics -----------------------------------------------------------------------------------

def permutation_test(reference, candidate, permutations: int = PERMUTATIONS, seed: int = 0) -> tuple[float, float]:
    """(mean(candidate) - mean(reference), two-sided p-value) of a permutation test of the difference.

    Exact (every split of the pooled values into groups of the two sizes; the observed split is one,
    so p > 0) when there are at most :data:`EXACT_LIMIT` splits; else ``permutations`` random splits,
    p = (1 + hits) / (1 + permutations).
    """
    a, b = np.asarray(reference, dtype=float), np.asarray(candidate, dtype=float)
    pooled = np.concatenate([a, b])
    n, k = len(pooled), len(b)
    observed = float(b.mean() - a.mean())
    exact = comb(n, k) <= EXACT_LIMIT
    groups = _all_splits(n, k) if exact else _random_splits(n, k, permutations, seed)
    sums = groups @ pooled  # the candidate group's sum in each split
    differences = sums / k - (pooled.sum() - sums) / (n - k)
    hits = np.count_nonzero(np.abs(differences) >= abs(observed) - _TOLERANCE)
    return observed, float(hits / len(groups) if exact else (1 + hits) / (1 + permutations))


def smallest_p(n_reference: int, n_candidate: int, paired: bool = False) -> float:
    """The smallest p-value the test of these group sizes can give (exact case): paired, all seeds
    shifting one way or the other; unpaired, the most extreme split, and its mirror when the groups
    are as large."""
    if paired:
        return 2 / 2 ** n_reference
    splits = comb(n_reference + n_candidate, n_candidate)
    return (1 + (n_reference == n_candidate)) / splits if splits <= EXACT_LIMIT else 1 / (1 + PERMUTATIONS)


@lru_cache(maxsize=8)
def _all_splits(n: int, k: int) -> np.ndarray:
    """Every choice of k of n positions, as 0/1 rows (read-only: cached)."""
    chosen = np.array(list(combinations(range(n), k)), dtype=np.intp).reshape(-1, k)
    groups = np.zeros((len(chosen), n))
    groups[np.arange(len(chosen))[:, None], chosen] = 1.0
    groups.setflags(write=False)
    return groups


def _random_splits(n: int, k: int, permutations: int, seed: int) -> np.ndarray:
    order = np.random.default_rng(seed).permuted(np.tile(np.arange(n), (permutations, 1)), axis=1)
    groups = np.zeros((permutations, n))
    np.put_along_axis(groups, order[:, :k], 1.0, axis=1)
    return groups


# --- reading the per-seed values ----------------------------------------------------------------------

def load_side(source: str, grid: str | None = None) -> Side:
    """Per-seed values of ``source``: a run folder (both rules, scored from each run's per-epoch record),
    or a results file, ``PATH`` or, for a fidelity file, ``PATH:PROTOCOL``, under the rule that chose its
    values (a table's ``selection``; a fidelity protocol's, :data:`~experiments.reports.fidelity.PROTOCOL_RULES`), with
    ``grid`` (the same forms) the ``grid`` rule's values of the same runs when ``source`` holds the ``best``
    rule's.  A protocol chosen by the grid rule (the authors' code, their scripts) is so compared as the grid
    rule's: under ``best`` its rows would say another rule than the one that chose them."""
    path, protocol = _split(source)
    if path.is_dir():
        if grid:
            raise IsarcasmError(f"{path} is a run folder: both rules are scored from its runs, so it takes no "
                                "grid results file")
        return _collect(_run_entries(path))
    side = _file_side(path, protocol)
    if grid:
        if "grid" in side:
            raise IsarcasmError(f"{source} holds the 'grid' rule's results already: give it without a grid file")
        given = _file_side(*_split(grid))
        if "grid" not in given:
            raise IsarcasmError(f"{grid} holds the '{next(iter(given))}' rule's results but is given as the "
                                "'grid' rule's")
        side.update(given)
    return side


def restrict(side: Side, corpus: str | None = None, seeds: set[int] | None = None,
             models: set[str] | None = None) -> Side:
    """``side`` with only ``corpus``'s cells, only ``models``' and only ``seeds`` (None: all)."""
    return {rule: {cell: {metric: {s: v for s, v in values.items() if seeds is None or s in seeds}
                          for metric, values in metrics.items()}
                   for cell, metrics in cells.items()
                   if (corpus is None or cell[0] == corpus) and (models is None or cell[1] in models)}
            for rule, cells in side.items()}


def _split(source: str) -> tuple[Path, str | None]:
    """``PATH`` or ``PATH:PROTOCOL`` (a path that exists as written is never split)."""
    if Path(source).exists() or ":" not in source:
        return Path(source), None
    path, _, protocol = source.rpartition(":")
    return Path(path), protocol


def _collect(entries) -> Side:
    """(rule, cell, seed, {metric: value}) entries as a :data:`Side`; a seed's folds are averaged."""
    gathered = defaultdict(lambda: defaultdict(lambda: defaultdict(lambda: defaultdict(list))))
    for rule, cell, seed, values in entries:
        for metric, value in values.items():
            gathered[rule][cell][metric][seed].append(value)
    return {rule: {cell: {metric: {seed: float(np.mean(v)) for seed, v in sorted(by_seed.items())}
                          for metric, by_seed in metrics.items()} for cell, metrics in cells.items()}
            for rule, cells in gathered.items()}


def _file_side(path: Path, protocol: str | None) -> Side:
    """A results file's per-seed values, under the one rule that chose them; a file of the exact engine too (the
    criterion sets the two engines' seeds side by side)."""
    result = load_results(path, retired=True)
    if result.kind == "fidelity":
        rule = PROTOCOL_RULES.get(protocol, "best")
        entries = _fidelity_entries(result, path, protocol, rule)
    elif result.kind != "table":
        raise IsarcasmError(f"{path}: a {result.kind} results file; the criterion reads table or fidelity results")
    elif protocol:
        raise IsarcasmError(f"{path}: a table results file has no protocols (drop ':{protocol}')")
    else:
        rule = result.selection_rule
        entries = _table_entries(result, path, rule)
    found = _collect(entries).get(rule)
    if not found:
        raise IsarcasmError(f"{path}: no trained cell")
    return {rule: found}


def _table_entries(result: Result, path: Path, rule: str):
    for cell in result.cells:
        if not cell.get("runs"):
            continue
        main = main_metric(cell["metrics"])
        held = {**cell["metrics"], **cell.get("operating_point", {})}
        compared = (main, COMPANION[main])
        missing = [METRICS_COMPARED[metric] for metric in compared if metric not in held]
        if missing:
            raise IsarcasmError(f"{path}: cell {cell['corpus']}/{cell['model']} has no {' or '.join(missing)}, "
                                f"which the criterion compares on its cells")
        for (seed, _), *values in zip(run_ids(cell), *(held[metric]["values"] for metric in compared)):
            yield rule, (cell["corpus"], cell["model"]), seed, dict(zip(compared, values))


def _fidelity_entries(result: Result, path: Path, protocol: str | None, rule: str):
    known = list(dict.fromkeys(key for cell in result.cells for key in cell["protocols"]))
    if protocol not in known:
        raise IsarcasmError(f"{path}: a fidelity file holds several protocols; name one as {path}:PROTOCOL "
                            f"(one of: {', '.join(known)})")
    for cell in result.cells:
        summary = cell["protocols"].get(protocol)
        if not summary:
            continue
        share = _derived_share(summary, f"{path}: {cell['model']} under {protocol}")
        for seed, f1, rate in zip(summary["seeds"], summary["f1_sarcastic"]["values"], share):
            yield rule, (cell.get("corpus", result.corpus), cell["model"]), seed, \
                {"f1_sarcastic": f1, "predicted_positive_rate": rate}


def _derived_share(summary: dict, where: str) -> np.ndarray:
    """Per-seed share predicted sarcastic of a fidelity protocol, which stores only its mean: predicted
    positives = true positives / precision = recall x sarcastic texts / precision, so share = recall x
    sarcastic share / precision (one test split); checked against the stored mean."""
    precision = np.asarray(summary["precision_sarcastic"]["values"], dtype=float)
    recall = np.asarray(summary["recall_sarcastic"]["values"], dtype=float)
    stored = summary.get("predicted_positive_rate")
    if summary.get("positive_share") is None or stored is None or not np.all(precision > 0):
        raise IsarcasmError(f"{where}: the per-seed share predicted sarcastic cannot be derived (no positive share, "
                            "or a seed with no true positive); compare the table results files instead")
    share = recall * summary["positive_share"] / precision
    if abs(float(share.mean()) - stored) > 1e-9:
        raise IsarcasmError(f"{where}: the derived share predicted sarcastic ({share.mean():.6f}) disagrees with the "
                            f"stored mean ({stored:.6f}); compare the table results files instead")
    return share


def _run_entries(directory: Path):
    """The rules' entries of every finished run (a ``seed-N`` folder with metrics.json) under ``directory``:
    both rules of a binary run, ``best`` alone of a multi-class or multi-label one."""
    runs = scored_runs(directory)
    if not runs:
        raise IsarcasmError(f"{directory}: no finished run under it (a seed-N folder with {METRICS})")
    seen = {}
    for run in runs:
        config = read_config(run)
        key = (config["corpus"], config["model"], config["seed"], config.get("fold"))
        if key in seen:
            raise IsarcasmError(f"{directory} holds two runs of {key[0]}/{key[1]} seed {key[2]} ({seen[key]} and "
                                f"{run}): name one experiment's folder of the store")
        seen[key] = run
        under = {"best": run_under(run, "best")}
        main = main_metric(under["best"][0]["test"])  # the run's task: one for every rule
        if main == "f1_sarcastic":  # grid picks a sarcastic-class threshold
            under["grid"] = run_under(run, "grid")
        for rule, (metrics, test) in under.items():
            companion = (float(np.mean(test.labels(metrics["threshold"]) == 1)) if main == "f1_sarcastic"
                         else metrics["test"]["accuracy"])
            yield rule, key[:2], key[2], {main: metrics["test"][main], COMPANION[main]: companion}


# --- the comparison -----------------------------------------------------------------------------------

def compare(reference: Side, candidate: Side, permutations: int = PERMUTATIONS, seed: int = 0) -> dict:
    """Every row's test, Holm-adjusted, each rule's pooled test of each main metric, and the verdict
    (see the module)."""
    rules = [rule for rule in RULES if reference.get(rule) and candidate.get(rule)]
    if not rules:
        raise IsarcasmError("the two sides share no selection rule with cells (the reference has "
                            f"{', '.join(reference) or 'none'}, the candidate {', '.join(candidate) or 'none'})")
    rows, pooled = [], []
    for rule in rules:
        cells = _same_cells(reference[rule], candidate[rule], rule)
        for metric in METRICS_COMPARED:
            for cell in (cell for cell in cells if metric in reference[rule][cell]):
                a, b = (_enough(side[rule][cell][metric], f"{cell[0]}/{cell[1]} ({rule}, {name})")
                        for side, name in ((reference, "reference"), (candidate, "candidate")))
                rows.append({"rule": rule, "metric": metric, "corpus": cell[0], "model": cell[1],
                             **_tested(a, b, permutations, seed)})
        for metric in COMPANION:  # each main metric
            if mine := [cell for cell in cells if metric in reference[rule][cell]]:
                a, b = (_enough(_pooled(side[rule], mine, metric),
                                f"the pooled {rule} {METRICS_COMPARED[metric]} rows ({name}; seeds every cell has)")
                        for side, name in ((reference, "reference"), (candidate, "candidate")))
                pooled.append({"rule": rule, "metric": metric, "cells": len(mine),
                               **_tested(a, b, permutations, seed)})
    for row, adjusted in zip(rows, holm([row["p"] for row in rows])):
        row["p_holm"], row["rejects"] = adjusted, adjusted <= ALPHA
    for row in pooled:
        row["passes"] = row["p"] > ALPHA and abs(row["delta"]) <= MARGIN
    return {"rows": rows, "pooled": pooled, "passes": not any(r["rejects"] for r in rows)
            and all(p["passes"] for p in pooled), "alpha": ALPHA, "margin": MARGIN}


def _same_cells(reference: dict, candidate: dict, rule: str) -> list[Cell]:
    if reference.keys() != candidate.keys():
        only = [f"only in the {name}: {', '.join('/'.join(c) for c in sorted(one.keys() - other.keys()))}"
                for name, one, other in (("reference", reference, candidate), ("candidate", candidate, reference))
                if one.keys() - other.keys()]
        raise IsarcasmError(f"the two sides hold different cells under rule '{rule}' ({'; '.join(only)}); compare "
                            "results of the same cells (--corpus keeps one corpus, --models some models)")
    for cell in reference:
        if reference[cell].keys() != candidate[cell].keys():
            raise IsarcasmError(f"{cell[0]}/{cell[1]} is scored as another task on each side (reference: "
                                f"{', '.join(reference[cell])}; candidate: {', '.join(candidate[cell])})")
    return list(reference)  # the reference's order: its file's


def _enough(values: dict[int, float], what: str) -> dict[int, float]:
    if len(values) < MIN_SEEDS:
        raise IsarcasmError(f"{what}: {len(values)} seed(s); the test needs at least {MIN_SEEDS} on each side "
                            f"(fewer cannot reject at {ALPHA})")
    return values


def _pooled(cells: dict[Cell, dict[str, dict[int, float]]], order: list[Cell], metric: str) -> dict[int, float]:
    """Per seed that every cell of ``order`` has, ``metric`` averaged over those cells."""
    seeds = set.intersection(*(set(cells[cell][metric]) for cell in order))
    return {s: float(np.mean([cells[cell][metric][s] for cell in order])) for s in sorted(seeds)}


def _tested(reference: dict[int, float], candidate: dict[int, float], permutations: int, seed: int) -> dict:
    """The difference of the means, its p (paired where both sides hold the same seeds, see the module),
    its interval, and on paired seeds how many the candidate is lower on."""
    a, b = list(reference.values()), list(candidate.values())
    paired = reference.keys() == candidate.keys() and len(reference) >= PAIRED_MIN
    if paired:
        differences = np.array([candidate[s] - reference[s] for s in reference])
        delta, p = float(differences.mean()), sign_flip_test(differences, permutations, seed)
        error, freedom = float(np.std(differences, ddof=1) / np.sqrt(len(differences))), len(differences) - 1
    else:
        delta, p = permutation_test(a, b, permutations, seed)
        error, freedom = _welch(a, b)
    margin = float(stats.t.ppf((1 + CONFIDENCE) / 2, freedom) * error) if error else 0.0
    return {"reference": _spread(a), "candidate": _spread(b), "delta": delta, "p": p, "paired": paired,
            "interval": (delta - margin, delta + margin),
            "lower": int(np.sum(differences < 0)) if paired else None,
            "seeds": (sorted(reference), sorted(candidate))}


def _welch(a: list[float], b: list[float]) -> tuple[float, float]:
    """(standard error, Welch-Satterthwaite degrees of freedom) of mean(b) - mean(a)."""
    parts = [np.var(values, ddof=1) / len(values) for values in (a, b)]
    error = float(np.sqrt(sum(parts)))
    freedom = sum(parts) ** 2 / sum(part ** 2 / (len(values) - 1) for part, values in zip(parts, (a, b))) \
        if error else 1.0
    return error, float(freedom)


def _spread(values: list[float]) -> dict:
    return {"mean": float(np.mean(values)), "std": float(np.std(values, ddof=1)), "n": len(values)}

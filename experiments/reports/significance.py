"""Is model A better than model B on the same test examples? Two paired tests.

Both tests pair the two models' predictions example by example (same test
ids, read from each run's ``predictions.tsv``), which removes the variation
due to which tweets happen to be in the test set from the comparison.

- :func:`paired_bootstrap` (the default of ``isarcasm benchmark``): resample
  the test examples with replacement, recompute the difference in the cell's
  main metric (sarcastic-class F1; macro-F1 for multi-class corpora) on each
  resample, and ask how often a difference at least as large as the observed
  one arises around zero.  It is the default because it tests the metric that
  the tables and the ranking use: F1 of the sarcastic class is not a sum over
  examples, and on corpora where 17% of tweets are sarcastic a model can gain
  accuracy while losing sarcastic F1.
- :func:`mcnemar` (exact): the binomial test on the examples where exactly one
  of the two models is right.  It is exact and cheap, but it tests accuracy,
  which is not the number being compared.

With several seeds, seed n of A is paired with seed n of B (same training
data and validation split) and a p-value is given per seed.  The combined
bootstrap resamples test examples once per round and applies the same
resample to every seed, so it tests the difference of the seed-averaged metric
(the number in the tables), with examples as the unit of resampling.  It
captures test-set sampling variation, not the variation between training
runs, which the per-seed p-values and the seeds' spread show.  McNemar's test
has no such combination; its "combined" value is the median of the per-seed
p-values, a summary rather than a test.  Neither corrects for multiple
comparisons by itself: with many cells and models, expect some small p-values
by chance.  :func:`holm` adjusts a benchmark's combined p-values for the number
of tests, and the benchmark reports both.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest

from experiments.runs.one.metrics import main_metric_for
from experiments.runs.one.outputs import Predictions
from preprocessing.errors import IsarcasmError

METHODS = ("bootstrap", "mcnemar")
DEFAULT_METHOD = "bootstrap"
DEFAULT_RESAMPLES = 10_000
#: Resampled examples held in memory at once (rounds per chunk = this / n), about 100 MB.
_CELLS_PER_CHUNK = 4_000_000


def align(a: Predictions, b: Predictions) -> np.ndarray:
    """Positions in ``b`` of ``a``'s ids, after checking both cover the same examples with the same gold."""
    if len(set(a.ids)) != len(a.ids) or set(a.ids) != set(b.ids):
        only_a, only_b = sorted(set(a.ids) - set(b.ids)), sorted(set(b.ids) - set(a.ids))
        raise IsarcasmError(
            f"{a.path} and {b.path} do not hold the same test examples ({len(only_a)} ids only in the first, "
            f"e.g. {only_a[:1]}; {len(only_b)} only in the second, e.g. {only_b[:1]}): a paired test needs "
            "both runs evaluated on the same test split")
    order = {identifier: position for position, identifier in enumerate(b.ids)}
    positions = np.asarray([order[i] for i in a.ids])
    if not np.array_equal(a.gold, b.gold[positions]):
        raise IsarcasmError(f"{a.path} and {b.path} give different gold labels to the same ids")
    if a.probabilities.shape[1] != b.probabilities.shape[1]:
        raise IsarcasmError(f"{a.path} and {b.path} predict different numbers of classes")
    return positions


@dataclass(frozen=True)
class TestResult:
    method: str
    #: Metric of A minus metric of B on the full test set (bootstrap), or accuracy difference (McNemar).
    delta: float
    p_value: float
    #: Bootstrap: 95% percentile interval of the difference; McNemar: the discordant counts (A only, B only).
    detail: tuple


def _count_matrix(gold: np.ndarray, predicted: np.ndarray, num_classes: int) -> np.ndarray:
    """Per-example indicators (n, 3 * classes): true positive, false positive, false negative of each class."""
    columns = []
    for k in range(num_classes):
        columns += [(gold == k) & (predicted == k), (gold != k) & (predicted == k), (gold == k) & (predicted != k)]
    return np.stack(columns, axis=1).astype(np.float32)


def _f1_from_counts(counts: np.ndarray, classes: list[int]) -> np.ndarray:
    """F1 (zero when undefined, as scikit-learn with zero_division=0) averaged over ``classes``; counts (..., 3K)."""
    scores = []
    for k in classes:
        tp, fp, fn = counts[..., 3 * k], counts[..., 3 * k + 1], counts[..., 3 * k + 2]
        denominator = 2 * tp + fp + fn
        scores.append(np.divide(2 * tp, denominator, out=np.zeros_like(tp), where=denominator > 0))
    return np.mean(scores, axis=0)


def main_metric_classes(num_classes: int) -> list[int]:
    """The classes the main metric (:func:`~experiments.runs.one.metrics.main_metric_for`) averages F1 over:
    the sarcastic class (1), or all of them (macro)."""
    return [1] if main_metric_for(num_classes == 2) == "f1_sarcastic" else list(range(num_classes))


def paired_bootstrap(gold: np.ndarray, predicted_a: np.ndarray, predicted_b: np.ndarray, num_classes: int = 2,
                     n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> TestResult:
    """Two-sided paired bootstrap test of F1(A) - F1(B) (sarcastic class; macro-F1 when multi-class).

    ``predicted_a``/``predicted_b`` are label arrays of shape (n,) or (seeds, n);
    with several rows the statistic is the mean over rows and every row uses
    the same resample of examples.  The p-value is the share of resampled
    differences at least as far from the observed one as the observed one is
    from zero (the bootstrap distribution shifted to the null of no
    difference), with the usual +1 so it is never 0:
    p = (1 + #{|d* - d| >= |d|}) / (1 + resamples).
    """
    observed, resampled = bootstrap_differences(gold, predicted_a, predicted_b, num_classes, n_resamples, seed)
    return _bootstrap_test(float(observed.mean()), resampled.mean(axis=1))


def bootstrap_differences(gold: np.ndarray, predicted_a: np.ndarray, predicted_b: np.ndarray, num_classes: int = 2,
                          n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """F1(A) - F1(B) for each row (seed) of predictions: observed (seeds,) and on each resample (resamples, seeds).

    All rows share the resamples, so one pass gives the per-seed tests and the
    test of the seed average.  F1 comes from true/false positive/negative
    counts, and a resample's counts are (how often each example was drawn) @
    (the per-example indicators): one matrix product per chunk of rounds.
    """
    gold = np.asarray(gold)
    rows_a, rows_b = np.atleast_2d(predicted_a), np.atleast_2d(predicted_b)
    if rows_a.shape != rows_b.shape or rows_a.shape[1] != len(gold):
        raise ValueError(f"prediction shapes {rows_a.shape} and {rows_b.shape} do not match {len(gold)} gold labels")
    classes, width, seeds = main_metric_classes(num_classes), 3 * num_classes, len(rows_a)
    # Columns: for every seed, A's then B's indicators.
    indicators = np.concatenate([_count_matrix(gold, row, num_classes) for pair in zip(rows_a, rows_b) for row in pair],
                                axis=1)

    def differences(counts):  # (..., seeds * 2 * width) -> (..., seeds)
        scores = _f1_from_counts(counts.reshape(*counts.shape[:-1], seeds, 2, width), classes)
        return scores[..., 0] - scores[..., 1]

    rng = np.random.default_rng(seed)
    n = len(gold)
    chunk = max(1, _CELLS_PER_CHUNK // n)
    resampled = []
    for start in range(0, n_resamples, chunk):
        rounds = min(chunk, n_resamples - start)
        # How many times each example is drawn in each round of n draws with replacement.
        drawn = rng.integers(0, n, size=(rounds, n)) + (np.arange(rounds) * n)[:, None]
        multiplicity = np.bincount(drawn.ravel(), minlength=rounds * n).reshape(rounds, n).astype(np.float32)
        resampled.append(differences((multiplicity @ indicators).astype(np.float64)))
    return differences(indicators.sum(axis=0).astype(np.float64)), np.concatenate(resampled)


def _bootstrap_test(observed: float, resampled: np.ndarray) -> TestResult:
    extreme = np.count_nonzero(np.abs(resampled - observed) >= abs(observed) - 1e-12)
    low, high = np.percentile(resampled, [2.5, 97.5])
    return TestResult("bootstrap", observed, float((1 + extreme) / (1 + len(resampled))), (float(low), float(high)))


def mcnemar(gold: np.ndarray, predicted_a: np.ndarray, predicted_b: np.ndarray) -> TestResult:
    """McNemar's exact test: a two-sided binomial test (p = 1/2) on the discordant examples.

    ``detail`` is (right only by A, right only by B); delta is the accuracy difference.
    """

    gold, predicted_a, predicted_b = map(np.asarray, (gold, predicted_a, predicted_b))
    right_a, right_b = predicted_a == gold, predicted_b == gold
    only_a, only_b = int(np.sum(right_a & ~right_b)), int(np.sum(~right_a & right_b))
    p_value = 1.0 if only_a + only_b == 0 else float(binomtest(only_a, only_a + only_b, 0.5).pvalue)
    return TestResult("mcnemar", float(right_a.mean() - right_b.mean()), p_value, (only_a, only_b))


def compare_runs(a: dict[int, Predictions], b: dict[int, Predictions], thresholds: tuple[float, float] = (0.5, 0.5),
                 method: str = DEFAULT_METHOD, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> dict:
    """Test A against B per paired seed (seed n with seed n) and combined over the seeds both have.

    Returns ``{"method", "seeds", "per_seed": {seed: {"delta", "p_value", ...}}, "combined": {...}}``;
    ``None`` values when the two share no seed.
    """
    if method not in METHODS:
        raise IsarcasmError(f"unknown significance test '{method}' (use one of: {', '.join(METHODS)})")
    seeds = sorted(set(a) & set(b))
    result = {"method": method, "seeds": seeds, "per_seed": {}, "combined": None}
    if not seeds:
        return result
    reference = a[seeds[0]]
    num_classes = reference.probabilities.shape[1]
    rows_a, rows_b = [], []
    for s in seeds:
        into_a = align(reference, a[s])
        into_b = align(reference, b[s])
        rows_a.append(a[s].labels(thresholds[0])[into_a])
        rows_b.append(b[s].labels(thresholds[1])[into_b])
    if method == "bootstrap":
        observed, resampled = bootstrap_differences(reference.gold, np.stack(rows_a), np.stack(rows_b), num_classes,
                                                    n_resamples, seed)
        for column, s in enumerate(seeds):
            result["per_seed"][s] = _as_dict(_bootstrap_test(float(observed[column]), resampled[:, column]))
        result["combined"] = _as_dict(_bootstrap_test(float(observed.mean()), resampled.mean(axis=1)))
    else:
        for s, row_a, row_b in zip(seeds, rows_a, rows_b):
            result["per_seed"][s] = _as_dict(mcnemar(reference.gold, row_a, row_b))
        per_seed = list(result["per_seed"].values())
        result["combined"] = {"delta": float(np.mean([r["delta"] for r in per_seed])),
                              "p_value": float(np.median([r["p_value"] for r in per_seed])),
                              "summary": "median of the per-seed p-values"}
    return result


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment: a p-value at or below alpha after adjustment keeps the chance of
    any false positive among all the tests at alpha, without assuming the tests are independent
    (the cells of one benchmark share runs and test sets)."""
    order = np.argsort(p_values, kind="stable")
    adjusted = np.empty(len(p_values))
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted.tolist()


#: Up to this many paired values every sign pattern is enumerated (2**16 patterns); above it they are drawn.
EXACT_SIGN_FLIPS = 16


def sign_flip_test(differences, flips: int = 100_000, seed: int = 0) -> float:
    """Two-sided p of the paired sign-flip test that the mean of ``differences`` is zero: how often flipping
    the sign of each difference at random gives a mean at least as far from zero as the observed one.  Every
    sign pattern is counted up to :data:`EXACT_SIGN_FLIPS` values (so the smallest p of n values is 2 / 2**n),
    ``flips`` seeded draws above.  For a handful of seeds, each one paired run of two settings, it assumes
    nothing about their distribution, which a t-test on five or ten values would."""
    values = np.asarray(differences, dtype=float)
    if values.size == 0:
        raise IsarcasmError("a sign-flip test needs at least one paired difference")
    if values.size <= EXACT_SIGN_FLIPS:
        patterns = np.array(np.meshgrid(*[[1.0, -1.0]] * values.size, indexing="ij")).reshape(values.size, -1).T
    else:
        patterns = np.random.default_rng(seed).choice([1.0, -1.0], size=(flips, values.size))
    observed = abs(values.mean())
    return float(np.mean(np.abs(patterns @ values) / values.size >= observed - 1e-12))


def _as_dict(result: TestResult) -> dict:
    key = "interval_95" if result.method == "bootstrap" else "discordant_a_b"
    return {"delta": result.delta, "p_value": result.p_value, key: list(result.detail)}

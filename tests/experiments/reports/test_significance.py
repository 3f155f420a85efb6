"""Paired significance tests: values checked by hand and against scikit-learn."""
import numpy as np
import pytest
from sklearn.metrics import f1_score

from experiments.reports.significance import (
    align,
    compare_runs,
    holm,
    mcnemar,
    paired_bootstrap,
)
from experiments.runs.one.outputs import read_predictions
from preprocessing.errors import DataError, IsarcasmError


def test_mcnemar_matches_the_binomial_formula_by_hand():
    # 12 examples, all gold 0: both right on 2, only A right on 1, only B right on 9.
    gold = np.zeros(12, dtype=int)
    a = np.array([0, 0, 0] + [1] * 9)
    b = np.array([0, 0, 1] + [0] * 9)
    result = mcnemar(gold, a, b)
    # Discordant pairs: 1 vs 9 of 10.  Two-sided exact p = 2 * P(X <= 1), X ~ Binomial(10, 1/2)
    # = 2 * (C(10,0) + C(10,1)) / 2**10 = 2 * 11 / 1024.
    assert result.detail == (1, 9)
    assert result.p_value == pytest.approx(22 / 1024)
    assert result.delta == pytest.approx(3 / 12 - 11 / 12)


def test_mcnemar_without_discordant_pairs_is_one():
    gold = np.array([0, 1, 1, 0])
    assert mcnemar(gold, gold, gold).p_value == 1.0


def test_bootstrap_of_identical_predictions_gives_no_difference_and_p_one():
    rng = np.random.default_rng(0)
    gold = (rng.random(300) < 0.2).astype(int)
    predicted = np.where(rng.random(300) < 0.8, gold, 1 - gold)
    result = paired_bootstrap(gold, predicted, predicted, n_resamples=500)
    assert result.delta == 0.0 and result.p_value == 1.0
    assert result.detail == (0.0, 0.0)


def test_bootstrap_of_a_clearly_dominant_model_gives_the_smallest_p():
    gold = np.array([1] * 50 + [0] * 150)
    perfect, never_sarcastic = gold.copy(), np.zeros_like(gold)
    result = paired_bootstrap(gold, perfect, never_sarcastic, n_resamples=999)
    assert result.delta == 1.0
    assert result.p_value == pytest.approx(1 / 1000)  # no resample comes near zero difference
    assert result.detail[0] > 0.9


def test_bootstrap_difference_is_scikit_learns_and_the_test_is_symmetric():
    rng = np.random.default_rng(1)
    gold = (rng.random(400) < 0.25).astype(int)
    a = np.where(rng.random(400) < 0.8, gold, 1 - gold)
    b = np.where(rng.random(400) < 0.75, gold, 1 - gold)
    forward = paired_bootstrap(gold, a, b, n_resamples=2000, seed=3)
    backward = paired_bootstrap(gold, b, a, n_resamples=2000, seed=3)
    assert forward.delta == pytest.approx(f1_score(gold, a) - f1_score(gold, b))
    assert backward.delta == pytest.approx(-forward.delta) and backward.p_value == forward.p_value
    assert paired_bootstrap(gold, a, b, n_resamples=2000, seed=3) == forward  # seeded
    assert 0 < forward.p_value <= 1 and forward.detail[0] <= forward.delta <= forward.detail[1]


def test_bootstrap_uses_macro_f1_for_multi_class():
    rng = np.random.default_rng(2)
    gold = rng.integers(0, 4, 300)
    a = np.where(rng.random(300) < 0.7, gold, rng.integers(0, 4, 300))
    b = np.where(rng.random(300) < 0.5, gold, rng.integers(0, 4, 300))
    result = paired_bootstrap(gold, a, b, num_classes=4, n_resamples=300)
    expected = f1_score(gold, a, average="macro") - f1_score(gold, b, average="macro")
    assert result.delta == pytest.approx(expected)


def write_predictions(path, ids, gold, positive, order=None):
    order = range(len(ids)) if order is None else order
    lines = ["id\tgold\tprob_0\tprob_1"]
    lines += [f"{ids[i]}\t{gold[i]}\t{1 - positive[i]:.6f}\t{positive[i]:.6f}" for i in order]
    path.write_text("\n".join(lines) + "\n")
    return read_predictions(path)


def test_runs_are_paired_by_id_and_seed_with_a_combined_test(tmp_path):
    rng = np.random.default_rng(4)
    ids = [f"t{i}" for i in range(120)]
    gold = (rng.random(120) < 0.3).astype(int)
    a_prob = np.clip(gold * 0.7 + rng.random(120) * 0.4, 0, 1)
    b_prob = rng.random(120)
    a = {0: write_predictions(tmp_path / "a0.tsv", ids, gold, a_prob)}
    # B's file lists the examples in another order: pairing is by id, not by line.
    b = {0: write_predictions(tmp_path / "b0.tsv", ids, gold, b_prob, order=rng.permutation(120))}
    one = compare_runs(a, b, n_resamples=500)
    expected = f1_score(gold, a_prob >= 0.5) - f1_score(gold, b_prob >= 0.5)
    assert one["seeds"] == [0] and one["per_seed"][0]["delta"] == pytest.approx(expected)
    assert one["combined"]["delta"] == pytest.approx(expected)
    # Two seeds with the same predictions: the seed average is the single seed's, and so is its test.
    a[1], b[1] = a[0], b[0]
    b[5] = b[0]  # a seed only one model has is not paired
    two = compare_runs(a, b, n_resamples=500)
    assert two["seeds"] == [0, 1]
    assert two["combined"] == one["combined"]
    assert compare_runs(a, b, method="mcnemar")["combined"]["summary"] == "median of the per-seed p-values"


def test_predictions_of_different_test_sets_are_refused(tmp_path):
    gold, probability = np.array([0, 1, 0]), np.array([0.2, 0.9, 0.4])
    a = write_predictions(tmp_path / "a.tsv", ["x", "y", "z"], gold, probability)
    other_ids = write_predictions(tmp_path / "b.tsv", ["x", "y", "w"], gold, probability)
    with pytest.raises(IsarcasmError, match="do not hold the same test examples"):
        align(a, other_ids)
    other_gold = write_predictions(tmp_path / "c.tsv", ["x", "y", "z"], np.array([1, 1, 0]), probability)
    with pytest.raises(IsarcasmError, match="different gold labels"):
        compare_runs({0: a}, {0: other_gold})
    with pytest.raises(IsarcasmError, match="unknown significance test"):
        compare_runs({0: a}, {0: a}, method="t-test")


def test_a_malformed_predictions_file_names_file_and_line(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("id\tgold\tprob_0\tprob_1\nx\t0\t0.5\n")
    with pytest.raises(DataError, match=r"p.tsv:2: expected 4"):
        read_predictions(path)


def test_holm_adjusts_each_p_value_for_the_tests_ranked_above_it():
    # Worked by hand: sorted 0.005, 0.01, 0.03, 0.04 -> 4 x 0.005, 3 x 0.01, 2 x 0.03, max(0.06, 1 x 0.04).
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.6]) == [1.0, 1.0]  # capped at 1, never below a smaller p's adjustment
    assert holm([0.2]) == [0.2] and holm([]) == []

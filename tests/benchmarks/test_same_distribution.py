"""The same-distribution criterion (benchmarks/same_distribution.py, experiments/reports/distribution.py).

Tiny results files built here: two cells of ten seeds.  A candidate shifted by one reference
standard deviation fails, a resample of the reference passes, identical files pass with Δ 0, the
permutation test agrees with brute force, the same seeds on both sides are tested paired (a shift
of 0.01 on every seed fails paired where unpaired it passed) with the paired or Welch t interval,
both rules are scored from run folders, multi-class cells are held to macro-F1 and accuracy (pooled
apart from binary cells), and bad input is exit status 2 with one line.  A committed 10-seed
results file passes against itself and fails against a copy 0.01 lower on every seed.
"""
import json
from itertools import combinations

import numpy as np
import pytest
from locations import ROOT, benchmark_script
from scipy import stats
from markdown_tables import unpadded

from experiments.reports import distribution
from experiments.reports.distribution import (
    CONFIDENCE,
    MARGIN,
    PAIRED_MIN,
    compare,
    load_side,
    permutation_test,
    restrict,
)
from experiments.reports.fidelity import LABELS, PROTOCOL_RULES
from experiments.runs.one.metrics import summary_stats
from experiments.runs.one.provenance import recorded_config_hash
from experiments.runs.one.store import CONFIG, METRICS
from experiments.runs.one.trajectory import Trajectory, run_under, save_record

SEEDS = list(range(10))
MODELS = ("lstm", "cnn")


def reference_values(seed=0):
    """{model: (F1 per seed, share predicted sarcastic per seed)}."""
    rng = np.random.default_rng(seed)
    return {model: (rng.normal(0.25, 0.04, len(SEEDS)), rng.normal(0.2, 0.05, len(SEEDS))) for model in MODELS}


def binary_scores(f1, share):
    """A binary cell's scores: sarcastic F1 and, beside it, the share predicted sarcastic."""
    return {"metrics": {"f1_sarcastic": summary_stats(f1)},
            "operating_point": {"predicted_positive_rate": {"values": list(map(float, share))}}}


def multiclass_scores(f1_macro, accuracy):
    """A multi-class cell's scores: macro-F1 and accuracy, no operating point (as types.json's)."""
    return {"metrics": {"f1_macro": summary_stats(f1_macro), "accuracy": summary_stats(accuracy)}}


def table(values, seeds=SEEDS, selection=None, corpus="toy", scores=binary_scores):
    cells = [{"corpus": corpus, "model": model, "note": "", "references": [], "seeds": seeds,
              "runs": [f"runs/toy/{corpus}/{model}/seed-{s}" for s in seeds],
              "run_ids": [{"seed": s, "fold": None} for s in seeds], **scores(*pair)}
             for model, pair in values.items()]
    return {"kind": "table", "schema_version": 1, "experiment": "toy", "title": "toy", "source": "test",
            "seeds": seeds, "train": {"selection": "best"}, "cells": cells,
            **({"selection": selection} if selection else {})}


def write(tmp_path, name, result):
    path = tmp_path / name
    path.write_text(json.dumps(result))
    return str(path)


def run_script(capsys, *argv):
    status = benchmark_script("same_distribution").main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return status, unpadded(out), err


def test_the_permutation_test_is_exact_for_ten_against_ten_and_matches_brute_force():
    a, b = [0.1, 0.4, 0.3, 0.2, 0.25], [0.5, 0.3, 0.45, 0.6, 0.2, 0.35]
    pooled, observed = np.array(a + b), np.mean(b) - np.mean(a)
    extreme = [abs(pooled[list(i)].mean() - np.delete(pooled, list(i)).mean()) >= abs(observed) - 1e-12
               for i in combinations(range(11), 6)]
    assert permutation_test(a, b) == pytest.approx((observed, np.mean(extreme)))
    assert permutation_test([1, 2, 3, 4], [5, 6, 7, 8])[1] == pytest.approx(2 / 70)  # the two extreme splits
    assert permutation_test(SEEDS, SEEDS) == (0.0, 1.0)


def test_the_monte_carlo_test_is_seeded_and_close_to_the_exact_one(monkeypatch):
    rng = np.random.default_rng(3)
    a, b = rng.normal(0, 1, 6), rng.normal(0.8, 1, 6)
    exact = permutation_test(a, b)[1]
    monkeypatch.setattr(distribution, "EXACT_LIMIT", 0)
    sampled = permutation_test(a, b, permutations=20_000, seed=1)[1]
    assert sampled == permutation_test(a, b, permutations=20_000, seed=1)[1]
    assert sampled == pytest.approx(exact, abs=0.01)


def test_a_candidate_shifted_by_one_reference_std_fails(tmp_path, capsys):
    values = reference_values()
    shifted = {model: (f1 + np.std(f1, ddof=1), share + np.std(share, ddof=1)) for model, (f1, share) in values.items()}
    reference, candidate = write(tmp_path, "ref.json", table(values)), write(tmp_path, "cand.json", table(shifted))
    result = compare(load_side(reference), load_side(candidate))
    assert not result["passes"] and result["pooled"][0]["delta"] > MARGIN
    status, out, _ = run_script(capsys, reference, candidate)
    assert status == 1 and "verdict: FAIL" in out


def test_a_resample_of_the_reference_passes(tmp_path, capsys):
    values = reference_values()
    rng = np.random.default_rng(7)
    resampled = {model: (rng.choice(f1, len(f1)), rng.choice(share, len(share)))
                 for model, (f1, share) in values.items()}
    status, out, _ = run_script(capsys, write(tmp_path, "ref.json", table(values)),
                                write(tmp_path, "cand.json", table(resampled)))
    assert status == 0 and "verdict: PASS: 0 of 4 rows reject" in out


def test_identical_files_pass_with_no_difference(tmp_path, capsys):
    path = write(tmp_path, "ref.json", table(reference_values()))
    grid = write(tmp_path, "grid.json", table(reference_values(1), selection="grid"))
    result = compare(load_side(path, grid), load_side(path, grid))
    assert result["passes"] and [r["rule"] for r in result["pooled"]] == ["best", "grid"]
    assert all(row["delta"] == 0 and row["p"] == 1 for row in result["rows"] + result["pooled"])
    status, out, _ = run_script(capsys, path, path, "--reference-grid", grid, "--candidate-grid", grid)
    assert status == 0 and "pooled sarcastic-F1 Δ best +0.000 [+0.000, +0.000] (p 1, paired), grid +0.000 [+0.000, +0.000] (p 1, paired)" in out


def lowered(values, by=0.01):
    """Every seed's sarcastic F1 ``by`` lower, the share predicted sarcastic as it was."""
    return {model: (f1 - by, share) for model, (f1, share) in values.items()}


def test_the_same_seeds_are_paired_and_a_shift_on_every_seed_fails(tmp_path, capsys):
    values = reference_values()
    reference = write(tmp_path, "ref.json", table(values))
    status, out, _ = run_script(capsys, reference, write(tmp_path, "low.json", table(lowered(values))))
    assert status == 1 and "| best | sarcastic F1 | toy | lstm | 10 paired |" in out
    assert "| rule best | 2 | 0-9 / 0-9 | 0.252 ± 0.015 | 0.242 ± 0.015 | -0.010 | [-0.010, -0.010] | 10 of 10 |" \
        in out
    assert "pooled sarcastic-F1 Δ best -0.010 [-0.010, -0.010] (p 0.00195, paired)" in out
    # the same values under other seeds are two samples: unpaired, the shift is lost in the seeds' spread
    other_seeds = table(lowered(values), seeds=[seed + 10 for seed in SEEDS])
    status, out, _ = run_script(capsys, reference, write(tmp_path, "other.json", other_seeds))
    assert status == 0 and "| 10 / 10 |" in out and "paired" not in out.split("\n\n", 2)[2]


def test_fewer_shared_seeds_than_the_sign_flip_test_needs_are_tested_unpaired(tmp_path):
    path = load_side(write(tmp_path, "ref.json", table(reference_values())))
    few = compare(*(restrict(path, seeds=set(range(PAIRED_MIN - 1))) for _ in range(2)))
    enough = compare(*(restrict(path, seeds=set(range(PAIRED_MIN))) for _ in range(2)))
    assert not any(row["paired"] for row in few["rows"] + few["pooled"])
    assert all(row["paired"] for row in enough["rows"] + enough["pooled"])


def test_the_pooled_interval_is_the_paired_or_welch_t_interval(tmp_path):
    values, rng = reference_values(), np.random.default_rng(5)
    noisy = {model: (f1 + rng.normal(-0.01, 0.01, len(f1)), share) for model, (f1, share) in values.items()}
    reference = load_side(write(tmp_path, "ref.json", table(values)))
    pooled = [np.mean([f1 for f1, _ in side.values()], axis=0) for side in (values, noisy)]
    paired = compare(reference, load_side(write(tmp_path, "noisy.json", table(noisy))))["pooled"][0]
    expected = stats.ttest_rel(pooled[1], pooled[0]).confidence_interval(CONFIDENCE)
    assert paired["paired"] and paired["interval"] == pytest.approx((expected.low, expected.high))
    other = load_side(write(tmp_path, "other.json", table(noisy, seeds=[s + 10 for s in SEEDS])))
    welch = compare(reference, other)["pooled"][0]
    expected = stats.ttest_ind(pooled[1], pooled[0], equal_var=False).confidence_interval(CONFIDENCE)
    assert not welch["paired"] and welch["interval"] == pytest.approx((expected.low, expected.high))


def committed_ten_seeds():
    """A committed table results file of binary cells with ten seeds each (wherever it is archived)."""
    for path in sorted((ROOT / "docs" / "results").rglob("table7*.json")):
        result = json.loads(path.read_text())
        if result.get("kind") == "table" and result["cells"] and all(
                len(cell.get("run_ids") or []) == 10 and "f1_sarcastic" in cell["metrics"] for cell in result["cells"]):
            return path, result
    pytest.fail("no committed table7 results file of ten seeds per cell")


def test_a_committed_ten_seed_file_passes_against_itself_and_fails_a_copy_lower_on_every_seed(tmp_path, capsys):
    path, result = committed_ten_seeds()
    status, out, _ = run_script(capsys, path, path)
    assert status == 0 and "verdict: PASS" in out and "(p 1, paired)" in out
    for cell in result["cells"]:
        cell["metrics"]["f1_sarcastic"]["values"] = [value - 0.01 for value in cell["metrics"]["f1_sarcastic"]["values"]]
    status, out, _ = run_script(capsys, path, write(tmp_path, "lower.json", result))
    assert status == 1 and "verdict: FAIL" in out and " -0.010 [-0.010, -0.010] (p 0.00195, paired)" in out


def test_seed_subsets_of_one_file_are_compared(tmp_path, capsys):
    path = write(tmp_path, "ref.json", table(reference_values()))
    status, out, _ = run_script(capsys, path, path, "--reference-seeds", "0-3", "--candidate-seeds", "6,7-9")
    assert status == 0 and "| rule best | 2 | 0-3 / 6-9 |" in out
    assert "cannot reject" in out  # 4 against 4 seeds: p >= 2/70, x 4 rows for Holm: only the pooled test can fail


def test_models_keeps_only_those_cells_on_both_sides(tmp_path, capsys):
    reference = write(tmp_path, "ref.json", table(reference_values()))
    values = reference_values()
    candidate = write(tmp_path, "cand.json", table({"cnn": values["cnn"]}))  # only one model trained
    status, _, err = run_script(capsys, reference, candidate)
    assert status == 2 and "only in the reference: toy/lstm" in err
    status, out, _ = run_script(capsys, reference, candidate, "--models", "cnn")
    assert status == 0 and "| best | sarcastic F1 | toy | cnn |" in out and "| lstm |" not in out


def test_multiclass_cells_are_held_to_macro_f1_and_accuracy(tmp_path, capsys):
    values = reference_values()
    path = write(tmp_path, "ref.json", table(values, scores=multiclass_scores))
    status, out, _ = run_script(capsys, path, path)
    assert status == 0 and "| best | macro-F1 | toy | lstm |" in out and "| best | accuracy | toy | cnn |" in out
    assert "sarcastic" not in out and "pooled macro-F1 Δ best +0.000 [+0.000, +0.000] (p 1, paired)" in out
    shifted = {model: (f1 + np.std(f1, ddof=1), accuracy) for model, (f1, accuracy) in values.items()}
    result = compare(load_side(path), load_side(write(tmp_path, "cand.json", table(shifted, scores=multiclass_scores))))
    assert not result["passes"] and result["pooled"][0]["metric"] == "f1_macro"
    assert result["pooled"][0]["delta"] == pytest.approx(np.mean([np.std(f1, ddof=1) for f1, _ in values.values()]))


def test_binary_and_multiclass_cells_are_pooled_apart(tmp_path):
    values = reference_values()
    mixed = table(values)
    mixed["cells"] += table(values, corpus="types", scores=multiclass_scores)["cells"]
    side = load_side(write(tmp_path, "mixed.json", mixed))
    result = compare(side, side)
    assert [(row["metric"], row["cells"]) for row in result["pooled"]] == [("f1_sarcastic", 2), ("f1_macro", 2)]
    assert [row["metric"] for row in result["rows"]] == ["f1_sarcastic"] * 2 + ["predicted_positive_rate"] * 2 + \
        ["f1_macro"] * 2 + ["accuracy"] * 2
    assert result["pooled"][1]["reference"]["mean"] == pytest.approx(np.mean([f1 for f1, _ in values.values()]))


def fidelity(values, positive_share=0.2):
    """A fidelity file of one protocol whose precision and recall give ``values``' shares."""
    cells = []
    for model, (f1, share) in values.items():
        precision = np.full(len(SEEDS), 0.3)
        recall = share * precision / positive_share
        cells.append({"corpus": "toy", "model": model, "paper": {}, "protocols": {"as-written": {
            "seeds": SEEDS, "f1_sarcastic": {"values": list(f1)}, "precision_sarcastic": {"values": list(precision)},
            "recall_sarcastic": {"values": list(recall)}, "positive_share": positive_share,
            "predicted_positive_rate": float(np.mean(share))}}})
    return {"kind": "fidelity", "schema_version": 1, "experiment": "toy-fidelity", "title": "toy", "cells": cells}


def test_a_fidelity_protocol_gives_the_per_seed_share_and_equals_the_table(tmp_path):
    values = reference_values()
    side = load_side(write(tmp_path, "fidelity.json", fidelity(values)) + ":as-written")
    assert side["best"][("toy", "lstm")]["predicted_positive_rate"] == pytest.approx(dict(enumerate(values["lstm"][1])))
    result = compare(side, load_side(write(tmp_path, "table.json", table(values))))
    assert all(row["delta"] == pytest.approx(0, abs=1e-12) for row in result["rows"])


def test_values_chosen_by_the_grid_rule_are_compared_as_the_grid_rules(tmp_path):
    """A grid-selected table (the authors' scripts) or fidelity protocol given alone is the grid rule's, as the
    rows then say; the paper's protocol as written stays the best rule's."""
    values = reference_values()
    grid_table = load_side(write(tmp_path, "grid.json", table(values, selection="grid")))
    document = fidelity(values)
    for cell in document["cells"]:
        cell["protocols"]["authors-scripts"] = cell["protocols"]["as-written"]
    path = write(tmp_path, "fidelity.json", document)
    assert list(grid_table) == ["grid"] and list(load_side(path + ":authors-scripts")) == ["grid"]
    assert list(load_side(path + ":as-written")) == ["best"]
    result = compare(grid_table, load_side(path + ":authors-scripts"))
    assert {row["rule"] for row in result["rows"]} == {"grid"} and result["passes"]
    assert set(PROTOCOL_RULES) == set(LABELS)  # every protocol the fidelity report shows has its rule


def toy_run(folder, seed, rng, classes=2):
    """A finished run's files that run_under reads: config, metrics and a 3-epoch record."""
    folder.mkdir(parents=True)
    gold = np.eye(classes)[rng.integers(0, classes, 40)]
    probabilities = rng.dirichlet(np.ones(classes), (3, 40))
    save_record(folder / "epochs.npz", Trajectory(probabilities[:, :20], probabilities[:, 20:], gold[:20], gold[20:]))
    config = {"corpus": "toy", "model": folder.parent.name, "seed": seed, "train": {"threshold": 0.5}}
    (folder / CONFIG).write_text(json.dumps({**config, "config_hash": recorded_config_hash(config)}))
    (folder / METRICS).write_text(json.dumps({"train_seconds": 1}))


def test_a_run_folder_is_scored_under_both_rules(tmp_path):
    rng = np.random.default_rng(0)
    for model in MODELS:
        for seed in range(4):
            toy_run(tmp_path / "toy-experiment" / "toy" / model / f"seed-{seed}", seed, rng)
    side = load_side(str(tmp_path / "toy-experiment"))
    run = tmp_path / "toy-experiment" / "toy" / "cnn" / "seed-2"
    for rule in ("best", "grid"):
        metrics, test = run_under(run, rule)
        assert side[rule][("toy", "cnn")]["f1_sarcastic"][2] == metrics["test"]["f1_sarcastic"]
        assert side[rule][("toy", "cnn")]["predicted_positive_rate"][2] == np.mean(test.labels(metrics["threshold"]))
    assert compare(side, side)["passes"]


def test_a_multiclass_run_folder_is_scored_on_macro_f1_and_accuracy(tmp_path):
    rng = np.random.default_rng(1)
    for seed in range(4):
        toy_run(tmp_path / "types" / "toy" / "lstm" / f"seed-{seed}", seed, rng, classes=3)
    side = load_side(str(tmp_path / "types"))
    metrics, _ = run_under(tmp_path / "types" / "toy" / "lstm" / "seed-1", "best")
    assert set(side["best"][("toy", "lstm")]) == {"f1_macro", "accuracy"}
    assert side["best"][("toy", "lstm")]["f1_macro"][1] == metrics["test"]["f1_macro"]
    assert side["best"][("toy", "lstm")]["accuracy"][1] == metrics["test"]["accuracy"]
    assert "grid" not in side  # the grid rule picks a sarcastic-class threshold: binary runs only
    assert [(row["rule"], row["metric"]) for row in compare(side, side)["pooled"]] == [("best", "f1_macro")]


@pytest.mark.parametrize("arguments, message", [
    (("missing.json", "ref.json"), "no such results file"),
    (("ref.json", "other.json"), "different cells"),
    (("ref.json", "ref.json", "--candidate-seeds", "0-2"), "at least 4"),
    (("ref.json", "fidelity.json"), "name one as"),
    (("ref.json", "fidelity.json:nope"), "name one as"),
    (("grid.json", "ref.json"), "share no selection rule"),
    (("ref.json", "ref.json", "--reference-grid", "ref.json"), "holds the 'best' rule's results but is given as"),
    (("grid.json", "grid.json", "--candidate-grid", "grid.json"), "holds the 'grid' rule's results already"),
    (("ref.json", "ref.json", "--reference-seeds", "a-b"), "write them as"),
    (("ref.json", "types.json"), "scored as another task"),
    (("types.json", "no-accuracy.json"), "has no accuracy"),
])
def test_bad_input_is_exit_status_2_and_one_line(tmp_path, capsys, monkeypatch, arguments, message):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "ref.json", table(reference_values()))
    write(tmp_path, "other.json", table(reference_values(), corpus="other"))
    write(tmp_path, "grid.json", table(reference_values(), selection="grid"))
    write(tmp_path, "fidelity.json", fidelity(reference_values()))
    write(tmp_path, "types.json", table(reference_values(), scores=multiclass_scores))
    no_accuracy = table(reference_values(), scores=multiclass_scores)
    del no_accuracy["cells"][1]["metrics"]["accuracy"]
    write(tmp_path, "no-accuracy.json", no_accuracy)
    status, out, err = run_script(capsys, *arguments)
    assert status == 2 and out == "" and message in err and err.count("\n") == 1 and "Traceback" not in err

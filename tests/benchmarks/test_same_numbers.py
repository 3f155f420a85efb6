"""benchmarks/same_numbers.py: runs are paired by seed and fold, and predictions files found in both stores.

Tiny results files built here: a cell of two folds by two seeds (runs stored fold-major, as a
reproduction stores them), compared with itself, with one run of the second fold changed, and
with its runs listed in another order; a multi-class cell's largest difference is its macro-F1's; a
store's run is found by the seed and fold its config.json records, not by its folder's name.
"""
import json

import pytest

from locations import benchmark_script
from markdown_tables import unpadded

from experiments.runs.one.metrics import summary_stats
from experiments.runs.one.provenance import recorded_config_hash
from experiments.runs.one.store import CONFIG

RUNS = [(fold, seed) for fold in (1, 2) for seed in (0, 1)]


def results(values, runs=RUNS, metric="f1_sarcastic"):
    cell = {"corpus": "mustard", "model": "lstm", "seeds": [0, 1],
            "runs": [f"runs/dialogue/mustard/lstm/fold-{fold}/seed-{seed}" for fold, seed in runs],
            "run_ids": [{"seed": seed, "fold": fold - 1} for fold, seed in runs],
            "metrics": {metric: summary_stats(values)}, "selected_epochs": [3] * len(values)}
    return {"kind": "table", "experiment": "dialogue", "cells": [cell]}


def compare(tmp_path, capsys, before, after, *options):
    paths = []
    for name, result in (("before", before), ("after", after)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(result))
    benchmark_script("same_numbers").main(list(map(str, [*paths, *options])))
    return unpadded(capsys.readouterr().out)


def test_a_changed_run_in_a_later_fold_is_counted(tmp_path, capsys):
    before = results([0.5, 0.6, 0.7, 0.8])
    assert "runs: 0 of 4" in compare(tmp_path, capsys, before, before)
    out = compare(tmp_path, capsys, before, results([0.5, 0.6, 0.7, 0.9]))
    assert "runs: 1 of 4" in out and "| 0.1000 |" in out


def test_a_multiclass_cell_shows_its_macro_f1_difference_and_no_made_up_zero(tmp_path, capsys):
    before = results([0.5, 0.6, 0.7, 0.8], metric="f1_macro")
    out = compare(tmp_path, capsys, before, results([0.5, 0.6, 0.75, 0.8], metric="f1_macro"))
    assert "Δ f1_macro" in out.splitlines()[0] and "| 0.0500 |" in out and "runs: 1 of 4" in out
    out = compare(tmp_path, capsys, before, before, "--metric", "f1_sarcastic")
    assert "| — |" in out and "0.0000" not in out


def test_runs_are_paired_by_fold_and_seed_not_by_position(tmp_path, capsys):
    before = results([0.5, 0.6, 0.7, 0.8])
    reordered = results([0.5, 0.7, 0.6, 0.8], runs=[(1, 0), (2, 0), (1, 1), (2, 1)])
    assert "runs: 0 of 4" in compare(tmp_path, capsys, before, reordered)
    fewer_seeds = results([0.5, 0.7], runs=[(1, 0), (2, 0)])
    assert "runs: 0 of 2" in compare(tmp_path, capsys, before, fewer_seeds)


def store_run(folder, seed, fold, predictions):
    """A run folder of a store: its config.json (seed and fold, 0-based) and predictions.tsv."""
    folder.mkdir(parents=True)
    config = {"corpus": "mustard", "model": "lstm", "seed": seed, "fold": fold}
    (folder / CONFIG).write_text(json.dumps({**config, "config_hash": recorded_config_hash(config)}))
    (folder / "predictions.tsv").write_text(predictions)


def test_predictions_of_fold_runs_are_found_in_both_stores(tmp_path, capsys):
    for store, text in (("a", "id\tp\n1\t0.5\n"), ("b", "id\tp\n1\t0.25\n")):
        for fold, seed in RUNS:
            store_run(tmp_path / store / "dialogue" / "mustard" / "lstm" / f"fold-{fold}" / f"seed-{seed}", seed,
                      fold - 1, text if (fold, seed) == (2, 1) else "same\n")
    before = results([0.5, 0.6, 0.7, 0.8])
    out = compare(tmp_path, capsys, before, before, "--runs-a", tmp_path / "a", "--runs-b", tmp_path / "b")
    assert out.splitlines()[2].endswith("| 3 of 4 |")


def test_a_run_is_its_config_not_its_folder_name(tmp_path, capsys):
    """A folder named seed-1 whose config.json says seed 0 is not seed 1's run: its predictions are not compared."""
    for store in ("a", "b"):
        for fold, seed in RUNS:
            store_run(tmp_path / store / "dialogue" / "mustard" / "lstm" / f"fold-{fold}" / f"seed-{seed}",
                      0 if (store, fold, seed) == ("b", 2, 1) else seed, fold - 1, "same\n")
    before = results([0.5, 0.6, 0.7, 0.8])
    out = compare(tmp_path, capsys, before, before, "--runs-a", tmp_path / "a", "--runs-b", tmp_path / "b")
    assert out.splitlines()[2].endswith("| 3 of 3 |")


def test_values_that_do_not_match_the_runs_are_refused(tmp_path, capsys):
    before = results([0.5, 0.6, 0.7, 0.8])
    one_failed = {**before, "cells": [{**before["cells"][0], "runs": [], "run_ids": [], "selected_epochs": [3, 3, 3]}]}
    with pytest.raises(SystemExit, match="3 runs' values for 2 named runs"):
        compare(tmp_path, capsys, before, one_failed)

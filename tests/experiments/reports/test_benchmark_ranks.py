"""Benchmark ranks share ties (standard competition ranking) and count the reference rows, its rank line names
every reference row scoring above the model, and its tables show every model's macro-F1 and predicted-sarcastic
share beside the cell's all-sarcastic floor."""
import json

import numpy as np
import pytest
from markdown_tables import unpadded

from experiments.reports.benchmark import benchmark_markdown
from experiments.results.schema import Result
from experiments.runs.one.metrics import classification_metrics
from experiments.runs.one.provenance import recorded_config_hash
from experiments.runs.one.outputs import predictions_tsv
from experiments.studies.benchmark import BenchCell, competition_ranks, summarise, with_holm
from experiments.studies.cross_eval import Scored

GOLD = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0])  # 3 of 10 sarcastic: floor F1 = 2*0.3/1.3


def test_tied_models_share_the_rank_of_their_group_and_the_next_one_skips_it():
    ranks = competition_ranks({"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.3, "e": 0.5})
    assert {name: (r["rank"], r["shared"]) for name, r in ranks.items()} == {
        "a": (1, False), "b": (2, True), "c": (2, True), "e": (2, True), "d": (5, False)}


def test_a_model_tied_with_six_others_below_one_is_2_equal_not_2():
    means = {"candidate": 0.0, "best": 0.4, **{f"m{k}": 0.0 for k in range(6)}}
    ranks = competition_ranks(means)
    assert ranks["candidate"] == {"rank": 2, "shared": True}
    assert competition_ranks({"x": 0.1 + 0.2, "y": 0.3})["x"] == {"rank": 1, "shared": True}  # float noise is a tie


def _scored(tmp_path, name: str, predicted: list[int]) -> Scored:
    """A run of one seed predicting ``predicted`` on GOLD, with its metrics and predictions file."""
    probabilities = np.array([[0.2, 0.8] if p else [0.7, 0.3] for p in predicted])
    path = tmp_path / f"{name}.tsv"
    path.write_text(predictions_tsv([f"t{i}" for i in range(len(GOLD))], np.eye(2)[GOLD], probabilities, False))
    return Scored(0, tmp_path, classification_metrics(GOLD, np.array(predicted)), path, 0.5)


def test_summary_ranks_candidate_and_classics_and_reports_macro_f1_share_and_floor(tmp_path):
    perfect = [1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    none = [0] * 10
    cell = BenchCell("table7", "iSarcasm", [_scored(tmp_path, "cand", none)],
                     {"good": [_scored(tmp_path, "good", perfect)], "zero": [_scored(tmp_path, "zero", none)],
                      "all": [_scored(tmp_path, "all", [1] * 10)]})
    summary = summarise(cell, "cand", "bootstrap", 50)
    # F1(sarcastic): good 1.0, all 2*.3/1.3 = 0.4615, cand 0, zero 0 -> 1, 2, 3=, 3=
    assert (summary["rank"], summary["shared"], summary["of"]) == (3, True, 4)
    rows = {row["model"]: row for row in summary["classics"]}
    assert [(rows[m]["rank"], rows[m]["shared"]) for m in ("good", "all", "zero")] == [(1, False), (2, False),
                                                                                      (3, True)]
    assert rows["all"]["predicted_sarcastic"]["mean"] == 1.0
    assert summary["candidate"]["predicted_sarcastic"]["mean"] == 0
    assert rows["good"]["f1_macro"]["mean"] == 1.0
    assert summary["all_sarcastic"]["f1_sarcastic"] == pytest.approx(0.6 / 1.3)
    assert summary["all_sarcastic"]["f1_macro"] == pytest.approx(0.3 / 1.3)
    assert rows["all"]["mean"] == pytest.approx(summary["all_sarcastic"]["f1_sarcastic"])  # the floor is that model

    markdown = _report(summary)
    assert "| 3= of 4; below the all-sarcastic floor (0.462) |" in markdown
    assert "cand ranks 3= of 4; below the all-sarcastic floor (0.462)." in markdown
    assert "| 0.462 (30% sarcastic) |" in markdown  # the summary's floor column
    assert "| 3= | zero | 0.000 ± 0.000 |" in markdown and "| 3= | **cand** | 0.000 ± 0.000 |" in markdown
    assert "| 1 | good | 1.000 ± 0.000 | 1.000 ± 0.000 | 30.0% ± 0.0% | — | — | — | — | 1 |" in markdown  # no costs
    assert "| | *all sarcastic* | *0.462* | *0.231* | *100%* |" in markdown


def test_the_cost_columns_count_the_saved_models_weights_and_summarise_the_recorded_costs(tmp_path):
    import keras

    from experiments.runs.one.outputs import model_parameters

    inputs = keras.Input((4,))
    model = keras.Model(inputs, keras.layers.Dense(2)(keras.layers.Dense(3)(inputs)))  # 4*3+3 + 3*2+2 = 23
    model.compile("adam", "mse")
    model.fit(np.zeros((2, 4)), np.zeros((2, 2)), verbose=0)  # the optimizer's slots are saved too, not counted
    runs = [tmp_path / "seed-0", tmp_path / "seed-1"]
    for run in runs:
        run.mkdir()
        model.save(run / "model.keras")
        (run / "config.json").write_text(json.dumps({"config_hash": recorded_config_hash({})}))
    assert model_parameters(runs[0]) == model.count_params() == 23
    assert model_parameters(tmp_path) is None  # a run that keeps no model
    (tmp_path / "entrant.json").write_text(json.dumps({"chosen": {"parameters": 7}}))
    assert model_parameters(tmp_path) == 7  # a Keras model entrant records its own
    (tmp_path / "entrant.json").write_text(json.dumps({"chosen": {}}))
    assert model_parameters(tmp_path) is None  # an estimator's run

    scored = [_scored(run, "p", [1, 0, 0, 0, 0, 0, 0, 0, 0, 0]) for run in runs]
    for seconds, speed, memory, run in zip((10.0, 20.0), (1000.0, 3000.0), (800.0, 900.0), runs):
        (run / "metrics.json").write_text(json.dumps({"train_seconds": seconds, "predict_texts_per_second": speed,
                                                      "peak_memory_mb": memory}))
    cell = BenchCell("table7", "iSarcasm", scored[:1], {"other": scored})
    summary = summarise(cell, "cand", "bootstrap", 50)
    assert summary["classics"][0]["parameters"] == 23
    assert summary["classics"][0]["train_seconds"]["mean"] == 15.0
    markdown = _report(summary)
    assert "| 23 | 15 s | 2,000/s | 850 MiB |" in markdown  # training: the mean; throughput, memory: medians
    (runs[1] / "metrics.json").write_text(json.dumps({"train_seconds": 20.0}))  # written before costs were recorded
    summary = summarise(cell, "cand", "bootstrap", 50)
    assert summary["classics"][0]["predict_texts_per_second"] is None  # not a median of the runs that have one
    assert "| 23 | 15 s | — | — |" in _report(summary)


def test_the_training_column_shows_one_time_work_apart_and_warns_of_costs_from_two_sweeps(tmp_path):
    runs = [tmp_path / "seed-0", tmp_path / "seed-1"]
    for run in runs:
        run.mkdir()
    scored = [_scored(run, "p", [1, 0, 0, 0, 0, 0, 0, 0, 0, 0]) for run in runs]
    for run, setup, started in zip(runs, (30.0, 2.0), ("2026-11-20T10:00:00Z", "2026-11-21T09:00:00Z")):
        (run / "metrics.json").write_text(json.dumps({"train_seconds": 50.0, "setup_seconds": setup}))
        (run / "config.json").write_text(json.dumps({"sweep": {"started": started, "jobs": 2, "load": 1.0},
                                                     "config_hash": recorded_config_hash({})}))
    markdown = _report(summarise(BenchCell("table7", "iSarcasm", scored[:1], {"other": scored}), "cand", "bootstrap", 50))
    assert "| 50 s (+16 s one-time) |" in markdown
    assert ("The costs of this table come from 2 sweeps (2026-11-20 10:00 UTC, --jobs 2, load 1.0; "
            "2026-11-21 09:00 UTC, --jobs 2, load 1.0)") in markdown


def _report(summary: dict) -> str:
    """The benchmark's markdown, its tables unpadded."""
    return unpadded(benchmark_markdown(Result("benchmark", "benchmark-cand", [summary], {
        "model": "cand", "method": "bootstrap", "resamples": 50, "seeds": [0], "git_commit": "x", "missing": [],
        "failed_runs": []})))


ONE_OF_THREE = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0]  # F1 0.5: above the floor (0.462)
BELOW_FLOOR = [1, 0, 0, 1, 0, 0, 0, 0, 0, 0]  # F1 0.4: below it


def test_an_entrant_below_tfidf_lr_is_ranked_among_the_reference_rows_and_says_so(tmp_path):
    cell = BenchCell("table7", "iSarcasm", [_scored(tmp_path, "cand", ONE_OF_THREE)],
                     {"cnn": [_scored(tmp_path, "cnn", [0] * 10)]},
                     {"all-sarcastic": [_scored(tmp_path, "all", [1] * 10)],
                      "majority": [_scored(tmp_path, "majority", [0] * 10)],
                      "tfidf-lr": [_scored(tmp_path, "tfidf", GOLD.tolist())]})
    summary = with_holm([summarise(cell, "cand", "bootstrap", 50)])[0]
    # tfidf-lr 1.0, cand 0.5, all-sarcastic 0.462, cnn 0 and majority 0
    assert (summary["rank"], summary["of"]) == (2, 5)
    assert summary["classic_rank"] == {"rank": 1, "shared": False, "of": 2}
    references = {row["model"]: row for row in summary["references"]}
    assert (references["tfidf-lr"]["rank"], references["majority"]["rank"]) == (1, 4)
    assert references["tfidf-lr"]["delta"] == pytest.approx(-0.5)
    assert all(row["p_holm"] >= row["p_value"] for row in [*summary["classics"], *summary["references"]])
    markdown = _report(summary)
    line = "2 of 5 (1 of 2 among the classic models); below TF-IDF + LR (1.000)"
    assert f"| {line} | tfidf-lr 1.000 |" in markdown and f"cand ranks {line}." in markdown
    assert "| 1 | *tfidf-lr* (reference) | 1.000 ± 0.000 |" in markdown
    assert "*all sarcastic*" not in markdown  # its row is compared: no second, unranked floor row
    assert "Of 4 paired comparisons" in markdown  # the reference rows are tested and corrected for too


def test_an_entrant_below_the_floor_is_never_a_bare_rank_1(tmp_path):
    cnn = {"cnn": [_scored(tmp_path, "cnn", [0] * 10)]}
    summary = summarise(BenchCell("table7", "iSarcasm", [_scored(tmp_path, "cand", BELOW_FLOOR)], cnn),
                        "cand", "bootstrap", 50)
    assert summary["rank"] == 1
    assert "cand ranks 1 of 2; below the all-sarcastic floor (0.462)." in _report(summary)
    with_references = BenchCell("table7", "iSarcasm", [_scored(tmp_path, "cand", BELOW_FLOOR)], cnn,
                                {"all-sarcastic": [_scored(tmp_path, "all", [1] * 10)],
                                 "tfidf-lr": [_scored(tmp_path, "tfidf", GOLD.tolist())]})
    assert ("cand ranks 3 of 4 (1 of 2 among the classic models); below TF-IDF + LR (1.000) and below the "
            "all-sarcastic floor (0.462).") in _report(summarise(with_references, "cand", "bootstrap", 50))
    above = summarise(BenchCell("table7", "iSarcasm", [_scored(tmp_path, "cand", ONE_OF_THREE)], cnn),
                      "cand", "bootstrap", 50)
    assert "cand ranks 1 of 2." in _report(above)  # nothing above it: nothing to say

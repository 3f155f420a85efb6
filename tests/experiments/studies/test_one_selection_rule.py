"""One function applies a selection rule (:func:`experiments.runs.one.trajectory.choose`): training keeps the
weights of the epoch it chooses, a study's summary applies it to finished runs' records, and ``report
--selection`` rescores with it.  On one record built here the three choose the same epochs and thresholds."""
import json
from types import SimpleNamespace

import numpy as np
import pytest

import experiments.runs.one.selection as selection
from experiments.results.schema import Result
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.provenance import recorded_config_hash
from experiments.runs.one.selection import EpochRecorder, ValidationLogs
from experiments.runs.one.store import CONFIG, EPOCHS, METRICS
from experiments.runs.one.trajectory import Trajectory, choose_in, save_record
from experiments.studies.experiment import Cell
from experiments.studies.cells import summarise_cell
from experiments.studies.selection import reselect

RULES = ("best", "last", "tuned", "grid")


def record(seed: int) -> Trajectory:
    """Six epochs of two-class probabilities for 40 validation and 30 test texts, every rule a different epoch
    likely: the positive class' probabilities drift and spread apart from epoch to epoch."""
    rng = np.random.default_rng(seed)
    gold = {split: np.eye(2)[rng.integers(0, 2, size)] for split, size in (("validation", 40), ("test", 30))}

    def epochs(split):
        signal = gold[split][:, 1] - 0.5
        positive = [np.clip(0.3 + epoch * 0.05 + (0.1 + 0.08 * epoch) * signal + rng.normal(0, 0.2, len(signal)),
                            0.01, 0.99) for epoch in range(6)]
        return np.stack([np.stack([1 - p, p], axis=1) for p in positive]).astype("float32")
    return Trajectory(epochs("validation"), epochs("test"), gold["validation"], gold["test"])


def trained(trajectory: Trajectory, monkeypatch) -> EpochRecorder:
    """The training path: the recorder fed the record's probabilities epoch by epoch, as a model would predict
    them, its 'weights' the epoch they were taken at."""
    epoch = {"now": 0}
    model = SimpleNamespace(get_weights=lambda: [epoch["now"]])
    monkeypatch.setattr(selection, "predict_by_length",
                        lambda _, split: getattr(trajectory, split)[epoch["now"] - 1])
    recorder = EpochRecorder({"validation": "validation", "test": "test"},
                             {"validation": trajectory.validation_gold, "test": trajectory.test_gold},
                             ValidationLogs("val_f1", trajectory.validation_gold), keep=("best", "grid"))
    recorder.set_model(model)
    for index in range(trajectory.epochs):
        epoch["now"] = index + 1
        recorder.on_epoch_end(index, logs={})
    return recorder


def run_folder(folder, trajectory: Trajectory, seed: int):
    folder.mkdir(parents=True)
    save_record(folder / EPOCHS, trajectory)
    config = {"corpus": "toy", "model": "cnn", "seed": seed, "train": TrainConfig().identity()}
    (folder / CONFIG).write_text(json.dumps({**config, "config_hash": recorded_config_hash(config)}))
    (folder / METRICS).write_text(json.dumps({"train_seconds": 1}))
    return folder


def test_training_the_summary_and_report_selection_choose_alike(tmp_path, monkeypatch):
    records = [record(seed) for seed in range(3)]
    folders = [run_folder(tmp_path / "runs" / f"seed-{seed}", r, seed) for seed, r in enumerate(records)]
    expected = {rule: [choose_in(r, rule) for r in records] for rule in RULES}
    assert len({tuple(c.epoch for c in choices) for choices in expected.values()}) > 1  # the rules differ here

    for r, best, grid in zip(records, expected["best"], expected["grid"]):  # training keeps the chosen epochs
        recorder = trained(r, monkeypatch)
        assert recorder.epochs == {"best": best.epoch, "grid": grid.epoch}
        assert recorder.weights == {"best": [best.epoch], "grid": [grid.epoch]}

    cell = Cell("toy", "cnn")
    dataset = SimpleNamespace(is_binary=True, label_names=("not_sarcastic", "sarcastic"), folds=())
    runs = [SimpleNamespace(failure=None, directory=folder, skipped=True, metrics={}) for folder in folders]
    tasks = [SimpleNamespace(spec=SimpleNamespace(seed=seed, fold=None, train=TrainConfig())) for seed in range(3)]  # best runs
    table = Result.from_dict({"experiment": "toy", "title": "toy", "source": "S", "seeds": [0, 1, 2], "kind": "table",
                              "train": TrainConfig().recorded_form(),
                              "cells": [{"corpus": "toy", "model": "cnn", "note": "", "seeds": [0, 1, 2],
                                         "references": [], "runs": [str(folder) for folder in folders],
                                         "metrics": {}}]})
    for rule in ("tuned", "grid"):  # the rules a study applies to the record of best runs
        summary = summarise_cell(cell, dataset, runs, tasks, [0, 1, 2], TrainConfig(selection=rule))
        rescored = reselect(table, rule).cells[0]
        for got in (summary, rescored):
            assert got["selected_epochs"] == [c.epoch for c in expected[rule]]
            assert got["thresholds"] == pytest.approx([c.threshold for c in expected[rule]])
    assert reselect(table, "last").cells[0]["selected_epochs"] == [6, 6, 6]

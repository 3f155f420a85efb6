"""Selection rules read a run's per-epoch record: validation chooses, test only scores.

Unit tests on hand-made arrays (the authors' grid rule, ties, the vectorised F1 against
scikit-learn), the record's round trip and its damage, class-ratio batches, and on a tiny toy
corpus: flipping every test label changes no rule's choice, and a run trained with a rule
keeps the weights of the epoch the rule chose.
"""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from markdown_tables import unpadded
from sklearn.metrics import f1_score
from toy_corpus import write_corpus, train_toy

from experiments.runs.one.metrics import best_threshold
from experiments.runs.one.protocol import RULES, TrainConfig
from experiments.runs.one.store import EPOCHS, weights_file
from experiments.runs.one.outputs import read_predictions
from experiments.runs.one.trajectory import (
    AUTHORS_GRID,
    Trajectory,
    choose,
    choose_in,
    grid_threshold,
    load_record,
    save_record,
    scored,
)
from preprocessing.corpora import load_corpus
from preprocessing.errors import IsarcasmError

FAST = TrainConfig(epochs=4, batch_size=32, embeddings="random")


def one_hot(labels, classes=2):
    return np.eye(classes)[np.asarray(labels)]


def binary(positive):
    positive = np.asarray(positive, dtype=float)
    return np.stack([1 - positive, positive], axis=-1)


def test_the_authors_grid_is_their_17_thresholds():
    assert AUTHORS_GRID.tolist() == [round(0.05 * k, 2) for k in range(1, 18)]


def test_grid_f1_equals_scikit_learn_at_every_threshold():
    rng = np.random.default_rng(0)
    gold, positive = rng.integers(0, 2, 300), rng.random(300)
    threshold, f1 = grid_threshold(gold, positive)
    expected = [f1_score(gold, (positive >= t).astype(int), zero_division=0) for t in AUTHORS_GRID]
    assert f1 == pytest.approx(max(expected)) and threshold == AUTHORS_GRID[int(np.argmax(expected))]


def test_grid_takes_the_lowest_threshold_and_the_first_epoch_on_ties():
    gold = one_hot([1, 0, 0, 0])
    # every text's P(sarcastic) is 0.9 or 0.02: thresholds 0.05..0.85 all give the same F1
    epoch = binary([0.9, 0.02, 0.02, 0.02])
    choice = choose("grid", np.stack([binary([0.4, 0.6, 0.02, 0.02]), epoch, epoch]), gold)
    assert (choice.epoch, choice.threshold) == (2, 0.05)


def test_grid_picks_a_low_threshold_that_0_5_misses():
    gold = one_hot([1, 1, 0, 0, 0, 0])
    validation = np.stack([binary([0.3, 0.2, 0.1, 0.05, 0.0, 0.0])])
    assert choose("best", validation, gold).threshold == 0.5
    grid = choose("grid", validation, gold)
    assert grid.threshold == 0.15 and grid.epoch == 1


def test_best_last_and_tuned():
    gold = one_hot([1, 1, 0, 0])
    validation = np.stack([binary([0.1, 0.2, 0.3, 0.4]), binary([0.9, 0.6, 0.1, 0.2]), binary([0.9, 0.4, 0.1, 0.6])])
    assert choose("best", validation, gold).epoch == 2
    assert choose("last", validation, gold).epoch == 3
    tuned = choose("tuned", validation, gold)
    assert tuned.epoch == 2 and tuned.threshold == best_threshold([1, 1, 0, 0], validation[1][:, 1])


def test_threshold_rules_are_for_binary_tasks_and_unknown_rules_are_refused():
    three = np.stack([np.full((3, 3), 1 / 3)])
    assert choose("best", three, one_hot([0, 1, 2], 3)).epoch == 1
    with pytest.raises(IsarcasmError, match="binary"):
        choose("grid", three, one_hot([0, 1, 2], 3))
    with pytest.raises(IsarcasmError, match="unknown selection rule 'bestest'"):
        choose("bestest", three, one_hot([0, 1, 2], 3))


def test_record_round_trip_and_damage(tmp_path):
    rng = np.random.default_rng(1)
    record = Trajectory(binary(rng.random((3, 5))), binary(rng.random((3, 7))), one_hot(rng.integers(0, 2, 5)),
                        one_hot(rng.integers(0, 2, 7)))
    save_record(tmp_path / EPOCHS, record)
    loaded = load_record(tmp_path / EPOCHS)
    assert np.allclose(loaded.test, record.test) and np.array_equal(loaded.validation_gold, record.validation_gold)
    with pytest.raises(IsarcasmError, match="no per-epoch record"):
        load_record(tmp_path / "missing" / EPOCHS)
    (tmp_path / EPOCHS).write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(IsarcasmError, match="damaged per-epoch record"):
        load_record(tmp_path / EPOCHS)


def test_class_ratio_batches_keep_the_ratio_and_cover_every_row():
    from baselines.batching import batches_per_epoch, class_ratio_rows

    labels = np.array([1] * 50 + [0] * 250)
    rng = np.random.default_rng(0)
    epochs = [class_ratio_rows(rng, labels, batches_per_epoch(300, 32)) for _ in range(2)]  # two epochs, redrawn
    for rows in epochs:
        assert len(rows) == 10  # ceil(300 / 32), as Keras' batches
        assert all(abs(labels[batch].sum() - 5) <= 1 for batch in rows)  # 50 sarcastic over 10 batches
        assert sorted(np.concatenate(rows).tolist()) == list(range(300))
    assert any(not np.array_equal(a, b) for a, b in zip(*epochs))


# --- on a toy corpus ------------------------------------------------------------------------------

def load(path):
    return load_corpus(str(path), path.parent, split_col="split")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The same run on the toy corpus and on a copy whose test labels are all flipped."""
    root = tmp_path_factory.mktemp("rules")
    for name in ("plain", "flipped"):
        (root / name).mkdir()
    plain, flipped = write_corpus(root / "plain/toy.csv"), write_corpus(root / "flipped/toy.csv", flip_test=True)
    return {name: train_toy(load(path), "cnn", root / f"run-{name}", path.parent, FAST)
            for name, path in (("plain", plain), ("flipped", flipped))}


def test_flipping_test_labels_changes_no_rule_choice(runs):
    plain, flipped = (load_record(runs[name].directory / EPOCHS) for name in ("plain", "flipped"))
    assert np.array_equal(plain.validation, flipped.validation)
    for rule in RULES:
        assert choose_in(plain, rule) == choose_in(flipped, rule)
        a, b = scored(plain, choose_in(plain, rule)), scored(flipped, choose_in(flipped, rule))
        assert a["validation"] == b["validation"]
        assert b["test"]["accuracy"] == pytest.approx(1 - a["test"]["accuracy"])


def test_the_record_agrees_with_the_run(runs):
    run = runs["plain"]
    record = load_record(run.directory / EPOCHS)
    assert record.epochs == FAST.epochs
    assert choose_in(record, "best").epoch == run.metrics["selected_epoch"]
    predictions = read_predictions(run.directory / "predictions.tsv")
    assert np.allclose(record.test[run.metrics["selected_epoch"] - 1], predictions.probabilities, atol=1e-6)
    assert scored(record, choose_in(record, "best"))["test"] == run.metrics["test"]
    assert (run.directory / weights_file("last")).is_file() and (run.directory / weights_file("grid")).is_file()


def test_a_run_trained_with_the_grid_rule_keeps_its_epoch_and_threshold(runs, tmp_path):
    plain = runs["plain"]
    path = plain.directory.parent / "plain/toy.csv"
    grid = train_toy(load(path), "cnn", tmp_path / "grid", path.parent, TrainConfig(**{**vars(FAST), "selection": "grid"}))
    record = load_record(plain.directory / EPOCHS)
    choice = choose_in(record, "grid")
    assert grid.metrics["selected_epoch"] == choice.epoch and grid.metrics["threshold"] == choice.threshold
    predictions = read_predictions(grid.directory / "predictions.tsv")
    assert np.allclose(record.test[choice.epoch - 1], predictions.probabilities, atol=1e-6)
    assert grid.metrics["test"] == scored(record, choice)["test"]


# --- through the CLI: reproduce once, apply every rule without training ---------------------------

def cli(*args):
    from click.testing import CliRunner

    from experiments.cli import main

    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def toy_reproduction(tmp_path_factory):
    root = tmp_path_factory.mktemp("reproduce")
    corpus = write_corpus(root / "toy.csv")
    experiment = root / "toy.toml"
    experiment.write_text(f"name = 'toy'\n[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n")
    common = ["--seeds", 2, "--epochs", 3, "--set", "embeddings=random", "--split-col", "split",
              "--output-dir", root / "runs", "--results-dir", root / "results"]
    result = cli("reproduce", experiment, *common)
    assert result.exit_code == 0, result.output
    return root, experiment, common


def results(root, name):
    return json.loads((root / "results" / f"{name}.json").read_text())


def authors_file(experiment: Path, protocol: str = "authors-code") -> Path:
    """``experiment`` under the authors' protocol: a file extending it with the [train] table of the shipped
    ``table7-<protocol>`` (``<experiment>-<protocol>.toml`` beside it)."""
    from experiments.studies.experiment import load_experiment

    train = dict(load_experiment(f"table7-{protocol}").train)
    path = experiment.with_name(f"{experiment.stem}-{protocol}.toml")
    path.write_text(f"extends = '{experiment}'\n[train]\n" + "".join(f"{key} = {json.dumps(value)}\n"
                                                                     for key, value in train.items()))
    return path


def test_report_applies_a_rule_to_the_records_and_saves_it_apart(toy_reproduction):
    root, _, _ = toy_reproduction
    name = "toy-epochs-3-embeddings-random"
    before = (root / "results" / f"{name}.json").read_text()
    result = cli("report", name, "--selection", "grid", "--results-dir", root / "results")
    assert result.exit_code == 0, result.output
    assert "selection rule 'grid'" in result.output and "saved" in result.output
    grid, best = results(root, f"{name}-selection-grid"), results(root, name)
    assert (root / "results" / f"{name}.json").read_text() == before  # nothing overwritten
    for cell, run_cell in zip(grid["cells"], best["cells"]):
        records = [load_record(Path(run) / EPOCHS) for run in run_cell["runs"]]
        expected = [scored(r, choose_in(r, "grid"))["test"]["f1_sarcastic"] for r in records]
        assert cell["metrics"]["f1_sarcastic"]["values"] == pytest.approx(expected)
        assert cell["thresholds"] == [choose_in(r, "grid").threshold for r in records]


def test_reproduce_with_a_rule_reuses_the_best_runs(toy_reproduction):
    root, experiment, common = toy_reproduction
    result = cli("reproduce", experiment, *common, "--set", "selection=tuned")
    assert result.exit_code == 0, result.output
    assert "2 reused" in result.output
    tuned = results(root, "toy-epochs-3-selection-tuned-embeddings-random")
    assert tuned["cells"][0]["runs"] == results(root, "toy-epochs-3-embeddings-random")["cells"][0]["runs"]


def test_authors_code_with_another_rule_keeps_that_rule_and_names_it(toy_reproduction):
    """`reproduce toy-authors-code --set selection=best` is the authors' training under rule best, stored as its own
    variant; the grid rule reuses its runs (never the rule silently replaced by grid)."""
    root, experiment, common = toy_reproduction
    best = cli("reproduce", authors_file(experiment), *common, "--set", "selection=best")
    assert best.exit_code == 0, best.output
    grid = cli("reproduce", authors_file(experiment), *common)
    assert grid.exit_code == 0 and "2 reused" in grid.output, grid.output
    chosen = results(root, "toy-authors-code-epochs-3-selection-best-embeddings-random")
    authors = results(root, "toy-authors-code-epochs-3-embeddings-random")
    assert {k: chosen["train"][k] for k in ("selection", "batching", "clip_global_norm")} == {
        "selection": "best", "batching": "class-ratio", "clip_global_norm": 1.0}
    assert authors["train"]["selection"] == "grid"
    runs = chosen["cells"][0]["runs"]
    assert authors["cells"][0]["runs"] == runs and "authors-code" in runs[0]
    records = [load_record(Path(run) / EPOCHS) for run in runs]
    for rule, result in (("best", chosen), ("grid", authors)):
        expected = [scored(r, choose_in(r, rule))["test"]["f1_sarcastic"] for r in records]
        assert result["cells"][0]["metrics"]["f1_sarcastic"]["values"] == pytest.approx(expected)


def test_rule_errors_are_one_line(toy_reproduction, tmp_path):
    root, _, _ = toy_reproduction
    name = "toy-epochs-3-embeddings-random"
    unknown = cli("report", name, "--selection", "bestest", "--results-dir", root / "results")
    assert unknown.exit_code == 2 and "bestest" in unknown.output
    # a run without its record (trained before runs kept one): one line, nothing written
    copy = tmp_path / "results"
    shutil.copytree(root / "results", copy)
    runs = results(root, name)["cells"][0]["runs"]
    moved = tmp_path / "moved.npz"
    shutil.move(Path(runs[0]) / EPOCHS, moved)
    try:
        missing = cli("report", name, "--selection", "grid", "--results-dir", copy)
        assert missing.exit_code == 1 and "1 of 2 runs" in missing.output and "no per-epoch record" in missing.output
        assert len(missing.output.strip().splitlines()) == 1
        (Path(runs[0]) / EPOCHS).write_bytes(b"garbage")
        damaged = cli("report", name, "--selection", "grid", "--results-dir", copy)
        assert damaged.exit_code == 1 and "damaged per-epoch record" in damaged.output
    finally:
        shutil.move(moved, Path(runs[0]) / EPOCHS)
    # a results file whose runs are not here (made on another machine, or the store deleted)
    saved = json.loads((copy / f"{name}.json").read_text())
    saved["cells"][0]["runs"][1] = str(tmp_path / "elsewhere" / "seed-1")
    (copy / f"{name}.json").write_text(json.dumps(saved))
    away = cli("report", name, "--selection", "grid", "--results-dir", copy)
    assert away.exit_code == 1 and "1 of 2 runs" in away.output and "not on this machine" in away.output
    assert len(away.output.strip().splitlines()) == 1


def test_fidelity_sets_the_paper_beside_both_protocols(tmp_path):
    corpus = write_corpus(tmp_path / "toy.csv")
    experiment = tmp_path / "toy.toml"
    experiment.write_text(f"name = 'toy'\n[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n"
                          "isarcasm_impl = { precision_sarcastic = 0.5, recall_sarcastic = 0.6, f1_sarcastic = 0.55 }\n")
    common = ["--seeds", 2, "--epochs", 2, "--set", "embeddings=random", "--split-col", "split",
              "--output-dir", tmp_path / "runs", "--results-dir", tmp_path / "results"]
    # the authors' code's results named as the fidelity report reads them: <as written>-authors-code
    printed = {"as-written": cli("reproduce", experiment, *common),
               "authors-code": cli("reproduce", authors_file(experiment), *common, "--name",
                                   "toy-epochs-2-embeddings-random-authors-code")}
    assert all(result.exit_code == 0 for result in printed.values())
    # the closing note is for the paper's protocol as written only: not for this variant (2 epochs, random vectors)
    assert not any("Protocol: the paper as written." in result.output for result in printed.values())
    results_dir = tmp_path / "results"
    for name in ("toy-epochs-2-embeddings-random", "toy-epochs-2-embeddings-random-authors-code"):
        assert (results_dir / f"{name}.json").is_file(), sorted(p.name for p in results_dir.iterdir())
    report = cli("report", "toy-epochs-2-embeddings-random", "--fidelity", "--results-dir", results_dir)
    assert report.exit_code == 0, report.output
    assert "authors' code" in report.output and "Diagnostic, not a result" in report.output
    saved = results(tmp_path, "toy-epochs-2-embeddings-random-fidelity")
    cell = saved["cells"][0]
    authors = results(tmp_path, "toy-epochs-2-embeddings-random-authors-code")["cells"][0]
    assert cell["protocols"]["authors-code"]["f1_sarcastic"]["values"] == authors["metrics"]["f1_sarcastic"]["values"]
    assert authors["thresholds"] and all(0.05 <= t <= 0.85 for t in authors["thresholds"])
    assert set(cell["ablation"]) == {"as-written+grid", "authors-training+best", "authors-code"}
    assert cell["ablation"]["as-written+grid"]["pairs"] == 2
    # one training element alone joins the ablation, and the report names the results it read
    assert cli("reproduce", experiment, *common, "--set", "batching=class-ratio", "--name",
               "toy-epochs-2-embeddings-random-batching-class-ratio").exit_code == 0
    joined = cli("report", "toy-epochs-2-embeddings-random", "--fidelity", "--results-dir", results_dir)
    assert joined.exit_code == 0, joined.output
    saved = results(tmp_path, "toy-epochs-2-embeddings-random-fidelity")
    assert list(saved["elements"]) == ["class-ratio batches alone"]
    assert f"`{saved['elements']['class-ratio batches alone']}`" in joined.output
    assert saved["cells"][0]["ablation"]["class-ratio batches alone"]["pairs"] == 2
    # the authors' scripts' protocol, where its results exist, is one more column and paired row
    assert cli("reproduce", authors_file(experiment, "authors-scripts"), *common, "--name",
               "toy-epochs-2-embeddings-random-authors-scripts").exit_code == 0
    scripts = cli("report", "toy-epochs-2-embeddings-random", "--fidelity", "--results-dir", results_dir)
    assert scripts.exit_code == 0, scripts.output
    cell = results(tmp_path, "toy-epochs-2-embeddings-random-fidelity")["cells"][0]
    made = results(tmp_path, "toy-epochs-2-embeddings-random-authors-scripts")["cells"][0]
    assert cell["protocols"]["authors-scripts"]["f1_sarcastic"]["values"] == made["metrics"]["f1_sarcastic"]["values"]
    assert cell["ablation"]["authors-scripts"]["pairs"] == 2 and "authors' scripts" in scripts.output
    missing = cli("report", "other", "--fidelity", "--results-dir", results_dir)
    assert missing.exit_code == 1 and "no results 'other'" in missing.output


def test_fidelity_of_a_table6_shape_sets_macro_f1_beside_an_f_score_without_precision(tmp_path):
    """Table 6's "iSarcasm impl." is one F-score per cell, on several corpora, with no precision or recall."""
    cells = "".join(f"[[cells]]\ncorpus = '{write_corpus(tmp_path / f'{name}.csv', seed=seed)}'\nmodel = 'cnn'\n"
                    f"isarcasm_impl = {{ f1_sarcastic = {impl} }}\n"
                    for name, seed, impl in (("first", 0, 0.6), ("second", 1, 0.7)))
    (tmp_path / "six.toml").write_text("name = 'six'\n" + cells)
    common = ["--seeds", 1, "--epochs", 2, "--set", "embeddings=random", "--split-col", "split",
              "--output-dir", tmp_path / "runs", "--results-dir", tmp_path / "results"]
    assert cli("reproduce", tmp_path / "six.toml", *common).exit_code == 0
    name = "six-epochs-2-embeddings-random"
    missing = cli("report", name, "--fidelity", "--results-dir", tmp_path / "results")
    assert missing.exit_code == 1 and len(missing.output.strip().splitlines()) == 1
    assert f"`isarcasm reproduce {name}-authors-code`" in missing.output
    assert cli("reproduce", authors_file(tmp_path / "six.toml"), *common, "--name", f"{name}-authors-code").exit_code == 0
    report = cli("report", name, "--fidelity", "--results-dir", tmp_path / "results")
    assert report.exit_code == 0, report.output
    saved = results(tmp_path, f"{name}-fidelity")
    first, second = saved["cells"]
    assert first["paper"] == {"f1_sarcastic": 0.6} and second["paper"] == {"f1_sarcastic": 0.7}
    authors = first["protocols"]["authors-code"]
    macro = authors["f1_macro"]["values"]
    assert authors["paper_in_macro_range"] == (min(macro) <= 0.6 <= max(macro))
    assert first["ceiling"]["as-written"]["precision_at_paper_recall"] is None
    # rows name corpus and model; macro-F1 is set beside the same number; no precision is invented
    output = unpadded(report.output)
    assert "## Macro-F1 beside the same number" in output and "test splits, mean" in output
    assert f"| {first['corpus']} / cnn | **0.600** |" in output
    assert f"| {second['corpus']} / cnn | 0.700 |" in output
    ceiling = [line for line in output.splitlines() if line.startswith(f"| {first['corpus']} / cnn | as written | 0.600")]
    assert ceiling and ceiling[0].endswith("| — | — |")
    reaching = sum(round(f1, 3) >= 0.6 for f1 in first["ceiling"]["as-written"]["best_f1"])
    assert f"| {reaching} of 1 | — | — |" in ceiling[0]  # the paper reports one run: single seeds are counted

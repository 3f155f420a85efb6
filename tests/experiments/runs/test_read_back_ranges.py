"""What the suite reads back from its own files is range-checked where it is read: a probability out of
[0, 1] in a predictions file or per-epoch record, a score out of its range or a count that is not whole in a
metrics.json or a results file, a config.json edited since its run recorded its hash.  Each is one line naming
the file, the key and the value, never a number drawn or printed."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from experiments.cli import main
from experiments.reports.figures import precision_recall
from experiments.results.files import COMMITTED, load_results
from experiments.runs.one.metrics import classification_metrics
from experiments.runs.one.provenance import recorded_config_hash
from experiments.runs.one.store import RunState, is_finished, read_config, read_metrics, run_state
from experiments.runs.one.outputs import read_predictions
from experiments.runs.one.trajectory import Trajectory, load_record, save_record
from preprocessing.errors import IsarcasmError

GOLD = [0, 1, 1, 0]
SARCASTIC = [0.2, 0.9, 0.6, 0.4]


def predictions_text(sarcastic=SARCASTIC, gold=GOLD) -> str:
    rows = [f"t{i}\t{g}\t{1 - p:.6f}\t{p:.6f}" if isinstance(p, float) and math.isfinite(p) and 0 <= p <= 1
            else f"t{i}\t{g}\t0.5\t{p}" for i, (g, p) in enumerate(zip(gold, sarcastic))]
    return "\n".join(["id\tgold\tp_not_sarcastic\tp_sarcastic", *rows]) + "\n"


def make_run(folder: Path) -> Path:
    """A finished run folder of four test texts, its config.json hashing to the hash it records."""
    folder.mkdir(parents=True)
    config = {"corpus": "toy", "model": "cnn", "seed": 0, "train": {"threshold": 0.5},
              "splits": {"train": 8, "validation": 2, "test": len(GOLD)}}
    config["config_hash"] = recorded_config_hash(config)
    (folder / "config.json").write_text(json.dumps({**config, "label_names": ["not_sarcastic", "sarcastic"],
                                                    "git_commit": "abc", "machine": {}, "command": "isarcasm train"}))
    test = classification_metrics(GOLD, [int(p >= 0.5) for p in SARCASTIC])
    (folder / "metrics.json").write_text(json.dumps({"config_hash": config["config_hash"], "threshold": 0.5,
                                                     "selected_epoch": 1, "validation": test, "test": test}))
    (folder / "predictions.tsv").write_text(predictions_text())
    (folder / "model.keras").write_bytes(b"a model")
    return folder


@pytest.fixture
def run(tmp_path) -> Path:
    return make_run(tmp_path / "runs" / "table7" / "toy" / "cnn" / "seed-0")


def test_a_sound_run_reads_back(run):
    assert is_finished(run) and run_state(run) == RunState.FINISHED
    assert read_metrics(run)["test"]["n"] == len(GOLD) and read_config(run)["model"] == "cnn"
    assert np.allclose(read_predictions(run / "predictions.tsv").probabilities[:, 1], SARCASTIC)


def one_line_error(call, *expected: str) -> str:
    with pytest.raises(IsarcasmError) as caught:
        call()
    message = str(caught.value)
    assert "\n" not in message and all(part in message for part in expected), message
    return message


@pytest.mark.parametrize("value, shown", [("7.5", "p_sarcastic 7.5"), ("nan", "p_sarcastic nan"),
                                          ("-0.1", "p_sarcastic -0.1"), ("inf", "p_sarcastic inf")])
def test_a_probability_out_of_0_1_in_a_predictions_file_is_refused_naming_row_and_column(run, value, shown):
    (run / "predictions.tsv").write_text(predictions_text([0.2, 0.9, value, 0.4]))
    one_line_error(lambda: read_predictions(run / "predictions.tsv"),
                   f"{run / 'predictions.tsv'}:4: {shown} is not a probability (a number from 0 to 1)", "damaged")


def test_a_gold_label_that_is_no_class_is_refused(run):
    (run / "predictions.tsv").write_text(predictions_text(gold=[0, 1, 2, 0]))
    one_line_error(lambda: read_predictions(run / "predictions.tsv"),
                   "predictions.tsv:4: gold 2 is not a class (0 to 1)")


def test_the_precision_recall_figure_never_draws_a_damaged_predictions_file(run, tmp_path):
    """The figure that drew p_sarcastic 7.5 as a curve (AP 0.44 shown, 0.397 recorded) refuses it."""
    (run / "predictions.tsv").write_text(predictions_text([7.5, 0.9, 0.6, 0.4]))
    cell = {"model": "cnn", "runs": [str(run)], "metrics": {"f1_sarcastic": {"mean": 0.5, "std": 0, "values": [0.5]}}}
    one_line_error(lambda: precision_recall("toy", [cell], tmp_path / "pr.png"), "p_sarcastic 7.5 is not a probability")
    assert not (tmp_path / "pr.png").exists()


def edit_metrics(run: Path, change) -> None:
    metrics = json.loads((run / "metrics.json").read_text())
    change(metrics)
    (run / "metrics.json").write_text(json.dumps(metrics))


@pytest.mark.parametrize("change, shown", [
    (lambda m: m["test"].update(f1_sarcastic=1.7), "test.f1_sarcastic 1.7 is not a score (a number from 0 to 1)"),
    (lambda m: m["test"].update(f1_macro=1e308), "test.f1_macro 1e+308 is not a score"),
    (lambda m: m["test"].update(accuracy=float("nan")), "test.accuracy NaN is not a score"),
    (lambda m: m["validation"]["per_class"]["1"].update(recall=-0.2), "validation.per_class.1.recall -0.2 is not"),
    (lambda m: m["test"].update(n=2.5), "test.n holds 2.5, not a count (a whole number, at least 0)"),
    (lambda m: m["test"]["per_class"]["0"].update(support=-1), "test.per_class.0.support holds -1, not a count"),
    (lambda m: m["test"]["confusion_matrix"][0].__setitem__(1, 2.5), "test.confusion_matrix holds 2.5, not a count"),
    (lambda m: m.update(threshold=3), "threshold 3 is not a score"),
])
def test_a_score_out_of_its_range_or_a_count_not_whole_in_metrics_json_is_refused(run, change, shown):
    edit_metrics(run, change)
    one_line_error(lambda: read_metrics(run), f"{run / 'metrics.json'}: {shown}", "damaged")


def test_a_config_edited_since_its_hash_was_recorded_is_a_damaged_run(run):
    """cnn -> lstm: the run was reported under the edited name; now its config is checked against its hash."""
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "model": "lstm"}))
    assert not is_finished(run) and run_state(run) == RunState.DAMAGED
    for read in (read_config, read_metrics):
        one_line_error(lambda: read(run), f"{run / 'config.json'} is damaged (edited since it was written")


def test_a_config_whose_hash_was_rewritten_but_not_the_runs_is_refused(run):
    """Re-recording the hash in config.json alone does not pass: metrics.json records the run's."""
    config = {**json.loads((run / "config.json").read_text()), "model": "lstm"}
    config["config_hash"] = recorded_config_hash(config)
    (run / "config.json").write_text(json.dumps(config))
    assert not is_finished(run)
    one_line_error(lambda: read_config(run), "is damaged (edited since it was written")


def test_labels_and_provenance_are_no_part_of_the_hash(run):
    """What config.json records beside the configuration (label names, commit, machine) may differ between
    versions of a run: the run stays finished."""
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "git_commit": "other", "label_names": ["a", "b"]}))
    assert is_finished(run)


def test_the_provenance_a_run_records_is_no_part_of_its_hash():
    """A key added to the provenance record must be left out of the hash too, else every run written after
    would read as edited."""
    from experiments.runs.one import provenance

    assert set(provenance.record()) <= set(provenance.RECORDED_BESIDE)


@pytest.mark.parametrize("value, shown", [(7.5, "7.5"), (-0.1, "-0.1")])
def test_a_per_epoch_record_with_a_probability_out_of_0_1_is_refused(tmp_path, value, shown):
    gold = np.eye(2)[[0, 1]]
    probabilities = np.asarray([[[0.7, 0.3], [0.2, 0.8]]])
    path = tmp_path / "epochs.npz"
    save_record(path, Trajectory(probabilities, probabilities, gold, gold))
    assert load_record(path).epochs == 1
    spoiled = probabilities.copy()
    spoiled[0, 1, 1] = value
    save_record(path, Trajectory(probabilities, spoiled, gold, gold))
    one_line_error(lambda: load_record(path), f"{path}: damaged per-epoch record", "not a number from 0 to 1")


def results_with(tmp_path: Path, change) -> Path:
    """The committed table7 results in a results folder, with ``change`` applied to its first cell."""
    result = json.loads((COMMITTED / "table7.json").read_text())
    change(result["cells"][0])
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "table7.json").write_text(json.dumps(result))
    return folder


@pytest.mark.parametrize("change, shown", [
    (lambda cell: cell["metrics"]["f1_sarcastic"].update(mean=1.7), "f1_sarcastic 1.7 is not a score"),
    (lambda cell: cell["metrics"]["f1_sarcastic"]["values"].__setitem__(0, 1e308), "f1_sarcastic 1e+308 is not"),
    (lambda cell: cell["metrics"]["f1_macro"].update(std=-0.1), "f1_macro std -0.1 is not a spread of scores"),
    (lambda cell: cell["references"][0].update(value=36.4), "36.4 is not a score (a number from 0 to 1)"),
])
def test_a_results_file_with_a_value_out_of_its_range_is_refused_by_the_report(tmp_path, change, shown):
    folder = results_with(tmp_path, change)
    one_line_error(lambda: load_results(folder / "table7.json"), f"{folder / 'table7.json'}: cell 1: ", shown,
                   "damaged")
    result = CliRunner().invoke(main, ["report", "table7", "--results-dir", str(folder)])
    assert result.exit_code == 1 and shown in result.output and "Traceback" not in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_the_committed_results_all_load(tmp_path):
    """Every committed results file passes the range checks."""
    files = [path for path in sorted(COMMITTED.glob("**/*.json")) if "runs" not in path.parts]
    loaded = 0
    for path in files:
        copy = tmp_path / path.name
        shutil.copy(path, copy)
        try:
            load_results(copy)
            loaded += 1
        except IsarcasmError as exc:
            assert "not a results file" in str(exc) or "unknown kind" in str(exc), exc
    assert loaded > 100


@pytest.mark.parametrize("row, shown", [("2,1.7,0.5", "history.csv:3: f1 1.7 is not a score"),
                                        ("2,0.5,nan", "history.csv:3: loss nan is not a finite number"),
                                        ("2,0.5,lots", "history.csv:3: loss 'lots' is not a number")])
def test_a_history_value_that_is_no_score_is_refused_not_drawn(run, row, shown):
    from experiments.runs.one.outputs import read_history

    (run / "history.csv").write_text("epoch,f1,loss\n1,0.25,0.7\n")
    assert list(read_history(run)["f1"]) == [0.25]
    (run / "history.csv").write_text(f"epoch,f1,loss\n1,0.25,0.7\n{row}\n")
    one_line_error(lambda: read_history(run), shown, "damaged")


@pytest.mark.parametrize("name, change, shown", [
    ("benchmark-bigru", lambda r: r["cells"][0]["candidate"].update(mean=1.7),
     "cell 1: f1_sarcastic 1.7 is not a score"),
    ("benchmark-bigru", lambda r: r["cells"][0]["classics"][0]["values"].__setitem__(0, 1e308),
     "cell 1: f1_sarcastic 1e+308 is not a score"),
    ("cross", lambda r: r["majority"]["isarcasm"].update(f1_macro=1.7),
     "majority.isarcasm.f1_macro 1.7 is not a score"),
])
def test_a_benchmark_or_cross_file_with_a_score_out_of_its_range_is_refused(tmp_path, name, change, shown):
    result = json.loads((COMMITTED / f"{name}.json").read_text())
    load_results(COMMITTED / f"{name}.json")
    change(result)
    (tmp_path / f"{name}.json").write_text(json.dumps(result))
    one_line_error(lambda: load_results(tmp_path / f"{name}.json"), f"{tmp_path / name}.json: ", shown, "damaged")

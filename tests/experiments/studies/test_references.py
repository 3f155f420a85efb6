"""Reference rows (not from the paper): all-sarcastic, majority and TF-IDF + logistic regression, as runs
of the store, chosen on validation only, and their section of a reproduction's report."""
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.metrics import f1_score, precision_recall_fscore_support
from markdown_tables import unpadded
from toy_corpus import write_corpus, train_toy

from experiments.cli import main
from experiments.reports.significance import compare_runs
from experiments.reports.table import markdown_report
from experiments.results.schema import Result
from experiments.runs.one.footprint import COSTS
from experiments.runs.entrants.registry import TFIDF_LR_GRID, plan_run, score_run, tfidf_lr
from experiments.runs.one.protocol import TrainConfig, make_splits
from experiments.runs.one.store import is_finished, run_dir
from experiments.runs.one.outputs import read_predictions
from experiments.runs.one.training import expected_hash
from experiments.studies.cross_eval import Scored
from experiments.studies.experiment import Cell
from experiments.studies.cells import aggregate
from preprocessing.corpora import load_corpus
from experiments.runs.one.spec import RunPlace, RunSpec

ONE_EPOCH = TrainConfig(epochs=1, embeddings="random")
VARIANT = "epochs-1-embeddings-random"  # the store name suffix of ONE_EPOCH


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    root = tmp_path_factory.mktemp("references")
    corpus = write_corpus(root / "toy.csv")
    flipped = write_corpus(root / "flipped.csv", flip_test=True)  # the same texts; the test labels inverted
    return root, corpus, flipped


def dataset(path, root):
    return load_corpus(str(path), root, split_col="split")


def scored(name, path, root, seed=0, force=False, train=TrainConfig()):
    data = dataset(path, root)
    directory = run_dir(root / "runs", "refs", str(path), name, seed)
    return score_run(plan_run(RunSpec(data.name, name, seed, train), data, root), RunPlace(directory), force=force)


@pytest.mark.parametrize("name", ["all-sarcastic", "majority", "tfidf-lr"])
def test_a_reference_is_a_finished_run_of_the_store_format(toy, name):
    root, corpus, _ = toy
    run = scored(name, corpus, root)
    config = json.loads((run.directory / "config.json").read_text())
    splits = make_splits(dataset(corpus, root), 0)
    assert config["splits"] == {"train": len(splits.train), "validation": len(splits.validation),
                                "test": len(splits.test), "validation_source": splits.validation_source}
    assert set(config["data_sha256"]) == {"toy.csv"} and config["entrant"]["kind"] == "reference"
    assert {"git_commit", "versions", "machine", "command"} <= set(config)  # the provenance record
    assert is_finished(run.directory, config["config_hash"])
    fitted = ["estimator.joblib"] if name == "tfidf-lr" else []  # a fitted estimator keeps its model
    assert sorted(p.name for p in run.directory.iterdir()) == sorted(["config.json", "entrant.json", "metrics.json",
                                                                       "predictions.tsv", *fitted])
    predictions = read_predictions(run.directory / "predictions.tsv")
    assert predictions.ids == [r.id for r in splits.test]
    own = Scored.from_run(run.directory)  # what the benchmark and cross-eval read
    assert own.threshold == 0.5 and own.metrics == run.metrics["test"]
    predicted = predictions.labels(0.5)
    precision, recall, f1, _ = precision_recall_fscore_support(predictions.gold, predicted, labels=[0, 1],
                                                               zero_division=0)
    assert run.metrics["test"]["f1_sarcastic"] == pytest.approx(f1[1])
    assert run.metrics["test"]["precision_sarcastic"] == pytest.approx(precision[1])
    assert run.metrics["test"]["f1_macro"] == pytest.approx(f1_score(predictions.gold, predicted, average="macro"))


def test_all_sarcastic_and_majority_label_every_text_alike(toy):
    root, corpus, _ = toy
    gold = np.array([r.label for r in dataset(corpus, root).split("test")])
    everything = read_predictions(scored("all-sarcastic", corpus, root).directory / "predictions.tsv")
    assert (everything.labels() == 1).all()
    assert scored("all-sarcastic", corpus, root).metrics["test"]["f1_sarcastic"] == pytest.approx(
        f1_score(gold, np.ones_like(gold)))
    majority = scored("majority", corpus, root)  # a quarter of the toy texts are sarcastic: the majority is 0
    assert (read_predictions(majority.directory / "predictions.tsv").labels() == 0).all()
    assert majority.metrics["test"]["f1_macro"] == pytest.approx(
        f1_score(gold, np.zeros_like(gold), average="macro", zero_division=0))
    assert json.loads((majority.directory / "entrant.json").read_text())["chosen"]["label"] == 0


def test_tfidf_lr_separates_the_toy_corpus_and_chooses_c_by_validation_f1(toy):
    root, corpus, _ = toy
    run = scored("tfidf-lr", corpus, root)
    assert run.metrics["test"]["f1_sarcastic"] == 1.0
    chosen = json.loads((run.directory / "entrant.json").read_text())["chosen"]
    # The same grid, fitted and scored on the run's own validation split with scikit-learn directly.
    splits = make_splits(dataset(corpus, root), 0)
    expected = []
    for c in TFIDF_LR_GRID["classifier__C"]:
        pipeline = tfidf_lr(0).set_params(classifier__C=c).fit([r.text for r in splits.train],
                                                                 [r.label for r in splits.train])
        predicted = pipeline.predict_proba([r.text for r in splits.validation])[:, 1] >= 0.5
        expected.append(f1_score([r.label for r in splits.validation], predicted))
    assert [t["f1_sarcastic"] for t in chosen["validation"]] == pytest.approx(expected)
    assert chosen["params"] == {"classifier__C": TFIDF_LR_GRID["classifier__C"][int(np.argmax(expected))]}


def test_the_test_labels_choose_nothing(toy):
    """The same texts with the test labels inverted: the same choice and the same probabilities."""
    root, corpus, flipped = toy
    for name in ("majority", "tfidf-lr"):
        plain, inverted = scored(name, corpus, root), scored(name, flipped, root)
        chosen = [json.loads((run.directory / "entrant.json").read_text())["chosen"] for run in (plain, inverted)]
        assert chosen[0] == chosen[1]
        assert plain.metrics["validation"] == inverted.metrics["validation"]
        a, b = (read_predictions(run.directory / "predictions.tsv") for run in (plain, inverted))
        assert np.array_equal(a.probabilities, b.probabilities) and np.array_equal(a.gold, 1 - b.gold)


def test_a_reference_run_is_reused_and_is_the_same_when_scored_again(toy):
    root, corpus, _ = toy
    first = scored("tfidf-lr", corpus, root, seed=1)
    before = (first.directory / "predictions.tsv").read_bytes()
    assert scored("tfidf-lr", corpus, root, seed=1).skipped
    again = scored("tfidf-lr", corpus, root, seed=1, force=True)
    assert not again.skipped and (again.directory / "predictions.tsv").read_bytes() == before
    assert {k: v for k, v in again.metrics.items() if k not in COSTS} == \
        {k: v for k, v in first.metrics.items() if k not in COSTS}


def test_reproduce_references_adds_a_section_and_leaves_the_model_runs_alone(toy):
    root, _, _ = toy
    corpus = write_corpus(root / "mini.csv", seed=3)  # no reference run of it yet
    # A cnn run made before, without references: reproduce --references must reuse it (same hash).
    cnn = run_dir(root / "runs", f"mini-{VARIANT}", str(corpus), "cnn", 0)
    data = dataset(corpus, root)
    train_toy(data, "cnn", cnn, root, ONE_EPOCH)
    experiment = root / "mini.toml"
    experiment.write_text(f"name = 'mini'\n[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n"
                          "isarcasm_impl = { f1_sarcastic = 0.5 }\n")
    result = CliRunner().invoke(main, ["reproduce", str(experiment), "--references", "--seeds", "1", "--epochs", "1",
                                       "--set", "embeddings=random", "--split-col", "split",
                                       "--output-dir", str(root / "runs"), "--results-dir", str(root / "results")])
    assert result.exit_code == 0, result.output
    saved = json.loads((root / "results" / f"mini-{VARIANT}.json").read_text())
    assert saved["cells"][0]["reused_runs"] == 1 and saved["cells"][0]["runs"] == [str(cnn)]
    assert json.loads((cnn / "metrics.json").read_text())["config_hash"] == expected_hash(RunSpec(data.name, "cnn", 0, ONE_EPOCH), data, root)
    assert [row["model"] for row in saved["reference_rows"]] == ["all-sarcastic", "majority", "tfidf-lr"]
    assert all(row["note"] == "reference row, not from the paper" for row in saved["reference_rows"])
    tfidf = saved["reference_rows"][2]
    assert tfidf["runs"] == [str(run_dir(root / "runs", f"mini-{VARIANT}", str(corpus), "tfidf-lr", 0))]
    assert tfidf["metrics"]["f1_sarcastic"]["mean"] == 1.0
    # stdout: a line per finished cell (tfidf-lr's too: one sweep), then the table; the progress bars are on stderr
    lines, report = unpadded(result.stdout).split("# mini — ", 1)
    assert "mini/cnn: F1(sarcastic)" in lines and "mini/tfidf-lr: F1(sarcastic) 1.000" in lines
    paper_table, references = report.split("## Reference rows (not from the paper)")
    assert "tfidf-lr" not in paper_table and "| mini | cnn | f1_sarcastic |" in paper_table
    assert "| mini | tfidf-lr | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 |" in references
    # The reference runs are paired with the model's by the significance tests as any run is.
    test = compare_runs({0: read_predictions(cnn / "predictions.tsv")},
                        {0: read_predictions(Path(tfidf["runs"][0]) / "predictions.tsv")}, n_resamples=200)
    assert 0 < test["combined"]["p_value"] <= 1
    # `report` prints the same section from the results file.
    report = CliRunner().invoke(main, ["report", f"mini-{VARIANT}", "--results-dir", str(root / "results")])
    assert report.exit_code == 0 and "## Reference rows (not from the paper)" in report.output


def test_the_report_has_no_reference_section_without_reference_rows():
    cell = aggregate(Cell("riloff", "lstm"), [{"test": {"f1_sarcastic": 0.5, "f1_macro": 0.6}}], ["d"], [0])
    result = Result("table", "t", [cell], {"title": "T", "source": "S", "seeds": [0], "git_commit": "abc",
                                           "wall_seconds": 1, "compute_seconds": 1})
    assert "Reference rows" not in markdown_report(result)
    row = aggregate(Cell("riloff", "majority", note="reference row, not from the paper"),
                    [{"test": {"f1_sarcastic": 0.0, "f1_macro": 0.4}}, {"test": {"f1_sarcastic": 0.0, "f1_macro": 0.4}}],
                    ["d", "e"], [0, 1])
    row["entrant"] = {"kind": "reference", "description": "every text labelled the majority class"}
    result = result.updated(reference_rows=[row])
    text = unpadded(markdown_report(result))
    assert "| riloff | majority | 0.000 ± 0.000 | 0.400 ± 0.000 |" in text
    assert "- majority: every text labelled the majority class" in text


def test_evaluating_a_reference_run_says_it_has_no_model(toy):
    root, corpus, _ = toy
    run = scored("majority", corpus, root)
    result = CliRunner().invoke(main, ["evaluate", str(run.directory), "--split-col", "split"])
    assert result.exit_code == 1 and "is an entrant's run" in result.output and "Traceback" not in result.output


def test_a_rule_applied_to_the_record_leaves_the_reference_rows_as_scored(toy):
    """One sweep trains the model's runs and scores the reference rows; ``selection = "tuned"`` is applied to the
    per-epoch record of the model's best runs, never to a reference run, which has none and is the same run."""
    root, _, _ = toy
    corpus = write_corpus(root / "tuned.csv", seed=5)
    experiment = root / "tuned.toml"
    experiment.write_text(f"name = 'tuned'\n[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n")
    saved = {}
    for rule in ("best", "tuned"):
        result = CliRunner().invoke(main, ["reproduce", str(experiment), "--references", "--seeds", "1", "--epochs",
                                           "1", "--set", "embeddings=random", "--set", f"selection={rule}",
                                           "--split-col", "split", "--name", f"tuned-{rule}",
                                           "--output-dir", str(root / "runs"), "--results-dir", str(root / "results")])
        assert result.exit_code == 0, result.output
        saved[rule] = json.loads((root / "results" / f"tuned-{rule}.json").read_text())
    best, tuned = saved["best"], saved["tuned"]
    assert tuned["cells"][0]["runs"] == best["cells"][0]["runs"] and tuned["cells"][0]["reused_runs"] == 1
    assert tuned["cells"][0]["thresholds"] != best["cells"][0]["thresholds"]  # tuned on validation, from the record
    for before, after in zip(best["reference_rows"], tuned["reference_rows"]):
        assert after["runs"] == before["runs"] and after["reused_runs"] == 1 and after["metrics"] == before["metrics"]
        assert after["entrant"]["kind"] == "reference" and after["failed_runs"] == []

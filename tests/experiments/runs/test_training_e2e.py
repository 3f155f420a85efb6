"""The whole protocol on a tiny fixture corpus: train, resume, determinism, no test peeking,
evaluate, predict and a --quick reproduction through the CLI."""
import json

import pytest
from click.testing import CliRunner
from markdown_tables import unpadded
from toy_corpus import write_corpus, train_toy

from experiments.cli import main
from experiments.runs.one.protocol import TrainConfig
from preprocessing.corpora import load_corpus
from experiments.runs.one.spec import RunOptions

FAST = TrainConfig(epochs=3, batch_size=32, embeddings="random")


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("data") / "toy.csv")


def load(path):
    return load_corpus(str(path), path.parent, split_col="split")


@pytest.fixture(scope="module")
def finished_run(corpus_file, tmp_path_factory):
    directory = tmp_path_factory.mktemp("runs") / "cnn"
    return train_toy(load(corpus_file), "cnn", directory, corpus_file.parent, FAST)


def test_a_run_writes_every_artefact(finished_run):
    names = {p.name for p in finished_run.directory.iterdir()}
    assert {"config.json", "metrics.json", "predictions.tsv", "history.csv", "model.keras", "vocab.json"} <= names
    config = json.loads((finished_run.directory / "config.json").read_text())
    assert config["seed"] == 0 and config["train"]["epochs"] == 3
    assert set(config["versions"]) >= {"tensorflow", "keras", "numpy"} and config["git_commit"]
    assert config["machine"]["cores"] >= 1 and config["machine"]["cpu"]
    assert list(config["data_sha256"].values())[0] and config["splits"]["validation"] == 16
    assert len((finished_run.directory / "history.csv").read_text().splitlines()) == 4
    assert len((finished_run.directory / "predictions.tsv").read_text().splitlines()) == 41


def test_same_configuration_is_reused_and_force_retrains(finished_run, corpus_file):
    again = train_toy(load(corpus_file), "cnn", finished_run.directory, corpus_file.parent, FAST)
    assert again.skipped and again.metrics == finished_run.metrics
    forced = train_toy(load(corpus_file), "cnn", finished_run.directory, corpus_file.parent, FAST,
                       RunOptions(verbose=0, force=True))
    assert not forced.skipped


def test_same_seed_gives_the_same_numbers(finished_run, corpus_file, tmp_path):
    other = train_toy(load(corpus_file), "cnn", tmp_path / "again", corpus_file.parent, FAST)
    assert other.metrics["test"] == finished_run.metrics["test"]
    assert (tmp_path / "again/predictions.tsv").read_text() == (finished_run.directory / "predictions.tsv").read_text()


def test_selection_never_looks_at_the_test_split(finished_run, tmp_path):
    """Flipping every test label changes test metrics but not what was selected."""
    flipped = write_corpus(tmp_path / "toy.csv", flip_test=True)
    run = train_toy(load(flipped), "cnn", tmp_path / "flipped", tmp_path, FAST)
    assert run.metrics["selected_epoch"] == finished_run.metrics["selected_epoch"]
    assert run.metrics["validation"] == finished_run.metrics["validation"]
    assert (tmp_path / "flipped/history.csv").read_text() == (finished_run.directory / "history.csv").read_text()
    assert run.metrics["test"]["accuracy"] == pytest.approx(1 - finished_run.metrics["test"]["accuracy"])


def test_evaluate_and_predict_through_the_cli(finished_run, corpus_file):
    runner = CliRunner()
    result = runner.invoke(main, ["evaluate", str(finished_run.directory), "--corpus", str(corpus_file),
                                  "--split-col", "split", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["test"] == finished_run.metrics["test"]
    result = runner.invoke(main, ["predict", str(finished_run.directory), "--text", "coffee exam yeah right"])
    header, row = result.stdout.splitlines()
    assert result.exit_code == 0 and header == "label\tp_sarcastic\ttext"
    assert row.split("\t")[0] in {"sarcastic", "not_sarcastic"} and row.endswith("\tcoffee exam yeah right")


def test_quick_reproduction_end_to_end(corpus_file, tmp_path):
    experiment = tmp_path / "toy.toml"
    experiment.write_text(f"name = 'toy'\n[[cells]]\ncorpus = '{corpus_file}'\nmodel = 'lstm'\n"
                          "isarcasm_impl = { f1_sarcastic = 0.5 }\n")
    args = ["reproduce", str(experiment), "--quick", "--seeds", "2", "--set", "embeddings=random",
            "--split-col", "split", "--output-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "results")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "| toy | lstm | f1_sarcastic | 0.500 |" in unpadded(result.output)  # the paper's number, under "paper"
    assert "**Smoke run**" in result.output and "⚑" not in result.output
    name = "toy-quick-embeddings-random"  # a variant never shares a name with the faithful protocol
    saved = json.loads((tmp_path / f"results/{name}.json").read_text())
    assert saved["seeds"] == [0, 1] and len(saved["cells"][0]["runs"]) == 2
    assert [origin["runs"] for origin in saved["run_origins"]] == [2]  # both trained by this checkout
    assert (tmp_path / f"results/{name}.csv").is_file() and (tmp_path / f"results/{name}.md").is_file()
    report = CliRunner().invoke(main, ["report", name, "--results-dir", str(tmp_path / "results")])
    assert report.exit_code == 0 and "| toy | lstm |" in unpadded(report.output)


def test_an_experiment_reuses_the_same_run_finished_for_another_experiment(corpus_file, tmp_path):
    def reproduce(name, *extra):
        experiment = tmp_path / f"{name}.toml"
        experiment.write_text(f"name = '{name}'\n[[cells]]\ncorpus = '{corpus_file}'\nmodel = 'cnn'\n")
        args = ["reproduce", str(experiment), "--quick", "--set", "embeddings=random", "--split-col", "split",
                "--output-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "results"), *extra]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        saved, = (tmp_path / "results").glob(f"{name}-*.json")
        return json.loads(saved.read_text())["cells"][0]

    first = reproduce("first")
    second = reproduce("second")  # same cell, seed and protocol: nothing is trained again
    assert second["runs"] == first["runs"] and second["reused_runs"] == 1
    assert second["metrics"] == first["metrics"]
    assert not (tmp_path / "runs" / "second-quick-embeddings-random").exists()
    forced = reproduce("second", "--force")  # --force trains it in the experiment's own folder
    assert forced["runs"] != first["runs"] and "second-quick-embeddings-random" in forced["runs"][0]
    other = reproduce("third", "--lr", "0.01")  # another configuration is never taken for the same run
    assert other["reused_runs"] == 0


def test_train_cli_stores_a_preprocessing_variant_under_its_own_name(corpus_file, tmp_path):
    args = ["train", "--corpus", str(corpus_file), "--split-col", "split", "--model", "cnn", "--epochs", "1",
            "--set", "embeddings=random", "--set", "numbers=keep", "--output-dir", str(tmp_path)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    run = tmp_path / "train-epochs-1-embeddings-random-numbers-keep/toy/cnn/seed-0"
    assert json.loads((run / "config.json").read_text())["preprocess"]["numbers"] == "keep"
    assert "test (sarcastic class): precision" in result.output


def test_corpus_files_that_differ_from_the_catalog_are_named():
    from pathlib import Path

    from experiments.runs.one.training import modified_files
    from preprocessing.corpora import CORPORA, get_corpus

    files = get_corpus("riloff").files
    published = {Path(f.path).name: f.sha256 for f in files}
    assert modified_files("riloff", published) == []
    edited = {**published, Path(files[1].path).name: "0" * 64}
    assert modified_files("riloff", edited) == [files[1].path]
    assert modified_files("my.csv", {"my.csv": "0" * 64}) == [] and "my.csv" not in CORPORA

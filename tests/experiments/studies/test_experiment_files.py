"""Experiment files: the shipped tables load, select, and bad files fail clearly."""
import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments.cli import main
from experiments.results.schema import Result
from experiments.studies.experiment import load_experiment
from preprocessing.errors import IsarcasmError
from experiments.runs.many.scheduler import LocalExecutor
from experiments.runs.one.spec import RunSpec
from experiments.runs.one.store import RunStore


def test_table6_lists_the_papers_cells_with_like_for_like_references():
    t6 = load_experiment("table6")
    assert len(t6.cells) == 13
    riloff_lstm = next(c for c in t6.cells if c.key == "riloff/lstm")
    refs = {(r.label, r.metric): r.value for r in riloff_lstm.references}
    assert refs == {("published", "f1_macro"): 0.673, ("iSarcasm impl.", "f1_sarcastic"): 0.669}
    assert {c.corpus for c in t6.cells} == {"riloff", "ptacek", "sarc-pol", "sarc-pol-imbalanced", "semeval2018-a"}


def test_table7_has_seven_models_on_two_corpora_and_the_human_row():
    t7 = load_experiment("table7")
    models = {"lstm", "att-lstm", "cnn", "siarn", "miarn", "3cnn", "dense-lstm"}
    assert {c.model for c in t7.cells if c.corpus == "isarcasm"} == models
    assert {c.model for c in t7.cells if c.corpus == "isarcasmeval" and not c.is_human} == models
    human = [c for c in t7.cells if c.is_human]
    assert len(human) == 1 and {r.metric: r.value for r in human[0].references}["f1_sarcastic"] == 0.616


def test_select_filters_and_rejects_unknown_names():
    t7 = load_experiment("table7")
    assert {c.key for c in t7.select(models=["cnn"], corpora=["isarcasm"]).cells} == {"isarcasm/cnn"}
    with pytest.raises(IsarcasmError, match="no cell with model lstmm"):
        t7.select(models=["lstmm"])


@pytest.mark.parametrize("content, message", [
    ("name = 'x'\n", "no \\[\\[cells\\]\\]"),
    ("[[cells]]\ncorpus = 'riloff'\n", "needs both"),
    ("[[cells]]\ncorpus='a'\nmodel='b'\nisarcasm_impl = { f2 = 0.5 }\n", "unknown metric"),
    ("[[cells]\n", "not a valid TOML"),
    ("[train]\nepoch = 3\n[[cells]]\ncorpus='a'\nmodel='b'\n", "unknown setting\\(s\\) epoch \\(did you mean 'epochs'"),
    ("[train]\nEpochs = 3\n[[cells]]\ncorpus='a'\nmodel='b'\n", "unknown setting\\(s\\) Epochs \\(did you mean 'epochs'"),
    ("[train]\ncontext = 'both'\n[[cells]]\ncorpus='a'\nmodel='b'\n",
     "\\[train\\]: context must be one of none, last, all, not 'both'"),
])
def test_bad_experiment_files_fail_with_the_reason(tmp_path, content, message):
    path = tmp_path / "exp.toml"
    path.write_text(content)
    with pytest.raises(IsarcasmError, match=message):
        load_experiment(str(path))


def test_unknown_experiment_name_lists_the_known_ones():
    with pytest.raises(IsarcasmError, match="table6, table6-authors-code, table6-authors-scripts, table7"):
        load_experiment("table8")


def test_multilingual_uses_word2vec_as_its_protocol_and_names_variants_against_it():
    ml = load_experiment("multilingual")
    assert {c.corpus for c in ml.cells} == {"tosarcasm", "kocosa"}
    assert "dense-lstm" not in {c.model for c in ml.cells}
    protocol = ml.protocol()
    assert protocol.embeddings == "word2vec" and protocol.epochs == 30
    assert protocol.variant(protocol) == ""
    assert replace(protocol, context="all").variant(protocol) == "context-all"
    assert replace(protocol, embeddings="glove").variant(protocol) == "embeddings-glove"
    assert ml.select(corpora=["kocosa"]).protocol() == protocol


def test_reproduce_takes_the_experiment_protocol_unless_an_option_is_given(tmp_path, monkeypatch):
    seen = {}

    def fake_run(spec, seeds, settings, **_):
        seen["train"] = settings.train_for(spec.protocol())
        return Result("table", "x", [], {"title": "x", "source": "S", "seeds": [1], "git_commit": "c",
                                         "wall_seconds": 0, "compute_seconds": 0})

    monkeypatch.setattr("experiments.cli.reproduce.run_experiment", fake_run)
    for extra, embeddings in (([], "word2vec"), (["--set", "embeddings=random"], "random")):
        result = CliRunner().invoke(main, ["--data-dir", str(tmp_path), "reproduce", "multilingual", "--seeds", "1",
                                           "--output-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res"), *extra])
        assert result.exit_code == 0, result.output
        assert seen["train"].embeddings == embeddings


@pytest.mark.parametrize("train, message", [
    ("threshold = 1.5", "\\[train\\]: threshold must be a number greater than 0 and less than 1, not 1.5"),
    ("threshold = 'high'", "\\[train\\]: threshold must be a number greater than 0 and less than 1, not 'high'"),
    ("max_train = 0", "\\[train\\]: max_train must be a whole number at least 1, not 0"),
    ("max_train = 50.5", "\\[train\\]: max_train must be a whole number at least 1, not 50.5"),
    ("epochs = true", "\\[train\\]: epochs must be a whole number at least 1 and at most 100,000, not True"),
    ("validation_fraction = 1.0",
     "\\[train\\]: validation_fraction must be a number greater than 0 and less than 1, not 1.0"),
])
def test_train_settings_that_cannot_be_honoured_are_refused_in_one_line(tmp_path, train, message):
    path = tmp_path / "exp.toml"
    path.write_text(f"[train]\n{train}\n[[cells]]\ncorpus='a'\nmodel='b'\n")
    with pytest.raises(IsarcasmError, match=message) as error:
        load_experiment(str(path))
    assert "\n" not in str(error.value)


def test_a_whole_number_is_the_same_float_setting(tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text("[train]\nlearning_rate = 1\n[[cells]]\ncorpus='a'\nmodel='b'\n")
    assert dict(load_experiment(str(path)).train) == {"learning_rate": 1.0}
    assert isinstance(dict(load_experiment(str(path)).train)["learning_rate"], float)


SETTINGS_TOML = "name = 'settings'\n[train]\nthreshold = 0.3\nvalidation_fraction = 0.2\nmax_train = 50\n"


def test_reproduce_passes_the_train_settings_that_are_no_command_line_option(tmp_path, monkeypatch):
    """threshold, validation_fraction and max_train have no option: the experiment's values are used, and named
    only where the runs differ from them."""
    seen = {}

    def fake_run(spec, seeds, settings, **_):
        seen["train"] = settings.train_for(spec.protocol())
        seen["name"] = settings.experiment(spec.name, spec.protocol())
        return Result("table", "x", [], {"title": "x", "source": "S", "seeds": [1], "git_commit": "c",
                                         "wall_seconds": 0, "compute_seconds": 0})

    monkeypatch.setattr("experiments.cli.reproduce.run_experiment", fake_run)
    path = tmp_path / "settings.toml"
    path.write_text(SETTINGS_TOML + "[[cells]]\ncorpus = 'riloff'\nmodel = 'cnn'\n")
    for extra, name, max_train in (([], "settings", 50), (["--lr", "0.002"], "settings-learning-rate-0.002", 50),
                                   (["--quick"], "settings-quick", 600)):
        result = CliRunner().invoke(main, ["--data-dir", str(tmp_path), "reproduce", str(path), "--seeds", "1",
                                           "--output-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res"), *extra])
        assert result.exit_code == 0, result.output
        assert (seen["train"].threshold, seen["train"].validation_fraction, seen["train"].max_train) == \
            (0.3, 0.2, max_train)
        assert seen["name"] == name


def test_settings_take_the_protocol_for_what_no_option_sets():
    from experiments.runs.one.protocol import QUICK, TrainConfig
    from experiments.studies.settings import Corpora, Settings, TrainChoice

    protocol = TrainConfig(threshold=0.3, validation_fraction=0.2, max_train=50, embeddings="word2vec")
    used = Settings(Corpora(Path("data")), training=TrainChoice.of(TrainConfig(epochs=1))).train_for(protocol)
    assert (used.threshold, used.validation_fraction, used.max_train, used.epochs, used.embeddings) == \
        (0.3, 0.2, 50, 1, "word2vec")  # command-line options (here: given) win, the others are the protocol's
    assert Settings(Corpora(Path("data")), training=TrainChoice.of(TrainConfig(epochs=1))).experiment("x", protocol) == \
        "x-epochs-1"
    assert Settings(Corpora(Path("data")), training=TrainChoice.of(TrainConfig(**QUICK))).train_for(protocol).max_train == QUICK["max_train"]
    assert Settings(Corpora(Path("data")), training=TrainChoice.of(TrainConfig(threshold=0.4))).experiment("x", protocol) == \
        "x-threshold-0.4"


def test_the_train_table_of_an_experiment_file_is_what_its_runs_use(tmp_path):
    """Each run's config.json and hash record the [train] table's threshold, validation_fraction and max_train,
    and the experiment's name does not claim a variant of them."""
    from toy_corpus import write_corpus

    from experiments.runs.one.protocol import TrainConfig
    from experiments.runs.one.store import recorded_hash
    from experiments.runs.one.training import expected_hash
    from experiments.studies.reproduce import run_experiment
    from experiments.studies.settings import Corpora, Settings, TrainChoice

    corpus = write_corpus(tmp_path / "toy.csv")
    path = tmp_path / "settings.toml"
    path.write_text(SETTINGS_TOML + f"[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n")
    spec = load_experiment(str(path))
    fast = TrainConfig(epochs=1, batch_size=32, embeddings="random")
    settings = Settings(Corpora(tmp_path, {"split_col": "split"}), RunStore(tmp_path / "runs"), tmp_path / "results",
                        TrainChoice.of(fast), executor=LocalExecutor(verbose=0))
    result = run_experiment(spec, [0], settings)
    name = "settings-epochs-1-batch-size-32-embeddings-random"  # only what differs from the experiment's protocol
    assert result.experiment == name and [p.name for p in (tmp_path / "runs").iterdir()] == [name]
    assert (result.train["threshold"], result.train["validation_fraction"], result.train["max_train"]) == \
        (0.3, 0.2, 50)
    run = tmp_path / "runs" / name / "toy" / "cnn" / "seed-0"
    config = json.loads((run / "config.json").read_text())
    assert (config["train"]["threshold"], config["train"]["validation_fraction"], config["train"]["max_train"]) == \
        (0.3, 0.2, 50)
    assert (config["splits"]["train"], config["splits"]["validation"]) == (50, 32)  # 20% of 160, then 50 kept
    assert json.loads((run / "metrics.json").read_text())["threshold"] == 0.3
    dataset = settings.corpora.load(str(corpus))
    used = TrainConfig(epochs=1, batch_size=32, embeddings="random", threshold=0.3, validation_fraction=0.2,
                       max_train=50)
    assert recorded_hash(run) == expected_hash(RunSpec(dataset.name, "cnn", 0, used), dataset, tmp_path) != \
        expected_hash(RunSpec(dataset.name, "cnn", 0, fast), dataset, tmp_path)


def test_reproduce_refuses_a_misspelled_table_before_any_run(tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text("[Train]\nthreshold = 0.2\n[[cells]]\ncorpus = 'riloff'\nmodel = 'cnn'\n")
    result = CliRunner().invoke(main, ["--data-dir", str(tmp_path), "reproduce", str(path), "--seeds", "1",
                                       "--output-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res")])
    assert result.exit_code == 1 and "unknown key 'Train' (did you mean 'train'?)" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "res").exists()


#: What ``reproduce table7 --protocol authors-code`` and ``authors-scripts`` trained, before they were files: the
#: files must give the same settings (so the same run hashes) under the same names.
AUTHORS_CODE = dict(batching="class-ratio", clip_global_norm=1.0, selection="grid")
AUTHORS_SCRIPTS = dict(batching="class-ratio-once", clip_global_norm=0.2, initial_state="random", oov_init="uniform",
                       vocabulary="all-splits-drop", min_train_tokens=3, cut_train_tokens=40, selection="grid")


@pytest.mark.parametrize("table", ["table6", "table7"])
def test_the_authors_protocols_are_files_extending_their_table_with_the_old_settings_and_names(table):
    from experiments.runs.one.protocol import TrainConfig
    from experiments.studies.settings import Corpora, Settings

    base = load_experiment(table)
    for suffix, elements in (("authors-code", AUTHORS_CODE), ("authors-scripts", AUTHORS_SCRIPTS)):
        experiment = load_experiment(f"{table}-{suffix}")
        assert experiment.name == f"{table}-{suffix}"
        assert experiment.protocol() == TrainConfig(**elements)
        assert experiment.title == f"{base.title} — variant {suffix}, not the paper's protocol"
        assert {c.key for c in experiment.cells} <= {c.key for c in base.cells}
        settings = Settings(Corpora(None))  # no option given: results and runs keep the file's name
        assert settings.experiment(experiment.name, experiment.protocol()) == experiment.name
        assert settings.experiment(experiment.name, experiment.protocol(), trained=True) == experiment.name


def test_table7s_authors_files_are_the_study_their_committed_results_ran():
    """iSarcasm's cells (the paper's numbers), 10 seeds: the shipped runs of table7-authors-code, so a bare
    `reproduce table7-authors-code` reuses them and trains nothing."""
    for name in ("table7-authors-code", "table7-authors-scripts"):
        experiment = load_experiment(name)
        assert {c.corpus for c in experiment.cells} == {"isarcasm"} and len(experiment.cells) == 7
        assert experiment.seeds == 10
    assert load_experiment("table7").seeds is None and load_experiment("table6-authors-code").seeds is None


def test_a_file_extending_another_takes_what_it_does_not_set_and_updates_its_train_table(tmp_path):
    (tmp_path / "base.toml").write_text("title = 'Base'\nmetrics = ['f1_weighted']\n[train]\nthreshold = 0.3\n"
                                        "epochs = 10\n[[cells]]\ncorpus='a'\nmodel='m'\n[[cells]]\ncorpus='b'\n"
                                        "model='m'\n")
    (tmp_path / "child.toml").write_text(f"extends = '{tmp_path / 'base.toml'}'\ncorpora = ['b']\nseeds = 3\n"
                                         "[train]\nepochs = 20\nbatching = 'bucket'\n")
    child = load_experiment(str(tmp_path / "child.toml"))
    assert (child.name, child.title, child.metrics, child.seeds) == ("child", "Base", ("f1_weighted",), 3)
    assert [c.key for c in child.cells] == ["b/m"]
    assert dict(child.train) == {"threshold": 0.3, "epochs": 20, "batching": "bucket"}


@pytest.mark.parametrize("text, message", [
    ("extends = 'SELF'\n", "'extends' comes back to this file"),
    ("extends = 'table7'\ncorpora = ['nowhere']\n", "corpora: no cell of 'nowhere' \\(its corpora: isarcasm, "
                                                    "isarcasmeval\\)"),
    ("extends = 'table7'\nseeds = 0\n", "'seeds' must be a whole number from 1 to 1,000, not 0"),
    ("extends = 'table7'\nseeds = true\n", "'seeds' must be a whole number from 1 to 1,000, not True"),
    ("extends = 'table8'\n", "unknown experiment 'table8'"),
    ("extends = 'table7'\nprotocol = 'authors-code'\n", "unknown key 'protocol'"),
])
def test_a_bad_extending_file_is_refused_in_one_line(tmp_path, text, message):
    path = tmp_path / "child.toml"
    path.write_text(text.replace("SELF", str(path)))
    with pytest.raises(IsarcasmError, match=message) as error:
        load_experiment(str(path))
    assert "\n" not in str(error.value)

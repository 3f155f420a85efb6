"""Experiment files: the shipped tables load, select, and bad files fail clearly."""
from dataclasses import replace

import pytest
from click.testing import CliRunner

from experiments.cli import main
from experiments.studies.experiment import load_experiment
from preprocessing.errors import IsarcasmError


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
    ("[train]\nepoch = 3\n[[cells]]\ncorpus='a'\nmodel='b'\n", "unknown setting\\(s\\) epoch"),
    ("[train]\ncontext = 'both'\n[[cells]]\ncorpus='a'\nmodel='b'\n", "\\[train\\]: unknown context"),
])
def test_bad_experiment_files_fail_with_the_reason(tmp_path, content, message):
    path = tmp_path / "exp.toml"
    path.write_text(content)
    with pytest.raises(IsarcasmError, match=message):
        load_experiment(str(path))


def test_unknown_experiment_name_lists_the_known_ones():
    with pytest.raises(IsarcasmError, match="table6, table7"):
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

    def fake_run(spec, seeds, settings):
        seen["train"] = settings.train
        (settings.results_root / "x.md").parent.mkdir(parents=True, exist_ok=True)
        (settings.results_root / "x.md").write_text("report")
        return {"experiment": "x"}

    monkeypatch.setattr("experiments.cli.reproduce.run_experiment", fake_run)
    for extra, embeddings in (([], "word2vec"), (["--embeddings", "random"], "random")):
        result = CliRunner().invoke(main, ["--data-dir", str(tmp_path), "reproduce", "multilingual", "--seeds", "1",
                                           "--results-dir", str(tmp_path / "res"), *extra])
        assert result.exit_code == 0, result.output
        assert seen["train"].embeddings == embeddings

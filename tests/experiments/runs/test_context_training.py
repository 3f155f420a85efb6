"""--context end to end on a toy corpus whose label is only in the context turn."""
import random
from dataclasses import replace

import numpy as np
import pytest
from toy_corpus import write_corpus, train_toy

from experiments.runs.one.inference import evaluate_run, load_run
from experiments.runs.one.inputs import FitTexts, ModelInputs, context_text
from experiments.runs.one.protocol import TrainConfig
from preprocessing.config import PreprocessConfig
from preprocessing.corpora import load_corpus
from preprocessing.errors import IsarcasmError

FAST = TrainConfig(epochs=8, batch_size=32, learning_rate=0.01, embeddings="random")


@pytest.fixture(scope="module")
def dialogue(tmp_path_factory):
    """The toy corpus with uninformative texts; the turn before each says whether it is sarcastic."""
    path = write_corpus(tmp_path_factory.mktemp("data") / "toy.csv")
    dataset = load_corpus(str(path), path.parent, split_col="split")
    rng = random.Random(5)
    words = "movie weather monday traffic coffee exam train meeting".split()
    records = [replace(r, text=" ".join(rng.choice(words) for _ in range(5)),
                       context=("hello there", "oh i just love waiting" if r.label else "thanks for the help"))
               for r in dataset.records]
    return replace(dataset, records=records), path.parent


def test_context_text_takes_the_last_turn_or_all_of_them():
    assert context_text(("a b", "c"), "last") == "c"
    assert context_text(("a b", "c"), "all") == "a b c"
    assert context_text((), "last") == context_text((), "all") == ""


def test_a_context_run_reads_the_context_and_the_text_alone_cannot(dialogue, tmp_path):
    dataset, data_dir = dialogue
    with_context = train_toy(dataset, "cnn", tmp_path / "last", data_dir, replace(FAST, context="last"))
    alone = train_toy(dataset, "cnn", tmp_path / "none", data_dir, FAST)
    assert with_context.metrics["test"]["f1_sarcastic"] >= 0.9
    assert alone.metrics["test"]["f1_sarcastic"] < 0.6

    run = load_run(with_context.directory, data_dir)
    assert run.inputs.context == "last" and run.inputs.context_len >= 5
    assert set(run.model.input) == {"tokens", "context"}
    evaluation = evaluate_run(run, dataset, force=True)
    assert evaluation["test"]["f1_sarcastic"] == pytest.approx(with_context.metrics["test"]["f1_sarcastic"])


def test_context_words_join_the_vocabulary_and_missing_contexts_are_padding(tmp_path):
    texts, contexts = ["good day", "good night"] * 2, [("what a surprise",), ("what a surprise",)] * 2
    inputs = ModelInputs.fit(PreprocessConfig(), ("tokens",), FitTexts(texts, contexts), tmp_path, context="all")
    assert "surprise" in inputs.preprocessor.vocab and inputs.preprocessor.max_len == 2
    assert inputs.context_len == 3
    built = inputs.build(["good day"], None)
    assert built["context"].tolist() == [[0, 0, 0]]
    inputs.save(tmp_path)
    loaded = ModelInputs.load(tmp_path, tmp_path)
    assert (loaded.context, loaded.context_len, loaded.input_names) == ("all", 3, ("tokens", "context"))
    np.testing.assert_array_equal(loaded.build(texts, contexts)["context"], inputs.build(texts, contexts)["context"])


def test_the_context_option_is_a_named_variant_and_old_runs_keep_their_hash():
    assert "context" not in TrainConfig().identity()
    assert TrainConfig(context="all").identity()["context"] == "all"
    assert TrainConfig(context="all").variant() == "context-all"
    with pytest.raises(IsarcasmError, match="context must be one of none, last, all, not 'both'"):
        TrainConfig(context="both")


def test_selecting_on_macro_f1_is_a_named_variant_and_old_runs_keep_their_hash():
    assert "select_on" not in TrainConfig().identity()
    assert TrainConfig(select_on="macro-f1").variant() == "select-on-macro-f1"
    with pytest.raises(IsarcasmError, match="select_on must be one of default, macro-f1, not 'f2'"):
        TrainConfig(select_on="f2")


def test_every_study_leaves_out_models_without_a_context_variant(tmp_path, caplog):
    from experiments.studies.settings import Corpora, Settings, TrainChoice

    settings = Settings(Corpora(tmp_path), training=TrainChoice.of(replace(FAST, context="all")))
    with caplog.at_level("WARNING", logger="isarcasm"):
        assert settings.trainable(["lstm", "dense-lstm", "cnn"]) == ["lstm", "cnn"]
    assert [r.getMessage().split(":")[0] for r in caplog.records] == ["dense-lstm left out"]  # one line per model
    with pytest.raises(IsarcasmError, match="none of the chosen models reads tokens alone"):
        settings.trainable(["dense-lstm"])
    assert Settings(Corpora(tmp_path)).trainable(["dense-lstm"]) == ["dense-lstm"]  # without --context nothing is left out


def test_an_experiment_whose_protocol_asks_for_context_leaves_out_the_same_models(tmp_path):
    """Every study takes the experiment's [train] context where --context is left out, and a --context given
    wins over it."""
    from experiments.studies.settings import Corpora, Settings, TrainChoice

    protocol = TrainConfig(context="all")
    settings = Settings(Corpora(tmp_path))
    assert settings.trainable(["lstm", "dense-lstm"], protocol) == ["lstm"]
    assert settings.trainable(["lstm", "dense-lstm"]) == ["lstm", "dense-lstm"]
    given = Settings(Corpora(tmp_path), training=TrainChoice({"context": "none"}))
    assert given.trainable(["lstm", "dense-lstm"], protocol) == ["lstm", "dense-lstm"]


def test_cross_eval_with_context_leaves_out_a_model_without_a_context_variant(tmp_path):
    from experiments.studies.cross_eval import cross_cells
    from experiments.runs.one.store import RunStore
    from experiments.studies.settings import Corpora, Settings, TrainChoice

    settings = Settings(Corpora(tmp_path), RunStore(tmp_path / "runs"), training=TrainChoice.of(replace(FAST, context="all")))
    with pytest.raises(IsarcasmError, match="none of the chosen models reads tokens alone"):
        cross_cells(["dense-lstm"], ["riloff"], [0], settings)

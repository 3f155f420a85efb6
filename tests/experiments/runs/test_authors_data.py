"""The iSarcasm authors' data elements, each alone (docs/protocol.md, "The authors'-code protocol"): the
inputs a run builds with each, on a toy corpus; nothing is trained."""
from dataclasses import replace

import numpy as np
import pytest
from toy_corpus import write_corpus

from experiments.runs.one.protocol import TrainConfig, experiment_name, make_splits
from experiments.runs.one.spec import RunSpec
from experiments.runs.one.training import expected_hash, run_inputs
from experiments.studies.fidelity import ELEMENTS as ELEMENT_RESULTS
from preprocessing.corpora import load_corpus
from preprocessing.errors import IsarcasmError
from preprocessing.vocab import PAD_ID, UNK_ID

BASE = TrainConfig(embeddings="random")
ELEMENTS = {"oov_init": "uniform", "vocabulary": "all-splits-drop", "min_train_tokens": 3, "cut_train_tokens": 40}
LONG = " ".join(["coffee", "exam"] * 25)  # 50 tokens


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The toy corpus where every tenth text has 2 tokens, every tenth (another) 50, one training text a word
    seen once in the corpus, and two test texts a word no training text has."""
    path = write_corpus(tmp_path_factory.mktemp("data") / "toy.csv")
    dataset = load_corpus(str(path), path.parent, split_col="split")

    def text(record):
        number = int(record.id.removeprefix(record.split))
        if number % 10 == 1:
            return "coffee exam"
        if number % 10 == 2:
            return LONG
        if record.id in ("test3", "test4"):
            return record.text + " zebra"
        return record.text + " platypus" if record.id == "train3" else record.text

    return replace(dataset, records=[replace(r, text=text(r)) for r in dataset.records]), path.parent


def inputs(corpus, **changed):
    dataset, data_dir = corpus
    run = RunSpec(dataset.name, "cnn", 0, replace(BASE, **changed))
    return make_splits(dataset, 0, max_train=None), run_inputs(run, dataset, data_dir)


def lengths(tokens: np.ndarray) -> np.ndarray:
    return (tokens != PAD_ID).sum(axis=1)


def test_the_defaults_keep_every_hash_and_every_training_text(corpus):
    assert set(ELEMENTS).isdisjoint(TrainConfig().identity())  # so every stored run keeps its hash
    dataset, data_dir = corpus
    hashes = {expected_hash(RunSpec(dataset.name, "cnn", 0, replace(BASE, **{name: value})), dataset, data_dir)
              for name, value in [("epochs", BASE.epochs), *ELEMENTS.items()]}
    assert len(hashes) == 1 + len(ELEMENTS)
    splits, data = inputs(corpus)
    assert len(data.x["train"]["tokens"]) == len(splits.train)
    assert lengths(data.x["train"]["tokens"]).max() == 50 and UNK_ID in data.x["test"]["tokens"]


def test_min_train_tokens_drops_short_training_texts_only(corpus):
    splits, data = inputs(corpus, min_train_tokens=3)
    _, default = inputs(corpus)
    short = sum(r.text == "coffee exam" for r in splits.train)
    assert short > 0 and len(data.train_texts) == len(splits.train) - short
    assert "coffee exam" not in data.train_texts and lengths(data.x["train"]["tokens"]).min() >= 3
    assert len(data.y["train"]) == len(data.x["train"]["tokens"]) == len(data.train_texts)
    for split in ("validation", "test"):
        assert np.array_equal(data.x[split]["tokens"], default.x[split]["tokens"])
    with pytest.raises(IsarcasmError, match="min_train_tokens 51 drops every training text .* longest has 50"):
        inputs(corpus, min_train_tokens=51)


def test_cut_train_tokens_keeps_the_first_tokens_of_training_texts_only(corpus):
    splits, data = inputs(corpus, cut_train_tokens=40)
    _, default = inputs(corpus)
    long = [i for i, r in enumerate(splits.train) if r.text == LONG]
    assert long and set(lengths(data.x["train"]["tokens"])[long]) == {40}
    assert np.array_equal(data.x["train"]["tokens"][long, :40], default.x["train"]["tokens"][long, :40])
    assert lengths(data.x["test"]["tokens"]).max() == 50  # the test texts as published
    assert np.array_equal(data.x["test"]["tokens"], default.x["test"]["tokens"])


def test_vocabulary_all_splits_drop_counts_test_texts_and_drops_rare_words(corpus):
    _, data = inputs(corpus, vocabulary="all-splits-drop")
    _, default = inputs(corpus)
    vocab = data.inputs.preprocessor.vocab
    assert "zebra" in vocab and "zebra" not in default.inputs.preprocessor.vocab  # twice, in test texts only
    assert "platypus" not in vocab and vocab.drops_unknown
    for split in ("train", "validation", "test"):
        assert UNK_ID not in data.x[split]["tokens"]
        assert len(data.x[split]["tokens"]) == len(default.x[split]["tokens"])  # every text is still scored


def test_each_element_alone_is_listed_under_the_default_name_its_settings_get():
    """The elements' results are found by the names listed with them; each is also the default name of its
    settings (`reproduce table7 --set oov_init=uniform` without --name writes what the report reads)."""
    names = {element.label: element.results_name("table7") for element in ELEMENT_RESULTS}
    for label, changed in [("OOV vectors U(-0.1, 0.1) alone", "oov_init"),
                           ("vocabulary over all splits, rare words dropped, alone", "vocabulary"),
                           ("training texts under 3 tokens dropped alone", "min_train_tokens"),
                           ("training texts cut to 40 tokens alone", "cut_train_tokens")]:
        config = TrainConfig(**{changed: ELEMENTS[changed]})
        assert names[label] == experiment_name("table7", config)
    for element in ELEMENT_RESULTS:
        assert element.results_name("table7") == experiment_name("table7", TrainConfig(**element.changed))



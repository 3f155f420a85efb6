"""Splits: validation carved from train only, stratified, seeded; dev split used when present."""
import re

import pytest

from experiments.runs.one.protocol import TrainConfig, make_splits
from preprocessing.errors import IsarcasmError
from preprocessing.records import Dataset, Fold, Record


def dataset(splits=("train", "test"), n=200, positive_every=5):
    records = [
        Record(id=f"{s}-{i}", text=f"text {s} {i}", label=int(i % positive_every == 0), split=s)
        for s in splits for i in range(n)
    ]
    return Dataset("toy", "en", ("not_sarcastic", "sarcastic"), records)


def test_validation_is_carved_from_train_stratified_and_disjoint():
    data = dataset()
    s = make_splits(data, seed=3, validation_fraction=0.1)
    assert len(s.validation) == 20 and len(s.train) == 180 and len(s.test) == 200
    assert {r.split for r in s.train + s.validation} == {"train"}
    assert not {r.id for r in s.train} & {r.id for r in s.validation}
    assert sum(r.label for r in s.validation) == 4  # 20% positives, as in train
    assert "stratified, seed 3" in s.validation_source


def test_same_seed_same_split_other_seed_other_split():
    data = dataset()
    ids = lambda seed: [r.id for r in make_splits(data, seed).validation]  # noqa: E731
    assert ids(1) == ids(1)
    assert ids(1) != ids(2)


def test_official_dev_split_is_the_validation_split():
    s = make_splits(dataset(("train", "dev", "test")), seed=0)
    assert {r.split for r in s.validation} == {"dev"} and len(s.train) == 200


def test_corpus_without_train_trains_on_its_first_split():
    s = make_splits(dataset(("dev", "test")), seed=0)
    assert {r.split for r in s.train + s.validation} == {"dev"}


def test_max_train_caps_training_examples_only():
    s = make_splits(dataset(), seed=0, max_train=50)
    assert len(s.train) == 50 and len(s.validation) == 20 and len(s.test) == 200


@pytest.mark.parametrize("splits, message", [(("train",), "no test split"), (("test",), "only a test split")])
def test_unusable_corpora_are_refused(splits, message):
    with pytest.raises(IsarcasmError, match=message):
        make_splits(dataset(splits), seed=0)


def test_missing_text_is_refused_with_a_hint():
    data = dataset()
    data.records[0] = Record(id="x", text=None, label=0, split="train")
    with pytest.raises(IsarcasmError, match="--text-file"):
        make_splits(data, seed=0)


@pytest.mark.parametrize("kwargs", [{"selection": "median"}, {"validation_fraction": 1.5}, {"epochs": 0}])
def test_bad_train_config_is_refused(kwargs):
    with pytest.raises(IsarcasmError):
        TrainConfig(**kwargs)


def test_variants_are_named_apart_from_the_faithful_protocol():
    from experiments.runs.one.protocol import QUICK

    assert TrainConfig().variant() == "" and TrainConfig(tune_threshold=True).variant() == ""
    assert TrainConfig(**QUICK).variant() == "quick"
    assert TrainConfig(class_weight="balanced").variant() == "class-weight-balanced"
    assert TrainConfig(**QUICK, selection="last", embeddings="random").variant() == "quick-selection-last-embeddings-random"
    assert re.fullmatch(r"embeddings-glove\.twitter\.27B\.100d-[0-9a-f]{8}",
                        TrainConfig(embeddings="/x/glove.twitter.27B.100d.txt").variant())


def test_variant_names_tell_numbers_apart():
    assert TrainConfig(learning_rate=0.01).variant() == "learning-rate-0.01"
    assert TrainConfig(learning_rate=0.01).variant() != TrainConfig(learning_rate=0.02).variant()
    assert TrainConfig(threshold=0.3).variant() == "threshold-0.3"
    assert TrainConfig(threshold=0.3).variant() != TrainConfig(threshold=0.35).variant()
    assert TrainConfig(learning_rate=1e-5).variant() == "learning-rate-1e-05"
    assert TrainConfig(validation_fraction=0.2, max_train=50).variant() == "validation-fraction-0.2-max-train-50"
    assert TrainConfig(threshold=0.3).variant(TrainConfig(threshold=0.3)) == ""


def test_the_variant_names_in_use_keep_their_names():
    from experiments.runs.one.protocol import QUICK, changed_fields
    from preprocessing.config import PreprocessConfig

    names = {"class-weight-balanced": dict(class_weight="balanced"), "quick": QUICK,
             "select-on-macro-f1": dict(select_on="macro-f1"), "context-all": dict(context="all"),
             "context-last": dict(context="last"), "batching-bucket": dict(batching="bucket"),
             "embeddings-word2vec": dict(embeddings="word2vec"), "embeddings-random": dict(embeddings="random"),
             "embeddings-glove": dict(embeddings="glove"), "selection-last": dict(selection="last"),
             "epochs-1-embeddings-random": dict(epochs=1, embeddings="random"),
             "quick-embeddings-random": dict(**QUICK, embeddings="random"),
             "epochs-1-batch-size-32": dict(epochs=1, batch_size=32)}
    for name, settings in names.items():
        assert TrainConfig(**settings).variant(TrainConfig(embeddings="word2vec") if name == "embeddings-glove"
                                               else None) == name
    assert changed_fields(PreprocessConfig(numbers="keep"), PreprocessConfig()) == ["numbers-keep"]
    assert changed_fields(PreprocessConfig(max_len_percentile=95.0), PreprocessConfig()) == ["max-len-percentile-95"]
    assert changed_fields(PreprocessConfig(language="ko"), PreprocessConfig()) == ["language-ko"]


def test_a_default_name_lists_each_setting_changed_and_the_runs_name_shares_the_trajectory():
    """The authors' protocols are experiment files now: a name lists every element changed (none is named
    after a protocol), and a rule read from a best run's record gives its runs the name of best's."""
    authors = TrainConfig(batching="class-ratio", clip_global_norm=1.0, selection="grid")
    assert authors.variant() == "selection-grid-batching-class-ratio-clip-global-norm-1"
    assert authors.variant(trajectory=True) == "batching-class-ratio-clip-global-norm-1"
    assert authors.variant(authors) == "" and authors.variant(authors, trajectory=True) == ""
    assert TrainConfig(batching="class-ratio", clip_global_norm=1.0).variant(authors) == "selection-best"
    assert TrainConfig(batching="class-ratio", clip_global_norm=1.0).variant(authors, trajectory=True) == ""


def test_one_rule_names_a_variant_for_train_and_for_the_studies():
    from experiments.runs.one.protocol import experiment_name
    from experiments.studies.settings import Corpora, Settings, TrainChoice
    from preprocessing.config import PreprocessConfig

    config = TrainConfig(learning_rate=0.01, class_weight="balanced")
    korean = PreprocessConfig(language="ko", numbers="keep")
    assert experiment_name("train", config, preprocess=korean) == "train-learning-rate-0.01-class-weight-balanced-numbers-keep"
    assert experiment_name("train", TrainConfig(), preprocess=PreprocessConfig(language="ko")) == "train"
    assert Settings(Corpora(None), training=TrainChoice.of(config)).experiment("table7") == experiment_name("table7", config)


def test_an_experiment_whose_protocol_is_quick_sized_is_not_named_quick():
    from experiments.runs.one.protocol import QUICK

    assert TrainConfig(**QUICK).variant(TrainConfig(**QUICK)) == ""
    assert TrainConfig(**QUICK).variant(TrainConfig(max_train=50)) == "quick"


def test_a_path_is_named_by_its_stem_and_a_hash_of_the_whole_path():
    from experiments.runs.one.protocol import changed_fields
    from experiments.runs.one.store import safe_name
    from preprocessing.config import PreprocessConfig

    here, there = (TrainConfig(embeddings=f"/{d}/vectors.txt").variant() for d in ("x", "y"))
    assert here.startswith("embeddings-vectors-") and there.startswith("embeddings-vectors-") and here != there
    assert here == TrainConfig(embeddings="/x/vectors.txt").variant()  # the same path, the same name
    assert TrainConfig(embeddings="vectors.txt").variant() not in (here, there)
    odd = [TrainConfig(embeddings="/x/my vectors (v2).txt").variant(), TrainConfig(embeddings="../.hidden").variant(),
           *changed_fields(PreprocessConfig(keep_punct="!?"), PreprocessConfig()),
           *changed_fields(PreprocessConfig(keep_punct="!?."), PreprocessConfig())]
    assert all(safe_name(name) for name in odd) and len(set(odd)) == 4


def folded(n_folds=4):
    """A corpus whose official folds each test on a quarter of its records."""
    data = dataset(("train",), n=200)
    ids = [r.id for r in data.records]
    folds = tuple(Fold(train_ids=tuple(i for i in ids if i not in part), test_ids=part)
                  for part in (tuple(ids[k::n_folds]) for k in range(n_folds)))
    return Dataset("toy", "en", data.label_names, data.records, folds=folds)


def test_a_fold_gives_its_own_train_and_test_and_validation_comes_from_its_train():
    data = folded()
    s = make_splits(data, seed=0, fold=2)
    assert {r.id for r in s.test} == set(data.folds[2].test_ids)
    train_ids = {r.id for r in s.train} | {r.id for r in s.validation}
    assert train_ids == set(data.folds[2].train_ids) and not train_ids & {r.id for r in s.test}
    assert len(s.validation) == 15 and s.validation_source == "10% of fold 3, stratified, seed 0"


def test_a_missing_fold_is_refused():
    with pytest.raises(IsarcasmError, match="has 4 official folds; there is no fold 5"):
        make_splits(folded(), seed=0, fold=4)
    with pytest.raises(IsarcasmError, match="has 0 official folds"):
        make_splits(dataset(), seed=0, fold=0)


def test_fold_cells_run_every_fold_for_every_seed_and_need_folds():
    from experiments.studies.experiment import Cell
    from experiments.studies.cells import cell_runs

    assert cell_runs(Cell("toy", "cnn", folds=True), folded(3), [0, 1]) == \
        [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]
    assert cell_runs(Cell("toy", "cnn"), folded(3), [0, 1]) == [(0, None), (1, None)]
    with pytest.raises(IsarcasmError, match="folds = true, but corpus 'toy' has no official folds"):
        cell_runs(Cell("toy", "cnn", folds=True), dataset(), [0])


def test_fold_runs_are_stored_per_fold():
    from pathlib import Path

    from experiments.runs.one.store import run_dir

    assert run_dir(Path("runs"), "dialogue", "mustard", "cnn", 1, fold=0) == \
        Path("runs/dialogue/mustard/cnn/fold-1/seed-1")
    assert run_dir(Path("runs"), "t", "riloff", "cnn", 1) == Path("runs/t/riloff/cnn/seed-1")


def test_the_authors_single_elements_name_their_results_and_keep_old_hashes():
    from experiments.studies.fidelity import ELEMENTS

    names = [element.results_name("t") for element in ELEMENTS]
    assert {"t-batching-class-ratio", "t-batching-class-ratio-once", "t-initial-state-random"} <= set(names)
    assert TrainConfig().identity() == TrainConfig(batching="shuffled", initial_state="zeros").identity()
    assert "initial_state" not in TrainConfig().identity()
    with pytest.raises(IsarcasmError, match="initial_state"):
        TrainConfig(initial_state="ones")


#: The configuration hashes of the default runs of four models on the toy corpus (``toy.csv``, seed 0, random
#: vectors) at commit e853916, the last with the exact engine and --test-texts: their removal, and a new setting
#: at its default, must leave every stored run its hash.
PINNED_HASHES = {"lstm": "9c2482d5ae2e7f55", "att-lstm": "f457bb13d71295b3", "cnn": "cd101c0ca7a0dd81",
                 "3cnn": "46b4abf8b67388ff"}


def test_the_configuration_hashes_are_the_ones_runs_were_stored_with(tmp_path, monkeypatch):
    from toy_corpus import write_corpus

    from experiments.runs.one.spec import RunSpec
    from experiments.runs.one.training import expected_hash
    from preprocessing.corpora import load_corpus

    monkeypatch.chdir(tmp_path)  # the corpus' name is its path: "toy.csv" wherever the test runs
    dataset = load_corpus(str(write_corpus("toy.csv")), tmp_path, split_col="split")
    defaults = TrainConfig(embeddings="random", batch_order="once", dropout=None)
    for model, pinned in PINNED_HASHES.items():
        assert expected_hash(RunSpec(dataset.name, model, 0, defaults), dataset, tmp_path) == pinned
    changed = TrainConfig(embeddings="random", batch_order="each-epoch")
    assert expected_hash(RunSpec(dataset.name, "lstm", 0, changed), dataset, tmp_path) != PINNED_HASHES["lstm"]


@pytest.mark.parametrize("name", ["table7", "table6", "table7-authors-code", "table7-seeds-5-9"])
def test_every_shipped_runs_hash_is_recomputed_from_its_settings(name):
    """A shipped reference run's config.json (docs/results/runs) hashes to its ``config_hash`` with its training
    settings as they are read today (:meth:`TrainConfig.recorded`, then :meth:`TrainConfig.identity`): the
    engine, no longer a setting, is still recorded as the constant every one of them holds."""
    import json

    from experiments.runs.one.provenance import recorded_config_hash
    from experiments.runs.one.reference import SHIPPED

    runs = json.loads((SHIPPED / f"{name}.json").read_text(encoding="utf-8"))["runs"]
    for run in runs:
        config = run["config"]
        train = TrainConfig.recorded(config["train"], run["key"])
        assert train.identity() == config["train"]
        assert recorded_config_hash({**config, "train": train.identity()}) == config["config_hash"]


def test_the_batch_order_and_dropout_are_named_variants_and_refused_where_they_mean_nothing():
    assert TrainConfig(batch_order="each-epoch").variant() == "batch-order-each-epoch"
    assert TrainConfig(dropout=0.5).variant() == "dropout-0.5" and TrainConfig(dropout=0.0).variant() == "dropout-0"
    assert {"batch_order", "dropout"}.isdisjoint(TrainConfig().identity())
    with pytest.raises(IsarcasmError, match="^batch_order each-epoch is for batching shuffled; batching "
                                            "class-ratio-once draws and orders its own batches"):
        TrainConfig(batch_order="each-epoch", batching="class-ratio-once")
    with pytest.raises(IsarcasmError, match="dropout"):
        TrainConfig(dropout=1.0)

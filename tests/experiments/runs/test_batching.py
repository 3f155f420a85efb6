"""The --batching bucket variant: length-bucketed training batches, each cut to its longest text."""
import json
from functools import partial

import numpy as np
from click.testing import CliRunner
from toy_corpus import write_corpus

from baselines.batching import LengthBuckets, used_length
from experiments.cli import main


def bucket_inputs(rows: int = 300, max_len: int = 40, seed: int = 0):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, max_len + 1, size=rows)
    tokens = rng.integers(2, 50, size=(rows, max_len)).astype("int32")
    tokens[np.arange(max_len) >= lengths[:, None]] = 0
    return {"tokens": tokens, "lexicon": rng.normal(size=(rows, 3)).astype("float32")}, lengths


def epoch(batches: LengthBuckets) -> list:
    return [batches[index] for index in range(len(batches))]


def test_every_text_is_in_one_batch_per_epoch_cut_to_its_longest_text():
    x, lengths = bucket_inputs()
    y = np.eye(2, dtype="float32")[lengths % 2]
    batches = LengthBuckets(x, y, batch_size=32, seed=0)
    for _ in range(3):
        seen = []
        for inputs, targets in epoch(batches):
            width = inputs["tokens"].shape[1]
            assert width == used_length(inputs["tokens"]).max()  # no all-padding column left
            assert inputs["lexicon"].shape == (len(targets), 3)
            # each row is a training row, truncated only where it was padding
            for row, target in zip(inputs["tokens"], targets):
                matches = np.flatnonzero((x["tokens"][:, :width] == row).all(axis=1) & (used_length(x["tokens"]) <= width))
                assert len(matches) >= 1 and (y[matches] == target).all(axis=1).any()
            seen.append(len(targets))
        assert sum(seen) == len(lengths) and len(seen) == int(np.ceil(len(lengths) / 32))
        batches.on_epoch_end()


def test_batches_hold_texts_of_similar_length_and_change_order_every_epoch():
    x, lengths = bucket_inputs()
    batches = LengthBuckets(x, np.zeros((len(lengths), 2), "float32"), batch_size=32, seed=0)
    first = [inputs["tokens"].shape[1] for inputs, _ in epoch(batches)]
    mean_width = np.mean(first)
    assert mean_width < 0.75 * x["tokens"].shape[1]  # padded to far less than max_len on average
    batches.on_epoch_end()
    assert [inputs["tokens"].shape[1] for inputs, _ in epoch(batches)] != first


def test_the_same_seed_gives_the_same_batches_and_the_first_two_differ_in_length():
    x, lengths = bucket_inputs()
    y = np.zeros((len(lengths), 2), "float32")
    one, two = LengthBuckets(x, y, 32, seed=7), LengthBuckets(x, y, 32, seed=7)
    for (a, _), (b, _) in zip(epoch(one), epoch(two)):
        np.testing.assert_array_equal(a["tokens"], b["tokens"])
    assert one[0][0]["tokens"].shape[1] != one[1][0]["tokens"].shape[1]


def test_multi_task_targets_are_batched_with_their_texts():
    x, lengths = bucket_inputs(rows=50)
    y = {"label": np.eye(2, dtype="float32")[lengths % 2], "kind": np.eye(3, dtype="float32")[lengths % 3]}
    for inputs, targets in epoch(LengthBuckets(x, y, 16, seed=0)):
        assert set(targets) == {"label", "kind"}
        assert len(targets["label"]) == len(targets["kind"]) == len(inputs["tokens"])


def test_a_bucket_run_trains_and_is_stored_as_a_named_variant(tmp_path):
    corpus = write_corpus(tmp_path / "toy.csv")
    runs = tmp_path / "runs"
    for model in ("lstm", "siarn"):
        result = CliRunner().invoke(main, ["--data-dir", str(tmp_path), "train", "--corpus", str(corpus), "--split-col", "split",
                                           "--model", model, "--epochs", "2", "--batch-size", "16",
                                           "--set", "embeddings=random", "--set", "batching=bucket",
                                           "--output-dir", str(runs)])
        assert result.exit_code == 0, result.output
    configs = sorted(runs.rglob("config.json"))
    assert len(configs) == 2 and all("batching-bucket" in str(path) for path in configs)
    assert all(json.loads(path.read_text())["train"]["batching"] == "bucket" for path in configs)


# --- --batching class-ratio-once: the authors' batches, formed once ---------------------------------------------

def once_batches(labels, order=None, batch_size=32, seed=0):
    """The next epoch's batches, each called: drawn as a run draws them, from a generator seeded with its seed."""
    from baselines.batching import class_ratio_once_rows, formed_once

    labels = np.asarray(labels)
    order = np.arange(len(labels)) if order is None else np.asarray(order)
    draw = formed_once(partial(class_ratio_once_rows, labels=labels, order=order, batch_size=batch_size))
    rng = np.random.default_rng(seed)
    return lambda: draw(rng)


def rows_of(epoch) -> list[list[int]]:
    return [rows.tolist() for rows in epoch()]


def test_the_authors_quotas_fill_a_batch_with_each_class_share_rounded_down_the_rest_non_sarcastic():
    from baselines.batching import class_quotas

    assert class_quotas(np.array([250, 50]), 32).tolist() == [27, 5]  # 26.67 and 5.33 rounded down, 1 left
    assert class_quotas(np.array([96, 32]), 32).tolist() == [24, 8]  # exact shares: nothing left
    assert class_quotas(np.array([3, 1]), 2).tolist() == [2, 0]  # a class whose share is under one text


def test_class_ratio_once_batches_are_the_same_every_epoch_and_keep_the_ratio():
    labels = np.array([1] * 50 + [0] * 250)
    epoch = once_batches(labels)
    first = rows_of(epoch)
    assert len(first) == 10 and all(len(rows) == 32 for rows in first)  # 300 texts + 20 duplicates
    for rows in first[:-1]:  # 5 sarcastic and 27 other texts per batch while both last
        assert sum(labels[rows]) == 5
    for _ in range(2):
        assert rows_of(epoch) == first  # the same batches, rows in the same order, every epoch


def test_class_ratio_once_batches_read_the_corpus_in_order_and_top_up_the_last_with_random_texts():
    labels = np.array([0, 1] * 8 + [0] * 20)  # 8 sarcastic, 28 other: quotas 1 and 7 of 8
    order = np.arange(len(labels))[::-1]  # the rows come in reverse corpus order
    rows = rows_of(once_batches(labels, order, batch_size=8))
    corpus_first = [sorted(batch, key=lambda row: order[row]) for batch in rows]
    sarcastic = [row for batch in corpus_first for row in batch if labels[row]]
    assert sarcastic[:4] == sorted(np.flatnonzero(labels), key=lambda row: order[row])[:4]  # corpus order
    seen = [row for batch in rows for row in batch]
    assert len(rows) == 5 and sorted(set(seen)) == list(range(36))  # every text, in 5 batches of 8
    duplicates = len(seen) - len(set(seen))
    assert duplicates == 4  # 36 texts topped up to 40
    assert [sum(labels[batch]) for batch in rows[:4]] == [1, 1, 1, 1]
    assert any(sorted(batch) != batch for batch in rows)  # the rows of a batch are shuffled


def test_class_ratio_once_follows_the_authors_generator_when_a_class_runs_out():
    from baselines.batching import corpus_order_stream

    labels = np.array([1] * 3 + [0] * 9)  # quotas 1 and 3 of 4: three full cycles, then the other class
    stream = corpus_order_stream(labels, np.arange(12), 4)
    assert stream.tolist() == [0, 3, 4, 5, 1, 6, 7, 8, 2, 9, 10, 11]
    labels = np.array([1] * 5 + [0] * 4)  # quotas 2 and 2 of 4: the sarcastic texts left come first
    assert corpus_order_stream(labels, np.arange(9), 4).tolist() == [0, 1, 5, 6, 2, 3, 7, 8, 4]


def test_class_ratio_once_is_the_same_for_a_seed_and_other_for_another():
    labels = np.array([1] * 50 + [0] * 250)
    assert rows_of(once_batches(labels, seed=3)) == rows_of(once_batches(labels, seed=3))
    assert rows_of(once_batches(labels, seed=3)) != rows_of(once_batches(labels, seed=4))


def test_class_ratio_once_with_fewer_texts_than_a_batch_repeats_them():
    rows = rows_of(once_batches(np.array([0, 1, 0]), batch_size=8))
    assert len(rows) == 1 and len(rows[0]) == 8 and set(rows[0]) == {0, 1, 2}


def test_training_computes_the_same_once_batches_every_epoch():
    from baselines.batching import SplitBatches, class_ratio_once_rows, formed_once

    labels = np.array([1] * 50 + [0] * 250)
    x, _ = bucket_inputs(rows=300)
    draw = formed_once(partial(class_ratio_once_rows, labels=labels, order=np.arange(300), batch_size=32))
    fast = SplitBatches({"tokens": x["tokens"]}, np.eye(2, dtype="float32")[labels], draw, parts=2, seed=0)
    pieces = [rows.tolist() for rows, _ in fast.pieces]
    batches = [sorted(first + second) for first, second in zip(pieces[::2], pieces[1::2])]
    assert batches == [sorted(rows) for rows in rows_of(once_batches(labels))]
    fast.on_epoch_end()
    assert [rows.tolist() for rows, _ in fast.pieces] == pieces


def test_authors_elements_train_and_are_stored_as_named_variants_and_repeat_to_the_digit(tmp_path):
    """--batching class-ratio-once, --initial-state random, --batch-order each-epoch and --dropout 0.5 on the toy
    corpus: each a named variant, and the same command gives the same predictions (the random states and the
    batch orders are drawn from the run's seed); the initial state and the dropout reach the model."""
    corpus = write_corpus(tmp_path / "toy.csv")
    common = ["--data-dir", str(tmp_path), "train", "--corpus", str(corpus), "--split-col", "split",
              "--model", "lstm", "--epochs", "2", "--batch-size", "16", "--set", "embeddings=random"]
    elements = {"batching-class-ratio-once": ("batching", "class-ratio-once"),
                "initial-state-random": ("initial_state", "random"),
                "batch-order-each-epoch": ("batch_order", "each-epoch"), "dropout-0.5": ("dropout", "0.5")}
    for setting, value in elements.values():
        for copy in ("one", "two"):
            options = ["--set", f"{setting}={value}", "--output-dir", str(tmp_path / copy)]
            result = CliRunner().invoke(main, [*common, *options])
            assert result.exit_code == 0, result.output
    model_configs = {}
    for name, (setting, value) in elements.items():
        predictions = [next((tmp_path / copy).glob(f"*{name}/**/predictions.tsv")) for copy in ("one", "two")]
        assert predictions[0].read_text() == predictions[1].read_text()
        config = json.loads((predictions[0].parent / "config.json").read_text())
        assert str(config["train"][setting]) == value
        model_configs[name] = config["model_config"]
    assert model_configs["initial-state-random"]["initial_state"] == "random"
    assert model_configs["dropout-0.5"]["dropout"] == 0.5 and model_configs["initial-state-random"]["dropout"] == 0.0

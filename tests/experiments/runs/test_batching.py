"""The --batching bucket variant: length-bucketed training batches, each cut to its longest text."""
import json

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
                                           "--embeddings", "random", "--batching", "bucket",
                                           "--output-dir", str(runs)])
        assert result.exit_code == 0, result.output
    configs = sorted(runs.rglob("config.json"))
    assert len(configs) == 2 and all("batching-bucket" in str(path) for path in configs)
    assert all(json.loads(path.read_text())["train"]["batching"] == "bucket" for path in configs)

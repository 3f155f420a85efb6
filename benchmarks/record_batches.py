"""Can the per-epoch record be cheaper with the same probabilities?

The fast engine's record predicts the validation and the test split after every
epoch, each on its own length-sorted batches cut to their longest text
(``baselines.batching.predict_by_length``); its share of training is
measured in docs/results/speed.md#record-cost.  Two ways to cut it: fewer calls (is a
call's overhead a large part?) and one call for both splits (fewer, fuller
batches).  This prints, per saved model, the CPU milliseconds of one epoch's
record each way, one thread, and whether the merged call returns the very same
probabilities, bit for bit: the record feeds validation F1, the epoch choice and
every selection rule, so a lever that moves a bit moves the fast engine's digits.

The texts are random ids with iSarcasm's lengths (log-normal around a median of
16, cut at 57) in its split sizes (282 validation, 709 test); the models are a
run store's saved ones.

Usage::

    python benchmarks/record_batches.py RUNS/table7/isarcasm/*/seed-0
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.update(TF_NUM_INTRAOP_THREADS="1", TF_NUM_INTEROP_THREADS="1",
                  TF_CPP_MIN_LOG_LEVEL=os.environ.get("TF_CPP_MIN_LOG_LEVEL", "3"))

import keras  # noqa: E402  (after the thread settings)
import numpy as np  # noqa: E402

from baselines.batching import predict_by_length  # noqa: E402

SPLITS = {"validation": 282, "test": 709}


def texts(model: keras.Model, rows: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``rows`` random texts of iSarcasm-like lengths; any other input (a lexicon's features) zeros."""
    vocabulary = min(layer.input_dim for layer in model._flatten_layers() if isinstance(layer, keras.layers.Embedding))
    lengths = np.clip(rng.lognormal(np.log(16), 0.6, rows).astype(int), 1, 57)
    ids = np.zeros((rows, 57), dtype="int32")
    for row, length in enumerate(lengths):
        ids[row, :length] = rng.integers(2, vocabulary, length)
    inputs = {"tokens": ids}
    for tensor in model.inputs:
        if tensor.name != "tokens":
            inputs[tensor.name] = np.zeros((rows, *tensor.shape[1:]), dtype="float32")
    return inputs


def cpu_ms(call, repeats: int) -> float:
    call()
    call()  # traced for these shapes
    start = time.process_time()
    for _ in range(repeats):
        call()
    return (time.process_time() - start) / repeats * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders holding a model.keras")
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    print("| run | two calls (ms) | one call (ms) | ratio | same probabilities | largest difference | "
          "one text, one call (ms) |")
    print("|---|---|---|---|---|---|---|")
    for run in args.runs:
        model = keras.models.load_model(run / "model.keras", compile=False)
        rng = np.random.default_rng(0)
        split = {name: texts(model, rows, rng) for name, rows in SPLITS.items()}
        both = {name: np.concatenate([split["validation"][name], split["test"][name]]) for name in split["test"]}
        apart = cpu_ms(lambda: [predict_by_length(model, split[name]) for name in SPLITS], args.repeats)
        merged = cpu_ms(lambda: predict_by_length(model, both), args.repeats)
        tiny = {name: values[:1, :3] if name == "tokens" else values[:1] for name, values in both.items()}
        overhead = cpu_ms(lambda: model.predict_on_batch(tiny), 10 * args.repeats)
        separate = [keras.tree.flatten(predict_by_length(model, split[name])) for name in SPLITS]
        together = keras.tree.flatten(predict_by_length(model, both))
        joined = [np.concatenate([a, b]) for a, b in zip(*separate)]
        same = all(np.array_equal(a, np.asarray(b)) for a, b in zip(joined, together))
        largest = max(float(np.abs(a - np.asarray(b)).max()) for a, b in zip(joined, together))
        print(f"| {run} | {apart:.1f} | {merged:.1f} | {apart / merged:.2f}x | {'yes' if same else 'no'} | "
              f"{largest:.1e} | {overhead:.2f} |")


if __name__ == "__main__":
    main()

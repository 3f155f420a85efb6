"""Training speed of the paper's shuffled full-length batches against ``--batching bucket``.

Every model is trained on the real iSarcasm training split (GloVe-sized
random embeddings: the speed does not depend on their values), one epoch to
warm up and trace, then ``--epochs`` timed epochs with each batching, the two
alternating epoch by epoch so that a change in the machine's load hits both.
Prints the mean padded length per batch and one row per model: seconds per
epoch with each batching and their ratio.

Usage: ``python benchmarks/batching.py [--models lstm,cnn] [--epochs 3] [--data-dir ../shared/data]``.
"""
from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import keras
import numpy as np

from baselines import MODELS, ModelConfig, build_model
from baselines.batching import LengthBuckets, used_length
from experiments.reports.format import table
from experiments.runs.one.inputs import FitTexts, ModelInputs
from experiments.runs.one.protocol import make_splits
from preprocessing.config import PreprocessConfig
from preprocessing.corpora import load_corpus


def timed_epoch(model, data) -> float:
    started = time.perf_counter()
    if isinstance(data, LengthBuckets):
        model.fit(data, epochs=1, verbose=0)
        data.on_epoch_end()
    else:
        model.fit(*data, batch_size=128, epochs=1, verbose=0, shuffle=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="lstm,att-lstm,cnn,3cnn,siarn,miarn,dense-lstm")
    parser.add_argument("--epochs", type=int, default=3, help="timed epochs per batching")
    parser.add_argument("--data-dir", type=Path, default=Path(os.environ.get("ISARCASM_DATA", "../shared/data")))
    args = parser.parse_args()
    dataset = load_corpus("isarcasm", args.data_dir)
    splits = make_splits(dataset, seed=0)
    texts = [r.text for r in splits.train]
    y = np.eye(2, dtype="float32")[[r.label for r in splits.train]]
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; "
          f"keras {keras.__version__} on {keras.backend.backend()}; {len(texts)} iSarcasm training texts")
    rows = []
    for name in args.models.split(","):
        spec = MODELS.get(name)
        inputs = ModelInputs.fit(PreprocessConfig(), spec.inputs, FitTexts(texts), args.data_dir)
        x = inputs.build(texts)
        config = ModelConfig(vocab_size=len(inputs.preprocessor.vocab), max_len=inputs.preprocessor.max_len,
                             lexicon_dim=inputs.lexicon_dim)
        models = {}
        for batching in ("shuffled", "bucket"):
            keras.utils.set_random_seed(0)
            models[batching] = build_model(name, config)
            models[batching].compile(optimizer=keras.optimizers.Adam(1e-3), loss="categorical_crossentropy")
        data = {"shuffled": (x, y), "bucket": LengthBuckets(x, y, 128, seed=0)}
        for batching in data:  # warm-up: graph tracing
            timed_epoch(models[batching], data[batching])
        seconds = {batching: [] for batching in data}
        for _ in range(args.epochs):
            for batching in data:
                seconds[batching].append(timed_epoch(models[batching], data[batching]))
        widths = [data["bucket"][i][0]["tokens"].shape[1] for i in range(len(data["bucket"]))]
        shuffled, bucket = (float(np.mean(seconds[b])) for b in data)
        rows.append([name, f"{config.max_len}", f"{np.mean(widths):.1f}", f"{shuffled:.2f}", f"{bucket:.2f}",
                     f"{shuffled / bucket:.2f}x"])
    print(table(rows, ["model", "max_len", "bucket: mean batch length", "s/epoch shuffled", "s/epoch bucket",
                       "speed-up"]))
    print(f"(mean text length {used_length(x['tokens']).mean():.1f} tokens)")


if __name__ == "__main__":
    main()

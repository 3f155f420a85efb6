"""Where one training run's time goes: a wall-clock breakdown of ``train_run``.

Trains one run exactly as ``isarcasm train`` does (same code path, same files),
with timers wrapped around the steps it is made of, and prints one table:
imports, corpus load, the run's identity (splits, data checksums), inputs
(tokenisation, vocabulary, ids), word vectors, embedding matrix, model build
and compile, the first epoch (graph tracing included), the other epochs'
training and validation, the final validation/test prediction, and saving.

Usage::

    python benchmarks/run_profile.py --corpus isarcasm --model siarn --seed 0 [--runs 2] [--batching bucket]

``--runs 2`` trains a second run of the next seed in the same process, which
shows what a worker process that keeps its imports and caches pays per run.
The run store is a temporary folder, so nothing is reused.  Timings depend on
the machine and its load: the header prints both.
"""
from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from collections import defaultdict
from pathlib import Path

STARTED = time.perf_counter()
import keras  # noqa: E402  (timed: the imports are part of what a run costs)

import baselines  # noqa: E402
import experiments.runs.one.training as training  # noqa: E402

IMPORTED = time.perf_counter()

from experiments.runs.one import selection  # noqa: E402
from experiments.runs.one.inputs import ModelInputs  # noqa: E402
from experiments.runs.one.protocol import TrainConfig  # noqa: E402
from experiments.runs.one.spec import RunOptions, RunPlace, RunSpec  # noqa: E402
from preprocessing.corpora import load_corpus  # noqa: E402

SECONDS: dict[str, float] = defaultdict(float)
EPOCHS: list[tuple[float, float]] = []  # (training seconds, validation seconds) per epoch


def timed(owner, attribute: str, label: str) -> None:
    """Replace ``owner.attribute`` by a wrapper that adds its wall time to ``SECONDS[label]``."""
    original = getattr(owner, attribute)

    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            SECONDS[label] += time.perf_counter() - started

    setattr(owner, attribute, wrapper)


class TimedKeepBestEpoch(selection.KeepBestEpoch):
    """The selection callback, also noting when each epoch's training and validation start and end."""

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch_started = time.perf_counter()

    def on_test_begin(self, logs=None):
        self._test_started = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        ended = time.perf_counter()
        EPOCHS.append((self._test_started - self._epoch_started, ended - self._test_started))
        super().on_epoch_end(epoch, logs)


def instrument() -> None:
    timed(training, "make_splits", "splits")
    timed(training.provenance, "checksums", "data checksums (sha256)")
    timed(ModelInputs, "fit", "inputs: tokenise, vocabulary")
    timed(ModelInputs, "build", "inputs: ids, lexicon features")
    timed(training, "initial_vectors", "word vectors (GloVe cache)")
    timed(training, "embedding_matrix", "embedding matrix")
    timed(baselines, "build_model", "model build")
    timed(keras.Model, "compile", "compile")
    timed(keras.Model, "predict", "predict validation + test")
    timed(keras.Model, "save", "save model.keras")
    timed(training.provenance, "record", "provenance record")
    selection.KeepBestEpoch = TimedKeepBestEpoch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="isarcasm")
    parser.add_argument("--model", default="siarn")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=1, help="runs trained one after another in this process")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batching", default="shuffled", help="shuffled (the paper's) or bucket (a variant)")
    parser.add_argument("--data-dir", type=Path, default=Path(os.environ.get("ISARCASM_DATA", "../shared/data")))
    args = parser.parse_args()
    instrument()
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; "
          f"keras {keras.__version__} on {keras.backend.backend()}; threads: "
          f"intra-op {os.environ.get('TF_NUM_INTRAOP_THREADS', 'default')}")
    print(f"imports (keras, backend, baselines): {IMPORTED - STARTED:.2f} s")
    started = time.perf_counter()
    dataset = load_corpus(args.corpus, args.data_dir)
    print(f"corpus load: {time.perf_counter() - started:.2f} s")
    store = Path(tempfile.mkdtemp(prefix="profile-"))
    for run in range(args.runs):
        SECONDS.clear()
        EPOCHS.clear()
        seed = args.seed + run
        started = time.perf_counter()
        spec = RunSpec(args.corpus, args.model, seed, TrainConfig(epochs=args.epochs, batching=args.batching))
        result = training.train_run(spec, dataset, RunPlace(store / f"seed-{seed}"), args.data_dir, RunOptions(verbose=0))
        total = time.perf_counter() - started
        fit_train = [t for t, _ in EPOCHS]
        fit_validation = [v for _, v in EPOCHS]
        rows = [*SECONDS.items(),
                ("epoch 1 training (with tracing)", fit_train[0]),
                ("epoch 1 validation (with tracing)", fit_validation[0]),
                (f"epochs 2-{len(EPOCHS)} training", sum(fit_train[1:])),
                (f"epochs 2-{len(EPOCHS)} validation", sum(fit_validation[1:]))]
        accounted = sum(seconds for _, seconds in rows)
        rows.append(("other (fit setup, callbacks, writing files)", total - accounted))
        print(f"\nrun {run + 1}: {args.corpus}/{args.model} seed {seed}: {total:.1f} s "
              f"(selected epoch {result.metrics['selected_epoch']}, test F1 "
              f"{result.metrics['test'].get('f1_sarcastic', float('nan')):.4f})")
        for label, seconds in sorted(rows, key=lambda row: -row[1]):
            print(f"  {label:<45} {seconds:7.2f} s  {100 * seconds / total:5.1f}%")
        if len(EPOCHS) > 1:
            print(f"  (a later epoch: {sum(fit_train[1:]) / (len(EPOCHS) - 1):.3f} s training, "
                  f"{sum(fit_validation[1:]) / (len(EPOCHS) - 1):.3f} s validation)")


if __name__ == "__main__":
    main()

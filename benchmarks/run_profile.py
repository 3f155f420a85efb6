"""Where one training run's time goes: a wall-clock breakdown of ``train_run``.

Trains one run exactly as ``isarcasm train`` does (same code path, same files),
with timers wrapped around the steps it is made of, and prints one table:
imports, corpus load, the run's identity (splits, data checksums), inputs
(tokenisation, vocabulary, ids), word vectors, embedding matrix, model build
and compile, the first epoch (graph tracing included), the other epochs'
training, the final validation/test prediction, and saving.

Usage::

    python benchmarks/run_profile.py --corpus isarcasm --model siarn --seed 0 [--runs 2] [--batching bucket]
        [--clock cpu]

``--runs 2`` trains a second run of the next seed in the same process, which
shows what a worker process that keeps its imports and caches pays per run.
The per-epoch record (validation and test predicted after every epoch, the
validation scores derived from it) is timed apart, and its share of ``fit`` is
printed: issue 34 bounds it at 5%.  A timer nested in
another (a prediction inside a callback) counts only in the inner one, so the
rows add up to the run.  The run store is a temporary folder, so nothing is
reused.  Timings depend on the machine and its load: the header prints both;
``--clock cpu`` times this process' CPU seconds instead of wall seconds, which
load changes far less when the run has one thread (``TF_NUM_INTRAOP_THREADS=1``,
as a ``--jobs`` worker).
"""
from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

STARTED = time.perf_counter()
import keras  # noqa: E402  (timed: the imports are part of what a run costs)

import baselines  # noqa: E402
import baselines.batching as batching  # noqa: E402
import experiments.runs.one.training as training  # noqa: E402

IMPORTED = time.perf_counter()

from experiments.runs.one import selection  # noqa: E402
from experiments.runs.one.inputs import ModelInputs  # noqa: E402
from experiments.runs.one.protocol import TrainConfig  # noqa: E402
from experiments.runs.one.spec import RunOptions, RunPlace, RunSpec  # noqa: E402
from preprocessing.corpora import load_corpus  # noqa: E402

CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = CLOCKS["wall"]
SECONDS: dict[str, float] = defaultdict(float)
NESTED: list[float] = []  # per open timer, the seconds of the timers opened inside it
RECORD = "per-epoch record (validation + test, every epoch)"


@dataclass(frozen=True)
class Epoch:
    training: float  # from the epoch's start to its record
    record: float


EPOCHS: list[Epoch] = []


@contextmanager
def counted(label: str):
    """Add the seconds of the block to ``SECONDS[label]``, less those of the timers nested in it."""
    started = clock()
    NESTED.append(0.0)
    try:
        yield
    finally:
        elapsed, inner = clock() - started, NESTED.pop()
        SECONDS[label] += elapsed - inner
        if NESTED:
            NESTED[-1] += elapsed


def timed(owner, attribute: str, label: str) -> None:
    """Replace ``owner.attribute`` by a wrapper that counts its time under ``label``."""
    original = getattr(owner, attribute)

    def wrapper(*args, **kwargs):
        with counted(label):
            return original(*args, **kwargs)

    setattr(owner, attribute, wrapper)


class TimedEpochRecorder(selection.EpochRecorder):
    """The per-epoch record, also noting when each epoch starts; its own work is counted under :data:`RECORD`."""

    def on_epoch_begin(self, epoch, logs=None):
        self._begin = clock()

    def on_epoch_end(self, epoch, logs=None):
        started, before = clock(), SECONDS[RECORD]
        with counted(RECORD):
            super().on_epoch_end(epoch, logs)
        EPOCHS.append(Epoch(started - self._begin, SECONDS[RECORD] - before))


def instrument() -> None:
    timed(training, "make_splits", "splits")
    timed(training, "data_checksums", "data checksums (sha256)")
    timed(ModelInputs, "fit", "inputs: tokenise, vocabulary")
    timed(ModelInputs, "build", "inputs: ids, lexicon features")
    timed(training, "initial_vectors", "word vectors (GloVe cache)")
    timed(training, "embedding_matrix", "embedding matrix")
    timed(baselines, "build_model", "model build")
    timed(keras.Model, "compile", "compile")
    timed(training, "fit_data", "training batches (fit's data)")
    timed(batching, "predict_by_length", "final predict (validation + test)")  # the record's calls are its own
    timed(keras.Model, "save", "save model.keras")
    timed(training.provenance, "record", "provenance record")
    selection.EpochRecorder = TimedEpochRecorder


def main() -> None:
    global clock
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="isarcasm")
    parser.add_argument("--model", default="siarn")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=1, help="runs trained one after another in this process")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batching", default="shuffled", help="shuffled (the paper's) or bucket (a variant)")
    parser.add_argument("--clock", default="wall", choices=tuple(CLOCKS),
                        help="wall seconds, or this process' CPU seconds (steadier on a loaded machine)")
    parser.add_argument("--data-dir", type=Path, default=Path(os.environ.get("ISARCASM_DATA", "../shared/data")))
    args = parser.parse_args()
    clock = CLOCKS[args.clock]
    instrument()
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; "
          f"keras {keras.__version__} on {keras.backend.backend()}; threads: "
          f"intra-op {os.environ.get('TF_NUM_INTRAOP_THREADS', 'default')}; "
          f"{args.clock} seconds")
    print(f"imports (keras, backend, baselines): {IMPORTED - STARTED:.2f} s wall")
    started = time.perf_counter()
    dataset = load_corpus(args.corpus, args.data_dir)
    print(f"corpus load: {time.perf_counter() - started:.2f} s wall")
    store = Path(tempfile.mkdtemp(prefix="profile-"))
    for run in range(args.runs):
        SECONDS.clear()
        EPOCHS.clear()
        seed = args.seed + run
        started = clock()
        config = TrainConfig(epochs=args.epochs, batching=args.batching)
        spec = RunSpec(args.corpus, args.model, seed, config)
        result = training.train_run(spec, dataset, RunPlace(store / f"seed-{seed}"), args.data_dir, RunOptions(verbose=0))
        total = clock() - started
        print(f"\nrun {run + 1}: {args.corpus}/{args.model} seed {seed}: {total:.1f} s "
              f"(selected epoch {result.metrics['selected_epoch']}, test F1 "
              f"{result.metrics['test'].get('f1_sarcastic', float('nan')):.4f})")
        print_breakdown(total)


def print_breakdown(total: float) -> None:
    """One row per step, the largest first, then the later epochs' mean and the record's share of fit."""
    first, later = EPOCHS[0], EPOCHS[1:]
    rows = [*((label, seconds) for label, seconds in SECONDS.items() if label != RECORD),
            ("epoch 1 training (with tracing)", first.training),
            (f"epochs 2-{len(EPOCHS)} training", sum(epoch.training for epoch in later)),
            (RECORD, SECONDS[RECORD])]
    rows.append(("other (fit's set-up and callbacks, writing files)", total - sum(seconds for _, seconds in rows)))
    for label, seconds in sorted(rows, key=lambda row: -row[1]):
        print(f"  {label:<50} {seconds:7.2f} s  {100 * seconds / total:5.1f}%")
    if later:
        print(f"  (a later epoch: {sum(e.training for e in later) / len(later):.3f} s training, "
              f"{sum(e.record for e in later) / len(later):.3f} s record)")
    fit = sum(epoch.training + epoch.record for epoch in EPOCHS)
    print(f"  per-epoch record: {SECONDS[RECORD]:.2f} s = {100 * SECONDS[RECORD] / fit:.1f}% of fit's epochs "
          f"({fit:.1f} s: training, record), {100 * SECONDS[RECORD] / total:.1f}% of the run")


if __name__ == "__main__":
    main()

"""The fast engine against the exact one: seconds per epoch and per run, in one process, paired.

Trains the same run (corpus, model, seed) under ``--engine exact`` and under the fast engine with
several numbers of pieces per batch, each for a few epochs, in turn and repeated, so that a
change in the machine's load hits every variant alike.  ``--live-rows K`` adds each variant again with
the models' LSTMs computing only the rows still inside their text, in K chunks of time
(``recurrent_loop.LiveRowsLSTM``, a lever measured, not an option of the suite).  It prints, per variant, the median
wall and CPU seconds of the epochs after the first (the first traces the graph), the run's
seconds, its peak memory, and the CPU ratio to the exact engine (CPU seconds: with one thread,
the work done, which other load on the machine changes far less than wall time).  One thread, as each ``--jobs 2`` worker has.

Usage::

    TF_NUM_INTRAOP_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/fast_engine.py --model lstm \
        [--corpus isarcasm] [--epochs 4] [--pieces 2,4,8] [--repeats 2] \
        [--live-rows 4]

The run store is a temporary folder: nothing is reused and nothing is kept.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import experiments.runs.one.training as training
from experiments.reports.format import markdown_table
from experiments.runs.one import selection
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.spec import RunOptions, RunPlace, RunSpec
from preprocessing.corpora import load_corpus
from recurrent_loop import live_rows_in_models


def train_once(spec: RunSpec, dataset, data_dir: Path, pieces: int) -> dict:
    """One run of ``spec`` in a fresh temporary store, ``pieces`` per batch for the fast engine;
    its seconds per epoch (after the first), whole seconds, peak memory and test F1."""
    seconds: list[tuple[float, float]] = []  # (wall, CPU) seconds of each epoch
    stop = selection.StopOnNonFinite

    class Timed(stop):  # an epoch runs from its start to the next one's: the record and validation included
        def on_epoch_begin(self, epoch, logs=None):
            self.lap()
            self.started = (time.perf_counter(), time.process_time())

        def on_train_end(self, logs=None):
            self.lap()

        def lap(self):
            if hasattr(self, "started"):
                seconds.append((time.perf_counter() - self.started[0], time.process_time() - self.started[1]))

    training.PIECES, selection.StopOnNonFinite = pieces, Timed
    try:
        with tempfile.TemporaryDirectory() as folder:
            result = training.train_run(spec, dataset, RunPlace(Path(folder) / "run"), data_dir, RunOptions(verbose=0))
    finally:
        selection.StopOnNonFinite = stop
    later = seconds[1:] or seconds
    return {"epoch": statistics.median(wall for wall, _ in later), "cpu": statistics.median(cpu for _, cpu in later),
            "run": result.metrics["train_seconds"],
            "memory": result.metrics.get("peak_memory_mb"), "f1": result.metrics["test"]["f1_sarcastic"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="isarcasm")
    parser.add_argument("--model", default="lstm")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--pieces", default="2,4,8")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--live-rows", type=int, default=0, metavar="CHUNKS",
                        help="also every variant with live-rows LSTMs in CHUNKS chunks of time (0: not)")
    parser.add_argument("--data-dir", type=Path, default=Path(os.environ.get("ISARCASM_DATA", "data")))
    args = parser.parse_args()

    dataset = load_corpus(args.corpus, args.data_dir)
    variants = [("exact", 1)] + [("fast", int(k)) for k in args.pieces.split(",")]
    seen: dict[str, list[dict]] = {}
    for _ in range(args.repeats):
        for live in [0] + ([args.live_rows] if args.live_rows else []):
            for engine, pieces in variants:
                spec = RunSpec(args.corpus, args.model, args.seed, TrainConfig(epochs=args.epochs, engine=engine))
                name = (engine if engine == "exact" else f"fast, {pieces} pieces") + (
                    f", live rows in {live} chunks" if live else "")
                with live_rows_in_models(live) if live else contextlib.nullcontext():
                    seen.setdefault(name, []).append(train_once(spec, dataset, args.data_dir, pieces))
    print(f"{args.model} on {args.corpus}, seed {args.seed}, {args.epochs} epochs, {args.repeats} repeats; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
          f"threads {os.environ.get('TF_NUM_INTRAOP_THREADS', 'all')}")
    base = statistics.median(r["cpu"] for r in seen["exact"])
    table = []
    for name, rows in seen.items():
        cpu = statistics.median(r["cpu"] for r in rows)
        table.append([name, f"{statistics.median(r['epoch'] for r in rows):.2f}", f"{cpu:.2f}",
                      f"{statistics.median(r['run'] for r in rows):.1f}", f"{max(r['memory'] or 0 for r in rows):.0f}",
                      f"{rows[0]['f1']:.3f}", f"{base / cpu:.2f}x"])
    print("\n".join(markdown_table(table, ["variant", "wall s/epoch (median, epochs 2+)", "CPU s/epoch", "s/run",
                                            "peak MiB", "test F1", "CPU ratio to exact"])))


if __name__ == "__main__":
    main()

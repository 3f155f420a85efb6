"""Peak memory of one training run per engine, each in a fresh process: the exact engine against the fast one.

Issue 34 allows a faster path at most 10% more peak memory per run than today's.  A paired benchmark in one
process (benchmarks/fast_engine.py) cannot tell which engine raised the process' peak, so each run here is
``isarcasm train`` in its own child process, with a worker's environment (one thread, as ``--jobs 2`` runs
it), in a temporary run store (nothing reused).  Two figures per run: the child's peak resident memory
from the kernel (``ru_maxrss`` of ``os.wait4``: the whole process, imports included; Linux counts in it what
this parent held when it forked, which is why the parent imports little) and the peak the
run recorded itself (metrics.json ``peak_memory_mb``, from the run's start: experiments/runs/one/footprint.py).

Usage::

    python benchmarks/run_memory.py [--models lstm,cnn,dense-lstm] [--corpus isarcasm] [--epochs 2] [--seed 0]

A short run is enough: both engines train on the same batches every epoch (drawn once), so every shape
the fast engine's pieces trace is met in the first epoch; the per-epoch record adds little each epoch.
Exit status 1 when a fast run's peak exceeds the exact one's by more than ``--bound`` (10%).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ("exact", "fast")
CLI = "import sys; from experiments.cli import main; sys.exit(main())"


def train_command(model: str, engine: str, corpus: str, epochs: int, seed: int, store: Path) -> list[str]:
    """``isarcasm train`` for one run, in this interpreter, its run store ``store``."""
    return [sys.executable, "-c", CLI, "-q", "train", "--corpus", corpus, "--model", model, "--seed", str(seed),
            "--epochs", str(epochs), "--engine", engine, "--output-dir", str(store)]


def peak_mib(maxrss_kib: int) -> float:
    """``ru_maxrss`` (KiB on Linux) in MiB."""
    return maxrss_kib / 1024


def recorded_peak(store: Path) -> float | None:
    """The peak the store's one run recorded in its metrics.json (None where it could not measure)."""
    found = sorted(store.rglob("metrics.json"))
    if len(found) != 1:
        raise RuntimeError(f"expected one finished run in {store}, found {len(found)}")
    return json.loads(found[0].read_text())["peak_memory_mb"]


def measure(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run ``command`` to its end: its peak resident memory (MiB) and wall seconds."""
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise RuntimeError(f"{' '.join(command[3:])} exited with {child.returncode}")
    return peak_mib(usage.ru_maxrss), time.perf_counter() - started


def ratio_rows(peaks: dict[tuple[str, str], tuple[float, float | None]], bound: float) -> tuple[list[list], bool]:
    """Table rows, one per model (exact and fast peaks, process and recorded, fast / exact), and whether
    every model's fast process peak is within ``bound`` (0.10: 10%) of its exact one."""
    rows, within = [], True
    for model in dict.fromkeys(model for model, _ in peaks):
        (exact, exact_run), (fast, fast_run) = peaks[model, "exact"], peaks[model, "fast"]
        ratio = fast / exact
        within &= ratio <= 1 + bound
        rows.append([model, f"{exact:,.0f}", f"{fast:,.0f}", f"{ratio:.3f}",
                     f"{exact_run:,.0f}" if exact_run is not None else "—",
                     f"{fast_run:,.0f}" if fast_run is not None else "—",
                     f"{fast_run / exact_run:.3f}" if exact_run and fast_run else "—"])
    return rows, within


HEADER = ["model", "exact, process peak MiB", "fast, process peak MiB", "fast / exact",
          "exact, run's record MiB", "fast, run's record MiB", "fast / exact (record)"]


def main() -> int:
    from experiments.reports.format import markdown_table
    from experiments.runs.many.scheduler import worker_environment

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="lstm,cnn,dense-lstm")
    parser.add_argument("--corpus", default="isarcasm")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bound", type=float, default=0.10, help="allowed excess of fast over exact (0.10: 10%%)")
    args = parser.parse_args()
    env = {**os.environ, **worker_environment(1)}
    print(f"# {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; {args.corpus}, seed {args.seed}, "
          f"{args.epochs} epochs, one thread per run, one fresh process per run")
    peaks = {}
    for model in args.models.split(","):
        for engine in ENGINES:
            with tempfile.TemporaryDirectory(prefix="run-memory-") as folder:
                store = Path(folder)
                command = train_command(model, engine, args.corpus, args.epochs, args.seed, store)
                peak, seconds = measure(command, env)
                peaks[model, engine] = peak, recorded_peak(store)
            print(f"{model} {engine}: process peak {peak:,.0f} MiB, run's record {peaks[model, engine][1]} MiB, "
                  f"{seconds:.0f} s wall", flush=True)
    rows, within = ratio_rows(peaks, args.bound)
    print("\n" + "\n".join(markdown_table(rows, HEADER)))
    print(f"\nfast within {args.bound:.0%} of exact for every model: {'yes' if within else 'no'}")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())

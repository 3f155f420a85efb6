"""Would more single-threaded workers than cores finish a sweep sooner?

``--jobs N`` starts at most one worker per core, each with one thread.  A Table 7
sweep then leaves the cores partly idle by the process accounting (``/usr/bin/time``;
docs/results/speed.md measures it), so a third worker might fill the gaps.  A run's digits depend on its threads, not on how many runs
share the cores, so the numbers must not move; only the wall time may.

For each worker count this trains the same command from scratch in its own
temporary run store, one worker count after the other, with the per-core cap
lifted (one thread per worker throughout), and prints the wall time, the CPU
the workers got, their ratio to the first count, and whether every run's
numbers are the first count's.

Usage::

    python benchmarks/workers_per_core.py --workers 2,3 -- reproduce table7 --corpora isarcasm --models cnn,lstm --seeds 3

Run it with nothing else training; ``ISARCASM_DATA`` must point at the data.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from same_numbers import by_cell, run_pairs  # noqa: E402  (a sibling script, not a package)

#: The command line of one arm: the suite's CLI with the per-core cap set to the worker count, so
#: ``--jobs W`` starts W workers of one thread each (``threads = cores // jobs``).
LIFTED_CAP = ("import sys, experiments.runs.many.scheduler as s; workers = int(sys.argv.pop(1)); "
              "s.cores = lambda: workers; from experiments.cli import main; main(prog_name='isarcasm')")


def child_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def arm(workers: int, command: list[str], root: Path) -> tuple[float, float, dict]:
    """Wall seconds, CPU seconds and the results file of ``command`` trained with ``workers`` workers."""
    runs, results = root / f"runs-{workers}", root / f"results-{workers}"
    argv = [sys.executable, "-c", LIFTED_CAP, str(workers), *command, "--jobs", str(workers),
            "--output-dir", str(runs), "--results-dir", str(results)]
    cpu, start = child_cpu_seconds(), time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)  # the report is in the results folder
    wall, used = time.perf_counter() - start, child_cpu_seconds() - cpu
    files = [f for f in results.glob("*.json")]
    if len(files) != 1:
        raise SystemExit(f"expected one results file in {results}, found {len(files)}: give one experiment")
    return wall, used, json.loads(files[0].read_text())


def changed_runs(first: dict, other: dict) -> tuple[int, int]:
    """(runs whose metrics or selected epoch differ, runs compared) between two results files."""
    a, b = by_cell(first), by_cell(other)
    changed = total = 0
    for key in a.keys() & b.keys():
        for _, i, j in run_pairs(a[key], b[key]):
            total += 1
            same = a[key]["selected_epochs"][i] == b[key]["selected_epochs"][j] and all(
                a[key]["metrics"][m]["values"][i] == b[key]["metrics"][m]["values"][j]
                for m in a[key]["metrics"] if m in b[key]["metrics"])
            changed += not same
    return changed, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="2,3", help="comma-separated worker counts, the first the baseline")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="after --: an isarcasm command that trains")
    args = parser.parse_args()
    command = [part for part in args.command if part != "--"]
    counts = [int(part) for part in args.workers.split(",")]
    print(f"{os.cpu_count()} cores; command: isarcasm {' '.join(command)}")
    with tempfile.TemporaryDirectory() as scratch:
        measured = [(count, *arm(count, command, Path(scratch))) for count in counts]
    base_wall, base = measured[0][1], measured[0][3]
    print("| workers | wall (s) | CPU (s) | CPU / wall | wall ratio to the first | runs changed |")
    print("|---|---|---|---|---|---|")
    for count, wall, cpu, result in measured:
        changed, total = changed_runs(base, result)
        print(f"| {count} | {wall:.1f} | {cpu:.1f} | {cpu / wall:.2f} | {base_wall / wall:.2f}x | {changed} of {total} |")


if __name__ == "__main__":
    main()

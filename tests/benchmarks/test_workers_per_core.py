"""benchmarks/workers_per_core.py's own parts: which runs moved between two worker counts, and the command
line of one arm (the suite's CLI with the per-core cap lifted).  No model is trained."""
import subprocess
import sys

from locations import ROOT, benchmark_script


workers_per_core = benchmark_script("workers_per_core")


def results(values, epochs, seeds=(0, 1)):
    return {"cells": [{"corpus": "isarcasm", "model": "cnn", "seeds": list(seeds), "selected_epochs": epochs,
                       "metrics": {"f1_sarcastic": {"values": values}}, "runs": ["a", "b"]}]}


def test_equal_results_have_no_changed_run():
    assert workers_per_core.changed_runs(results([0.2, 0.3], [3, 4]), results([0.2, 0.3], [3, 4])) == (0, 2)


def test_a_changed_value_or_epoch_counts_its_run_once():
    assert workers_per_core.changed_runs(results([0.2, 0.3], [3, 4]), results([0.2, 0.31], [3, 4])) == (1, 2)
    assert workers_per_core.changed_runs(results([0.2, 0.3], [3, 4]), results([0.2, 0.3], [5, 4])) == (1, 2)
    assert workers_per_core.changed_runs(results([0.2, 0.3], [3, 4]), results([0.25, 0.3], [5, 4])) == (1, 2)


def test_runs_are_paired_by_seed():
    first, other = results([0.2, 0.3], [3, 4]), results([0.3, 0.2], [4, 3], seeds=(1, 0))
    assert workers_per_core.changed_runs(first, other) == (0, 2)


def test_the_lifted_cap_lets_more_workers_than_cores_start():
    probe = workers_per_core.LIFTED_CAP.split("from experiments.cli")[0] + (
        "from experiments.runs.many.scheduler import capped_jobs; print(capped_jobs(workers + 0))")
    shown = subprocess.run([sys.executable, "-c", probe, "64"], capture_output=True, text=True, cwd=ROOT, check=True)
    assert shown.stdout.split() == ["64"]

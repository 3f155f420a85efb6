"""benchmarks/run_memory.py's own parts: the command it runs, the child's peak, the run's record and the table.

No model is trained: the child processes here are tiny Python programs, the run store a folder built here.
"""
import json
import os
import resource
import sys

import pytest
from locations import benchmark_script


run_memory = benchmark_script("run_memory")


def test_the_command_trains_one_run_of_the_engine_in_the_given_store(tmp_path):
    command = run_memory.train_command("cnn", "fast", "isarcasm", 2, 3, tmp_path)
    assert command[0] == sys.executable
    options = command[command.index("train") + 1:]
    assert dict(zip(options[::2], options[1::2])) == {
        "--corpus": "isarcasm", "--model": "cnn", "--seed": "3", "--epochs": "2", "--engine": "fast",
        "--output-dir": str(tmp_path)}


def test_a_child_that_holds_more_memory_peaks_higher():
    # Linux's ru_maxrss of a child also counts what the parent (here pytest) held at the fork, so the child
    # holds well above that: the benchmark's parent is small next to a training run
    parent = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    held = int(parent) + 100
    small, _ = run_memory.measure([sys.executable, "-c", "pass"], dict(os.environ))
    large, _ = run_memory.measure([sys.executable, "-c", f"x = b'1' * ({held} * 2**20)"], dict(os.environ))
    assert small < parent + 50
    assert held < large < held + 100


def test_a_failed_child_is_an_error_not_a_figure():
    with pytest.raises(RuntimeError, match="exited with 3"):
        run_memory.measure([sys.executable, "-c", "import sys; sys.exit(3)"], dict(os.environ))


def test_the_recorded_peak_is_the_one_runs(tmp_path):
    run = tmp_path / "train" / "isarcasm" / "cnn" / "seed-0"
    run.mkdir(parents=True)
    (run / "metrics.json").write_text(json.dumps({"peak_memory_mb": 1234.5}))
    assert run_memory.recorded_peak(tmp_path) == 1234.5
    (tmp_path / "train" / "isarcasm" / "lstm").mkdir()
    (tmp_path / "train" / "isarcasm" / "lstm" / "metrics.json").write_text("{}")
    with pytest.raises(RuntimeError, match="found 2"):
        run_memory.recorded_peak(tmp_path)


def test_the_ratio_is_fast_over_exact_and_the_bound_is_checked_per_model():
    peaks = {("lstm", "exact"): (1000.0, 900.0), ("lstm", "fast"): (1100.0, 990.0),
             ("cnn", "exact"): (1000.0, None), ("cnn", "fast"): (1050.0, None)}
    rows, within = run_memory.ratio_rows(peaks, 0.10)
    assert rows == [["lstm", "1,000", "1,100", "1.100", "900", "990", "1.100"],
                    ["cnn", "1,000", "1,050", "1.050", "—", "—", "—"]]
    assert within
    peaks["cnn", "fast"] = (1101.0, None)
    assert not run_memory.ratio_rows(peaks, 0.10)[1]

"""benchmarks/gpu_check.sh and gpu_check.py: a machine without a GPU trains nothing and says so; a GPU's cells are
held to the reference's spread over seeds and their mean to the criterion's margin.

Tiny results files built here: two cells, one seed a side, and a reference of three seeds per cell.
"""
import json
import os
import subprocess

import pytest

from locations import ROOT, benchmark_script
from markdown_tables import unpadded

from experiments.runs.one.metrics import summary_stats

CELLS = [("isarcasm", "lstm"), ("isarcasm", "cnn")]


def results(f1_values, seconds=(10.0, 10.0), epochs=10):
    """A results file of the CELLS, each with its runs' sarcastic-class F1 values and the first run's seconds."""
    cells = [{"corpus": corpus, "model": model, "note": "", "references": [],
              "runs": [f"runs/table7/{corpus}/{model}/seed-{seed}" for seed in range(len(values))],
              "metrics": {"f1_sarcastic": summary_stats(values)}, "train_seconds": [spent] * len(values)}
             for (corpus, model), values, spent in zip(CELLS, f1_values, seconds)]
    return {"kind": "table", "schema_version": 1, "experiment": "table7", "title": "t", "source": "s", "seeds": [0],
            "train": {"epochs": epochs}, "cells": cells}


REFERENCE = results([[0.20, 0.25, 0.30], [0.24, 0.25, 0.26]])  # standard deviations 0.05 and 0.01


def check(tmp_path, capsys, gpu, cpu, reference=REFERENCE):
    paths = []
    for name, result in (("gpu", gpu), ("cpu", cpu), ("reference", reference)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(result))
    status = benchmark_script("gpu_check").main([str(paths[0]), str(paths[1]), "--reference", str(paths[2])])
    captured = capsys.readouterr()
    return status, unpadded(captured.out), captured.err


def test_each_cell_is_held_to_its_own_spread(tmp_path, capsys):
    within = 0.035  # inside lstm's bound (3.2 × its sd 0.05), outside cnn's (3.2 × 0.01); the mean stays within 0.02
    status, out, _ = check(tmp_path, capsys, results([[0.25 + within], [0.25]], seconds=(2.0, 1.0)),
                           results([[0.25], [0.25]], seconds=(10.0, 8.0)))
    assert status == 0 and "verdict: PASS: 0 of 2 cells" in out
    assert "| isarcasm | lstm | 0.20 | 1.00 | 5.0x |" in out  # seconds per epoch: 2 s and 10 s over 10 epochs
    status, out, _ = check(tmp_path, capsys, results([[0.25], [0.25 + within]]), results([[0.25], [0.25]]))
    assert status == 1 and "verdict: FAIL: 1 of 2 cells" in out and "| **no** |" in out


def test_a_mean_shift_beyond_the_margin_fails_even_when_every_cell_is_within(tmp_path, capsys):
    wide = results([[0.1, 0.3, 0.5], [0.1, 0.3, 0.5]])  # sd 0.2: a bound of about 0.7 per cell
    status, out, _ = check(tmp_path, capsys, results([[0.28], [0.28]]), results([[0.25], [0.25]]), wide)
    assert status == 1 and "0 of 2 cells outside" in out and "mean Δ +0.030" in out


@pytest.mark.parametrize("gpu, reference, words", [
    (results([[0.25]]), REFERENCE, "train other cells (isarcasm/cnn)"),
    (results([[0.25], [0.25]]), results([[0.25], [0.25]]), "has one seed of isarcasm/cnn, isarcasm/lstm"),
])
def test_bad_input_is_one_line(tmp_path, capsys, gpu, reference, words):
    status, out, err = check(tmp_path, capsys, gpu, results([[0.25], [0.25]]), reference)
    assert status == 2 and out == "" and words in err and err.count("\n") == 1


def run_script(tmp_path, nvidia_smi: str, python: str = "python"):
    """gpu_check.sh with a stand-in nvidia-smi first on PATH."""
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "nvidia-smi").write_text(f"#!/bin/sh\n{nvidia_smi}\n")
    (tools / "nvidia-smi").chmod(0o755)
    env = {**os.environ, "PATH": f"{tools}:{os.environ['PATH']}", "OUT": str(tmp_path / "out"), "PYTHON": python}
    return subprocess.run(["bash", str(ROOT / "benchmarks" / "gpu_check.sh")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


def test_without_a_gpu_it_says_so_in_one_line_and_trains_nothing(tmp_path):
    done = run_script(tmp_path, "exit 9")  # nvidia-smi's status when it finds no driver or device
    assert done.returncode == 77 and done.stdout == ""
    assert done.stderr == "gpu_check: no NVIDIA GPU here (nvidia-smi lists none); nothing trained\n"
    assert not (tmp_path / "out").exists()


def test_a_gpu_that_tensorflow_does_not_see_names_the_extra(tmp_path):
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\necho 0\n")  # TensorFlow's count of GPUs: none
    python.chmod(0o755)
    done = run_script(tmp_path, 'echo "GPU 0: NVIDIA H100 (UUID: GPU-0)"', str(python))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("gpu_check: TensorFlow sees no GPU (GPU 0: NVIDIA H100 (UUID: GPU-0)): "
                           "pip install -e '.[gpu]'\n")

"""Every model on the JAX and torch Keras backends: build, train one epoch, predict, save, reload.

The backend is fixed when Keras is imported, so each backend runs in one subprocess
(``tests/backend_check.py``) that goes through every model and one ``isarcasm train``, and
reports each check; the tests below read that report.  A backend that is not installed is
skipped (``pip install -e '.[backends]'``, which ``make test`` does, installs both, CPU builds).
TensorFlow, the default backend, is what the rest of the suite runs on.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest
from backend_check import CASES

from experiments.runs.provenance import BACKENDS as ALL_BACKENDS
from locations import TESTS

HELPER = TESTS / "backend_check.py"
#: The backends other than TensorFlow (the one the rest of the suite runs on), and the package each needs.
BACKENDS = {name: package for name, package in ALL_BACKENDS.items() if name != "tensorflow"}
_reports: dict[str, dict] = {}


def report(backend: str, tmp_path_factory) -> dict:
    """The helper's report for ``backend``, run once per test session."""
    if importlib.util.find_spec(BACKENDS[backend]) is None:
        pytest.skip(f"{BACKENDS[backend]} is not installed (pip install -e '.[backends]')")
    if backend not in _reports:
        folder = tmp_path_factory.mktemp(f"backend-{backend}")
        env = {**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "2"}
        done = subprocess.run([sys.executable, str(HELPER), str(folder / "report.json"), str(folder / "work")],
                              env=env, capture_output=True, text=True, timeout=600)
        path = folder / "report.json"
        assert path.is_file(), f"{backend} helper wrote no report (exit {done.returncode}):\n{done.stderr[-3000:]}"
        _reports[backend] = json.loads(path.read_text())
    return _reports[backend]


def outcome(backend: str, check: str, tmp_path_factory) -> dict:
    result = report(backend, tmp_path_factory)
    assert result["backend"] == backend
    assert check in result["checks"], f"{check} did not run on {backend} (the helper stopped early)"
    found = result["checks"][check]
    assert found["ok"], f"{check} on {backend}:\n{found['error']}"
    return found


@pytest.mark.parametrize("check", [case for case, _, _ in CASES])
@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_model_trains_predicts_saves_and_reloads(backend, check, tmp_path_factory):
    """One epoch on a toy task, finite probabilities summing to 1, the same with the words padded before
    (which cuDNN's LSTM kernel cannot take) and for an all-padding text, identical after a safe_mode reload."""
    outcome(backend, check, tmp_path_factory)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_the_random_initial_state_is_drawn_per_batch_and_reloads(backend, tmp_path_factory):
    """--initial-state random (an LSTM state drawn in ±0.01 for every batch) trains, predicts and reloads."""
    outcome(backend, "random initial state", tmp_path_factory)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_train_command_runs_on_the_chosen_backend_as_a_named_variant(backend, tmp_path_factory):
    """`isarcasm --backend NAME train`: the run computes on that backend, records it, and is stored
    under the named variant, apart from the TensorFlow runs."""
    found = outcome(backend, "isarcasm train", tmp_path_factory)
    assert found["keras_backend"] == backend and found["hashed_backend"] == backend
    assert found["experiment"] == f"train-epochs-1-embeddings-random-backend-{backend}"


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_a_tensorflow_run_is_not_reused_on_another_backend(backend, tmp_path_factory):
    """The backend is part of the configuration hash, except TensorFlow's (its runs keep their hashes:
    test_run_format.py)."""
    assert outcome(backend, "tensorflow run not reused", tmp_path_factory)["same_hash"] is False


def test_another_backend_is_a_named_variant(monkeypatch):
    """Runs and results of another backend go under <experiment>-backend-NAME; TensorFlow's keep their names."""
    from experiments.runs import provenance
    from experiments.runs.protocol import QUICK, TrainConfig

    assert TrainConfig().variant() == ""
    monkeypatch.setattr(provenance, "keras_backend", lambda: "jax")
    assert TrainConfig().variant() == "backend-jax"
    assert TrainConfig(**QUICK).variant() == "quick-backend-jax"
    assert TrainConfig(batching="bucket").variant() == "batching-bucket-backend-jax"


def test_backend_option_errors_are_one_line(monkeypatch):
    """A backend whose package is missing, or one chosen after Keras was imported with another: one line, exit 1."""
    import keras
    from click.testing import CliRunner

    from experiments.cli import main

    other = "jax" if keras.backend.backend() != "jax" else "torch"
    outcome = CliRunner().invoke(main, ["--backend", other, "models", "list"])
    assert outcome.exit_code == 1 and "already imported" in outcome.output and len(outcome.output.splitlines()) == 1
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    outcome = CliRunner().invoke(main, ["--backend", other, "models", "list"])
    assert outcome.exit_code == 1 and "pip install -e '.[backends]'" in outcome.output
    outcome = CliRunner().invoke(main, ["--backend", "theano", "models", "list"])
    assert outcome.exit_code == 2 and "theano" in outcome.output

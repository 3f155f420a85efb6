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
from pathlib import Path

import pytest
from backend_check import CASES

from experiments.runs.one.provenance import BACKENDS as ALL_BACKENDS
from locations import TESTS

HELPER = TESTS / "backend_check.py"
#: The backends other than TensorFlow (the one the rest of the suite runs on), and the package each needs.
BACKENDS = {name: package for name, package in ALL_BACKENDS.items() if name != "tensorflow"}


class Helpers:
    """One helper process per backend, each started once, writing its output to a file in its folder (a full
    pipe would stop it).  In one pytest process, tests/conftest.py starts the helpers of the selected tests with
    the session, so they train beside the tests that come before these (most of which train tiny models in that
    process and leave a core of a two-core machine partly free) instead of one after the other at their turn;
    under pytest-xdist they start with the first test that needs one, on the worker that runs this file."""

    def __init__(self) -> None:
        self.running: dict[str, tuple[subprocess.Popen, Path]] = {}
        self.reports: dict[str, dict] = {}
        self.wanted: set[str] = set()  # the backends the session's tests ask for (tests/conftest.py)

    def start(self, backends: set[str], tmp_path_factory) -> None:
        for backend in sorted(backends - set(self.running)):
            if importlib.util.find_spec(BACKENDS[backend]) is not None:
                folder = tmp_path_factory.mktemp(f"backend-{backend}")
                env = {**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "2"}
                with open(folder / "output.txt", "w") as output:
                    process = subprocess.Popen([sys.executable, str(HELPER), str(folder / "report.json"),
                                                str(folder / "work")], env=env, stdout=output, stderr=output)
                self.running[backend] = process, folder

    def report(self, backend: str) -> dict:
        if backend not in self.reports:
            process, folder = self.running[backend]
            process.wait(timeout=600)
            path, output = folder / "report.json", (folder / "output.txt").read_text(errors="replace")
            assert path.is_file(), f"{backend} helper wrote no report (exit {process.returncode}):\n{output[-3000:]}"
            self.reports[backend] = json.loads(path.read_text())
        return self.reports[backend]

    def stop(self) -> None:
        """End the helpers still running (the session stopped before their tests)."""
        for process, _ in self.running.values():
            if process.poll() is None:
                process.kill()
                process.wait()


HELPERS = Helpers()


def asked_for(items) -> set[str]:
    """The backends that the tests of this module among ``items`` are parametrised with."""
    return {item.callspec.params["backend"] for item in items if item.module.__name__ == __name__
            and "backend" in getattr(getattr(item, "callspec", None), "params", {})}


def report(backend: str, tmp_path_factory) -> dict:
    """The helper's report for ``backend``, run once per test session."""
    if importlib.util.find_spec(BACKENDS[backend]) is None:
        pytest.skip(f"{BACKENDS[backend]} is not installed (pip install -e '.[backends]')")
    # a no-op where tests/conftest.py started the helpers with the session; under pytest-xdist they start here
    HELPERS.start({backend} | HELPERS.wanted, tmp_path_factory)
    return HELPERS.report(backend)


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
    from experiments.runs.one import provenance
    from experiments.runs.one.protocol import QUICK, TrainConfig

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

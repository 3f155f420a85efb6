"""Crash safety of sweeps: SIGKILL mid-sweep loses no finished run, SIGINT, SIGTERM and SIGHUP stop in one
line (their workers too; a SIGKILL's workers end with it), and two sweeps into one store at once neither
corrupt it nor train a run twice.

Each sweep is a real ``isarcasm reproduce`` process (1 model x 3 seeds, 1 epoch, random embeddings,
the toy corpus), so the kill lands wherever it lands: between runs, or inside one.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from toy_corpus import write_corpus

from experiments.cli import main
from processes import start, wait_for_the_group_to_end

SEEDS = 3
RESULTS = "toy-epochs-1-embeddings-random.json"


@pytest.fixture(scope="module")
def experiment(tmp_path_factory) -> Path:
    """The one corpus and experiment file of every sweep here (the corpus path is part of each run's config)."""
    folder = tmp_path_factory.mktemp("sweep")
    corpus = write_corpus(folder / "toy.csv")
    path = folder / "toy.toml"
    path.write_text(f"name = 'toy'\n[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n")
    return path


def sweep_args(experiment: Path, store: Path) -> list[str]:
    return ["reproduce", str(experiment), "--seeds", str(SEEDS), "--epochs", "1", "--set", "embeddings=random",
            "--split-col", "split", "--output-dir", str(store / "runs"), "--results-dir", str(store / "results")]


@pytest.fixture
def sweep(experiment, tmp_path):
    return lambda store: sweep_args(experiment, tmp_path / store)


def seed_dirs(store: Path) -> list[Path]:
    return sorted(store.glob("runs/toy-epochs-1-embeddings-random/toy/cnn/seed-*"))


def finished(store: Path) -> list[Path]:
    return [d for d in seed_dirs(store) if (d / "metrics.json").is_file()]


def wait_for_finished_runs(store: Path, process: subprocess.Popen, count: int, timeout: float = 240) -> None:
    deadline = time.time() + timeout
    while len(finished(store)) < count:
        assert process.poll() is None, process.communicate()
        assert time.time() < deadline, "the sweep made no progress"
        time.sleep(0.02)


def fingerprint(run: Path) -> dict[str, tuple[int, int]]:
    """Every file of a run with its inode and mtime: equal only if nothing was rewritten."""
    return {str(f.relative_to(run)): (f.stat().st_ino, f.stat().st_mtime_ns) for f in sorted(run.rglob("*"))}


def metrics(store: Path) -> list:
    result = json.loads((store / "results" / RESULTS).read_text())
    return [cell["metrics"] for cell in result["cells"]], [cell.get("reused_runs", 0) for cell in result["cells"]]


@pytest.fixture(scope="module")
def reference(experiment):
    """The numbers of an uninterrupted sweep."""
    store = experiment.parent / "reference"
    result = CliRunner().invoke(main, sweep_args(experiment, store))
    assert result.exit_code == 0, result.output
    return metrics(store)[0]


def test_sigkill_mid_sweep_loses_no_finished_run_and_the_rerun_gives_the_same_numbers(sweep, tmp_path, reference):
    store = tmp_path / "killed"
    process = start(sweep("killed"), tmp_path)
    wait_for_finished_runs(store, process, 1)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    done = finished(store)
    assert 1 <= len(done) < SEEDS, "the kill should land mid-sweep"
    before = {run.name: fingerprint(run) for run in done}
    half = [d for d in seed_dirs(store) if d not in done]
    assert all(not (d / "metrics.json").exists() for d in half)  # nothing half-written looks finished

    rerun = CliRunner().invoke(main, sweep("killed"))
    assert rerun.exit_code == 0, rerun.output
    lost = [name for name, files in before.items() if fingerprint(done[0].parent / name) != files]
    assert lost == [], f"runs finished before the kill were retrained: {lost}"
    numbers, reused = metrics(store)
    assert reused == [len(done)]
    assert numbers == reference
    assert len(finished(store)) == SEEDS
    assert not list(store.rglob(".seed-*.staging-*")), "a killed run's staging folder was left behind"
    print(f"SIGKILL after {len(done)} of {SEEDS} runs: {len(lost)} lost, {len(done)} reused")


@pytest.mark.parametrize("jobs", [1, 2])
def test_sigint_stops_cleanly_in_one_line(sweep, tmp_path, jobs):
    """Ctrl-C (SIGINT to the process group, as a terminal sends it): exit code 130 and one line, promptly,
    also with worker processes (which would otherwise train the runs already queued to them)."""
    store = tmp_path / "interrupted"
    process = start([*sweep("interrupted"), "--jobs", str(jobs)], tmp_path)
    wait_for_finished_runs(store, process, 1)
    os.killpg(process.pid, signal.SIGINT)
    started = time.time()
    _, stderr = process.communicate(timeout=120)
    assert time.time() - started < 30, "Ctrl-C should stop the sweep, not let it run on"
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr, stderr
    assert stderr.strip().splitlines()[-1].startswith("Error: interrupted"), stderr
    assert all((run / "model.keras").is_file() for run in finished(store))


@pytest.mark.parametrize("jobs, signum", [(1, signal.SIGTERM), (2, signal.SIGTERM), (2, signal.SIGHUP)])
def test_sigterm_ends_the_workers_too_in_one_line(sweep, tmp_path, jobs, signum):
    """SIGTERM (as a batch system or ``kill`` sends it) or SIGHUP (a closed terminal) to the command alone,
    with worker processes or without: exit code 128 + the signal and one line, and no worker left behind
    (re-parented, they went on training into the store)."""
    store = tmp_path / "terminated"
    process = start([*sweep("terminated"), "--jobs", str(jobs)], tmp_path)
    wait_for_finished_runs(store, process, 1)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 128 + signum, stderr
    assert "Traceback" not in stderr, stderr
    assert stderr.strip().splitlines()[-1].startswith("Error: terminated"), stderr
    wait_for_the_group_to_end(process.pid, 15)
    assert all((run / "model.keras").is_file() for run in finished(store))


def test_sigkill_of_the_command_ends_its_workers_too(sweep, tmp_path):
    """SIGKILL runs no handler of the command: the workers end with it by themselves (a parent-death
    signal), the pool's resource tracker with them, within seconds; no run is written after.  The command
    itself only plans, stores and reports: it never loads TensorFlow (its workers do)."""
    store = tmp_path / "killed"
    process = start([*sweep("killed"), "--jobs", "2"], tmp_path)
    wait_for_finished_runs(store, process, 1)
    assert "tensorflow" not in Path(f"/proc/{process.pid}/maps").read_text(), "the command loaded TensorFlow"
    process.kill()
    process.wait()
    wait_for_the_group_to_end(process.pid, 10)
    done = len(finished(store))
    time.sleep(1)
    assert len(finished(store)) == done


def test_two_sweeps_at_once_into_one_store_train_each_run_once(sweep, tmp_path, reference):
    store = tmp_path / "shared"
    first, second = start(sweep("shared"), tmp_path), start(sweep("shared"), tmp_path)
    outputs = [p.communicate(timeout=500) for p in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], outputs
    assert all("Traceback" not in err for _, err in outputs), outputs
    assert len(finished(store)) == SEEDS
    assert not list(store.rglob(".seed-*.staging-*")) and not list(store.rglob(".seed-*.old-*"))
    numbers, _ = metrics(store)
    assert numbers == reference
    trained = [int(run.joinpath("metrics.json").stat().st_mtime_ns) for run in finished(store)]
    assert len(set(trained)) == SEEDS
    # Every run was trained by one of the two processes and reused by the other: each process' summary
    # line counts the runs it reused, and together they reused exactly as many as there are runs.
    reused = [int(line.split(" reused")[0].rsplit(", ", 1)[1]) if " reused" in line else 0
              for out, _ in outputs for line in out.splitlines() if "F1(sarcastic)" in line and " over " in line]
    assert sum(reused) == SEEDS, outputs

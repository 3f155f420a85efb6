"""Faults of the machine end like bad input: a full disk (ENOSPC) or a folder without permission
(EACCES) while a command writes gives one line naming the path and what to do, exit code 74, and
leaves nothing half-written (no partial file, no temporary file, no half of a results set).

The faults are injected into the writes under a folder the test makes (the tests may run as root,
whom no permission stops): ``os.fdopen`` of a file there fails as a full disk would, and
``tempfile.mkstemp`` there as a folder without permission would.
"""
import errno
import os
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from toy_corpus import train_toy, write_corpus

from experiments.cli import main
from experiments.runs.one.protocol import TrainConfig
from experiments.results.files import write_result_files
from experiments.results.schema import Result
from preprocessing.corpora import load_corpus

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds an fd's file in /proc")


def full_disk_under(monkeypatch, root: Path, name_part: str = "") -> None:
    """Writing a file under ``root`` (whose name contains ``name_part``) fails with ENOSPC."""
    real = os.fdopen

    def fdopen(fd, *args, **kwargs):
        handle = real(fd, *args, **kwargs)
        target = os.readlink(f"/proc/self/fd/{fd}")
        if not (target.startswith(str(root)) and name_part in Path(target).name):
            return handle

        class Full:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                handle.close()

            def write(self, text):
                raise OSError(errno.ENOSPC, "No space left on device")

        return Full()

    monkeypatch.setattr(os, "fdopen", fdopen)


def no_permission_under(monkeypatch, root: Path) -> None:
    real = tempfile.mkstemp

    def mkstemp(*args, dir=None, **kwargs):
        if dir is not None and str(dir).startswith(str(root)):
            raise PermissionError(errno.EACCES, "Permission denied", str(dir))
        return real(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


def left_in(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_a_results_set_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    root = tmp_path / "results"
    write_result_files(Result("table", "t", [], {"n": 1}), root, "a,b\n", "# old\n")
    before = {name: (root / name).read_text() for name in ("t.json", "t.csv", "t.md")}
    full_disk_under(monkeypatch, root, "t.md")  # the json and csv are written, the markdown is not
    with pytest.raises(OSError) as raised:
        write_result_files(Result("table", "t", [], {"n": 2}), root, "a,b\nnew\n", "# new\n")
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(root / "t.md")
    assert [f for f in left_in(root) if f != ".t.lock"] == ["t.csv", "t.json", "t.md"]  # no temporary file, nothing in previous/
    assert {name: (root / name).read_text() for name in before} == before


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("faults")
    corpus = write_corpus(folder / "toy.csv")
    dataset = load_corpus(str(corpus), folder, split_col="split")
    return train_toy(dataset, "cnn", folder / "run", folder, TrainConfig(epochs=1, embeddings="random")).directory


def evaluate(run: Path):
    corpus = run.parent / "toy.csv"
    return CliRunner().invoke(main, ["evaluate", str(run), "--corpus", str(corpus), "--split-col", "split", "--force"])


def test_a_full_disk_while_saving_an_evaluation_is_one_line_and_leaves_nothing(run, monkeypatch):
    full_disk_under(monkeypatch, run / "evaluations")
    result = evaluate(run)
    assert result.exit_code == 74 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {run / 'evaluations'}/toy-")
    assert lines[0].endswith(": no space left on the device; nothing half-written was kept; free some space, or "
                             "choose another --output-dir / --results-dir, and run the same command again")
    assert left_in(run / "evaluations") == []  # the predictions written before the metrics are gone too
    monkeypatch.undo()
    assert evaluate(run).exit_code == 0 and len(left_in(run / "evaluations")) == 2  # the same command, later


def test_a_folder_without_permission_is_one_line(run, monkeypatch):
    no_permission_under(monkeypatch, run / "evaluations")
    result = evaluate(run)
    assert result.exit_code == 74
    assert result.stderr == (f"Error: {run / 'evaluations'}: permission denied; nothing half-written was kept; give "
                             "this user access to it (write access, where files go), or choose another --output-dir "
                             "/ --results-dir\n")


def test_a_full_disk_while_training_leaves_no_run_and_no_staging_folder(tmp_path, monkeypatch):
    corpus = write_corpus(tmp_path / "toy.csv")
    runs = tmp_path / "runs"
    full_disk_under(monkeypatch, runs, "config.json")
    result = CliRunner().invoke(main, ["--data-dir", str(tmp_path), "train", "--corpus", str(corpus), "--model",
                                       "cnn", "--split-col", "split", "--epochs", "1", "--set", "embeddings=random",
                                       "--output-dir", str(runs)])
    assert result.exit_code == 74, result.output
    run = runs / "train-epochs-1-embeddings-random" / "toy" / "cnn" / "seed-0"
    assert result.stderr.startswith(f"Error: {run / 'config.json'}: no space left on the device; nothing "
                                    "half-written was kept") and len(result.stderr.splitlines()) == 1
    assert left_in(run.parent) == [".seed-0.lock"]  # the run's claim; no run, no staging folder

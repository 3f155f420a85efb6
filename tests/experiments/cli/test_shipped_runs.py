"""``evaluate`` and ``predict`` on a reference run shipped with the repository (predictions, no model): one line
that says so with the ``train`` command that makes that very run here (the same configuration hash), and
``--train-missing``, which trains it."""
import json
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from toy_corpus import write_corpus

from experiments.cli import main
from experiments.runs.one.store import CONFIG, METRICS, REFERENCE, REFERENCE_CACHE
from experiments.runs.one.training import expected_hash

TOY = "name = 'toy'\ntitle = 'toy'\n[train]\nepochs = 1\nbatch_size = 32\nembeddings = 'random'\n" \
      "[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n"


def cli(root: Path, *args: str):
    return CliRunner().invoke(main, ["--data-dir", str(root), *args])


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """A toy reference set (one cnn run, one epoch), and a fresh store that reproduced its experiment from it,
    as `make demo` does: the run is materialised under runs/.reference, without its model."""
    root = tmp_path_factory.mktemp("shipped")
    corpus = write_corpus(root / "toy.csv")
    (root / "toy.toml").write_text(TOY.format(corpus=corpus))
    common = ["--seeds", "1", "--split-col", "split"]
    made = cli(root, "reproduce", str(root / "toy.toml"), *common, "--output-dir", str(root / "made"),
               "--results-dir", str(root / "results"), "--reference-dir", str(root / "none"))
    assert made.exit_code == 0, made.output
    exported = cli(root, "runs", "export", "toy", "--results-dir", str(root / "results"), "--to", str(root / "ref"),
                   "--split-col", "split")
    assert exported.exit_code == 0, exported.output
    demo = cli(root, "reproduce", str(root / "toy.toml"), *common, "--output-dir", str(root / "runs"),
               "--results-dir", str(root / "demo"), "--reference-dir", str(root / "ref"))
    assert demo.exit_code == 0, demo.output
    run = root / "runs" / REFERENCE_CACHE / "toy" / "toy" / "cnn" / "seed-0"
    assert (run / REFERENCE).is_file()
    return root, corpus, run


def the_line(output: str) -> str:
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    return lines[0]


def test_evaluate_says_in_one_line_that_a_shipped_run_has_no_model_with_the_command_that_makes_that_run(
        shipped, monkeypatch):
    """The printed command, run as typed (its training stopped where it starts), trains the run of the shipped
    configuration hash."""
    root, corpus, run = shipped
    done = cli(root, "evaluate", str(run), "--split-col", "split")
    assert done.exit_code == 1
    line = the_line(done.output)
    assert f"{run} is a reference run shipped with the repository: it carries the run's predictions, not its " \
           "model; train that very run here (the same configuration, so the same hash) with `" in line
    assert line.endswith("`, or give --train-missing")
    command = line.split("`")[1]
    assert command.startswith(f"isarcasm --data-dir {root} train ")

    seen = {}

    class Stopped(Exception):
        pass

    def started(spec, dataset, place, data_dir, options):
        seen.update(spec=spec, dataset=dataset, place=place, data_dir=data_dir)
        raise Stopped  # nothing is trained

    monkeypatch.setattr("experiments.runs.one.training.train_run", started)
    assert isinstance(CliRunner().invoke(main, shlex.split(command)[1:]).exception, Stopped)
    shipped_hash = json.loads((run / CONFIG).read_text())["config_hash"]
    assert expected_hash(seen["spec"], seen["dataset"], seen["data_dir"]) == shipped_hash
    assert seen["place"].directory.parent.parent.parent.parent == root / "runs"  # the store above .reference


def test_predict_says_the_same_in_one_line(shipped):
    root, _, run = shipped
    done = cli(root, "predict", str(run), "--text", "yeah right")
    assert done.exit_code == 1
    line = the_line(done.output)
    assert f"{run} is a reference run shipped with the repository: it carries the run's predictions, not its " \
           "model" in line and "--train-missing" in line


def test_train_missing_trains_that_very_run_at_its_place_then_evaluates_and_reuses_it(shipped, monkeypatch):
    root, corpus, run = shipped
    done = cli(root, "evaluate", str(run), "--split-col", "split", "--train-missing")
    assert done.exit_code == 0, done.output
    trained = root / "runs" / "toy" / "toy" / "cnn" / "seed-0"
    assert json.loads((trained / METRICS).read_text())["config_hash"] == \
        json.loads((run / CONFIG).read_text())["config_hash"]
    assert f"{trained} (trained on" in done.output and "test (sarcastic class): " in done.output

    monkeypatch.setattr("experiments.runs.one.training._train", lambda *a, **k: pytest.fail("trained again"))
    again = cli(root, "evaluate", str(run), "--split-col", "split", "--train-missing")
    assert again.exit_code == 0, again.output
    assert f"{trained} (trained on" in again.output
    predicted = cli(root, "predict", str(trained), "--text", "monday traffic yeah right")
    assert predicted.exit_code == 0, predicted.output
    assert predicted.output.splitlines()[0] == "label\tp_sarcastic\ttext"

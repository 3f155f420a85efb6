"""One precedence for reproduce, cross-eval and benchmark: an experiment file's [train] table over a command's
defaults, an option typed over the file; and the command a benchmark prints for missing classic runs makes
exactly the runs it looks for."""
import json
import shlex

import pytest
from click.testing import CliRunner
from toy_corpus import write_corpus

from experiments.cli import main
from experiments.cli.options import train_choice
from experiments.runs.one.protocol import TrainConfig, experiment_name

#: An experiment file whose [train] table sets what every command also has a default for.
MINI = """name = "mini"
title = "mini"

[train]
epochs = 1
embeddings = "random"

[[cells]]
corpus = "{corpus}"
model = "cnn"
"""


@pytest.fixture
def mini(tmp_path):
    corpus = write_corpus(tmp_path / "toy.csv")
    path = tmp_path / "mini.toml"
    path.write_text(MINI.format(corpus=corpus))
    return tmp_path, path


def benchmark(root, path, *typed):
    """``benchmark tfidf-lr`` (scored in seconds, nothing trained) in the cells of ``path``; its results."""
    result = CliRunner().invoke(main, ["--data-dir", str(root), "benchmark", "tfidf-lr", "--experiments", str(path),
                                       "--seeds", "1", "--split-col", "split", "--output-dir", str(root / "runs"),
                                       "--results-dir", str(root / "results"), *typed])
    assert result.exit_code == 0, result.output
    return json.loads((root / "results" / "benchmark-tfidf-lr.json").read_text())


def printed_reproduce(command: str):
    """The experiment and training settings that ``command`` (``isarcasm ... reproduce ...``) resolves, parsed
    as the command line would be, without running it."""
    args = shlex.split(command)
    assert args[0] == "isarcasm"
    root = main.make_context("isarcasm", args[1:])
    name, command, rest = main.resolve_command(root, root.protected_args + root.args)
    assert name == "reproduce"
    ctx = command.make_context(name, rest, parent=root)
    experiment = ctx.params["experiment"]
    return experiment, train_choice(ctx).over(experiment.protocol())


@pytest.mark.parametrize("typed, name", [((), "mini"), (("--batch-size", "16"), "mini-batch-size-16")])
def test_benchmark_trains_as_the_experiment_file_says_and_prints_a_command_for_the_same_runs(mini, typed, name):
    root, path = mini
    result = benchmark(root, path, *typed)
    [cell] = result["cells"]
    assert cell["experiment"] == name  # the file's epochs and embeddings are no variant; a typed option is one
    own = json.loads((root / "results" / "benchmark-tfidf-lr" / f"{name}.json").read_text())
    assert (own["train"]["epochs"], own["train"]["embeddings"]) == (1, "random")
    assert own["train"]["batch_size"] == (16 if typed else TrainConfig().batch_size)
    [missing] = result["missing"]
    assert missing["model"] == "cnn"
    experiment, train = printed_reproduce(missing["command"])
    assert train.recorded_form() == own["train"]  # the same settings, so the same runs (their hash) and the same name
    assert experiment_name(experiment.name, train, experiment.protocol()) == name


def test_a_typed_option_from_the_environment_is_repeated_in_the_printed_command(mini, monkeypatch):
    root, path = mini
    monkeypatch.setenv("ISARCASM_BENCHMARK_BATCH_SIZE", "16")
    result = CliRunner().invoke(main, ["--data-dir", str(root), "benchmark", "tfidf-lr", "--experiments", str(path),
                                       "--seeds", "1", "--split-col", "split", "--output-dir", str(root / "runs"),
                                       "--results-dir", str(root / "results")],
                                auto_envvar_prefix="ISARCASM")
    assert result.exit_code == 0, result.output
    [missing] = json.loads((root / "results" / "benchmark-tfidf-lr.json").read_text())["missing"]
    assert " --batch-size 16 " in missing["command"]


def test_the_printed_command_makes_the_very_runs_the_benchmark_then_ranks(mini):
    """Run the printed command for real (one cnn run, one epoch): the benchmark then finds the classic run,
    trained with the file's settings and the typed one, and lists nothing as missing."""
    root, path = mini
    [missing] = benchmark(root, path, "--batch-size", "16")["missing"]
    made = CliRunner().invoke(main, shlex.split(missing["command"])[1:] + ["--results-dir", str(root / "made")])
    assert made.exit_code == 0, made.output
    again = benchmark(root, path, "--batch-size", "16")
    assert again["missing"] == [] and [row["model"] for row in again["cells"][0]["classics"]] == ["cnn"]
    [run] = (root / "runs" / "mini-batch-size-16").glob("*/cnn/seed-0/config.json")
    train = json.loads(run.read_text())["train"]
    assert (train["epochs"], train["embeddings"], train["batch_size"]) == (1, "random", 16)

"""The commands that train: a few daily options, ``--set KEY=VALUE`` for every other setting, ``--name``
for the results of other settings, and one line for an option that is gone."""
import pytest
from click.testing import CliRunner

from experiments.cli import main
from experiments.cli.options import set_values
from experiments.results.schema import Result
from experiments.runs.one.protocol import TrainConfig
from preprocessing.config import PreprocessConfig
from preprocessing.errors import IsarcasmError


def test_set_reads_each_value_as_toml_and_checks_it_as_a_file_is_checked():
    assert set_values(("clip-global-norm=0.2", "batching=class-ratio", "tune_threshold=true")) \
        == {"clip_global_norm": 0.2, "batching": "class-ratio", "tune_threshold": True}
    assert set_values(("clip_global_norm=1",)) == {"clip_global_norm": 1.0}  # one setting, one hash
    assert isinstance(set_values(("clip_global_norm=1",))["clip_global_norm"], float)
    assert set_values(("lowercase=false",), PreprocessConfig) == {"lowercase": False}


@pytest.mark.parametrize("items, message", [
    (("clip_global_norm=abc",), "^--set: clip_global_norm must be a number greater than 0, not 'abc'$"),
    (("clip_globl_norm=0.2",), "^--set: unknown setting\\(s\\) clip_globl_norm \\(did you mean 'clip_global_norm'\\?\\)$"),
    (("batching=wrong",), "^--set: batching must be one of shuffled, bucket, class-ratio, class-ratio-once, not 'wrong'$"),
    (("epochs=3",), "^--set epochs: give it with its own option, --epochs$"),
    (("nothing",), "^--set 'nothing': give KEY=VALUE"),
    (("dropout=0.5", "dropout=0.2"), "^--set dropout is given twice"),
])
def test_a_bad_set_is_one_line(items, message):
    with pytest.raises(IsarcasmError, match=message):
        set_values(items)


def _reproduce(monkeypatch, tmp_path, *args):
    """``reproduce`` of a one-cell file with ``args``, recording the settings and names it would train under."""
    seen = {}

    def fake_run(spec, seeds, settings, **_):
        seen.update(train=settings.train_for(spec.protocol()), seeds=seeds,
                    name=settings.experiment(spec.name, spec.protocol()),
                    runs=settings.experiment(spec.name, spec.protocol(), trained=True))
        return Result("table", "x", [], {"title": "x", "source": "S", "seeds": [1], "git_commit": "c",
                                         "wall_seconds": 0, "compute_seconds": 0})

    monkeypatch.setattr("experiments.cli.reproduce.run_experiment", fake_run)
    path = tmp_path / "exp.toml"
    path.write_text("[train]\nclip_global_norm = 0.5\nthreshold = 0.3\n[[cells]]\ncorpus = 'riloff'\nmodel = 'cnn'\n")
    result = CliRunner().invoke(main, ["--data-dir", str(tmp_path), "reproduce", str(path), "--seeds", "1",
                                       "--output-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res"), *args])
    return result, seen


def test_set_and_the_daily_options_update_the_files_train_table_in_one_step(tmp_path, monkeypatch):
    result, seen = _reproduce(monkeypatch, tmp_path, "--set", "clip_global_norm=0.2", "--set", "selection=grid",
                              "--epochs", "3")
    assert result.exit_code == 0, result.output
    assert seen["train"] == TrainConfig(clip_global_norm=0.2, threshold=0.3, selection="grid", epochs=3)
    # a readable default name, said before training; the runs share best's trajectory
    assert seen["name"] == "exp-epochs-3-selection-grid-clip-global-norm-0.2"
    assert seen["runs"] == "exp-epochs-3-clip-global-norm-0.2"


def test_name_names_the_results_and_runs_of_other_settings(tmp_path, monkeypatch):
    result, seen = _reproduce(monkeypatch, tmp_path, "--set", "clip_global_norm=0.2", "--name", "try")
    assert result.exit_code == 0, result.output
    assert (seen["name"], seen["runs"]) == ("try", "try")
    result, _ = _reproduce(monkeypatch, tmp_path, "--name", "../x")
    assert result.exit_code != 0 and "--name '../x' cannot be a folder name" in result.output


def test_without_an_option_the_files_settings_and_name_stand(tmp_path, monkeypatch):
    result, seen = _reproduce(monkeypatch, tmp_path)
    assert result.exit_code == 0, result.output
    assert seen["train"] == TrainConfig(clip_global_norm=0.5, threshold=0.3)
    assert (seen["name"], seen["runs"]) == ("exp", "exp")


def test_a_default_name_of_other_settings_is_said_before_training_and_no_other(capsys):
    from experiments.studies.settings import Corpora, Settings, TrainChoice

    protocol = TrainConfig(clip_global_norm=0.5)
    for choice, said in ((TrainChoice({"dropout": 0.5}), "results name: exp-dropout-0.5 (other settings than exp's"),
                         (TrainChoice({"dropout": 0.5}, name="try"), ""), (TrainChoice(), "")):
        Settings(Corpora(None), training=choice).announce("exp", protocol)
        said_now = capsys.readouterr().err
        assert said_now.startswith(said) if said else said_now == ""


def test_an_experiment_files_seeds_are_the_default_that_seeds_and_quick_replace(tmp_path, monkeypatch):
    seen = {}
    monkeypatch.setattr("experiments.cli.reproduce.run_experiment",
                        lambda spec, seeds, settings, **_: seen.update(seeds=seeds) or (_ for _ in ()).throw(
                            IsarcasmError("stop")))
    path = tmp_path / "exp.toml"
    path.write_text("seeds = 3\n[[cells]]\ncorpus = 'riloff'\nmodel = 'cnn'\n")
    for args, seeds in (([], [0, 1, 2]), (["--seeds", "2"], [0, 1]), (["--quick"], [0])):
        CliRunner().invoke(main, ["--data-dir", str(tmp_path), "reproduce", str(path),
                                  "--output-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res"), *args])
        assert seen["seeds"] == seeds


@pytest.mark.parametrize("command, message", [
    (["reproduce", "table7", "--protocol", "authors-code"],
     "--protocol is gone: the authors' protocols are experiment files, `isarcasm reproduce table7-authors-code`"),
    (["reproduce", "table6", "--protocol=authors-scripts"],
     "`isarcasm reproduce table6-authors-scripts`"),
    (["reproduce", "table7", "--protocol", "as-written"],
     "--protocol is gone: the paper's settings are the default, `isarcasm reproduce table7`"),
    (["reproduce", "table7", "--clip-global-norm", "0.2"], "--clip-global-norm is gone: give --set clip_global_norm=0.2"),
    (["cross-eval", "--selection", "grid"], "--selection is gone: give --set selection=grid"),
    (["benchmark", "cnn", "--oov-init", "uniform"], "--oov-init is gone: give --set oov_init=uniform"),
    (["train", "--corpus", "x", "--model", "cnn", "--tune-threshold"], "--tune-threshold is gone: give --set "
                                                                       "tune_threshold=true"),
    (["train", "--corpus", "x", "--model", "cnn", "--no-lowercase"], "--no-lowercase is gone: give --set "
                                                                     "lowercase=false"),
])
def test_an_option_that_is_gone_is_one_line_naming_what_replaces_it(command, message):
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_the_commands_that_train_keep_few_options():
    from click import Context

    from experiments.cli.main import main as group

    for name, most in (("train", 25), ("reproduce", 30), ("cross-eval", 30), ("benchmark", 35)):
        command = group.commands[name]
        options = [p for p in command.get_params(Context(command)) if p.param_type_name == "option"]
        assert len(options) <= most, name
    help_lines = CliRunner().invoke(main, ["reproduce", "--help"]).output.splitlines()
    assert len(help_lines) <= 80

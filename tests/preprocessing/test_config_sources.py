"""Configuration from files, the environment, caches and plugins: each value is honoured or refused
in one line (exit 1, no traceback), and a damaged cache is rebuilt, never trusted."""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import traceback

import pytest
from click.testing import CliRunner

from embeddings.vectors import load_vectors_report
from experiments.cli import main
from experiments.runs.entrants.outside import predictions_file
from preprocessing import checksums
from experiments.studies.experiment import load_experiment
from preprocessing.errors import IsarcasmError


def one_line(result, pattern: str, code: int = 1) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), "".join(
        traceback.format_exception(result.exception))
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and re.search(pattern, lines[0]), result.stderr


CELL = "[[cells]]\ncorpus = 'riloff'\nmodel = 'cnn'\n"


@pytest.mark.parametrize("content, message", [
    ("cells = 5\n", "'cells' must be a list, not 5"),
    ("cells = [5]\n", "cell 1: must be a table"),
    ("[[cells]]\ncorpus = 'riloff'\nmodel = 'cnn'\npublished = 'x'\n", "cell 1: 'published' must be a table, not 'x'"),
    ("[[cells]]\ncorpus = 'riloff'\nmodel = 'cnn'\npublished = {metric = 'f1_macro', value = 'x'}\n",
     "published: 'value' must be a number, not 'x'"),
    ("[[cells]]\ncorpus = 'riloff'\nmodel = 'cnn'\nisarcasm_impl = {f1_macro = 67.3}\n",
     "f1_macro must be a number between 0 and 1, not 67.3"),
    ("[[cells]]\ncorpus = 5\nmodel = 'cnn'\n", "'corpus' must be a string, not 5"),
    ("[[cells]]\ncorpus = 'riloff'\nmodel = 'cnn'\nfolds = 'yes'\n", "'folds' must be true or false"),
    ("title = 3\n" + CELL, "'title' must be a string, not 3"),
    ("metrics = 'f1_macro'\n" + CELL, "'metrics' must be a list"),
    ("train = 3\n" + CELL, "'train' must be a table, not 3"),
    ("[train]\nepochs = 1.5\n" + CELL,
     r"\[train\]: epochs must be a whole number at least 1 and at most 100,000, not 1.5"),
    ("[train]\nepochs = inf\n" + CELL, r"\[train\]: epochs must be a whole number .*, not inf"),
    ("[train]\nepochs = nan\n" + CELL, r"\[train\]: epochs must be a whole number .*, not nan"),
    ("[train]\nbatch_size = 1e18\n" + CELL, r"\[train\]: batch_size must be a whole number .*, not 1e\+18"),
    ("[train]\nbatch_size = 1000000000000000000\n" + CELL,
     r"\[train\]: batch_size must be a whole number at least 1 and at most 1,048,576, not 1000000000000000000"),
    ("[train]\nlearning_rate = nan\n" + CELL, r"\[train\]: learning_rate must be a number greater than 0, not nan"),
    ("[train]\nclip_global_norm = -1\n" + CELL, r"\[train\]: clip_global_norm must be a number greater than 0"),
    ("[train]\nembeddings = 5\n" + CELL, r"\[train\]: embeddings must be a string, not 5"),
    # a table or key the format does not declare, in any case: the nearest known name
    ("[Train]\nthreshold = 0.2\n" + CELL, "exp.toml: unknown key 'Train' \\(did you mean 'train'\\?\\)"),
    ("[TRAIN]\nepochs = 2\n" + CELL, "unknown key 'TRAIN' \\(did you mean 'train'\\?\\)"),
    ("metrcs = ['f1_macro']\n" + CELL, "exp.toml: unknown key 'metrcs' \\(did you mean 'metrics'\\?\\)"),
    ("Title = 't'\n" + CELL, "unknown key 'Title' \\(did you mean 'title'\\?\\)"),
    ("colour = 'red'\n" + CELL, "unknown key 'colour' \\(known: cells, corpora, extends, metrics, name, seeds, source, title, train\\)"),
    (CELL + "Corpus = 'ptacek'\n", "exp.toml: cell 1: unknown key 'Corpus' \\(did you mean 'corpus'\\?\\)"),
    (CELL + "published = { metric = 'f1_macro', value = 0.5, sorce = 'x' }\n",
     "cell 1: published: unknown key 'sorce' \\(did you mean 'source'\\?\\)"),
    # options of the command line, and training settings outside [train]
    ("seeds = [1, 2]\n" + CELL, "exp.toml: 'seeds' must be a whole number, not \\[1, 2\\]"),
    ("models = ['cnn']\n" + CELL, "exp.toml: 'models' is not read from an experiment file; .*\\(--models\\)"),
    ("epochs = 3\n" + CELL, "exp.toml: 'epochs' is a training setting; put it in the file's \\[train\\] table"),
    (CELL + "threshold = 0.2\n", "cell 1: 'threshold' is a training setting; .*\\[train\\] table as threshold"),
    (CELL + "epochs = 1\n", "cell 1: 'epochs' is a training setting"),
    (CELL + "lr = 0.01\n", "cell 1: 'lr' is a training setting; .*as learning_rate"),
    # wrong types, empty names, a cell twice
    (CELL + "published = { metric = 'f1_macro', value = 1.5 }\n", "published value must be a number between 0 and 1"),
    ("[[cells]]\ncorpus = ''\nmodel = 'cnn'\n", "cell 1: needs both 'corpus' and 'model'"),
    (CELL + CELL, "cell 2: riloff/cnn is listed twice \\(first as cell 1\\)"),
])
def test_an_experiment_file_value_that_cannot_be_honoured_is_one_line(tmp_path, content, message):
    path = tmp_path / "exp.toml"
    path.write_text(content)
    with pytest.raises(IsarcasmError, match=message) as error:
        load_experiment(str(path))
    assert "\n" not in str(error.value) and str(path) in str(error.value)
    one_line(CliRunner().invoke(main, ["--data-dir", str(tmp_path), "reproduce", str(path), "--quick"]), message)


def test_options_take_their_ranges_from_the_same_declarations(tmp_path):
    train = ["--data-dir", str(tmp_path), "train", "--corpus", "riloff", "--model", "cnn"]
    one_line(CliRunner().invoke(main, [*train, "--batch-size", str(10 ** 18)]), r"--batch-size.*1<=x<=1048576", 2)
    one_line(CliRunner().invoke(main, [*train, "--lr", "nan"]), r"learning_rate must be a number greater than 0, not nan")
    one_line(CliRunner().invoke(main, ["preprocess", "--text", "a", "--max-len", str(10 ** 12)]),
             r"--max-len.*1<=x<=10000", 2)


def test_an_unknown_keras_backend_in_the_environment_is_one_line(monkeypatch):
    monkeypatch.setenv("KERAS_BACKEND", "bogus")
    one_line(CliRunner().invoke(main, ["models", "list"]),
             r"^Error: \$KERAS_BACKEND=bogus: not a Keras backend \(use one of: tensorflow, jax, torch\)$")


def test_a_keras_backend_whose_package_is_missing_is_one_line(monkeypatch):
    monkeypatch.setenv("KERAS_BACKEND", "jax")
    monkeypatch.setitem(sys.modules, "jax", None)  # as if jax were not installed: importing it fails
    one_line(CliRunner().invoke(main, ["models", "list"]),
             r"\$KERAS_BACKEND=jax: the jax backend needs the jax package, which is not installed")
    one_line(CliRunner().invoke(main, ["--backend", "jax", "models", "list"]), r"--backend=jax: .* not installed")


@pytest.mark.parametrize("settings, message", [
    ('{"backend": "bogus"}', r'keras\.json "backend"=bogus: not a Keras backend \(use one of: tensorflow, jax, torch\)$'),
    ('{"floatx": "float64"}', r'keras\.json: "floatx": "float64" changes the numbers Keras computes; the suite computes '
                              r'with "float32": remove the setting, or point KERAS_HOME at another folder$'),
    ('{"image_data_format": "channels_first"}', r'"image_data_format": "channels_first" changes the numbers'),
    ('{"epsilon": 0.001}', r'"epsilon": 0.001 changes the numbers'),
])
def test_keras_own_settings_file_is_honoured_or_refused_in_one_line(tmp_path, monkeypatch, settings, message):
    """Keras reads $KERAS_HOME/keras.json (else ~/.keras/keras.json) whatever the suite says: a backend
    there is checked as $KERAS_BACKEND is, and a setting that changes the numbers is refused."""
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.delenv("KERAS_BACKEND", raising=False)
    (tmp_path / "keras.json").write_text(settings)
    one_line(CliRunner().invoke(main, ["models", "list"]), message)


@pytest.mark.parametrize("settings", ['{"backend": "tensorflow", "floatx": "float32", "epsilon": 1e-07}', "{not json",
                                      "[1]"])
def test_keras_settings_as_keras_writes_them_or_that_keras_ignores_are_accepted(tmp_path, monkeypatch, settings):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.delenv("KERAS_BACKEND", raising=False)
    (tmp_path / "keras.json").write_text(settings)
    outcome = CliRunner().invoke(main, ["models", "list"])
    assert outcome.exit_code == 0, outcome.output


def test_a_group_without_a_command_prints_its_help():
    outcome = CliRunner().invoke(main, [])
    assert outcome.exit_code == 0 and outcome.output.startswith("Usage: main [OPTIONS] COMMAND")  # CliRunner names it main
    assert "\\n" not in outcome.output  # click's help, not an error line with its newlines escaped
    outcome = CliRunner().invoke(main, ["models"])
    assert outcome.exit_code == 0 and "summary" in outcome.output


@pytest.mark.parametrize("cache", ["[1, 2]", '"a string"', '{"x": 5, "y": {"stamp": 3}}', "{damaged", ""])
def test_a_checksum_cache_that_is_not_ours_is_rebuilt(tmp_path, monkeypatch, cache):
    monkeypatch.setenv("ISARCASM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(checksums, "ALWAYS_HASHED", 0)  # every file goes through the cache
    monkeypatch.setattr(checksums, "RACY_NS", 0)
    data = tmp_path / "big.txt"
    data.write_text("the content")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "checksums.json").write_text(cache)
    expected = hashlib.sha256(b"the content").hexdigest()
    assert checksums.file_checksums([data]) == {"big.txt": expected}
    assert json.loads((tmp_path / "cache" / "checksums.json").read_text())[str(data.resolve())]["sha256"] == expected
    assert checksums.file_checksums([data]) == {"big.txt": expected}


@pytest.mark.parametrize("meta", ["[1, 2]", '"a string"', "{damaged", "null"])
def test_a_vectors_cache_meta_json_that_is_not_ours_is_rebuilt(tmp_path, monkeypatch, meta):
    monkeypatch.setenv("ISARCASM_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "tiny.txt"
    source.write_text("cat 1.0 2.0\ndog 3.0 4.0\n")
    _, report = load_vectors_report(source, tmp_path, progress=False)
    (report.cache / "meta.json").write_text(meta)
    kv, again = load_vectors_report(source, tmp_path, progress=False)
    assert again.built and kv.index_to_key == ["cat", "dog"]
    assert json.loads((again.cache / "meta.json").read_text())["words"] == 2
    assert [p.name for p in (tmp_path / "cache" / "vectors").iterdir() if not p.name.startswith(".")] == [again.cache.name]


BUILDERS = {
    "returns_none": ("    encoded.embedded\n", r"its builder returned NoneType, not a Keras tensor"),
    "raises": ("    raise RuntimeError('no GPU here')\n", r"its builder raised RuntimeError: no GPU here"),
}


@pytest.mark.usefixtures("clean_model_registry")
@pytest.mark.parametrize("case", sorted(BUILDERS))
def test_a_plugin_builder_that_returns_nothing_or_raises_is_one_line_naming_the_plugin(tmp_path, case):
    body, problem = BUILDERS[case]
    path = tmp_path / f"{case}_model.py"
    path.write_text(f"from baselines import register_model\n\n\n@register_model('toy-{case}', paper='x')\n"
                    f"def build(encoded, config):\n{body}")
    result = CliRunner().invoke(main, ["--model-module", str(path), "models", "summary", f"toy-{case}"])
    one_line(result, rf"model 'toy-{case}' \({re.escape(str(path))}:4\): {problem}")


def test_file_options_say_not_a_regular_file_for_a_directory_fifo_or_device(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    (tmp_path / "folder.csv").mkdir()
    (tmp_path / "exp.toml").mkdir()
    run = ["--data-dir", str(tmp_path)]
    for args, kind in ((["data", "stats", str(fifo)], "a FIFO"),
                       (["data", "stats", str(tmp_path / "folder.csv")], "a directory"),
                       (["reproduce", str(tmp_path / "exp.toml")], "a directory"),
                       (["--model-module", "/dev/null", "models", "list"], "a character device"),
                       (["embeddings", "info", "--embeddings", str(fifo)], "a FIFO")):
        one_line(CliRunner().invoke(main, [*run, *args]), rf": not a regular file \({kind}\); give the path of a file$")
    one_line(CliRunner().invoke(main, [*run, "data", "stats", str(tmp_path / "absent.csv")]),
             r"absent.csv: file not found")


def test_a_predictions_file_that_is_a_directory_is_not_a_regular_file(tmp_path):
    (tmp_path / "toy.tsv").mkdir()
    with pytest.raises(IsarcasmError, match=r"toy.tsv: not a regular file \(a directory\)"):
        predictions_file(tmp_path, "toy.csv", 0)

"""Models from outside the package: plugin files (--model-module) and entry points."""
import hashlib
import importlib.metadata
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from baselines import MODELS, ModelConfig, build_model, plugins
from experiments.cli import main
from preprocessing.errors import IsarcasmError

BAG_OF_WORDS = '''
from baselines import register_model
from baselines.layers import MaskedGlobalAveragePooling1D


@register_model("{name}", paper="mean of the word vectors")
def bag_of_words(encoded, config):
    return MaskedGlobalAveragePooling1D()(encoded.embedded)
'''


pytestmark = pytest.mark.usefixtures("clean_model_registry")


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_plugin_file_registers_a_working_model_and_records_its_origin(tmp_path):
    path = write(tmp_path / "bow.py", BAG_OF_WORDS.format(name="toy-bow"))
    assert plugins.load_model_file(path) == ["toy-bow"]
    model = build_model("toy-bow", ModelConfig(vocab_size=20, max_len=4, embedding_dim=8))
    assert model.predict({"tokens": np.array([[3, 4, 0, 0]])}, verbose=0).shape == (1, 2)
    assert plugins.origin("toy-bow") == {"file": "bow.py", "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    assert plugins.origin("lstm") is None
    assert plugins.load_model_file(path) == ["toy-bow"]  # loading the same file again is harmless


def test_two_plugin_files_with_the_same_name_do_not_collide(tmp_path):
    first = write(tmp_path / "a" / "model.py", BAG_OF_WORDS.format(name="toy-a"))
    second = write(tmp_path / "b" / "model.py", BAG_OF_WORDS.format(name="toy-b"))
    assert plugins.load_plugins([str(first), str(second)]) == ["toy-a", "toy-b"]


def test_the_model_module_option_makes_the_model_usable_by_every_command(tmp_path):
    path = write(tmp_path / "bow.py", BAG_OF_WORDS.format(name="toy-bow"))
    result = CliRunner().invoke(main, ["--model-module", str(path), "models", "summary", "toy-bow",
                                       "--vocab-size", "30", "--max-len", "5"])
    assert result.exit_code == 0, result.output
    assert "toy-bow" in result.output and "Total params" in result.output


BAD_PLUGINS = {
    "missing": (None, "not found"),
    "syntax": ("def broken(:\n", "syntax error on line 1"),
    "raises": ("raise RuntimeError('no GPU here')\n", "importing it raised RuntimeError: no GPU here"),
    "nothing": ("import keras\n", "registers no model"),
    "exits": ("exit()\n", "importing it called exit()"),
    "sys_exit": ("import sys\nsys.exit(0)\n", "importing it called exit(0)"),
    "taken": (BAG_OF_WORDS.format(name="lstm"), "'lstm' is registered twice"),
}


@pytest.mark.parametrize("case", sorted(BAD_PLUGINS))
def test_a_bad_plugin_file_stops_with_one_line_naming_it(tmp_path, case):
    text, problem = BAD_PLUGINS[case]
    path = tmp_path / f"{case}_model.py"
    if text is not None:
        write(path, text)
    before = MODELS.names()
    result = CliRunner().invoke(main, ["--model-module", str(path), "models", "summary", "lstm"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and f"{case}_model.py" in lines[0] and problem in lines[0], result.output
    assert "Traceback" not in result.output
    assert MODELS.names() == before
    assert not [m for m in sys.modules if m.startswith(f"isarcasm_plugin_{case}_model")]


def test_a_plugin_that_is_not_a_python_file_is_refused(tmp_path):
    path = write(tmp_path / "model.txt", "")
    with pytest.raises(IsarcasmError, match="not a .py file"):
        plugins.load_model_file(path)


def fake_entry_points(monkeypatch, tmp_path, module_text):
    """An installed package's entry point, without installing anything: a module on sys.path."""
    write(tmp_path / "toy_entry_models.py", module_text)
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = importlib.metadata.EntryPoint(name="toy", value="toy_entry_models", group=plugins.ENTRY_POINT_GROUP)
    real = importlib.metadata.entry_points

    def entry_points(**selection):
        return [entry] if selection.get("group") == plugins.ENTRY_POINT_GROUP else real(**selection)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)


def test_entry_points_register_their_models(monkeypatch, tmp_path):
    fake_entry_points(monkeypatch, tmp_path, BAG_OF_WORDS.format(name="toy-entry"))
    assert plugins.load_entry_points() == ["toy-entry"]
    assert "toy-entry" in MODELS
    assert plugins.origin("toy-entry")["entry_point"] == "toy = toy_entry_models"
    assert plugins.load_entry_points() == ["toy-entry"]  # once only


def test_a_broken_entry_point_is_named_in_the_error(monkeypatch, tmp_path):
    fake_entry_points(monkeypatch, tmp_path, "import a_package_that_is_not_installed\n")
    with pytest.raises(IsarcasmError, match=r"plugin entry point 'toy = toy_entry_models' \(group isarcasm.models\): "
                                            r"importing it raised ModuleNotFoundError"):
        plugins.load_entry_points()

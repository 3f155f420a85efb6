"""Damaged and hostile run folders: a truncated metrics.json, a missing model.keras, a garbage
config.json, a vocabulary that is not the model's, a model with a Lambda layer.  ``predict`` and
``evaluate`` answer each in one line; a rerun retrains what it cannot use; nothing is unpickled;
names cannot lead outside the store.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from assertions import one_line
from click.testing import CliRunner
from toy_corpus import write_corpus

from experiments.cli import main
from experiments.runs.one.provenance import recorded_config_hash
from locations import ROOT



CORPUS: list[Path] = []  # the one toy corpus file every store's run was trained on (its path is in the config)


def train(folder: Path):
    return CliRunner().invoke(main, ["--data-dir", str(folder), "train", "--corpus", str(CORPUS[0]),
                                     "--model", "cnn", "--split-col", "split", "--epochs", "1", "--set",
                                     "embeddings=random", "--output-dir", str(folder / "runs")])


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("pristine")
    CORPUS[:] = [write_corpus(folder / "toy.csv")]
    result = train(folder)
    assert result.exit_code == 0, result.output
    return folder


@pytest.fixture
def store(pristine, tmp_path) -> Path:
    """A copy of the store with its one finished run, to damage."""
    shutil.copytree(pristine / "runs", tmp_path / "store" / "runs")
    return tmp_path / "store"


def run_of(store: Path) -> Path:
    return next((store / "runs").glob("*/toy/cnn/seed-0"))


def predict(run: Path):
    return CliRunner().invoke(main, ["predict", str(run), "--text", "yeah right"])


def evaluate(store: Path, run: Path):
    return CliRunner().invoke(main, ["evaluate", str(run), "--corpus", str(CORPUS[0]), "--split-col", "split",
                                     "--force"])


def truncate_metrics(run: Path) -> None:
    data = (run / "metrics.json").read_bytes()
    (run / "metrics.json").write_bytes(data[: len(data) // 2])


def remove_model(run: Path) -> None:
    (run / "model.keras").unlink()


def garbage_config(run: Path) -> None:
    (run / "config.json").write_bytes(b"\x00\xffgarbage{")


def list_config(run: Path) -> None:
    (run / "config.json").write_text("[1, 2, 3]")


def edited_config(run: Path) -> None:
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "model": "lstm"}))  # its config_hash left as it was


DAMAGE = {
    "truncated metrics.json": (truncate_metrics, r"metrics\.json is damaged"),
    "config.json edited (cnn -> lstm)": (edited_config, r"config\.json is damaged \(edited since it was written: its "
                                                        r"settings no longer hash to the configuration hash"),
    "missing model.keras": (remove_model, r"model\.keras: no such model file"),
    "garbage config.json": (garbage_config, r"config\.json: not valid JSON"),
    "config.json of another shape": (list_config, r"config\.json is damaged"),
}


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_damaged_runs_are_one_line_for_predict_and_evaluate_and_retrained_by_a_rerun(store, damage):
    run = run_of(store)
    spoil, pattern = DAMAGE[damage]
    spoil(run)
    one_line(predict(run), pattern)
    one_line(evaluate(store, run), pattern)
    rerun = train(store)
    assert rerun.exit_code == 0, rerun.output
    assert "trained in" in rerun.output  # not "reused": the damaged run was trained again
    assert predict(run).exit_code == 0


def test_a_vocabulary_that_is_not_the_models_is_refused(store):
    run = run_of(store)
    vocab = json.loads((run / "vocab.json").read_text())
    vocab["tokens"], vocab["counts"] = vocab["tokens"][:-3], vocab["counts"][:-3]
    (run / "vocab.json").write_text(json.dumps(vocab))
    one_line(predict(run), r"the vocabulary \(\d+ words in vocab.json\) does not match the model's embedding")
    one_line(evaluate(store, run), r"does not match the model's embedding")


def test_a_model_with_a_lambda_layer_is_refused_in_one_line(store):
    import keras

    run = run_of(store)
    inputs = keras.Input(shape=(4,), name="tokens")
    outputs = keras.layers.Lambda(lambda x: x * 2.0)(inputs)
    keras.Model(inputs, outputs).save(run / "model.keras")
    pattern = r"model\.keras: refused: the model holds a Lambda layer"
    one_line(predict(run), pattern)
    one_line(evaluate(store, run), pattern)


def test_a_file_that_is_not_a_keras_model_is_refused_in_one_line(store):
    run = run_of(store)
    (run / "model.keras").write_bytes(b"PK\x03\x04 not really a zip")
    one_line(predict(run), r"model\.keras: not a loadable \.keras model")


def test_every_keras_load_uses_safe_mode_and_nothing_unpickles():
    """A source scan: the one place that loads .keras files passes safe_mode=True, and no code
    calls pickle, np.load with allow_pickle, torch.load or joblib, except the one joblib load of a
    scikit-learn entrant's estimator, which checks the file's recorded sha256 first (outputs.py)."""
    sources = [p for folder in ("baselines", "embeddings", "experiments", "preprocessing")
               for p in (ROOT / folder).rglob("*.py")]
    loads = [(p, line) for p in sources for line in p.read_text().splitlines() if "load_model(" in line
             and "def load_model" not in line and "keras.saving.load_model" in line]
    assert loads and all("safe_mode=True" in line for _, line in loads), loads
    forbidden = re.compile(r"\bpickle\.loads?\(|allow_pickle\s*=\s*True|torch\.load\(|joblib\.load\(|"
                           r"\bKeyedVectors\.load\(|\bmarshal\.loads?\(")
    hits = [f"{p.relative_to(ROOT)}: {line.strip()}" for p in sources for line in p.read_text().splitlines()
            if forbidden.search(line) and not line.lstrip().startswith("#")]
    assert hits == ["experiments/runs/one/outputs.py: return joblib.load(path)"], hits
    guarded = (ROOT / "experiments/runs/one/outputs.py").read_text()
    assert guarded.index("content_sha256(path) != saved.get") < guarded.index("joblib.load(path)")


@pytest.mark.parametrize("experiment", ["../escape", "a/../../escape", "/tmp/abs", ".hidden", ".."])
def test_run_names_cannot_lead_outside_the_store(tmp_path, experiment):
    from experiments.runs.one.store import run_dir, safe_name
    from preprocessing.errors import IsarcasmError

    with pytest.raises(IsarcasmError, match="cannot be a folder name"):
        run_dir(tmp_path / "runs", experiment, "riloff", "cnn", 0)
    with pytest.raises(IsarcasmError, match="cannot be a folder name"):
        safe_name(experiment)
    assert run_dir(tmp_path / "runs", "table7", str(tmp_path / "../../x/toy.csv"), "cnn", 0) == (
        tmp_path / "runs/table7/toy/cnn/seed-0")  # a file corpus is stored under its file's stem


def edit_json(name: str, change):
    """A damage that edits one JSON file of the run with ``change(data)``; an edit of config.json records
    its new hash in it and in metrics.json, so the value itself is what is checked (an edit that leaves the
    hash is refused for that, see ``edited_config``)."""
    def spoil(run: Path) -> None:
        data = json.loads((run / name).read_text())
        change(data)
        if name == "config.json":
            data["config_hash"] = recorded_config_hash(data)
            metrics = json.loads((run / "metrics.json").read_text())
            (run / "metrics.json").write_text(json.dumps({**metrics, "config_hash": data["config_hash"]}))
        (run / name).write_text(json.dumps(data))
    return spoil


EDITED = {
    "preprocess.json huge max_len": (edit_json("preprocess.json", lambda d: d.update(max_len=10 ** 12)),
                                     r"preprocess\.json: max_len must be a whole number at least 1 and at most "
                                     r"10,000, not 1000000000000"),
    "preprocess.json negative max_len": (edit_json("preprocess.json", lambda d: d.update(max_len=-3)),
                                         r"preprocess\.json: max_len must be .*, not -3"),
    "preprocess.json max_len as text": (edit_json("preprocess.json", lambda d: d.update(max_len="7")),
                                        r"preprocess\.json: max_len must be .*, not '7'"),
    "preprocess.json unknown setting": (edit_json("preprocess.json", lambda d: d["config"].update(stemming=True)),
                                        r"preprocess\.json: config: unknown setting\(s\) stemming"),
    "preprocess.json wrong choice": (edit_json("preprocess.json", lambda d: d["config"].update(urls="erase")),
                                     r"preprocess\.json: config: urls must be one of url, keep, drop, not 'erase'"),
    "inputs.json huge context_len": (edit_json("inputs.json", lambda d: d.update(context="last",
                                                                                 context_len=10 ** 15)),
                                     r"inputs\.json: context_len must be a whole number .*, not 1000000000000000"),
    "inputs.json unknown context": (edit_json("inputs.json", lambda d: d.update(context="both")),
                                    r"inputs\.json: context must be one of none, last, all, not 'both'"),
    "inputs.json another input": (edit_json("inputs.json", lambda d: d.update(inputs=["tokens", "lexicon"],
                                                                              mean=[0.0], std=[1.0])),
                                  r"inputs\.json names the inputs tokens, lexicon but the model reads tokens"),
    "config.json threshold as text": (edit_json("config.json", lambda d: d["train"].update(threshold="high")),
                                      r"config\.json: train: threshold must be a number greater than 0 and less "
                                      r"than 1, not 'high'"),
    "config.json without a threshold": (edit_json("config.json", lambda d: d["train"].pop("threshold")),
                                        r"config\.json: train has no threshold"),
    "config.json label names": (edit_json("config.json", lambda d: d.update(label_names=5)),
                                r"config\.json: label_names must be a list of distinct names, not 5"),
}


@pytest.mark.parametrize("damage", EDITED, ids=list(EDITED))
def test_a_run_file_with_a_value_that_cannot_be_used_is_one_line_naming_the_file_and_key(store, damage):
    run = run_of(store)
    spoil, pattern = EDITED[damage]
    spoil(run)
    one_line(predict(run), pattern)
    one_line(evaluate(store, run), pattern)

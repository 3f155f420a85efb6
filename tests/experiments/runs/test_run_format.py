"""Runs stored by earlier versions stay valid: same configuration hash, reused, loadable.

The fixture is a run folder written by commit 094c709, before ``experiments/`` was split into
layers and before ``lexicon_scaling.json`` was renamed ``inputs.json`` (tests/fixtures/README.md).
"""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from toy_corpus import write_corpus, train_toy

from experiments.runs.one.inference import load_run
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.outputs import read_predictions
from experiments.runs.one.training import expected_hash
from preprocessing.corpora import load_corpus
from experiments.runs.one.spec import RunSpec
from locations import FIXTURES

OLD_RUN = FIXTURES / "run-094c709"
#: Runs stored before the fast engine were trained by the exact one: that engine keeps their hash.
SETTINGS = TrainConfig(epochs=1, batch_size=32, embeddings="random", engine="exact")


@pytest.fixture
def old_store(tmp_path, monkeypatch):
    """The toy corpus as ``toy.csv`` (its name is part of the hash) beside a copy of the old run."""
    monkeypatch.chdir(tmp_path)
    write_corpus(Path("toy.csv"))
    shutil.copytree(OLD_RUN, tmp_path / "run")
    return load_corpus("toy.csv", Path("."), split_col="split")


def test_an_old_run_has_the_configuration_hash_this_version_computes(old_store):
    recorded = json.loads((OLD_RUN / "metrics.json").read_text())["config_hash"]
    assert expected_hash(RunSpec(old_store.name, "lstm", 0, SETTINGS), old_store, Path(".")) == recorded


def test_an_old_run_is_reused_not_retrained(old_store, monkeypatch):
    monkeypatch.setattr("experiments.runs.one.training.set_determinism",
                        lambda seed: pytest.fail("a finished run was trained again"))
    result = train_toy(old_store, "lstm", Path("run"), Path("."), SETTINGS)
    assert result.skipped and result.metrics == json.loads((OLD_RUN / "metrics.json").read_text())


def test_an_old_run_loads_and_predicts_what_it_predicted_then(old_store):
    run = load_run(Path("run"), Path("."))
    saved = read_predictions(Path("run") / "predictions.tsv")
    texts = {r.id: r.text for r in old_store.split("test")}
    np.testing.assert_allclose(run.probabilities([texts[i] for i in saved.ids]), saved.probabilities, atol=1e-5)


def test_predictions_are_one_row_per_test_text_when_written_and_when_read(tmp_path):
    """An id holding a TAB or a line break is refused before it is written; a predictions.tsv with more
    (or fewer) rows than the run's test texts is refused when read, naming the run folder."""
    from experiments.runs.one.outputs import predictions_tsv
    from preprocessing.errors import IsarcasmError

    gold, probabilities = np.eye(2)[[1, 0]], np.array([[0.2, 0.8], [0.6, 0.4]])
    for bad, what in (("a\tb", "a TAB"), ("a\nb", "a line break"), ("a\u2028b", "the control character")):
        with pytest.raises(IsarcasmError, match=f"holds {what}"):
            predictions_tsv(["t0", bad], gold, probabilities, multi_label=False)
    with pytest.raises(IsarcasmError, match="predictions for 2 texts with 1 ids"):
        predictions_tsv(["t0"], gold, probabilities, multi_label=False)
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "run-094c709", run)
    assert len(read_predictions(run / "predictions.tsv").ids) == 40  # the committed run reads as it did
    lines = (run / "predictions.tsv").read_text().splitlines()
    (run / "predictions.tsv").write_text("\n".join(lines + [lines[-1].replace("test", "x", 1)]) + "\n")
    with pytest.raises(IsarcasmError, match=f"^{run}: predictions.tsv holds 41 rows for 40 test texts"):
        read_predictions(run / "predictions.tsv")

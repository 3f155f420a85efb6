"""The worked plugin in examples/, exercised through the public command line."""
import hashlib
import json

import pytest
from click.testing import CliRunner
from toy_corpus import write_corpus

from experiments.cli import main
from locations import ROOT

EXAMPLE = ROOT / "examples" / "bigru_plugin.py"

pytestmark = pytest.mark.usefixtures("clean_model_registry")  # the plugin's model is unregistered after


def test_the_bigru_example_trains_evaluates_and_records_its_source(tmp_path):
    corpus = write_corpus(tmp_path / "toy.csv")
    runner = CliRunner()
    result = runner.invoke(main, ["--model-module", str(EXAMPLE), "train", "--corpus", str(corpus),
                                  "--split-col", "split", "--model", "bigru", "--epochs", "1", "--set", "embeddings=random",
                                  "--output-dir", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    run = tmp_path / "runs/train-epochs-1-embeddings-random/toy/bigru/seed-0"
    config = json.loads((run / "config.json").read_text())
    assert config["model"] == "bigru"
    assert config["model_source"] == {"file": "bigru_plugin.py",
                                      "sha256": hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()}
    assert config["model_config"]["dropout"] == 0.2
    # The saved model loads again (standard Keras layers only) and gives the same test metrics.
    evaluation = runner.invoke(main, ["--model-module", str(EXAMPLE), "evaluate", str(run), "--corpus", str(corpus),
                                      "--split-col", "split", "--json"])
    assert evaluation.exit_code == 0, evaluation.output
    metrics = json.loads((run / "metrics.json").read_text())
    assert json.loads(evaluation.output)["test"] == metrics["test"]

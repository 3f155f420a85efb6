"""The beyond-binary experiments on the real corpora, as smoke runs (--quick; skipped without the data)."""
import json

from click.testing import CliRunner
from markdown_tables import unpadded

from experiments.cli import main


def reproduce(data_dir, tmp_path, *args):
    result = CliRunner().invoke(main, ["--data-dir", str(data_dir), "reproduce", *args, "--quick",
                                       "--output-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res")])
    assert result.exit_code == 0, result.output
    return unpadded(result.output)


def test_dialogue_runs_every_mustard_fold_with_the_context(real_data_dir, tmp_path):
    output = reproduce(real_data_dir, tmp_path, "dialogue", "--models", "cnn", "--set", "context=last")
    assert "| mustard (5 folds) | cnn | f1_weighted |" in output
    runs = sorted((tmp_path / "runs" / "dialogue-quick-context-last" / "mustard" / "cnn").glob("fold-*/seed-0"))
    assert len(runs) == 5
    config = json.loads((runs[0] / "config.json").read_text())
    assert config["fold"] == 0 and config["inputs"]["context"] == "last" and config["inputs"]["context_len"] > 0


def test_types_covers_multi_class_and_multi_label_cells(real_data_dir, tmp_path):
    output = reproduce(real_data_dir, tmp_path, "types", "--models", "cnn", "--corpora", "semeval2018-b,isarcasmeval-b")
    assert "| semeval2018-b | cnn | situational | 85 |" in output
    assert "| isarcasmeval-b | cnn | rhetorical_question | 11 |" in output

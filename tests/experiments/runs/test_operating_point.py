"""Operating-point figures against scikit-learn, and their place in the report."""
import numpy as np
import pytest
from markdown_tables import unpadded
from sklearn.metrics import average_precision_score, f1_score

from experiments.runs.one.operating_point import all_sarcastic_f1, operating_point
from experiments.reports.table import markdown_report
from experiments.results.schema import Result
from experiments.studies.experiment import Cell
from experiments.studies.cells import aggregate


def write_run(directory, gold, probabilities):
    directory.mkdir(parents=True)
    lines = ["id\tgold\t" + "\t".join(f"prob_{k}" for k in range(probabilities.shape[1]))]
    lines += [f"t{i}\t{g}\t" + "\t".join(f"{p:.6f}" for p in row) for i, (g, row) in enumerate(zip(gold, probabilities))]
    (directory / "predictions.tsv").write_text("\n".join(lines) + "\n")
    return directory


def binary_runs(tmp_path, gold, positives):
    return [write_run(tmp_path / f"seed-{k}", gold, np.column_stack([1 - p, p])) for k, p in enumerate(positives)]


def test_figures_match_scikit_learn(tmp_path):
    rng = np.random.default_rng(0)
    gold = (rng.random(200) < 0.2).astype(int)
    positives = [np.clip(gold * 0.3 + rng.random(200) * 0.7, 0, 1) for _ in range(3)]
    point = operating_point(binary_runs(tmp_path, gold, positives))
    assert point["positive_share"] == pytest.approx(gold.mean())
    assert point["all_sarcastic_f1"] == pytest.approx(f1_score(gold, np.ones_like(gold)))
    rates = [np.mean(np.round(p, 6) >= 0.5) for p in positives]
    assert point["predicted_positive_rate"]["values"] == pytest.approx(rates)
    aps = [average_precision_score(gold, np.round(p, 6)) for p in positives]
    assert point["average_precision"]["mean"] == pytest.approx(np.mean(aps))
    assert point["average_precision"]["std"] == pytest.approx(np.std(aps, ddof=1))


def test_threshold_moves_the_operating_point_but_not_the_ranking(tmp_path):
    gold = np.array([0, 0, 0, 1, 1, 0, 1, 0])
    positive = np.array([0.1, 0.2, 0.3, 0.35, 0.6, 0.4, 0.7, 0.05])
    runs = binary_runs(tmp_path, gold, [positive])
    at_half, at_third = operating_point(runs, 0.5), operating_point(runs, 1 / 3)
    assert at_half["predicted_positive_rate"]["mean"] == pytest.approx(2 / 8)
    assert at_third["predicted_positive_rate"]["mean"] == pytest.approx(4 / 8)
    assert at_half["average_precision"] == at_third["average_precision"]


def test_multi_class_cells_have_none(tmp_path):
    run = write_run(tmp_path / "seed-0", [0, 1, 2], np.eye(3))
    assert operating_point([run]) is None


def test_all_sarcastic_f1_of_an_empty_class_is_zero():
    assert all_sarcastic_f1(0.0) == 0.0
    assert all_sarcastic_f1(0.5) == pytest.approx(2 / 3)


def test_report_shows_one_row_per_binary_cell(tmp_path):
    gold = np.array([0, 0, 0, 1])
    runs = binary_runs(tmp_path, gold, [np.array([0.1, 0.6, 0.2, 0.9])])
    summary = aggregate(Cell("riloff", "lstm", (), ""), [{"test": {"f1_sarcastic": 0.67, "f1_macro": 0.73}}],
                         [str(r) for r in runs], [0])
    summary["operating_point"] = operating_point(runs)
    result = Result("table", "t", [summary], {"title": "T", "source": "S", "seeds": [0], "git_commit": "abc",
                                              "wall_seconds": 1, "compute_seconds": 1})
    text = unpadded(markdown_report(result))
    assert "## Operating point and ranking (test split)" in text
    assert "| riloff | lstm | 0.250 | 0.500 ± 0.000 | 1.000 ± 0.000 | 0.400 |" in text

"""Figures and the HTML report, from a tiny results file and fake run directories (no training)."""
import json
import re

import numpy as np
import pytest
from click.testing import CliRunner
from markdown_tables import unpadded
from matplotlib.image import imread
from sklearn.metrics import confusion_matrix

from experiments.cli import main
from experiments.reports.figures import markdown_to_html
from experiments.results.schema import Result
from experiments.runs.one.metrics import classification_metrics
from experiments.runs.one.provenance import recorded_config_hash
from experiments.runs.one.outputs import history_csv
from experiments.studies.experiment import Cell, Reference
from experiments.studies.cells import aggregate


def fake_run(directory, seed, skill):
    """A finished-looking run: config, metrics, predictions and history of a model of the given skill."""
    rng = np.random.default_rng(seed)
    gold = (rng.random(80) < 0.3).astype(int)
    positive = np.clip(gold * skill + rng.random(80) * (1 - skill), 0, 1)
    directory.mkdir(parents=True)
    lines = ["id\tgold\tprob_0\tprob_1"] + [f"t{i}\t{g}\t{1 - p:.6f}\t{p:.6f}" for i, (g, p) in
                                            enumerate(zip(gold, positive))]
    (directory / "predictions.tsv").write_text("\n".join(lines) + "\n")
    epochs = 6
    history = {"f1": list(np.linspace(0.2, 0.9, epochs)), "loss": list(np.linspace(0.7, 0.2, epochs)),
               "val_f1": list(np.linspace(0.2, 0.6, epochs)), "val_loss": list(np.linspace(0.7, 0.5, epochs))}
    (directory / "history.csv").write_text(history_csv(history))
    test = classification_metrics(gold, (positive >= 0.5).astype(int))
    metrics = {"seed": seed, "selected_epoch": 4, "train_seconds": 1.0, "test": test}
    (directory / "metrics.json").write_text(json.dumps(metrics))
    config = {"train": {"threshold": 0.5}}
    (directory / "config.json").write_text(json.dumps({**config, "config_hash": recorded_config_hash(config),
                                                       "label_names": ["not_sarcastic", "sarcastic"]}))
    return metrics, confusion_matrix(gold, positive >= 0.5)


def fake_results(tmp_path):
    cells, matrices = [], {}
    for model, skill in (("lstm", 0.6), ("cnn", 0.3)):
        runs = [tmp_path / "runs" / model / f"seed-{seed}" for seed in (0, 1)]
        made = [fake_run(run, seed, skill) for seed, run in enumerate(runs)]
        matrices[model] = np.mean([m for _, m in made], axis=0)
        cell = Cell("toy", model, (Reference("iSarcasm impl.", "f1_sarcastic", 0.5),
                                   Reference("published", "f1_macro", 0.6)))
        cells.append(aggregate(cell, [m for m, _ in made], [str(r) for r in runs], [0, 1]))
    gone = Cell("other", "lstm", (Reference("iSarcasm impl.", "f1_sarcastic", 0.4),))
    cells.append(aggregate(gone, [{"test": {"f1_sarcastic": 0.3, "f1_macro": 0.5}}], [str(tmp_path / "gone")], [0]))
    result = Result("table", "toy", cells, {"title": "Toy table", "source": "tests", "seeds": [0, 1],
                                            "git_commit": "abc", "wall_seconds": 10, "compute_seconds": 8})
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "toy.json").write_text(json.dumps(result.to_dict()))
    return result, matrices


def test_report_html_draws_every_figure_and_links_it(tmp_path):
    fake_results(tmp_path)
    outcome = CliRunner().invoke(main, ["report", "toy", "--results-dir", str(tmp_path / "results"), "--html"])
    assert outcome.exit_code == 0, outcome.output
    folder = tmp_path / "results" / "toy"
    page = (folder / "index.html").read_text()
    assert f"report with figures: {folder / 'index.html'}" in outcome.output
    images = re.findall(r'<img src="([^"]+)"', page)
    expected = {f"{kind}-toy.png" for kind in ("bars", "pr", "confusion", "training")} | {"bars-other.png"}
    assert set(images) == expected
    for name in images:
        pixels = imread(folder / name)
        assert pixels.ndim == 3 and pixels.shape[0] > 200 and pixels.shape[1] > 300
        assert pixels[..., :3].std() > 0.05  # something was drawn, not a blank canvas
    # The corpus whose runs are gone gets its bar chart (from the results file) and a note for the rest.
    assert page.count("No data: no finished run") == 3
    # The markdown report is part of the page, its table as an HTML table.
    assert "<h1>Toy table</h1>" in page and "<th>paper</th>" in page
    assert "<td>toy</td>\n<td>lstm</td>\n<td>f1_sarcastic</td>" in page


def test_confusion_matrices_show_the_mean_counts(tmp_path, monkeypatch):
    """Each cell's annotation is the mean count over seeds (read from the figure before it is saved)."""
    from experiments.reports import figures as plots

    result, matrices = fake_results(tmp_path)
    texts = []
    save = plots._save

    def keep_texts(figure, path):
        texts.extend(t.get_text() for axis in figure.axes for t in axis.texts)
        return save(figure, path)

    monkeypatch.setattr(plots, "_save", keep_texts)
    plots.confusion_matrices("toy", result.cells[:2], tmp_path / "confusion.png")
    expected = [f"{count:.0f}" for model in ("lstm", "cnn") for count in matrices[model].ravel()]
    assert [t.split("\n")[0] for t in texts] == expected


def test_cross_results_get_a_heatmap_per_model(tmp_path):
    corpora = ["alpha", "beta"]
    cells = [{"model": model, "train_corpus": a, "test_corpus": b, "seeds": [0], "runs": [],
              "metrics": {m: {"mean": 0.5, "std": 0.1, "values": [0.5]} for m in ("f1_sarcastic", "f1_macro")}}
             for model in ("lstm", "cnn") for a in corpora for b in corpora]
    result = Result("cross", "cross", cells, {"title": "Cross", "models": ["lstm", "cnn"], "corpora": corpora,
                                              "seeds": [0], "git_commit": "abc", "wall_seconds": 1})
    (tmp_path / "cross.json").write_text(json.dumps(result.to_dict()))
    outcome = CliRunner().invoke(main, ["report", "cross", "--results-dir", str(tmp_path), "--html"])
    assert outcome.exit_code == 0, outcome.output
    assert "| alpha | **0.500 ± 0.100** | 0.500 ± 0.100 |" in unpadded(outcome.output)
    page = (tmp_path / "cross" / "index.html").read_text()
    assert re.findall(r'<img src="([^"]+)"', page) == ["heatmap-lstm.png", "heatmap-cnn.png"]
    assert imread(tmp_path / "cross" / "heatmap-cnn.png").shape[1] > 400


def test_a_cross_heatmap_draws_each_columns_floors_under_the_models_rows(tmp_path, monkeypatch):
    """The colours and labels each panel plots (read from the figure before it is saved): the training rows,
    then one row per floor with the column's score for that panel's metric; a test-only column has no row."""
    from experiments.reports import figures as plots
    from experiments.runs.one.operating_point import constant_floors

    corpora, shares = ["alpha", "mine"], {"alpha": 0.2, "mine": 0.5}
    cells = [{"model": "cnn", "train_corpus": "alpha", "test_corpus": b, "seeds": [0], "runs": [],
              "metrics": {m: {"mean": 0.5, "std": 0.1, "values": [0.5]} for m in ("f1_sarcastic", "f1_macro")}}
             for b in corpora]
    floors = {c: constant_floors(share) for c, share in shares.items()}
    before_floors = {"models": ["cnn"], "corpora": corpora, "train_corpora": ["alpha"], "seeds": [0]}
    result = Result("cross", "cross", cells, {**before_floors,
                                              "all_sarcastic": {c: f["all_sarcastic"] for c, f in floors.items()},
                                              "majority": {c: f["majority"] for c, f in floors.items()}})
    panels = []
    save = plots._save

    def keep_panels(figure, path):
        panels.extend((axis.get_title(), np.asarray(axis.images[0].get_array()),
                       [tick.get_text() for tick in axis.get_yticklabels()]) for axis in figure.axes if axis.images)
        return save(figure, path)

    monkeypatch.setattr(plots, "_save", keep_panels)
    plots.cross_heatmap(result, "cnn", tmp_path / "heatmap-cnn.png")
    assert [title for title, _, _ in panels] == ["sarcastic-class F1", "macro-F1"]
    for (_, grid, labels), metric in zip(panels, ("f1_sarcastic", "f1_macro")):
        assert labels == ["alpha", "all sarcastic (floor)", "majority (floor)"]
        assert grid[0].tolist() == [0.5, 0.5]
        assert grid[1].tolist() == [pytest.approx(floors[c]["all_sarcastic"][metric]) for c in corpora]
        assert grid[2].tolist() == [pytest.approx(floors[c]["majority"][metric]) for c in corpora]
    result = Result("cross", "cross", cells, before_floors)  # results saved before the floors: the models' rows alone
    panels.clear()
    plots.cross_heatmap(result, "cnn", tmp_path / "heatmap-cnn.png")
    assert [labels for _, _, labels in panels] == [["alpha"], ["alpha"]]


def test_markdown_to_html_covers_what_the_reports_use():
    text = "# Title\n\nSome `code` and **bold** <b>.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two\n"
    page = re.sub(r">\s+<", "><", markdown_to_html(text))
    assert "<h1>Title</h1>" in page
    assert "<p>Some <code>code</code> and <strong>bold</strong> &lt;b&gt;.</p>" in page  # raw HTML shown as text
    assert "<th>a</th><th>b</th>" in page and "<td>1</td><td>2</td>" in page
    assert "<ul><li>one</li><li>two</li></ul>" in page


def test_bar_chart_title_says_whether_reference_numbers_are_drawn(tmp_path, monkeypatch):
    from experiments.reports import figures as plots

    result, _ = fake_results(tmp_path)
    titles = []
    save = plots._save

    def keep_title(figure, path):
        titles.append(figure._suptitle.get_text())
        return save(figure, path)

    monkeypatch.setattr(plots, "_save", keep_title)
    plots.reference_bars("toy", result.cells[:2], tmp_path / "with.png")
    bare = [{**cell, "references": []} for cell in result.cells[:2]]
    plots.reference_bars("toy", bare, tmp_path / "without.png")
    assert titles == ["toy: ours (mean ± std over seeds) and the reference numbers",
                      "toy: ours (mean ± std over seeds) (no reference numbers for this corpus)"]


def test_a_cell_whose_every_run_failed_is_reported_as_failed_not_drawn_or_left_out(tmp_path):
    """[train] learning_rate = 1e30: every run diverges; the table, the csv and the page say so."""
    from experiments.reports.table import results_csv

    cell = aggregate(Cell("toy", "cnn"), [], [], [0])
    cell["failed_runs"] = [{"seed": 0, "fold": None, "run": "r", "reason": "non-finite loss (nan) in epoch 1"}]
    result = Result("table", "failed", [cell], {"title": "Failed", "source": "tests", "seeds": [0], "git_commit": "abc",
                                                "wall_seconds": 1, "compute_seconds": 0})
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "failed.json").write_text(json.dumps(result.to_dict()))
    outcome = CliRunner().invoke(main, ["report", "failed", "--results-dir", str(tmp_path / "results"), "--html"])
    assert outcome.exit_code == 0, outcome.output
    assert "1 of 1 seeds failed: non-finite loss (nan) in epoch 1; no mean" in outcome.output
    assert results_csv(result).splitlines()[1] == "toy,cnn,,failed,,0,,"
    assert "No data: no finished run" in (tmp_path / "results" / "failed" / "index.html").read_text()

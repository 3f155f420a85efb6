"""Reports to look at: PNG figures (matplotlib, Agg) and an index.html that shows them.

For a table experiment (``results/<experiment>.json`` and its run
directories), per corpus: ours beside the published and iSarcasm-implementation
numbers with error bars (std over seeds), precision-recall curves per model,
confusion matrices and training curves from ``history.csv``.  For the
cross-dataset matrix: one heatmap per model.  Everything goes to
``results/<experiment>/``; figures of runs whose directories are gone are
left out with a note.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
from markdown_it import MarkdownIt
from sklearn.metrics import average_precision_score, precision_recall_curve

from experiments.reports.cross import MATRIX_METRICS, floor_rows, matrix, rows
from experiments.reports.table import shown_metrics
from experiments.results.schema import Result
from experiments.runs.one.store import PREDICTIONS, SCORED, read_config, read_metrics, run_state, write_text
from experiments.runs.one.outputs import read_history, read_predictions

COLOURS = {"ours": "#1f77b4", "iSarcasm impl.": "#ff7f0e", "published": "#2ca02c"}
METRIC_LABELS = {"f1_sarcastic": "F1 (sarcastic)", "precision_sarcastic": "precision (sarcastic)",
                 "recall_sarcastic": "recall (sarcastic)", "f1_macro": "macro-F1", "f1_weighted": "weighted F1",
                 "accuracy": "accuracy", "balanced_accuracy": "balanced accuracy"}


def _pyplot():
    import matplotlib  # matplotlib: only when drawing

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # matplotlib: only when drawing

    return plt


def _save(figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110, bbox_inches="tight")
    _pyplot().close(figure)
    return path


# --- table experiments ------------------------------------------------------------------------

def _by_corpus(result: Result) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    for cell in result.cells:
        groups.setdefault(cell["corpus"], []).append(cell)
    return groups


def _runs(cell: dict) -> list[Path]:
    """The cell's run directories that still hold what figures read: metrics.json (written last, so
    the run completed) and its predictions. The model file is not needed, so a run whose model was
    deleted to save space still draws (paths are as recorded, relative to where it ran)."""
    return [Path(r) for r in cell.get("runs", []) if run_state(Path(r)) in SCORED and (Path(r) / PREDICTIONS).is_file()]


def reference_bars(corpus: str, cells: list[dict], path: Path) -> Path | None:
    """One panel per metric: ours (mean ± std over seeds) beside the iSarcasm implementation and published values."""
    plt = _pyplot()
    metrics = list(dict.fromkeys(m for cell in cells for m in shown_metrics(cell)))
    if not metrics:
        return None  # every run of every cell failed: nothing to draw (the report's table says so)
    columns = min(2, len(metrics))
    rows = -(-len(metrics) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(max(4.5, 0.9 * len(cells) + 1.5) * columns, 3.6 * rows),
                                squeeze=False)
    x = np.arange(len(cells))
    for axis, metric in zip(axes.flat, metrics):
        series = [(label, values, errors) for label, values, errors in
                  (_series(cells, metric, label) for label in COLOURS) if not np.all(np.isnan(values))]
        width = 0.8 / len(series)
        for index, (label, values, errors) in enumerate(series):
            axis.bar(x + (index - (len(series) - 1) / 2) * width, values, width * 0.95, color=COLOURS[label],
                     label=label, yerr=errors if any(errors) else None, capsize=3)
        for index, cell in enumerate(cells):
            if metric not in cell["metrics"] and cell.get("failed_runs"):
                axis.text(index, 0.02, "runs failed", rotation=90, ha="center", va="bottom", fontsize=8)
        axis.set_title(METRIC_LABELS.get(metric, metric))
        axis.set_xticks(x, [c["model"] for c in cells], rotation=30, ha="right")
        axis.set_ylim(0, 1)
        axis.grid(axis="y", alpha=0.3)
        axis.set_ylabel("score")
    for axis in list(axes.flat)[len(metrics):]:
        axis.set_visible(False)
    handles = {}
    for axis in axes.flat:
        handles.update(zip(axis.get_legend_handles_labels()[1], axis.get_legend_handles_labels()[0]))
    order = [label for label in COLOURS if label in handles]
    height = figure.get_figheight()  # legend and title sit in a fixed band of inches above the panels
    figure.legend([handles[label] for label in order], order, loc="upper center", ncol=3, frameon=False,
                  bbox_to_anchor=(0.5, 1.0))
    spread = "folds x seeds" if any(cell.get("folds") for cell in cells) else "seeds"
    references = " and the reference numbers" if len(order) > 1 else " (no reference numbers for this corpus)"
    figure.suptitle(f"{corpus}: ours (mean ± std over {spread}){references}", y=1 + 0.3 / height)
    figure.tight_layout(rect=(0, 0, 1, 1 - 0.35 / height))
    return _save(figure, path)


def _series(cells: list[dict], metric: str, label: str) -> tuple[str, list[float], list[float]]:
    """(label, value per cell or NaN, error bar per cell) of one bar series."""
    values, errors = [], []
    for cell in cells:
        if label == "ours":
            stats = cell["metrics"].get(metric)
            values.append(stats["mean"] if stats else np.nan)
            errors.append(stats["std"] if stats else 0.0)
        else:
            refs = [r["value"] for r in cell["references"] if r["label"] == label and r["metric"] == metric]
            values.append(refs[0] if refs else np.nan)
            errors.append(0.0)
    return label, values, errors


def precision_recall(corpus: str, cells: list[dict], path: Path) -> Path | None:
    """Per model, the precision-recall curve of P(sarcastic) on the test split (first seed), its operating point."""

    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(6, 5))  # the legend goes to the right of the curves
    drawn, positive_rate = 0, None
    for cell in cells:
        runs = _runs(cell)
        if not runs or "f1_sarcastic" not in cell["metrics"]:
            continue  # a curve needs one positive class: binary cells only
        predictions = [read_predictions(r / PREDICTIONS) for r in runs]
        scores = [average_precision_score(p.gold, p.probabilities[:, 1]) for p in predictions]
        first = predictions[0]
        precision, recall, _ = precision_recall_curve(first.gold, first.probabilities[:, 1])
        spread = f" ± {np.std(scores, ddof=1):.2f}" if len(scores) > 1 else ""
        line, = axis.plot(recall, precision, lw=1.5,
                          label=f"{cell['model']} (AP {np.mean(scores):.2f}{spread})")
        test = read_metrics(runs[0])["test"]
        axis.plot(test["recall_sarcastic"], test["precision_sarcastic"], "o", color=line.get_color(), ms=6)
        positive_rate = float(np.mean(first.gold == 1))
        drawn += 1
    if not drawn:
        plt.close(figure)
        return None
    axis.axhline(positive_rate, color="grey", ls=":", lw=1, label=f"chance ({positive_rate:.2f} sarcastic)")
    axis.set(xlabel="recall (sarcastic)", ylabel="precision (sarcastic)", xlim=(0, 1), ylim=(0, 1.02),
             title=f"{corpus}: precision-recall on the test split\n(first seed's curve; dot = its decision threshold; "
                   "AP over seeds)")
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1), frameon=False)
    return _save(figure, path)


def confusion_matrices(corpus: str, cells: list[dict], path: Path) -> Path | None:
    """Per model, the test confusion matrix averaged over its runs; colour = share of the true class's examples.

    With many classes the cells only show the share, and the panels grow, so the text stays legible."""
    plt = _pyplot()
    cells = [c for c in cells if _runs(c) and "confusion_matrix" in read_metrics(_runs(c)[0])["test"]]
    if not cells:
        return None  # none, or multi-label cells only (they have per-label scores instead)
    classes = len(read_metrics(_runs(cells[0])[0])["test"]["confusion_matrix"])
    many = classes > 4
    side = max(3.0, 0.5 * classes + 1.0)
    columns = min(3 if many else 4, len(cells))
    rows = -(-len(cells) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(side * columns + 0.6, side * rows + 0.6), squeeze=False)
    for index, (axis, cell) in enumerate(zip(axes.flat, cells)):
        runs = _runs(cell)
        matrices = np.asarray([read_metrics(r)["test"]["confusion_matrix"] for r in runs], dtype=float)
        mean = matrices.mean(axis=0)
        shares = mean / np.maximum(mean.sum(axis=1, keepdims=True), 1e-12)
        names = read_config(runs[0]).get("label_names") or [str(k) for k in range(len(mean))]
        axis.imshow(shares, cmap="Blues", vmin=0, vmax=1)
        for (i, j), count in np.ndenumerate(mean):
            text = f"{shares[i, j]:.0%}" if many else f"{count:.0f}\n{shares[i, j]:.0%}"
            axis.text(j, i, text, ha="center", va="center", fontsize=7 if many else 8,
                      color="white" if shares[i, j] > 0.6 else "black")
        short = [n.replace("not_sarcastic", "not sarc.").replace("sarcastic", "sarc.") for n in names]
        axis.set_xticks(range(len(names)), short, fontsize=8, rotation=40 if len(names) > 2 else 0,
                        ha="right" if len(names) > 2 else "center")
        axis.set_yticks(range(len(names)), short if index % columns == 0 else [], fontsize=8)
        axis.set_xlabel("predicted", fontsize=8)
        if index % columns == 0:
            axis.set_ylabel("true", fontsize=8)
        axis.set_title(f"{cell['model']} ({_run_count(cell, runs)})", fontsize=9)
    for axis in list(axes.flat)[len(cells):]:
        axis.set_visible(False)
    shown = "% of the true class" if many else "mean count per run; % of the true class"
    figure.suptitle(f"{corpus}: test confusion matrices\n({shown})")
    figure.tight_layout(h_pad=1.5)  # room between a row's x labels and the next row's titles
    return _save(figure, path)


def _run_count(cell: dict, runs: list[Path]) -> str:
    """'3 seeds', or '5 folds x 3 seeds' for a cross-validated cell (whose runs are each one fold's test part)."""
    seeds = len(cell.get("seeds") or runs) if cell.get("folds") else len(runs)
    counted = f"{seeds} seed{'s' if seeds > 1 else ''}"
    return f"{cell['folds']} folds x {counted}" if cell.get("folds") else counted


def training_curves(corpus: str, cells: list[dict], path: Path) -> Path | None:
    """Per model, loss (top) and F1 (bottom) per epoch on train and validation data, one line per seed."""
    plt = _pyplot()
    from matplotlib.lines import Line2D  # matplotlib: only when drawing
    from matplotlib.ticker import MaxNLocator

    cells = [c for c in cells if any(read_history(r) for r in _runs(c))]
    if not cells:
        return None
    figure, axes = plt.subplots(2, len(cells), figsize=(3.2 * len(cells) + 0.6, 5.6), squeeze=False, sharex="col")
    for column, cell in enumerate(cells):
        for run in _runs(cell):
            history = read_history(run)
            selected = read_metrics(run).get("selected_epoch")
            for row, key in enumerate(("loss", "f1")):
                axis = axes[row][column]
                axis.plot(history["epoch"], history[key], color=COLOURS["ours"], lw=1, alpha=0.8)
                axis.plot(history["epoch"], history[f"val_{key}"], color=COLOURS["iSarcasm impl."], lw=1, alpha=0.8)
                if selected and row == 1:
                    axis.axvline(selected, color="grey", ls=":", lw=1)
        axes[0][column].set_title(cell["model"], fontsize=9)
        axes[1][column].set_xlabel("epoch", fontsize=8)
        axes[1][column].set_ylim(0, 1)
        axes[1][column].xaxis.set_major_locator(MaxNLocator(integer=True))
        for axis in axes[:, column]:
            axis.tick_params(labelsize=8)
    axes[0][0].set_ylabel("loss")
    axes[1][0].set_ylabel("F1 (model selection metric)")
    legend = [Line2D([], [], color=COLOURS["ours"], label="train"),
              Line2D([], [], color=COLOURS["iSarcasm impl."], label="validation"),
              Line2D([], [], color="grey", ls=":", label="selected epoch")]
    figure.suptitle(f"{corpus}: training curves (one line per seed)")
    figure.tight_layout(rect=(0, 0, 1, 0.9))
    figure.legend(handles=legend, loc="upper center", ncol=3, bbox_to_anchor=(0.5, 0.95), frameon=False)
    return _save(figure, path)


FIGURES = (
    ("Ours beside the published numbers", "bars", reference_bars),
    ("Precision-recall curves", "pr", precision_recall),
    ("Confusion matrices", "confusion", confusion_matrices),
    ("Training curves", "training", training_curves),
)


def table_figures(result: Result, folder: Path) -> list[tuple[str, list[tuple[str, Path | None]]]]:
    """Every figure of a table experiment: [(corpus, [(figure title, path or None when it has no data)])]."""
    sections = []
    for corpus, cells in _by_corpus(result).items():
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", corpus)
        sections.append((corpus, [(title, draw(corpus, cells, folder / f"{kind}-{stem}.png"))
                                  for title, kind, draw in FIGURES]))
    return sections


# --- cross-dataset matrix ---------------------------------------------------------------------

def cross_heatmap(result: Result, model: str, path: Path) -> Path:
    """Rows = training corpus, columns = test corpus; sarcastic-class F1 and macro-F1 side by side. Under
    the training rows, each floor row (:func:`experiments.reports.cross.floor_rows`): the column's score
    when every text is labelled one way, which a cell must beat to mean anything."""
    plt = _pyplot()
    from matplotlib.patches import Rectangle  # matplotlib: only when drawing

    corpora, trained, floors = result.corpora, rows(result), floor_rows(result)
    labels, size = [*trained, *(f"{name} (floor)" for name in floors)], len(corpora)
    figure, axes = plt.subplots(1, len(MATRIX_METRICS), figsize=(1.25 * size * 2 + 3.5, 1.0 * len(labels) + 2.2),
                                squeeze=False)
    for axis, (metric, label) in zip(axes[0], MATRIX_METRICS.items()):
        values = matrix(result, model, metric)
        grid = np.full((len(labels), size), np.nan)
        for (i, train), (j, test) in ((a, b) for a in enumerate(trained) for b in enumerate(corpora)):
            if (train, test) in values and values[(train, test)]["mean"] is not None:
                grid[i, j] = values[(train, test)]["mean"]
        for i, floor in enumerate(floors.values(), len(trained)):
            grid[i] = [floor[test][metric] if test in floor else np.nan for test in corpora]
        image = axis.imshow(grid, cmap="viridis", vmin=0, vmax=1)
        for (i, j), value in np.ndenumerate(grid):
            floor_row = i >= len(trained)
            if np.isnan(value):
                shown = "undefined" if floor_row or (trained[i], corpora[j]) in values else "not run"
                axis.text(j, i, shown, ha="center", va="center", fontsize=7, color="grey")
                continue
            shown = f"{value:.2f}" if floor_row else f"{value:.2f}\n±{values[(trained[i], corpora[j])]['std']:.2f}"
            axis.text(j, i, shown, ha="center", va="center", fontsize=8, style="italic" if floor_row else "normal",
                      color="black" if value > 0.6 else "white")
        for i, train in enumerate(trained):  # outline the in-domain cells
            j = corpora.index(train)
            axis.add_patch(Rectangle((j - 0.46, i - 0.46), 0.92, 0.92, fill=False, edgecolor="red", lw=1.5))
        if floors:  # a white band between the models' rows and the floors
            axis.axhline(len(trained) - 0.5, color="white", lw=4)
        axis.set_xticks(range(size), corpora, rotation=35, ha="right", fontsize=8)
        axis.set_yticks(range(len(labels)), labels, fontsize=8)
        for tick in axis.get_yticklabels()[len(trained):]:
            tick.set_style("italic")
        axis.set_xlabel("tested on")
        axis.set_title(label)
        figure.colorbar(image, ax=axis, fraction=0.046, pad=0.04)
    axes[0][0].set_ylabel("trained on")
    seeds = len(result.seeds)
    below = "; italic rows: floors, every test text given one label" if floors else ""
    figure.suptitle(f"{model}: cross-dataset results, mean ± std over {seeds} seed{'s' if seeds > 1 else ''} "
                    f"(red: in-domain{below})")
    figure.tight_layout(rect=(0, 0, 1, 0.95))
    return _save(figure, path)


# --- HTML -------------------------------------------------------------------------------------

def cross_figures(result: Result, folder: Path) -> list[tuple[str, list[tuple[str, Path | None]]]]:
    return [("Heatmaps", [(model, cross_heatmap(result, model, folder / f"heatmap-{model}.png"))
                          for model in result.models])]


def write_html_report(result: Result, text: str, sections: list, folder: Path) -> Path:
    """Write ``folder/index.html``: ``text`` (markdown), then the figures of ``sections`` (drawn into ``folder``)."""
    body = [markdown_to_html(text)]
    for heading, figures in sections:
        body.append(f"<h2>{html.escape(heading)}</h2>")
        for title, path in figures:
            body.append(f"<h3>{html.escape(title)}</h3>")
            body.append(f'<p><img src="{html.escape(path.name)}" alt="{html.escape(title)}"></p>' if path else
                        "<p><em>No data: no finished run (see the failed runs above), or the run directories (or their "
                        "predictions/history) were not found.</em></p>")
    path = folder / "index.html"
    write_text(path, html_page(result.title or result.experiment, body))
    return path


#: Sorts a page's tables by the column whose header is clicked (again: the other way), numbers as numbers
#: ("0.233 ± 0.032" by 0.233, "3=" by 3, "1,954/s" by 1954), other text alphabetically; empty cells and
#: dashes last.  Inline, so the page needs nothing from outside itself.
SORTABLE_TABLES = """
document.querySelectorAll('table').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, column) {
    th.title = 'sort by this column'; th.style.cursor = 'pointer';
    th.addEventListener('click', function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var down = th.dataset.order !== 'down'; th.dataset.order = down ? 'down' : 'up';
      function key(row) {
        var text = row.cells[column].textContent.trim(), number = parseFloat(text.replace(/,/g, ''));
        return text === '' || text === '\u2014' ? null : (isNaN(number) ? text : number);
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (x === null || y === null) { return (x === null) - (y === null); }
        if (typeof x !== typeof y) { return typeof x === 'number' ? -1 : 1; }
        var order = x < y ? -1 : (x > y ? 1 : 0);
        return down ? -order : order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


def html_page(title: str, body: list[str], style: str = "") -> str:
    """A self-contained page: inline style (``style`` added to it), tables sortable by their headers
    (:data:`SORTABLE_TABLES`), images by relative paths."""
    return ("<!doctype html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title>"
            "<style>body{font-family:sans-serif;max-width:1400px;margin:2em auto;padding:0 1em}"
            "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}"
            "img{max-width:100%}" + style + "</style></head><body>\n" + "\n".join(body)
            + f"\n<script>{SORTABLE_TABLES}</script>\n</body></html>\n")


def markdown_to_html(text: str) -> str:
    """A report's markdown as HTML (CommonMark with tables; raw HTML in a report is shown as text)."""
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


# --- leaderboard ------------------------------------------------------------------------------

#: The leaderboard's colours: entrants apart from the classic models, the reference rows grey.
ROLE_COLOURS = {"entrant": "#d62728", "classic": "#1f77b4", "reference": "#7f7f7f"}
#: How each floor's line is drawn.
FLOOR_LINES = {"all-sarcastic": ("#2ca02c", "--"), "majority": ("#9467bd", ":"), "tfidf-lr": ("#8c564b", "-.")}


def board_cell_figure(cell: dict, path: Path) -> Path:
    """One leaderboard cell: per ranked row (best on top) its seeds' values as dots and its mean ± std over
    seeds, entrants coloured apart from the classic models and reference rows; the floors as vertical lines."""
    plt = _pyplot()
    rows = [row for row in cell["rows"] if row["role"] != "floor"][::-1]
    figure, axis = plt.subplots(figsize=(6.4, 0.24 * len(rows) + 1.3))
    for y, row in enumerate(rows):
        colour = ROLE_COLOURS[row["role"]]
        axis.plot(row["values"], [y] * len(row["values"]), "o", color=colour, alpha=0.45, ms=3.5, mec="none")
        axis.errorbar(row["mean"], y, xerr=row["std"], fmt="D", color=colour, ms=4.5, capsize=2.5, lw=1)
    for name, value in cell["floors"].items():
        colour, style = FLOOR_LINES[name]
        axis.axvline(value, color=colour, ls=style, lw=1.2, label=f"{name} {value:.3f}")
    labels = [("★ " if row["role"] == "entrant" else "") + row["model"] for row in rows]
    axis.set_yticks(range(len(rows)), labels, fontsize=8)
    for tick, row in zip(axis.get_yticklabels(), rows):
        tick.set_color(ROLE_COLOURS[row["role"]])
    axis.set_ylim(-0.7, len(rows) - 0.3)
    axis.set_xlabel(f"{METRIC_LABELS.get(cell['metric'], cell['metric'])}: seeds (dots), mean ± std (diamond)",
                    fontsize=8)
    axis.tick_params(axis="x", labelsize=8)
    axis.grid(axis="x", alpha=0.3)
    axis.set_title(f"{cell['experiment']} {cell['cell']}", fontsize=9)
    if cell["floors"]:
        axis.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, title="floors",
                    title_fontsize=7)
    return _save(figure, path)


def leaderboard_figures(result: Result, folder: Path) -> list[Path]:
    """A figure per cell of a leaderboard (:func:`board_cell_figure`), in the order of its cells."""
    paths = []
    for cell in result.cells:
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"group-{cell['group'] + 1}-{cell['experiment']}-{cell['cell']}")
        paths.append(board_cell_figure(cell, folder / f"{stem}.png"))
    return paths

"""The cross-dataset matrix as a report: markdown, csv, and each model's heatmap.

For each model a matrix, rows = training corpus, columns = test corpus (a test-only corpus, such as
a researcher's own file, is a column without a row), of
sarcastic-class F1 and macro-F1 (mean ± std over seeds), each column with the
scores of labelling every text sarcastic and of labelling every text with its majority class
beside it; a summary of in-domain against out-of-domain first, which compares each cell's gain over
its column's floor (the columns' floors differ, so their raw scores do not compare).  Corpora are named by labels
unique within the matrix (a file by its stem, or by the end of its path where two files share
a stem or a file's stem is a corpus' name; ``files`` maps those to the files).
"""
from __future__ import annotations

import csv
import io

import numpy as np

from experiments.reports.format import duration, failed_section, markdown_table
from experiments.results.schema import Result

#: The metrics of the matrix and their names in the report.
MATRIX_METRICS = {"f1_sarcastic": "sarcastic-class F1", "f1_macro": "macro-F1"}


def matrix(result: Result, model: str, metric: str) -> dict[tuple[str, str], dict]:
    """(train corpus, test corpus) -> the metric's statistics, for one model."""
    return {(c["train_corpus"], c["test_corpus"]): c["metrics"][metric] for c in result.cells
            if c["model"] == model}


def rows(result: Result) -> list[str]:
    """The training corpora: the matrix's rows (results written before test-only columns: every corpus)."""
    return result.train_corpora or result.corpora


def _compute(result: Result) -> str:
    """The training behind the matrix: an invocation that reuses finished runs takes seconds of wall time."""
    if result.compute_seconds is None:
        return ""
    return (f" for this invocation; the {result.training_runs} training runs took "
            f"{duration(result.compute_seconds)} of training compute (finished runs are reused, from earlier "
            "invocations too)")


def cross_markdown(result: Result) -> str:
    seeds = result.seeds
    lines = [
        f"# {result.title}",
        "",
        (f"Seeds {', '.join(map(str, seeds))} ({len(seeds)} per cell), mean ± std over seeds. Commit "
         f"`{result.git_commit}`. Wall time {duration(result.wall_seconds)}{_compute(result)}. Every model "
         "is tested with the vocabulary and preprocessing of its training run (words unseen in training become "
         "`<unk>`). Bold: in-domain (the training corpus' own test split)."),
    ]
    corpora, floors = result.corpora, floor_rows(result)
    if floors:
        shares = next(iter(floors.values()))
        lines += ["", f"Each matrix ends with the rows {' and '.join(f'*{name}*' for name in floors)}: the scores of "
                  "labelling every test text sarcastic (which rise with the column's sarcastic share: " +
                  ", ".join(f"{c} {shares[c]['sarcastic_share']:.0%}" for c in corpora if c in shares) + ")"
                  + (", and of labelling every text with the test split's majority class" if len(floors) > 1 else "")
                  + "."]
    if result.files:
        lines += ["", "Files: " + ", ".join(f"{label} = `{path}`" for label, path in result.files.items()) + "."]
    lines += _summary(result)
    if any("undefined" in stats for cell in result.cells for stats in cell["metrics"].values()):
        lines += ["", "*undefined*: the column's test split has no text of one class (no sarcastic text, say), so "
                  "that score has no value; it is averaged nowhere (scikit-learn would print 0)."]
    lines += failed_section([{**f, "cell": f"trained on {f['train_corpus']}"} for f in result.failed_runs])
    for model in result.models:
        for metric, label in MATRIX_METRICS.items():
            values = matrix(result, model, metric)
            lines += ["", f"## {model}: {label}", ""] + _matrix_table(rows(result), corpora, values, floors, metric)
    lines += ["", f"Every seed's value and run directory: `{result.experiment}.json`, in the results directory."]
    return "\n".join(lines) + "\n"


def _floors(result: Result) -> dict[str, dict]:
    """Each floor row's name in the reports -> (corpus -> the scores of that labelling); {} where not recorded."""
    return {"all sarcastic": result.all_sarcastic or {}, "majority": result.majority or {}}


def floor_rows(result: Result) -> dict[str, dict]:
    """The floor rows of the matrices: row name -> (corpus -> scores); results saved before the majority
    floor was recorded have all-sarcastic alone, older ones none."""
    return {row: scores for row, scores in _floors(result).items() if scores}


def column_floor(floors: dict[str, dict], test: str, metric: str) -> float | None:
    """The floor a cell of column ``test`` is read against: the best score of a constant labelling (the
    higher of the column's floor rows for ``metric``); None where the column has none (a column with
    texts of one class, or results saved before the floors were recorded)."""
    scores = [floor[test][metric] for floor in floors.values() if test in floor]
    return max(scores) if scores else None


def _matrix_table(trained: list[str], corpora: list[str], values: dict, floors: dict, metric: str) -> list[str]:
    """Rows = training corpus, columns = test corpus; the in-domain diagonal in bold; then each floor row."""
    rows = []
    for train in trained:
        row = [train]
        for test in corpora:
            stats = values.get((train, test))
            text = "—" if stats is None else "undefined" if stats["mean"] is None else \
                f"{stats['mean']:.3f}" + (f" ± {stats['std']:.3f}" if "std" in stats else "")
            row.append(f"**{text}**" if train == test and stats else text)
        rows.append(row)
    for name, floor in floors.items():
        rows.append([f"*{name}*", *(f"*{floor[c][metric]:.3f}*" if c in floor else "—" for c in corpora)])
    return markdown_table(rows, ["train \\ test", *corpora])


def _summary(result: Result) -> list[str]:
    """What a reader looks for first: each model's in-domain and out-of-domain means, with the means of
    each cell's gain over its column's floor (:func:`column_floor`): a column with more sarcastic text
    has higher floors, so raw means over different columns do not compare; and the matrix averaged
    over the models (which corpora transfer to which)."""
    corpora, floors = result.corpora, floor_rows(result)
    wheres = ("in-domain", "out-of-domain")
    header = ["model"]
    for label in MATRIX_METRICS.values():
        header += [f"{label}, {where}" for where in wheres]
        header += [f"{label} − floor, {where}" for where in wheres] if floors else []
    table = []
    for model in result.models:
        parts = [model]
        for metric in MATRIX_METRICS:
            values = matrix(result, model, metric)
            cells = {same: [(test, v["mean"]) for (train, test), v in values.items()
                            if (train == test) == same and v["mean"] is not None] for same in (True, False)}
            parts += [_mean([mean for _, mean in cells[same]], "{:.3f}") for same in (True, False)]
            if floors:
                parts += [_mean(_gains(cells[same], floors, metric), "{:+.3f}") for same in (True, False)]
        table.append(parts)
    lines = ["", "## Summary: in-domain against out-of-domain (mean over cells of the seeds' means)", ""]
    if floors:
        named = " and ".join(f"*{name}*" for name in floors)
        which = f"the higher of the column's {named} scores" if len(floors) > 1 else f"the column's {named} score"
        lines += [f"*− floor*: each cell's gain over its column's floor ({which} for that metric), averaged like the "
                  "cells. The floors differ from column to column with the column's sarcastic share, so compare "
                  "in-domain with out-of-domain by the gains, not by the raw means.", ""]
    lines += markdown_table(table, header)
    for metric, label in MATRIX_METRICS.items():
        per_model = [matrix(result, model, metric) for model in result.models]
        averaged = {}
        for train in rows(result):
            for test in corpora:
                means = [values[train, test]["mean"] for values in per_model if (train, test) in values]
                if means:
                    averaged[train, test] = {"mean": None if None in means else float(np.mean(means))}
        lines += ["", f"## Mean over the {len(result.models)} models: {label}", ""]
        lines += _matrix_table(rows(result), corpora, averaged, floors, metric)
    return lines


def _gains(cells: list[tuple[str, float]], floors: dict[str, dict], metric: str) -> list[float]:
    """Each (test column, score) as its gain over the column's floor, where the column has one."""
    against = [(score, column_floor(floors, test, metric)) for test, score in cells]
    return [score - floor for score, floor in against if floor is not None]


def _mean(values: list[float], form: str) -> str:
    """The mean of ``values`` as ``form`` writes it; a dash where there is none."""
    return form.format(np.mean(values)) if values else "—"


def cross_csv(result: Result) -> str:
    """One row per cell and metric, with its test column's floors for that metric (empty where unknown)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    floors = _floors(result)
    writer.writerow(["model", "train_corpus", "test_corpus", "metric", "mean", "std", "n_seeds",
                     *(f"floor_{name.replace(' ', '_')}" for name in floors)])
    for cell in result.cells:
        for metric, stats in cell["metrics"].items():
            shown = ("", "") if stats["mean"] is None else (f"{stats['mean']:.4f}", f"{stats['std']:.4f}")
            column = [f"{floor[cell['test_corpus']][metric]:.4f}" if cell["test_corpus"] in floor else ""
                      for floor in floors.values()]
            writer.writerow([cell["model"], cell["train_corpus"], cell["test_corpus"], metric, *shown,
                             len(stats["values"]), *column])
    return buffer.getvalue()

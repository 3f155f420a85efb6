"""The report of a benchmark (``isarcasm benchmark MODEL``): the candidate's rank in every cell
and its paired tests against each classic model and reference row, with Holm-corrected p-values."""
from __future__ import annotations

import numpy as np

from experiments.reports.format import failed_section, markdown_table
from experiments.results.schema import Result


def p_text(value: float | None) -> str:
    """A p-value as the reports show it: four decimals, or two significant digits under 0.0001."""
    if value is None:
        return "—"
    return f"{value:.4f}" if value >= 0.0001 else f"{value:.1e}"


def competition_ranks(means: dict[str, float]) -> dict[str, dict]:
    """Standard competition ranking ("1224") of ``means`` (name -> score, higher is better): names with
    equal scores share a rank, marked ``shared``, and the next name gets the rank after the tied group.

    A model is never ranked above one it ties with: a model at F1 0.000 tied with six others is
    "2=" of 8, not 2."""
    ranks = {}
    for name, mean in means.items():
        equal = sum(_same(other, mean) for other in means.values())
        ranks[name] = {"rank": 1 + sum(other > mean and not _same(other, mean) for other in means.values()),
                       "shared": equal > 1}
    return ranks


def _same(a: float, b: float) -> bool:
    """Equal scores up to floating-point noise (means over the same seeds summed in another order)."""
    return abs(a - b) <= 1e-12


#: How a rank line names a reference row the candidate scores below.
_YARDSTICKS = {"tfidf-lr": "TF-IDF + LR", "all-sarcastic": "the all-sarcastic floor", "majority": "the majority floor"}


def compared_rows(cell: dict) -> list[dict]:
    """Every model the candidate is compared with in a cell: the classic models, then the reference rows
    (files written before the reference rows were compared have none)."""
    return [*cell["classics"], *cell.get("references", [])]


def rank_line(cell: dict) -> str:
    """The candidate's rank, ``3 of 7``, then its rank among the classic models where reference rows are
    ranked too, then every reference it scores below (the all-sarcastic floor from the gold labels where
    its row was not compared): a model is never "rank 1" without saying that a floor or TF-IDF + LR
    scores above it."""
    text = f"{rank_text(cell)} of {cell['of']}"
    classic = cell.get("classic_rank")
    if classic and cell["classics"] and cell.get("references"):
        text += f" ({rank_text(classic)} of {classic['of']} among the classic models)"
    below = [f"below {_YARDSTICKS.get(name, name)} ({mean:.3f})" for name, mean in _above(cell)]
    return text + (f"; {' and '.join(below)}" if below else "")


def _above(cell: dict) -> list[tuple[str, float]]:
    """The reference rows (and the all-sarcastic floor) whose mean is above the candidate's, highest first."""
    return floors_above(cell["candidate"]["mean"], floor_means(cell))


def floor_means(cell: dict) -> dict[str, float]:
    """A benchmark cell's yardsticks: the means of its reference rows, and the all-sarcastic floor from the
    gold labels where its row was not compared (binary cells)."""
    means = {row["model"]: row["mean"] for row in cell.get("references", [])}
    floor = cell.get("all_sarcastic")
    if floor and "all-sarcastic" not in means:
        means["all-sarcastic"] = floor[cell["metric"]]
    return means


def floors_above(mean: float, floors: dict[str, float]) -> list[tuple[str, float]]:
    """The yardsticks of ``floors`` (name -> mean) scoring above ``mean``, highest first."""
    return sorted(((name, value) for name, value in floors.items() if value - mean > 1e-12), key=lambda pair: -pair[1])


def rank_text(row: dict) -> str:
    """A rank as shown: ``2``, or ``2=`` when shared with a model of the same score (files written
    before ranks were shared have no ``shared``)."""
    return f"{row['rank']}{'=' if row.get('shared') else ''}"


def _stat(stats: dict | None, percent: bool = False) -> str:
    """mean ± std of a statistic, or — where the cell has none (multi-class cells, older files)."""
    if not stats:
        return "—"
    return (f"{stats['mean']:.1%} ± {stats['std']:.1%}" if percent else f"{stats['mean']:.3f} ± {stats['std']:.3f}")


def _floor(cell: dict) -> str:
    floor = cell.get("all_sarcastic")
    return "—" if not floor else f"{floor[cell['metric']]:.3f} ({floor['sarcastic_share']:.0%} sarcastic)"


def _significance(result: Result) -> list[str]:
    """How many comparisons look significant before and after correcting for their number."""
    rows = [row for cell in result.cells for row in compared_rows(cell) if row.get("p_holm") is not None]
    if not rows:
        return []
    raw = [row for row in rows if row["p_value"] < 0.05]
    kept = [row for row in rows if row["p_holm"] < 0.05]
    higher = sum(row["delta"] > 0 for row in kept)
    return ["", f"Of {len(rows)} paired comparisons, {len(raw)} have p < 0.05 (about {0.05 * len(rows):.0f} would "
            f"if no pair differed); {len(kept)} keep p < 0.05 after Holm's correction for {len(rows)} tests: "
            f"{result.model} higher in {higher}, lower in {len(kept) - higher}."]


def benchmark_summary(result: Result) -> list[str]:
    """The overview table (one row per cell) and the missing runs: what the command prints."""
    model = result.model
    test = (f"paired bootstrap over the test examples ({result.resamples:,} resamples), seed n against seed n; "
            "the combined p tests the difference of the seed averages"
            if result.method == "bootstrap" else
            "McNemar's exact test, seed n against seed n; the combined p is the median over seeds (a summary, "
            "not a test)")
    lines = [
        f"# Benchmark: {model} against the classic models and the reference rows",
        "",
        (f"Same cells, protocol and seeds ({', '.join(map(str, result.seeds))}) as the reproductions. Rank: by "
         "the mean over seeds of the cell's main metric (sarcastic-class F1; macro-F1 for multi-class corpora) among "
         "the classic models whose runs exist and, in the table experiments' cells, the reference rows (all-sarcastic, "
         "majority, TF-IDF + LR; scored where missing, as `reproduce --references` does), in brackets the rank among "
         "the classic models alone; models with equal means share a rank (2=), the next one gets the "
         "rank after them; the rank names every reference row (and the all-sarcastic floor) above the model. "
         "Predicted sarcastic: the share of test texts a model labels sarcastic; all-sarcastic "
         "floor: the cell's metric when every text is labelled sarcastic (the share of sarcastic texts beside it). "
         "Cost, in each cell's table: parameters, the weights of a run's saved model (— where a run keeps none); "
         "training per run, the mean seconds its runs recorded on the machine that trained them, one-time work "
         "apart in brackets (reading the word vectors, building their cache the first time, tokenising); predicting, "
         "the test texts per second as the run scored its test split once (a Keras model's tracing for "
         "those shapes included; from token ids for the classic models, whose spaCy preprocessing is shared "
         "and not counted; from raw text, tokenizer included, for a Keras or scikit-learn entrant); "
         "peak memory, the peak resident memory of the process that ran a run, from the "
         "run's start (it includes the Keras runtime and the data that process held; "
         "experiments/runs/one/footprint.py). Predicting and peak memory are medians over a model's runs, "
         "comparable only between runs of one sweep on one machine; — where a run did not record one, and for "
         "predictions made outside the suite, whose training and memory it did not measure. "
         f"p: {test}. Two-sided; p (Holm) is adjusted for all the comparisons "
         "of this benchmark. "
         f"Commit `{result.git_commit}`."),
        "",
        *markdown_table([_summary_row(cell) for cell in result.cells],
                        ["experiment", "cell", "metric", f"{model} (mean ± std)", "macro-F1", "predicted sarcastic",
                         "all-sarcastic floor", "rank", "best other model", "p vs best", "p (Holm)"]),
    ]
    lines += _significance(result)
    lines += failed_section(result.failed_runs)
    if result.missing:
        lines += ["", "## Classic runs not found (not ranked where absent)", ""]
        for entry in result.missing:
            lines.append(f"- {entry['experiment']}, {entry['cell']}: {entry['model']} seed(s) "
                         f"{', '.join(map(str, entry['seeds']))}")
        lines += ["", "Make them with (finished runs are reused):", ""]
        lines += [f"    {command}" for command in dict.fromkeys(e["command"] for e in result.missing)]
    return lines


def _summary_row(cell: dict) -> list[str]:
    """A cell's row in the overview: the candidate's statistics, rank, and the best model compared with it."""
    best = max(compared_rows(cell), key=lambda r: r["mean"], default=None)
    candidate = cell["candidate"]
    return [cell["experiment"], cell["cell"], cell["metric"], _stat(candidate), _stat(candidate.get("f1_macro")),
            _stat(candidate.get("predicted_sarcastic"), True), _floor(cell), rank_line(cell),
            f"{best['model']} {best['mean']:.3f}" if best else "—",
            p_text(best["p_value"]) if best else "—", p_text(best.get("p_holm")) if best else "—"]


def model_columns(name: str, ranked: dict, stats: dict) -> list[str]:
    """A model's first columns in a cell's table: rank, name, main metric, macro-F1, predicted share, its
    cost (weights of the saved model, training time per run) and seeds (``ranked`` has the rank; a
    classic's row is both). Results saved before the cost was recorded show "—" there."""
    rank = rank_text(ranked) if "rank" in ranked else "—"
    parameters = f"{stats['parameters']:,}" if stats.get("parameters") is not None else "—"
    seconds = f"{stats['train_seconds']['mean']:.0f} s" if stats.get("train_seconds") else "—"
    if stats.get("train_seconds") and stats.get("setup_seconds"):
        seconds += f" (+{stats['setup_seconds']['mean']:.0f} s one-time)"
    speed = f"{_median(stats, 'predict_texts_per_second'):,.0f}/s" if stats.get("predict_texts_per_second") else "—"
    memory = f"{_median(stats, 'peak_memory_mb'):,.0f} MiB" if stats.get("peak_memory_mb") else "—"
    return [rank, name, _stat(stats), _stat(stats.get("f1_macro")), _stat(stats.get("predicted_sarcastic"), True),
            parameters, seconds, speed, memory, str(len(stats["seeds"]))]


def _median(stats: dict, cost: str) -> float:
    """The median over a model's runs of a recorded cost: a worker's first run, which also loads the
    runtime, does not move it."""
    return float(np.median(stats[cost]["values"]))


def _cell_rows(cell: dict, model: str) -> list[list[str]]:
    """A cell's table: the candidate, every model compared with it (best first) with the paired tests, and
    the all-sarcastic floor where it was not compared."""
    rows = [[*model_columns(f"**{model}**", cell, cell["candidate"]), "", "", "", ""]]
    references = {row["model"] for row in cell.get("references", [])}
    for row in sorted(compared_rows(cell), key=lambda r: -r["mean"]):
        delta = "—" if row["delta"] is None else f"{row['delta']:+.3f}"
        per_seed = ", ".join(p_text(p) for p in row["p_per_seed"].values()) or "—"
        name = f"*{row['model']}* (reference)" if row["model"] in references else row["model"]
        rows.append([*model_columns(name, row, row), delta, p_text(row["p_value"]), p_text(row.get("p_holm")),
                     per_seed])
    floor = cell.get("all_sarcastic")
    if floor and "all-sarcastic" not in references:
        rows.append(["", "*all sarcastic*", f"*{floor[cell['metric']]:.3f}*", f"*{floor['f1_macro']:.3f}*", "*100%*",
                     *[""] * 9])
    return rows


def benchmark_markdown(result: Result) -> str:
    """The summary, then one table per cell with every model, its seeds and the p-value against it."""
    model = result.model
    lines = benchmark_summary(result)
    for cell in result.cells:
        lines += ["", f"## {cell['experiment']}: {cell['cell']} ({cell['metric']})", "",
                  f"{model} ranks {rank_line(cell)}.", "", *markdown_table(_cell_rows(cell, model), [
                      "rank", "model", "mean ± std", "macro-F1", "predicted sarcastic", "parameters",
                      "training per run", "predicting", "peak memory", "seeds", f"Δ {model} − model (paired seeds)",
                      "p", "p (Holm)", "p per seed"])]
        if cell["not_found"]:
            lines.append(f"\nNo runs found for: {', '.join(cell['not_found'])}.")
        if len(cell.get("cost_sweeps", [])) > 1:
            lines.append(f"\nThe costs of this table come from {len(cell['cost_sweeps'])} sweeps "
                         f"({'; '.join(cell['cost_sweeps'])}): times and memory compare only within one.")
    return "\n".join(lines) + "\n"

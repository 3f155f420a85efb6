"""The report of a table reproduction (``reproduce``): markdown and csv, the reference numbers beside ours.

One row per (cell, metric): a reference number is only ever compared with our number in the same metric.  Two
references, each a column: "paper", the number of the paper the experiment reproduces (the iSarcasm authors'
re-implementation, its references labelled "iSarcasm impl."), and "first published", the number first published
for the model on that corpus.  Rows more than ``FLAG`` away from the paper are marked and listed with the cell's
data note.
"""
from __future__ import annotations

import csv
import io

from experiments.reports.format import duration, markdown_table
from experiments.reports.merge import made_by
from experiments.reports.references import reference_section
from experiments.results.files import require_kind
from experiments.results.schema import Result
from experiments.runs.one.protocol import QUICK
from experiments.runs.one.reference import shipped_count
from preprocessing.errors import IsarcasmError

FLAG = 0.03
_SHOWN_ALWAYS = ("f1_sarcastic", "f1_macro")


def _fmt(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def shown_metrics(cell: dict, extra: list[str] = ()) -> list[str]:
    """Reference metrics first, then sarcastic-class and macro F1, then the experiment's own ``extra``
    (each when the runs have it)."""
    wanted = [r["metric"] for r in cell["references"]] + list(_SHOWN_ALWAYS) + list(extra)
    return [m for m in dict.fromkeys(wanted) if m in cell["metrics"]]


def failure_note(cell: dict) -> str:
    """"2 of 5 seeds failed: <why>" for a cell with failed runs (training diverged), else ""; its
    numbers are the means over the finished runs only."""
    failed = cell.get("failed_runs", [])
    if not failed:
        return ""
    done = len(next(iter(cell["metrics"].values()), {}).get("values", []))
    reasons = list(dict.fromkeys(f["reason"] for f in failed))
    what = "runs" if cell.get("folds") else "seeds"
    return (f"{len(failed)} of {len(failed) + done} {what} failed: {'; '.join(reasons[:2])}"
            + (f"; and {len(reasons) - 2} other reason(s)" if len(reasons) > 2 else ""))


def is_smoke(result: Result) -> bool:
    """Whether the result is a smoke run's (``--quick``: :data:`QUICK`'s few epochs on a capped training
    split, as the variant's name says): it shows the pipeline works end to end, and its numbers compare
    with nothing."""
    train = result.train or {}
    return all(train.get(name) == value for name, value in QUICK.items())


def _smoke_note(result: Result) -> list[str]:
    train = result.train
    return [f"**Smoke run** (`--quick`: {train['epochs']} epoch(s) on at most {train['max_train']:,} training "
            "texts). It checks that every step runs end to end; its numbers are not comparable with the published "
            "ones or with any full run (a model this briefly trained often labels nothing sarcastic: F1 0.000), "
            "so no cell is flagged. Drop `--quick` for the numbers to compare.", ""]


def markdown_report(result: Result) -> str:
    seeds = result.seeds
    smoke = is_smoke(result)
    lines = [
        f"# {result.title}",
        "",
        *(_smoke_note(result) if smoke else []),
        f"Source of reference numbers: {result.source}. Seeds: {', '.join(map(str, seeds))} "
        f"({len(seeds)} per cell). Commit `{result.git_commit}`. Wall time {duration(result.wall_seconds)}"
        f" (training compute {duration(result.compute_seconds)}){_reuse(result)}.{_rescored(result)}",
        "",
        *_parts(result),
    ]
    rows, flagged = [], []
    for cell in result.cells:
        failed = failure_note(cell)
        if failed and not cell["metrics"]:
            rows.append([cell["corpus"], cell["model"], "—", "", "", f"{failed}; no mean", "", ""])
        for metric in shown_metrics(cell, result.shown_metrics):
            stats = cell["metrics"][metric]
            refs = {r["label"]: r["value"] for r in cell["references"] if r["metric"] == metric}
            published, impl = refs.get("published"), refs.get("iSarcasm impl.")
            ours = stats["mean"]
            delta_impl = None if impl is None else ours - impl
            mark = " ⚑" if delta_impl is not None and abs(delta_impl) > FLAG and not smoke else ""
            if mark:
                flagged.append((cell, metric, delta_impl))
            spread = f" ± {stats['std']:.3f}" if len(stats["values"]) > 1 else ""
            corpus = cell["corpus"] + (f" ({cell['folds']} folds)" if cell.get("folds") else "")
            rows.append([corpus, cell["model"], metric, _fmt(published), _fmt(impl),
                         f"{ours:.3f}{spread}{f' ({failed}; mean of the others)' if failed else ''}",
                         _fmt(None if published is None else ours - published, True), _fmt(delta_impl, True) + mark])
    header = ["corpus", "model", "metric", "first published", "paper", "ours (mean ± std)", "Δ first published",
              "Δ paper"]
    rows, header = _without_empty_references(rows, header)
    lines += markdown_table(rows, header)
    lines += reference_section(result)
    tuned = [c for c in result.cells if "tuned_threshold_variant" in c]
    if tuned:
        rows = []
        for cell in tuned:
            variant = cell["tuned_threshold_variant"]
            f1 = variant["metrics"]["f1_sarcastic"]
            thresholds = ", ".join(f"{t:.2f}" for t in variant["thresholds"])
            rows.append([cell["corpus"], cell["model"], thresholds, f"{f1['mean']:.3f} ± {f1['std']:.3f}"])
        lines += ["", "## Variant: threshold tuned on validation (not comparable with the faithful rows)", "",
                  *markdown_table(rows, ["corpus", "model", "thresholds", "F1 sarcastic (mean ± std)"])]
    lines += selection_section(result) + operating_point_section(result.cells) + per_class_section(result.cells)
    if flagged:
        lines += ["", f"## Cells more than {FLAG} from the paper (⚑)", ""]
        for cell, metric, delta in flagged:
            lines.append(f"- {cell['corpus']}/{cell['model']} {metric}: {delta:+.3f}. {cell['note']}")
    notes = dict.fromkeys(f"{c['corpus']}: {c['note']}" for c in result.cells if c["note"])
    if notes:
        lines += ["", "## Data notes", ""] + [f"- {n}" for n in notes]
    lines += ["", f"Metrics are scikit-learn's; see `{result.experiment}.json` (in the results directory, beside "
              f"this report) for every seed's value and the run directories (config, predictions, history, model)."]
    return "\n".join(lines) + "\n"


#: The reference columns of :func:`markdown_report`'s table, each with its Δ column: a pair is left out where no
#: row has that reference (Table 7 has no first-published number).
_REFERENCE_COLUMNS = (("first published", "Δ first published"), ("paper", "Δ paper"))


def _without_empty_references(rows: list[list[str]], header: list[str]) -> tuple[list[list[str]], list[str]]:
    """``rows`` and ``header`` without each reference column, and its Δ, that is empty ("—" or blank) in every row."""
    empty = {column for pair in _REFERENCE_COLUMNS if pair[0] in header
             and all(row[header.index(pair[0])] in ("—", "") for row in rows) for column in pair}
    kept = [i for i, name in enumerate(header) if name not in empty]
    return [[row[i] for i in kept] for row in rows], [header[i] for i in kept]


def comparison_markdown(base: Result, other: Result) -> str:
    """``other`` (say, a variant such as ``multilingual-context-all``) beside ``base``, cell by cell:
    each metric's mean ± std in both, the difference of the means, and in how many paired runs (same
    seed and fold, hence the same test texts) the variant scored higher: the spread over seeds and
    folds is often as large as Δ, and the pairing shows whether Δ is consistent.  Only the cells
    (corpus, model) that both have are compared; the seeds of each side are named so unequal ones are seen."""
    for result in (base, other):
        require_kind(result, "table", "--against")
    theirs = {(c["corpus"], c["model"]): c for c in other.cells}
    shared = [(c, theirs[c["corpus"], c["model"]]) for c in base.cells if (c["corpus"], c["model"]) in theirs]
    if not shared:
        raise IsarcasmError(f"'{other.experiment}' and '{base.experiment}' have no (corpus, model) cell in common")
    a, b = base.experiment, other.experiment
    lines = [f"# {b} against {a}", "",
             f"Seeds: {a} {_seed_list(base)}; {b} {_seed_list(other)}. "
             f"Δ is the difference of the means; Δ paired, the mean difference over the paired runs (same seed and "
             f"fold); higher in: the paired runs in which {b} scored higher.", ""]
    rows = []
    for mine, their in shared:
        if not (mine["metrics"] and their["metrics"]):  # a side whose every run failed: said, not left out
            rows.append([mine["corpus"], mine["model"], "—", _failed_or_none(mine), _failed_or_none(their), "", "",
                         ""])
        for metric in shown_metrics(mine, base.shown_metrics):
            if metric in their["metrics"]:
                x, y = mine["metrics"][metric], their["metrics"][metric]
                rows.append([mine["corpus"], mine["model"], metric, f"{x['mean']:.3f} ± {x['std']:.3f}",
                             f"{y['mean']:.3f} ± {y['std']:.3f}", f"{y['mean'] - x['mean']:+.3f}",
                             *_paired(mine, their, metric)])
    lines += markdown_table(rows, ["corpus", "model", "metric", a, b, "Δ", "Δ paired", "higher in"])
    lines += pooled_section(shared, base.shown_metrics, a, b)
    return "\n".join(lines) + "\n"


def pooled_section(shared: list[tuple[dict, dict]], extra: list[str], base: str, other: str) -> list[str]:
    """Whether a variant moves the cells together, seed by seed: per seed, the mean paired difference over every
    compared cell (and fold), then the mean of those over the seeds that every cell pairs, with a sign-flip test
    over the seeds (:func:`~experiments.reports.significance.sign_flip_test`).  The seed is the unit because a
    seed's runs share nothing with another seed's, while a cell's runs share its test set; nothing when fewer
    than two seeds pair."""
    from experiments.reports.significance import sign_flip_test  # scipy: loaded only for a comparison

    metrics = [m for m in dict.fromkeys(m for mine, _ in shared for m in shown_metrics(mine, extra))
               if all(m in mine["metrics"] and m in their["metrics"] for mine, their in shared)]
    rows = []
    for metric in metrics:
        per_seed = _per_seed_differences(shared, metric)
        if len(per_seed) < 2:
            continue
        values = list(per_seed.values())
        rows.append([metric, str(len(values)), f"{sum(values) / len(values):+.3f}",
                     f"{sum(v > 0 for v in values)}/{len(values)}", f"{sign_flip_test(values):.3g}"])
    if not rows:
        return []
    return ["", f"Pooled over the {len(shared)} cell(s) compared: per seed, the mean paired difference ({other} minus "
            f"{base}) over the cells and folds; Δ pooled, its mean over the seeds every cell pairs; seeds higher, "
            "how many of those means are above zero; p, a two-sided sign-flip test over the seeds (with n seeds no p "
            "is below 2/2ⁿ).", "", *markdown_table(rows, ["metric", "seeds", "Δ pooled", "seeds higher", "p"])]


def _per_seed_differences(shared: list[tuple[dict, dict]], metric: str) -> dict[int, float]:
    """seed -> the mean of ``their - mine`` over every cell's runs of that seed (each fold once), for the seeds
    that pair in every cell."""
    per_cell = [_paired_differences(mine, their, metric) for mine, their in shared]
    by_seed: dict[int, list[float]] = {}
    for differences in per_cell:
        for (seed, _), difference in differences.items():
            by_seed.setdefault(seed, []).append(difference)
    seeds = set.intersection(*({seed for seed, _ in differences} for differences in per_cell))
    return {seed: sum(by_seed[seed]) / len(by_seed[seed]) for seed in sorted(seeds)}


def _failed_or_none(cell: dict) -> str:
    """A side of a comparison row that has nothing to compare with: its failure note (every run
    failed), or how many runs it has."""
    if not cell["metrics"]:
        return f"{failure_note(cell) or 'no run'}; no mean"
    return f"{len(next(iter(cell['metrics'].values()))['values'])} run(s), nothing to compare with"


def run_ids(cell: dict) -> list[tuple[int, int | None]]:
    """(seed, fold) of each of the cell's runs, in the order of its ``runs`` and metric values: its ``run_ids``;
    a cell without them (a cross file's) holds one run of each of its seeds, or is refused in one line, since its
    runs cannot be told apart.  Nothing is read out of a run folder's name."""
    if "run_ids" in cell:
        return [(run["seed"], run.get("fold")) for run in cell["run_ids"]]
    if len(cell.get("runs", [])) != len(cell["seeds"]):
        where = "/".join(str(cell[key]) for key in ("corpus", "train_corpus", "test_corpus", "model") if key in cell)
        raise IsarcasmError(f"{where}: {len(cell.get('runs', []))} runs for {len(cell['seeds'])} seeds and no run_ids "
                            "saying which is which, so they cannot be paired by seed; run the command that made the "
                            "results again")
    return [(seed, None) for seed in cell["seeds"]]


def _paired(mine: dict, their: dict, metric: str) -> list[str]:
    """Of the n runs both cells have for the same seed and fold: the mean of ``their`` minus ``mine`` (the Δ of
    the same runs, which the difference of the means is not when the seeds differ) and 'k/n', the k where
    ``their`` scored higher; '—' for both when no run pairs."""
    differences = list(_paired_differences(mine, their, metric).values())
    if not differences:
        return ["—", "—"]
    delta = sum(differences) / len(differences)
    return [f"{delta:+.3f}", f"{sum(d > 0 for d in differences)}/{len(differences)}"]


def _paired_differences(mine: dict, their: dict, metric: str) -> dict[tuple[int, int | None], float]:
    """(seed, fold) -> ``their`` minus ``mine`` in ``metric``, for the runs both cells have (a run is told apart
    by its seed and fold; none pairs when a cell's runs cannot be told apart)."""
    def by_run(cell):
        ids, values = run_ids(cell), cell["metrics"][metric].get("values", [])
        return dict(zip(ids, values)) if len(ids) == len(values) else {}

    ours, theirs = by_run(mine), by_run(their)
    return {key: theirs[key] - ours[key] for key in ours if key[0] is not None and key in theirs}


def _seed_list(result: Result) -> str:
    return ", ".join(map(str, result.seeds))


def selection_section(result: Result) -> list[str]:
    """Which epoch and threshold each run's rule chose (on validation data), when a rule other than the
    paper's chose them (see experiments/runs/one/trajectory.py)."""
    rule = result.selection_rule
    cells = [c for c in result.cells if c.get("thresholds")]
    if rule == "best" or not cells:
        return []
    rows = [[cell["corpus"], cell["model"], ", ".join(map(str, cell["selected_epochs"])),
             ", ".join(f"{t:.2f}" for t in cell["thresholds"])] for cell in cells]
    return ["", f"## Selection rule '{rule}' (chosen on validation data, per run)", "",
            *markdown_table(rows, ["corpus", "model", "epochs", "thresholds"])]


def operating_point_section(cells: list[dict]) -> list[str]:
    """The operating-point table (see :mod:`experiments.runs.one.operating_point`) of the cells that have one."""
    rows = [c for c in cells if c.get("operating_point")]
    if not rows:
        return []
    lines = ["", "## Operating point and ranking (test split)", "",
             "Sarcastic share: of the test texts. Predicted sarcastic: share the model labels sarcastic at the "
             "decision threshold. AP: average precision of P(sarcastic), which no threshold changes (chance = the "
             "sarcastic share). All-sarcastic F1: the sarcastic-class F1 of labelling every text sarcastic.", ""]
    table = []
    for cell in rows:
        point = cell["operating_point"]
        rate, ap = point["predicted_positive_rate"], point["average_precision"]
        table.append([cell["corpus"], cell["model"], f"{point['positive_share']:.3f}",
                      f"{rate['mean']:.3f} ± {rate['std']:.3f}", f"{ap['mean']:.3f} ± {ap['std']:.3f}",
                      f"{point['all_sarcastic_f1']:.3f}"])
    return lines + markdown_table(table, ["corpus", "model", "sarcastic share", "predicted sarcastic (mean ± std)",
                                          "AP (mean ± std)", "all-sarcastic F1"])


def per_class_section(cells: list[dict]) -> list[str]:
    """Test precision, recall and F1 of every class (or label) of every cell."""
    rows = [c for c in cells if c.get("per_class")]
    if not rows:
        return []
    table = [[cell["corpus"], cell["model"], name, str(stats["support"]),
              *(f"{stats[s]['mean']:.3f} ± {stats[s]['std']:.3f}" for s in ("precision", "recall", "f1"))]
             for cell in rows for name, stats in cell["per_class"].items()]
    return ["", "## Per-class scores (test split, mean ± std)", "",
            *markdown_table(table, ["corpus", "model", "class", "support", "precision", "recall", "F1"])]


def _parts(result: Result) -> list[str]:
    """Which sweep made which cells, for results merged from several (``report --merge``)."""
    if not result.parts:
        return []
    return [f"Merged from {len(result.parts)} sweeps (`isarcasm report --merge`), each with its own commit:", "",
            *(f"- {made_by(part)}" for part in result.parts), ""]


def _rescored(result: Result) -> str:
    """Who rescored a result from its runs' records (``report --selection``)."""
    by = result.rescored_by
    return f" Rescored from '{result.selected_from}' at commit `{by['git_commit']}`." if by else ""


def _reuse(result: Result) -> str:
    """Why the wall time can be shorter than the compute: runs finished by an earlier invocation."""
    runs = [(c.get("reused_runs", 0), len(c.get("runs", []))) for c in result.cells]
    reused, total = sum(r for r, _ in runs), sum(n for _, n in runs)
    shipped = shipped_count(run for c in result.cells for run in c.get("runs", []))
    if not reused and not shipped:
        return ""
    origin = f" ({shipped} from the shipped reference set, verified against the local data)" if shipped else ""
    return (f"; {max(reused, shipped)} of {total} runs were finished by an earlier invocation{origin} and reused, so "
            "the wall time covers only this one, the training compute every run")


def results_csv(result: Result) -> str:
    """One row per (cell, metric): mean, std, number of runs, and the reference numbers; a cell whose
    every run failed is one row whose mean is ``failed`` (a reader of numbers stops there, never
    takes an empty cell for a missing metric)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["corpus", "model", "metric", "mean", "std", "n_seeds", "published", "isarcasm_impl"])
    for cell in result.cells:
        if not cell["metrics"] and cell.get("failed_runs"):  # every run failed: a row that says so, no number
            writer.writerow([cell["corpus"], cell["model"], "", "failed", "", 0, "", ""])
        for metric, stats in cell["metrics"].items():
            refs = {r["label"]: r["value"] for r in cell["references"] if r["metric"] == metric}
            writer.writerow([cell["corpus"], cell["model"], metric, f"{stats['mean']:.4f}", f"{stats['std']:.4f}",
                             len(stats["values"]), refs.get("published", ""), refs.get("iSarcasm impl.", "")])
    return buffer.getvalue()

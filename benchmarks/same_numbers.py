"""Did a change keep the numbers?  Compare two results files of one experiment, run by run.

A speed-up of the faithful path must leave every number as it was.  This script
reads two results files (``results/<experiment>.json``) of the same cells and
seeds, say Table 7 trained before and after a change, and prints, per cell,
how many runs give the same value of every metric and select the same epoch,
and the largest difference in the cell's main metric (sarcastic F1 on a binary
cell, macro-F1 on a multi-class or multi-label one; ``--metric`` names another,
and a cell without it shows "—", not a difference of 0).  With ``--runs-a``/``--runs-b``
(the two run stores, ``--output-dir``) it also compares each run's test
predictions file byte for byte, which is stricter than the rounded metrics.

Usage::

    python benchmarks/same_numbers.py BEFORE.json AFTER.json [--runs-a DIR --runs-b DIR]

Runs repeat exactly only on one machine with the same threads per run; compare
files trained on the same CPU (each run's ``config.json`` records it).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from experiments.reports.format import markdown_table
from experiments.reports.table import run_ids
from experiments.runs.one.metrics import main_metric
from experiments.runs.one.store import CONFIG, read_config


def by_cell(result: dict) -> dict[tuple[str, str], dict]:
    return {(cell["corpus"], cell["model"]): cell for cell in result["cells"] if cell.get("selected_epochs")}


def run_pairs(cell: dict, other: dict):
    """(run, index in cell, index in other) for the runs both cells have, a run named by its seed and fold: a
    cell of folds holds one value per fold and seed, so pairing by seed alone compared the first fold's runs
    only, and those by position."""
    where = {run: j for j, run in enumerate(_runs(other))}
    return [(run, i, where[run]) for i, run in enumerate(_runs(cell)) if run in where]


def _runs(cell: dict) -> list[tuple[int, int | None]]:
    """(seed, fold) of each run (:func:`run_ids`); a cell whose runs are all gone, one per seed.
    Values that do not match the runs one to one are refused, as the fidelity report refuses them."""
    ids = run_ids(cell)
    ids = ids or [(seed, None) for seed in cell["seeds"]]
    if len(ids) != len(cell["selected_epochs"]):  # a failed run in a file that does not name its runs
        raise SystemExit(f"{cell['corpus']}/{cell['model']}: {len(cell['selected_epochs'])} runs' values for "
                         f"{len(ids)} named runs, so they cannot be paired; run the command that made the file again")
    return ids


def same_predictions(runs_a: Path, runs_b: Path, recorded: str, run: tuple[int, int | None]) -> bool | None:
    """Whether the run's predictions.tsv is byte-identical in both stores (None when either is missing)."""
    folders = [run_folder(root, recorded, run) for root in (runs_a, runs_b)]
    files = [folder / "predictions.tsv" for folder in folders if folder]
    if len(files) < 2 or not all(f.is_file() for f in files):
        return None
    return files[0].read_bytes() == files[1].read_bytes()


def run_folder(root: Path, recorded: str, run: tuple[int, int | None]) -> Path | None:
    """The folder under ``root`` of the run the results file recorded at ``recorded``: the longest tail of that
    path found under ``root`` (a store's folders are laid out alike wherever it lives), and only when its
    config.json names the run's seed and fold, as the results file's ``run_ids`` do."""
    parts = Path(recorded).parts
    for start in range(len(parts)):
        folder = root.joinpath(*parts[start:])
        if (folder / CONFIG).is_file():
            config = read_config(folder)
            return folder if (config["seed"], config.get("fold")) == run else None
    return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--runs-a", type=Path, help="run store of BEFORE (its --output-dir)")
    parser.add_argument("--runs-b", type=Path, help="run store of AFTER")
    parser.add_argument("--metric", help="the metric whose largest difference is shown (default: each cell's "
                                             "main metric)")
    args = parser.parse_args(argv)
    before, after = (by_cell(json.loads(path.read_text())) for path in (args.before, args.after))
    rows, changed_cells, changed_runs, total, shown_metrics = [], 0, 0, 0, {}
    for key in sorted(before.keys() & after.keys()):
        a, b = before[key], after[key]
        metric = args.metric or main_metric(a["metrics"])
        held = metric in a["metrics"] and metric in b["metrics"]
        shown_metrics[metric] = None
        pairs = run_pairs(a, b)
        same = epochs = 0
        delta = 0.0
        identical = []
        for run, i, j in pairs:
            values_equal = all(a["metrics"][m]["values"][i] == b["metrics"][m]["values"][j]
                               for m in a["metrics"] if m in b["metrics"])
            epoch_equal = a["selected_epochs"][i] == b["selected_epochs"][j]
            same += values_equal and epoch_equal
            epochs += epoch_equal
            if held:
                delta = max(delta, abs(a["metrics"][metric]["values"][i] - b["metrics"][metric]["values"][j]))
            if args.runs_a and args.runs_b:
                identical.append(same_predictions(args.runs_a, args.runs_b, a["runs"][i], run))
        total += len(pairs)
        changed_runs += len(pairs) - same
        changed_cells += same < len(pairs)
        shown = [f"{sum(x is True for x in identical)} of {sum(x is not None for x in identical)}"] if identical else []
        rows.append([*key, str(len(pairs)), str(same), str(epochs), f"{delta:.4f}" if held else "—", *shown])
    header = ["corpus", "model", "runs", "same numbers", "same epoch", f"max \\|Δ {'/'.join(shown_metrics)}\\|"]
    print("\n".join(markdown_table(rows, header + (["same predictions"] if args.runs_a else []))))
    print(f"\ncells with a changed number: {changed_cells} of {len(before.keys() & after.keys())}; "
          f"runs: {changed_runs} of {total}")
    missing = sorted(before.keys() ^ after.keys())
    if missing:
        print(f"cells in only one file: {', '.join('/'.join(k) for k in missing)}")


if __name__ == "__main__":
    main()

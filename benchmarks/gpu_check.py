"""Does TensorFlow train Table 7 on a GPU as on the CPU, and how much faster?  Two results files, cell by cell.

``benchmarks/gpu_check.sh`` trains Table 7's cells at one seed and a few epochs on the GPU, then with the GPU hidden,
each side into its own results folder; this script reads the two results files and prints, per cell, the training
seconds per epoch on each side (a run's ``train_seconds``: training, the per-epoch record and prediction, without
tokenising or reading word vectors), their ratio, and the sarcastic-class F1 of each.

The project's criterion (``benchmarks/same_distribution.py``) needs at least four seeds a side; with one, a cell's
difference is held to the spread over seeds of the committed runs (``docs/results/table7.json``): two draws from one
distribution of standard deviation s differ by more than sqrt(2)·z·s with probability ALPHA when z is the two-sided
normal quantile of ALPHA, here Bonferroni-shared among the cells so that a device that changes nothing fails with
probability about ALPHA.  The mean difference over the cells is held to the criterion's MARGIN.

Usage::

    python benchmarks/gpu_check.py GPU.json CPU.json [--reference docs/results/table7.json]

Exit status: 0 when every cell and the mean are within, 1 when not, 2 on bad input (one line on stderr).
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from scipy.stats import norm

from experiments.reports.distribution import ALPHA, MARGIN
from experiments.reports.format import markdown_table
from experiments.results.files import load_results
from experiments.results.schema import Result
from preprocessing.errors import IsarcasmError

REFERENCE = Path(__file__).resolve().parent.parent / "docs" / "results" / "table7.json"
METRIC = "f1_sarcastic"


def trained_cells(result: Result, path: str) -> dict[tuple[str, str], dict]:
    """(corpus, model) -> the cell, for every cell of ``result`` with a trained run."""
    cells = {(cell["corpus"], cell["model"]): cell for cell in result.cells if cell.get("runs")}
    if not cells:
        raise IsarcasmError(f"{path}: no trained cell in it (a results file of `isarcasm reproduce`)")
    return cells


def first_run(cell: dict, epochs: int) -> tuple[float, float]:
    """The cell's first run: its sarcastic-class F1 and its training seconds per epoch."""
    return cell["metrics"][METRIC]["values"][0], cell["train_seconds"][0] / epochs


def spread_bound(cells: int) -> float:
    """How many of a cell's standard deviations two of its draws may differ by (see the module doc)."""
    return math.sqrt(2) * norm.ppf(1 - ALPHA / (2 * cells))


def compare(gpu: Result, cpu: Result, reference: Result, paths: tuple[str, str, str]) -> dict:
    """Per cell both sides' F1 and seconds per epoch, the bound of its difference, and the verdict."""
    sides = [trained_cells(result, path) for result, path in zip((gpu, cpu, reference), paths)]
    missing = sorted(set(sides[0]) ^ set(sides[1]))
    if missing:
        raise IsarcasmError(f"{paths[0]} and {paths[1]} train other cells ({', '.join(map('/'.join, missing))}): "
                            "give both sides the same --models and --corpora")
    absent = sorted(set(sides[0]) - set(sides[2]))
    if absent:
        raise IsarcasmError(f"{paths[2]} has no runs of {', '.join(map('/'.join, absent))}: name a reference that "
                            "trained those cells (--reference)")
    thin = sorted(key for key in sides[0] if len(sides[2][key]["metrics"][METRIC]["values"]) < 2)
    if thin:
        raise IsarcasmError(f"{paths[2]} has one seed of {', '.join(map('/'.join, thin))}: its spread over seeds "
                            "bounds a difference, so name a reference of several seeds (--reference)")
    factor = spread_bound(len(sides[0]))
    rows = []
    for key in sides[0]:
        (f1_gpu, gpu_epoch), (f1_cpu, cpu_epoch) = (first_run(side[key], result.train["epochs"])
                                                    for side, result in zip(sides, (gpu, cpu)))
        bound = factor * sides[2][key]["metrics"][METRIC]["std"]
        rows.append({"cell": key, "gpu_epoch": gpu_epoch, "cpu_epoch": cpu_epoch, "f1_gpu": f1_gpu, "f1_cpu": f1_cpu,
                     "delta": f1_gpu - f1_cpu, "bound": bound, "within": abs(f1_gpu - f1_cpu) <= bound})
    mean = sum(row["delta"] for row in rows) / len(rows)
    return {"rows": rows, "factor": factor, "mean_delta": mean,
            "passes": all(row["within"] for row in rows) and abs(mean) <= MARGIN}


def ratio(row: dict) -> str:
    return f"{row['cpu_epoch'] / row['gpu_epoch']:.1f}x" if row["gpu_epoch"] > 0 else "—"


def print_report(result: dict) -> None:
    print("\n".join(markdown_table(
        [[*row["cell"], f"{row['gpu_epoch']:.2f}", f"{row['cpu_epoch']:.2f}", ratio(row), f"{row['f1_gpu']:.3f}",
          f"{row['f1_cpu']:.3f}", f"{row['delta']:+.3f}", f"{row['bound']:.3f}", "yes" if row["within"] else "**no**"]
         for row in result["rows"]],
        ["corpus", "model", "GPU s/epoch", "CPU s/epoch", "CPU/GPU", "F1 GPU", "F1 CPU", "Δ", "bound", "within"])))
    rows = result["rows"]
    print(f"\nbound: {result['factor']:.2f} × the cell's standard deviation over the reference's seeds (one seed a "
          f"side: two draws of one distribution differ by more with probability {ALPHA}, shared among "
          f"{len(rows)} cells)")
    print(f"verdict: {'PASS' if result['passes'] else 'FAIL'}: {sum(not row['within'] for row in rows)} of "
          f"{len(rows)} cells outside their bound; mean Δ {result['mean_delta']:+.3f} (a pass needs every cell "
          f"within and the mean within ±{MARGIN})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gpu", help="results file trained on the GPU")
    parser.add_argument("cpu", help="results file of the same cells trained on the CPU")
    parser.add_argument("--reference", default=str(REFERENCE),
                        help="results file of several seeds of those cells, whose spread bounds a difference")
    args = parser.parse_args(argv)
    paths = (args.gpu, args.cpu, args.reference)
    try:
        result = compare(*(load_results(Path(path)) for path in paths), paths)
    except IsarcasmError as exc:
        print(f"gpu_check: {exc}", file=sys.stderr)
        return 2
    print_report(result)
    return 0 if result["passes"] else 1


if __name__ == "__main__":
    sys.exit(main())

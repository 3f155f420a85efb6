"""What the paired significance tests cost, at the test-set sizes of the corpora.

Times one comparison of two models (all paired seeds at once, as ``isarcasm
benchmark`` does) with the paired bootstrap at 1,000 and 10,000 resamples, and
McNemar's exact test, on synthetic predictions of each corpus' test size.
``benchmark`` runs one comparison per (cell, classic model) of table6, table7
and the cross matrix.

Usage: ``python benchmarks/significance.py [--seeds 5] [--repeat 3]``.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from experiments.reports.significance import bootstrap_differences, mcnemar

#: Test split sizes (``isarcasm data list``).
SIZES = {"riloff": 148, "isarcasm": 709, "semeval2018-a": 784, "ptacek": 1_063, "isarcasmeval": 1_400,
         "sarc-pol": 3_406}


def best_of(repeat: int, work) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"one comparison of two models over {args.seeds} paired seeds (best of {args.repeat}), milliseconds")
    print(f"{'corpus':<15}{'n test':>8}{'bootstrap 1k':>14}{'bootstrap 10k':>15}{'McNemar':>10}")
    for corpus, n in SIZES.items():
        gold = (rng.random(n) < 0.3).astype(int)
        a = np.stack([np.where(rng.random(n) < 0.8, gold, 1 - gold) for _ in range(args.seeds)])
        b = np.stack([np.where(rng.random(n) < 0.75, gold, 1 - gold) for _ in range(args.seeds)])
        cells = [best_of(args.repeat, lambda r=r: bootstrap_differences(gold, a, b, n_resamples=r))
                 for r in (1_000, 10_000)]
        cells.append(best_of(args.repeat, lambda: [mcnemar(gold, x, y) for x, y in zip(a, b)]))
        print(f"{corpus:<15}{n:>8,}" + "".join(f"{1000 * t:>{w}.0f}" for t, w in zip(cells, (14, 15, 10))))


if __name__ == "__main__":
    main()

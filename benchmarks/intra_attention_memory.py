"""What SIARN's and MIARN's all-pairs intra-attention costs at batch 128 and T = 100.

MIARN materialises a (batch, T, T, k) tensor (SIARN a (batch, T, T) one), so
memory grows as batch * T^2 * k.  Each configuration runs in a fresh process
(peak memory is per process), builds the paper-sized model with max_len T,
and times full-length training steps and a prediction on one batch; an LSTM
of the same size is the reference.  Prints one table: peak resident memory
(whole process, TensorFlow included), its increase over building the model,
the size of the largest pair tensor, and milliseconds per step.

Usage: ``python benchmarks/intra_attention_memory.py [--batch 128] [--length 100] [--k 10,100]``.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

STEPS = 5


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def run_one(name: str, k: int, batch: int, length: int) -> dict:
    """Runs in the child process."""
    import keras
    import numpy as np

    from baselines import ModelConfig, build_model

    keras.utils.set_random_seed(0)
    model = build_model(name, ModelConfig(vocab_size=8000, max_len=length, k=k))
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=1e-3), loss="sparse_categorical_crossentropy")
    tokens = np.random.default_rng(0).integers(1, 8000, size=(batch, length)).astype("int32")
    labels = np.arange(batch) % 2
    built = peak_mib()
    model.train_on_batch({"tokens": tokens}, labels)  # traces the step
    started = time.perf_counter()
    for _ in range(STEPS):
        model.train_on_batch({"tokens": tokens}, labels)
    train_ms = (time.perf_counter() - started) / STEPS * 1000
    model.predict_on_batch({"tokens": tokens})
    started = time.perf_counter()
    model.predict_on_batch({"tokens": tokens})
    predict_ms = (time.perf_counter() - started) * 1000
    return {"built": built, "peak": peak_mib(), "train_ms": train_ms, "predict_ms": predict_ms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--length", type=int, default=100)
    parser.add_argument("--k", default="10,100", help="comma-separated MIARN pair dimensions")
    parser.add_argument("--child", nargs=2, metavar=("MODEL", "K"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(args.child[0], int(args.child[1]), args.batch, args.length)))
        return

    from experiments.reports.format import table

    runs = [("lstm", 1), ("siarn", 1)] + [("miarn", int(k)) for k in args.k.split(",")]
    rows = []
    for name, k in runs:
        child = subprocess.run([sys.executable, __file__, "--batch", str(args.batch), "--length", str(args.length),
                                "--child", name, str(k)], capture_output=True, text=True, check=True)
        result = json.loads(child.stdout.strip().splitlines()[-1])
        pair_values = {"lstm": 0, "siarn": 1}.get(name, k)
        pair_mib = args.batch * args.length ** 2 * pair_values * 4 / 2**20
        rows.append([name if name != "miarn" else f"miarn k={k}", f"{result['peak']:,.0f}",
                     f"{result['peak'] - result['built']:,.0f}", f"{pair_mib:,.1f}",
                     f"{result['train_ms']:,.0f}", f"{result['predict_ms']:,.0f}"])
    print(f"batch {args.batch}, T = {args.length}, paper-sized models (100-d embeddings, 100 units, vocab 8000)")
    print(table(rows, ["model", "peak RSS MiB", "step growth MiB", "pair tensor MiB", "train ms/step",
                       "predict ms/batch"]))


if __name__ == "__main__":
    main()

"""Training and inference throughput of every baseline on iSarcasmEval-sized input.

Random token ids stand in for tweets (no data needed): 3,467 training
examples (iSarcasmEval's English training set), an 8k vocabulary, tweets of
5-50 tokens padded to 50, batch 128, paper-sized models.  Prints one table of
examples per second:

- ``train epoch 1``: the first epoch, including graph tracing;
- ``train epoch 2``: a steady-state epoch, what each of the 30 paper epochs costs;
- ``predict``: inference over the same examples after a warm-up call.

Usage: ``python benchmarks/train_throughput.py [--models lstm,cnn] [--examples 3467]``.
Timings depend on the machine and its load: the header prints both.
"""
from __future__ import annotations

import argparse
import os
import platform
import time

import keras
import numpy as np
from tqdm import tqdm

from baselines import MODELS, ModelConfig, build_model
from experiments.reports.format import table

LEXICON_DIM = 43  # the width of all declared lexicons' features


def random_inputs(n: int, vocab_size: int, max_len: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    lengths = rng.integers(5, max_len + 1, size=n)
    tokens = rng.integers(1, vocab_size, size=(n, max_len)).astype("int32")
    tokens[np.arange(max_len) >= lengths[:, None]] = 0
    return {"tokens": tokens, "lexicon": rng.normal(size=(n, LEXICON_DIM)).astype("float32")}


def measure(name: str, data: dict, labels: np.ndarray, config: ModelConfig, batch_size: int) -> list:
    spec = MODELS.get(name)
    inputs = {key: data[key] for key in spec.inputs}
    model = build_model(name, config)
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=1e-3), loss="sparse_categorical_crossentropy")
    n = len(labels)
    rates = []
    for _ in range(2):
        started = time.perf_counter()
        model.fit(inputs, labels, batch_size=batch_size, epochs=1, verbose=0, shuffle=True)
        rates.append(n / (time.perf_counter() - started))
    model.predict(inputs, batch_size=batch_size, verbose=0)  # warm-up: trace the predict function
    started = time.perf_counter()
    model.predict(inputs, batch_size=batch_size, verbose=0)
    rates.append(n / (time.perf_counter() - started))
    return [name, f"{model.count_params():,}", *(f"{rate:,.0f}" for rate in rates)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS.names()), help="comma-separated model names")
    parser.add_argument("--examples", type=int, default=3467)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--vocab-size", type=int, default=8000)
    parser.add_argument("--max-len", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    names = [MODELS.get(name).name for name in args.models.split(",")]
    keras.utils.set_random_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    data = random_inputs(args.examples, args.vocab_size, args.max_len, rng)
    labels = rng.integers(0, 2, size=args.examples)
    config = ModelConfig(vocab_size=args.vocab_size, max_len=args.max_len, lexicon_dim=LEXICON_DIM)

    print(f"{args.examples} examples, batch {args.batch_size}, vocab {args.vocab_size}, max_len {args.max_len}; "
          f"keras {keras.__version__} ({keras.backend.backend()}), {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs, load average before {os.getloadavg()[0]:.2f}")
    rows = [measure(name, data, labels, config, args.batch_size) for name in tqdm(names, desc="models", unit="model")]
    print(table(rows, ["model", "params", "train epoch 1 ex/s", "train epoch 2 ex/s", "predict ex/s"]))
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

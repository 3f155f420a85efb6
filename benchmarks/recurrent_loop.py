"""Two levers on the recurrent loop itself, against Keras' LSTM as the models use it: CPU seconds per epoch.

- ``unroll``: Keras' ``LSTM(unroll=True)``, the time loop written out as one graph instead of TensorFlow's
  while loop (whose per-step overhead is the usual reason to unroll a short sequence);
- ``projected``: the input projection ``x_t @ W + b`` of every step computed before the loop as one large
  matmul, so each step adds only ``h @ U`` (the weights are Keras' own: kernel, recurrent kernel, bias).

Both keep the arithmetic and change only how it is scheduled, so they would be worth having only if the
loop's overhead, not its arithmetic, were what an epoch waits for.  The stacks are the models' own
shapes: one layer of 100 units on 100-d vectors (LSTM, Att-LSTM, SIARN, MIARN) and the four densely
connected layers of Dense-LSTM, each reading the embeddings and every earlier layer's output.  The
texts are synthetic, padded to ``--steps`` with lengths drawn like iSarcasm's (median 16 tokens), and
masked as the models mask them.  Each variant trains in turn, twice, from the same initial weights; the
script prints the median CPU seconds of the epochs after the first, the first epoch (tracing included),
the ratio to Keras' loop, and whether the trained weights equal Keras' loop's to the last digit.

Usage::

    TF_NUM_INTRAOP_THREADS=1 TF_NUM_INTEROP_THREADS=1 python benchmarks/recurrent_loop.py [--steps 51] [--epochs 3]
"""
from __future__ import annotations

import argparse
import statistics
import time

import keras
import numpy as np
from keras import layers, ops
from keras.src import backend as keras_backend

from experiments.reports.format import markdown_table

ROWS, VOCAB, WIDTH = 3000, 5000, 100


class ProjectedLSTM(layers.LSTM):
    """Keras' LSTM (no dropout, sigmoid gates, tanh) with every step's input projection done first."""

    def inner_loop(self, sequences, initial_state, mask, training=False):
        cell = self.cell
        projected = ops.matmul(sequences, cell.kernel) + cell.bias

        def step(inputs, states):
            h, c = states
            i, f, g, o = ops.split(inputs + ops.matmul(h, cell.recurrent_kernel), 4, axis=-1)
            c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
            h = ops.sigmoid(o) * ops.tanh(c)
            return h, [h, c]

        return keras_backend.rnn(step, projected, list(initial_state), mask=mask, input_length=sequences.shape[1],
                                 zero_output_for_mask=self.zero_output_for_mask,
                                 return_all_outputs=self.return_sequences)


VARIANTS = {
    "keras": lambda **kw: layers.LSTM(WIDTH, use_cudnn=False, **kw),
    "unroll": lambda **kw: layers.LSTM(WIDTH, use_cudnn=False, unroll=True, **kw),
    "projected": lambda **kw: ProjectedLSTM(WIDTH, use_cudnn=False, **kw),
}


def texts(steps: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    lengths = np.clip(rng.lognormal(np.log(16), 0.6, ROWS).astype(int), 1, steps)
    ids = np.zeros((ROWS, steps), "int32")
    for row, length in enumerate(lengths):
        ids[row, :length] = rng.integers(1, VOCAB, length)
    return ids, rng.integers(0, 2, ROWS).astype("float32")


def model(variant: str, steps: int, depth: int) -> keras.Model:
    keras.utils.set_random_seed(1)
    tokens = keras.Input((steps,), dtype="int32")
    sequence = layers.Embedding(VOCAB + 1, WIDTH, mask_zero=True)(tokens)
    for _ in range(depth - 1):  # Dense-LSTM: each layer reads the embeddings and all earlier layers
        sequence = layers.Concatenate()([sequence, VARIANTS[variant](return_sequences=True)(sequence)])
    net = keras.Model(tokens, layers.Dense(1, activation="sigmoid")(VARIANTS[variant]()(sequence)))
    net.compile(keras.optimizers.Adam(1e-3), "binary_crossentropy")
    return net


def timed(variant: str, steps: int, depth: int, epochs: int, data) -> tuple[float, float, list]:
    net = model(variant, steps, depth)
    seconds = []
    for _ in range(epochs):
        started = time.process_time()
        net.fit(*data, batch_size=128, epochs=1, verbose=0, shuffle=False)
        seconds.append(time.process_time() - started)
    return seconds[0], statistics.median(seconds[1:]), net.get_weights()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=51, help="max_len (iSarcasm's is 51)")
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    data = texts(args.steps)
    rows = []
    for name, depth in (("one layer (LSTM)", 1), ("four dense layers (Dense-LSTM)", 4)):
        runs = {variant: [timed(variant, args.steps, depth, args.epochs, data) for _ in range(2)]
                for variant in VARIANTS}
        base = statistics.median(later for _, later, _ in runs["keras"])
        for variant, repeats in runs.items():
            later = statistics.median(s for _, s, _ in repeats)
            same = all(np.array_equal(a, b) for a, b in zip(repeats[-1][2], runs["keras"][0][2]))  # keras: its repeat
            rows.append([name, variant, f"{statistics.median(first for first, _, _ in repeats):.2f}",
                         f"{later:.2f}", f"{base / later:.2f}x", "yes" if same else "no"])
    print(f"{ROWS} texts padded to {args.steps} steps, batch 128, CPU seconds, one thread")
    print("\n".join(markdown_table(rows, ["stack", "loop", "epoch 1 s", "later epochs s", "speed-up", "same weights"])))


if __name__ == "__main__":
    main()

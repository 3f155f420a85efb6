"""Four levers on the recurrent loop itself, against Keras' LSTM as the models use it: CPU seconds per epoch.

- ``unroll``: Keras' ``LSTM(unroll=True)``, the time loop written out as one graph instead of TensorFlow's
  while loop (whose per-step overhead is the usual reason to unroll a short sequence);
- ``projected``: the input projection ``x_t @ W + b`` of every step computed before the loop as one large
  matmul, so each step adds only ``h @ U`` (the weights are Keras' own: kernel, recurrent kernel, bias);
- ``live-rows``: padded steps not computed (:class:`LiveRowsLSTM`): the batch's rows sorted by length and
  the time axis cut into chunks, each run on the rows still inside their text;
- ``mixed-bf16``: Keras' mixed precision, every layer computing in bfloat16 (weights kept in float32),
  which oneDNN runs with the CPU's bfloat16 instructions where it has them (AVX512_BF16).

The first three keep the arithmetic and change only how it is scheduled or how much padding it covers; the
fourth changes the arithmetic itself (8 bits of mantissa), so it would need the distribution test even more
than the others.  The stacks are the models' own
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


class LiveRowsLSTM(layers.LSTM):
    """Keras' LSTM whose padded steps are not computed: the time axis is cut into ``chunks`` pieces, and
    each piece runs Keras' own loop on the rows still inside their text only.

    The rows are sorted by the position after their last real token, longest first; piece ``j`` starts
    where the row ranked ``rows * (chunks - j) / chunks`` ends, so the rows that ended before it are left
    out and keep their state (Keras' mask keeps a state unchanged over padding as well).  A row's
    arithmetic is the same as in Keras' loop; a step only holds fewer rows.  Outputs of the rows left out
    of a piece are zeros (they are padding, masked downstream).  Written for TensorFlow (the slices have
    the batch's own sizes); the benchmarks only.
    """

    def __init__(self, units, chunks: int = 4, **kwargs):
        super().__init__(units, **kwargs)
        self.chunks = chunks

    def inner_loop(self, sequences, initial_state, mask, training=False):
        if mask is None or self.chunks < 2:
            return super().inner_loop(sequences, initial_state, mask, training=training)
        mask = ops.cast(mask[0] if isinstance(mask, (list, tuple)) else mask, "bool")
        rows, steps = ops.shape(sequences)[0], ops.shape(sequences)[1]
        ends = ops.max(ops.where(mask, ops.arange(1, steps + 1)[None, :], 0), axis=1)
        order = ops.argsort(-ends)  # longest first: the rows inside their text are always the first ones
        sequences, mask, ends = (ops.take(values, order, axis=0) for values in (sequences, mask, ends))
        states = [ops.take(state, order, axis=0) for state in initial_state]
        starts = [0] + [ops.take(ends, rows * (self.chunks - j) // self.chunks - 1) for j in range(1, self.chunks)]
        loop, outputs = super().inner_loop, []
        for start, stop in zip(starts, starts[1:] + [steps]):
            live = ops.sum(ops.cast(ends > start, "int32"))

            def run(start=start, stop=stop, live=live, states=states):
                _, piece, new = loop(sequences[:live, start:stop], [state[:live] for state in states],
                                     mask[:live, start:stop], training=training)
                return [ops.pad(piece, [[0, rows - live], [0, 0], [0, 0]])] + [
                    ops.concatenate([fresh, state[live:]], axis=0) for fresh, state in zip(new, states)]

            def skip(states=states):  # a chunk of no step (ties in length) or of no row left
                return [ops.zeros((rows, 0, self.units), sequences.dtype)] + list(states)

            piece, *states = ops.cond(ops.logical_and(stop > start, live > 0), run, skip)
            outputs.append(piece)
        restore = ops.argsort(order)
        states = [ops.take(state, restore, axis=0) for state in states]
        if self.return_sequences:
            return states[0], ops.take(ops.concatenate(outputs, axis=1), restore, axis=0), states
        return states[0], ops.expand_dims(states[0], 1), states

    def get_config(self):
        return {**super().get_config(), "chunks": self.chunks}


VARIANTS = {
    "keras": lambda **kw: layers.LSTM(WIDTH, use_cudnn=False, **kw),
    "unroll": lambda **kw: layers.LSTM(WIDTH, use_cudnn=False, unroll=True, **kw),
    "projected": lambda **kw: ProjectedLSTM(WIDTH, use_cudnn=False, **kw),
    "live-rows": lambda **kw: LiveRowsLSTM(WIDTH, chunks=4, use_cudnn=False, **kw),
    "mixed-bf16": lambda **kw: layers.LSTM(WIDTH, use_cudnn=False, **kw),
}
#: The variant whose layers compute in bfloat16; every other one is float32.
POLICIES = {"mixed-bf16": "mixed_bfloat16"}


def texts(steps: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    lengths = np.clip(rng.lognormal(np.log(16), 0.6, ROWS).astype(int), 1, steps)
    ids = np.zeros((ROWS, steps), "int32")
    for row, length in enumerate(lengths):
        ids[row, :length] = rng.integers(1, VOCAB, length)
    return ids, rng.integers(0, 2, ROWS).astype("float32")


def model(variant: str, steps: int, depth: int) -> keras.Model:
    keras.utils.set_random_seed(1)
    before = keras.config.dtype_policy()
    keras.config.set_dtype_policy(POLICIES.get(variant, "float32"))
    try:
        tokens = keras.Input((steps,), dtype="int32")
        sequence = layers.Embedding(VOCAB + 1, WIDTH, mask_zero=True)(tokens)
        for _ in range(depth - 1):  # Dense-LSTM: each layer reads the embeddings and all earlier layers
            sequence = layers.Concatenate()([sequence, VARIANTS[variant](return_sequences=True)(sequence)])
        head = layers.Dense(1, activation="sigmoid", dtype="float32")  # the loss in float32, as mixed precision asks
        net = keras.Model(tokens, head(VARIANTS[variant]()(sequence)))
    finally:
        keras.config.set_dtype_policy(before)
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
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help=f"comma-separated, keras always included (default: all: {', '.join(VARIANTS)})")
    args = parser.parse_args()
    chosen = ["keras"] + [name for name in args.variants.split(",") if name in VARIANTS and name != "keras"]
    data = texts(args.steps)
    rows = []
    for name, depth in (("one layer (LSTM)", 1), ("four dense layers (Dense-LSTM)", 4)):
        runs = {variant: [timed(variant, args.steps, depth, args.epochs, data) for _ in range(2)]
                for variant in chosen}
        base = statistics.median(later for _, later, _ in runs["keras"])
        for variant, repeats in runs.items():
            later = statistics.median(s for _, s, _ in repeats)
            # keras: against its own repeat
            apart = max(float(np.max(np.abs(a - b))) for a, b in zip(repeats[-1][2], runs["keras"][0][2]))
            rows.append([name, variant, f"{statistics.median(first for first, _, _ in repeats):.2f}",
                         f"{later:.2f}", f"{base / later:.2f}x", "yes" if apart == 0 else f"no ({apart:.1e})"])
    print(f"{ROWS} texts padded to {args.steps} steps, batch 128, CPU seconds, one thread")
    print("\n".join(markdown_table(rows, ["stack", "loop", "epoch 1 s", "later epochs s", "speed-up",
                                        "same weights as Keras' loop (largest difference)"])))


if __name__ == "__main__":
    main()

"""Tokenise + normalise throughput, and cold vs cached word-vector loading.

    python benchmarks/preprocess.py [--data-dir DIR] [--skip-cold] [--cpu N] [--repeats 3]

Tokenisation runs pinned to one CPU core (``--cpu``, default the first one this
process may use) over the training split of iSarcasmEval (tweets) and SARC pol
(Reddit comments).  "cold" starts from a new spaCy tokenizer, so every string
is new to it, which is what one training run pays; "warm" tokenises the same
texts again with the tokenizer's cache filled.  Each is the best of
``--repeats`` runs.

Vectors: "cold" parses the text file and builds the cache (in a temporary
folder, so the user's cache is untouched; skipped with ``--skip-cold``);
"cached" loads that cache again, sha256 of the source included.  Without
``--skip-cold`` the disk needs room for a copy of the vectors file and its cache.
"""
from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from contextlib import contextmanager

import click

from embeddings.vectors import CACHE_ENV, default_vectors_path, load_vectors_report
from preprocessing.corpora import load_corpus
from preprocessing.datadir import resolve_data_dir
from preprocessing.pipeline import Preprocessor
from preprocessing.tokenize import get_tokenizer

CORPORA = ("isarcasmeval", "sarc-pol")


def tokenize_rates(texts: list[str], repeats: int) -> dict:
    """Best of ``repeats`` (texts/s, tokens/s), cold and warm: the best run is
    the one least disturbed by other work on the machine."""
    rates = {"cold": (0.0, 0.0), "warm": (0.0, 0.0)}
    for _ in range(repeats):
        get_tokenizer.cache_clear()  # a fresh spaCy tokenizer: nothing seen yet
        preprocessor = Preprocessor()
        preprocessor.tokenize([])  # builds the spaCy pipeline outside the timing
        for state in ("cold", "warm"):
            started = time.perf_counter()
            tokens = preprocessor.tokenize(texts)
            seconds = time.perf_counter() - started
            rates[state] = max(rates[state], (len(texts) / seconds, sum(map(len, tokens)) / seconds))
    return rates


@contextmanager
def environment(**values):
    """Set environment variables for the block, then restore them."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def vector_times(data_dir, skip_cold: bool) -> list[tuple[str, float, str]]:
    """Load times of the default vectors; a cold load writes its cache to a
    temporary folder (both cache locations are redirected there)."""
    if skip_cold:
        _, report = load_vectors_report(None, data_dir, progress=False)
        return [("cached", report.seconds, str(report.cache))]
    rows = []
    with tempfile.TemporaryDirectory(prefix="isarcasm-bench-") as tmp:
        # A copy of the file in a fresh folder: no cache beside it, in $ISARCASM_CACHE or the user's.
        source = shutil.copy(default_vectors_path(data_dir), tmp)
        with environment(**{CACHE_ENV: tmp, "XDG_CACHE_HOME": tmp}):
            for label in ("cold (parse + build cache)", "cached"):
                _, report = load_vectors_report(source, data_dir, progress=False)
                rows.append((label, report.seconds, str(report.cache)))
    return rows


@click.command()
@click.option("--data-dir", type=click.Path(file_okay=False), default=None)
@click.option("--skip-cold", is_flag=True,
              help="Do not time the first parse of the vectors (the slow step, which builds the cache).")
@click.option("--cpu", type=int, default=None, help="CPU core to pin to (default: the first allowed one).")
@click.option("--repeats", type=click.IntRange(min=1), default=3, show_default=True,
              help="Tokenisation runs per corpus; the best is reported.")
def main(data_dir, skip_cold, cpu, repeats):
    logging.disable(logging.WARNING)  # the readers' data warnings are not what is measured here
    directory = resolve_data_dir(data_dir)
    core = min(os.sched_getaffinity(0)) if cpu is None else cpu
    os.sched_setaffinity(0, {core})
    click.echo(f"tokenize + normalise, default options, one core (cpu {core})")
    click.echo(f"{'corpus':14} {'texts':>7} {'cold texts/s':>13} {'cold tokens/s':>14} "
               f"{'warm texts/s':>13} {'warm tokens/s':>14}")
    for name in CORPORA:
        texts = [r.text for r in load_corpus(name, directory).split("train")]
        rates = tokenize_rates(texts, repeats)
        (cold, cold_tok), (warm, warm_tok) = rates["cold"], rates["warm"]
        click.echo(f"{name:14} {len(texts):>7,} {cold:>13,.0f} {cold_tok:>14,.0f} {warm:>13,.0f} {warm_tok:>14,.0f}")
    click.echo("\nword vectors (default GloVe file)")
    for label, seconds, cache in vector_times(directory, skip_cold):
        click.echo(f"{label:28} {seconds:7.2f} s   {cache}")


if __name__ == "__main__":
    main()

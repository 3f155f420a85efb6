"""``isarcasm models``: the registered baseline models, their papers and sizes."""
from __future__ import annotations

import math

import click

from experiments.cli.options import echo_json, json_option
from experiments.reports.format import table
from preprocessing.lexicons import LEXICONS


def _size_options(func):
    for option in reversed([
        click.option("--vocab-size", type=click.IntRange(min=2), default=10_000, show_default=True,
                     help="Vocabulary size the parameter count assumes."),
        click.option("--max-len", type=click.IntRange(min=1), default=50, show_default=True,
                     help="Padded tweet length (changes no parameter count)."),
        click.option("--lexicon-dim", type=click.IntRange(min=1), default=None,
                     help="Lexicon feature width for Dense-LSTM (default: all declared lexicons)."),
    ]):
        func = option(func)
    return func


def _config(vocab_size: int, max_len: int, lexicon_dim: int | None):
    from baselines import ModelConfig  # with installed plugins: imported where used

    return ModelConfig(vocab_size=vocab_size, max_len=max_len, lexicon_dim=lexicon_dim or _all_lexicons_width())


def _all_lexicons_width() -> int:
    return sum(len(lexicon.features) for lexicon in LEXICONS)


@click.group("models")
def models() -> None:
    """The baseline models (paper hyperparameters as defaults)."""


@models.command("list")
@_size_options
@json_option
def list_models(vocab_size: int, max_len: int, lexicon_dim: int | None, as_json: bool) -> None:
    """Every model with its paper, inputs, default dropout and parameter count."""
    from baselines import MODELS, build_model  # loads TensorFlow: only when a model is needed

    config = _config(vocab_size, max_len, lexicon_dim)
    rows = []
    for spec in MODELS:
        model = build_model(spec.name, config)
        rows.append({"name": spec.name, "paper": spec.paper, "inputs": list(spec.inputs), "dropout": spec.dropout,
                     "params": model.count_params(),
                     "trainable_params": sum(math.prod(w.shape) for w in model.trainable_weights)})
    if as_json:
        echo_json(rows)
        return
    click.echo(table([[r["name"], f"{r['params']:,}", f"{r['trainable_params']:,}", " + ".join(r["inputs"]),
                       r["dropout"], r["paper"]] for r in rows],
                     ["model", "params", "trainable", "inputs", "dropout", "paper"]))
    click.echo(f"(vocabulary {vocab_size:,} x {config.embedding_dim}-d embeddings, lexicon width {config.lexicon_dim})")


@models.command("summary")
@click.argument("name")
@_size_options
def summary(name: str, vocab_size: int, max_len: int, lexicon_dim: int | None) -> None:
    """The Keras summary of model NAME."""
    from baselines import MODELS, build_model  # loads TensorFlow: only when a model is needed

    MODELS.get(name)  # an unknown name fails here, before the configuration is built
    model = build_model(name, _config(vocab_size, max_len, lexicon_dim))
    model.summary(print_fn=lambda line, line_break=True: click.echo(line, nl=line_break))

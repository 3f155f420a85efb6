"""``isarcasm preprocess``: show the tokens a model sees.

Also home of :func:`preprocess_options`, the click options for every field of
:class:`~preprocessing.config.PreprocessConfig`, generated from the dataclass
so a new option appears on every command that takes them.
"""
from __future__ import annotations

from dataclasses import asdict

import click

from experiments.cli.options import (
    checked_texts,
    echo_json,
    file_corpus_options,
    fit_on_train,
    json_option,
    open_corpus,
    pop_preprocess_options,
    preprocess_options,
)
from preprocessing.config import PreprocessConfig
from preprocessing.errors import IsarcasmError, shown
from preprocessing.pipeline import Preprocessor


@click.command("preprocess")
@click.option("--text", "texts", multiple=True, help="Text to preprocess (repeatable).")
@click.option("--corpus", default=None,
              help="Corpus name or file: fit the vocabulary on its training split (and show its records "
                   "when no --text is given).")
@click.option("--split", default="train", show_default=True, help="Split whose records are shown.")
@click.option("--limit", type=click.IntRange(min=0), default=10, show_default=True,
              help="Records shown (0: all).")
@preprocess_options
@file_corpus_options
@json_option
@click.pass_context
def preprocess(ctx, texts, corpus, split, limit, as_json, **options):
    """Print the tokens a model sees: normalised, and with <unk> and max_len
    applied when a corpus supplies the training vocabulary."""
    if not texts and corpus is None:
        raise click.UsageError("give --text TEXT or --corpus NAME")
    texts = checked_texts(texts)
    config_options = pop_preprocess_options(options)
    dataset = open_corpus(ctx, corpus, **options) if corpus else None
    config = PreprocessConfig.given(config_options, dataset.language if dataset else "en")
    fitted = fit_on_train(dataset, config) if dataset else None
    rows = [{"text": t} for t in texts] if texts else _records(dataset, split, limit)
    _add_tokens(rows, fitted or Preprocessor(config))

    summary = _summary(dataset, fitted)
    if as_json:
        echo_json({"config": asdict(config), **summary, "rows": rows})
        return
    for key, value in summary.items():
        click.echo(f"{key}: {shown(str(value))}")
    for row in rows:  # a token or id may hold what a terminal acts on (ESC, an RLO): shown escaped
        label = f"[{row['id']} {row['label']}] " if "id" in row else ""
        cut = f"   ({row['cut']} tokens cut)" if row.get("cut") else ""
        click.echo(f"{shown(label + ' '.join(row['tokens']))}{cut}")


def _records(dataset, split: str, limit: int) -> list[dict]:
    if split not in dataset.splits:
        raise IsarcasmError(f"corpus '{dataset.name}' has no split '{split}' (splits: {', '.join(dataset.splits)})")
    records = dataset.split(split)
    return [{"id": r.id, "label": dataset.label_names[r.label], "text": r.text}
            for r in (records[:limit] if limit else records)]


def _add_tokens(rows: list[dict], preprocessor) -> None:
    """Normalised tokens; once fitted, as the model sees them, with the count cut by max_len."""
    tokens = preprocessor.tokenize([r["text"] for r in rows])
    if preprocessor.vocab is None:
        for row, normalised in zip(rows, tokens, strict=True):
            row["tokens"] = normalised
        return
    for row, full, seen in zip(rows, tokens, preprocessor.model_tokens(tokens), strict=True):
        row["tokens"], row["cut"] = seen, len(full) - len(seen)


def _summary(dataset, fitted) -> dict:
    if dataset is None:
        return {"note": "no vocabulary: pass --corpus to see <unk> replacement and max_len"}
    if fitted is None:
        return {"corpus": dataset.name, "note": "the corpus has no training split: tokens shown without <unk>"}
    return {"corpus": dataset.name, "vocabulary": len(fitted.vocab), "max_len": fitted.max_len}

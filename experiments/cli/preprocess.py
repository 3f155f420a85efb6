"""``isarcasm preprocess``: show the tokens a model sees.

Also home of :func:`preprocess_options`, the click options for every field of
:class:`~preprocessing.pipeline.PreprocessConfig`, generated from the dataclass
so a new option appears on every command that takes them.
"""
from __future__ import annotations

import types
import typing
from dataclasses import MISSING, asdict, fields

import click

from experiments.cli.options import echo_json, file_corpus_options, json_option, open_corpus


def preprocess_options(func):
    """One option per config field (``--numbers keep``, ``--no-lowercase``...).

    Every option defaults to ``None`` = "not given", so the config's own
    default applies, and a corpus can supply the language.
    """
    from preprocessing.pipeline import PreprocessConfig

    hints = typing.get_type_hints(PreprocessConfig)
    for f in reversed(fields(PreprocessConfig)):
        flag = "--" + f.name.replace("_", "-")
        default = "" if f.default in (MISSING, None) else f" [default: {f.default}]"
        help_text = f.metadata["help"] + (" [default: corpus language, else en]" if f.name == "language" else default)
        kind = _plain_type(hints[f.name])
        if kind is bool:
            option = click.option(f"{flag}/--no-{flag[2:]}", f.name, default=None, help=help_text)
        elif f.metadata["choices"]:
            option = click.option(flag, f.name, type=click.Choice(f.metadata["choices"]), default=None, help=help_text)
        else:
            option = click.option(flag, f.name, type=kind, default=None, help=help_text)
        func = option(func)
    return func


def _plain_type(hint):
    """``int | None`` -> ``int``."""
    if isinstance(hint, types.UnionType):
        return next(arg for arg in typing.get_args(hint) if arg is not type(None))
    return hint


def config_from_options(options: dict, language: str = "en"):
    """The :class:`PreprocessConfig` for the options given (others keep their defaults)."""
    from preprocessing.pipeline import PreprocessConfig

    given = {f.name: options[f.name] for f in fields(PreprocessConfig) if options.get(f.name) is not None}
    given.setdefault("language", language)
    return PreprocessConfig(**given)


def pop_preprocess_options(options: dict) -> dict:
    """Split the preprocessing options off a command's keyword arguments."""
    from preprocessing.pipeline import PreprocessConfig

    return {f.name: options.pop(f.name) for f in fields(PreprocessConfig) if f.name in options}


def fit_on_train(dataset, config):
    """A :class:`Preprocessor` fitted on the corpus' training split, as models
    are; ``None`` when the corpus has no training split."""
    from preprocessing.pipeline import Preprocessor

    train = [r.text for r in dataset.split("train")]
    if not train:
        return None
    extra = [r.text for r in dataset.records if r.split != "train"]
    return Preprocessor(config).fit(train, extra_texts=extra)


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
    from preprocessing.pipeline import Preprocessor

    if not texts and corpus is None:
        raise click.UsageError("give --text TEXT or --corpus NAME")
    config_options = pop_preprocess_options(options)
    dataset = open_corpus(ctx, corpus, **options) if corpus else None
    config = config_from_options(config_options, dataset.language if dataset else "en")
    fitted = fit_on_train(dataset, config) if dataset else None
    rows = [{"text": t} for t in texts] if texts else _records(dataset, split, limit)
    _add_tokens(rows, fitted or Preprocessor(config))

    summary = _summary(dataset, fitted)
    if as_json:
        echo_json({"config": asdict(config), **summary, "rows": rows})
        return
    for key, value in summary.items():
        click.echo(f"{key}: {value}")
    for row in rows:
        label = f"[{row['id']} {row['label']}] " if "id" in row else ""
        cut = f"   ({row['cut']} tokens cut)" if row.get("cut") else ""
        click.echo(f"{label}{' '.join(row['tokens'])}{cut}")


def _records(dataset, split: str, limit: int) -> list[dict]:
    from preprocessing.errors import IsarcasmError

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

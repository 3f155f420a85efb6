"""``isarcasm embeddings info``: which vectors are used, and how well they cover a corpus."""
from __future__ import annotations

import click

from embeddings.matrix import embedding_matrix
from embeddings.vectors import DEFAULT, load_vectors_report, vectors_help
from experiments.cli.options import (
    data_dir,
    echo_json,
    file_corpus_options,
    fit_on_train,
    json_option,
    open_corpus,
    pop_preprocess_options,
    preprocess_options,
)
from preprocessing.config import PreprocessConfig
from preprocessing.errors import IsarcasmError


def embeddings_option(func):
    return click.option(
        "--embeddings", "embeddings_spec", default=DEFAULT, show_default=True, help=vectors_help(),
    )(func)


@click.group("embeddings")
def embeddings() -> None:
    """Pre-trained word vectors: file, size, cache, coverage."""


@embeddings.command("info")
@embeddings_option
@click.option("--corpus", default=None, help="Also report coverage of this corpus' training vocabulary.")
@click.option("--missing", type=click.IntRange(min=0), default=15, show_default=True,
              help="How many of the most frequent training words without a vector to list.")
@preprocess_options
@file_corpus_options
@json_option
@click.pass_context
def info(ctx, embeddings_spec, corpus, missing, as_json, **options):
    """File, words, dimension and cache of the vectors; with --corpus, their coverage."""

    vectors, report = load_vectors_report(embeddings_spec, data_dir(ctx))
    result = {"embeddings": "random" if report is None else str(report.path)}
    if report is not None:
        result.update(words=len(vectors.index_to_key), dim=vectors.vector_size, sha256=report.sha256,
                      cache=str(report.cache) if report.cache else None,
                      load_seconds=round(report.seconds, 2), cache_built=report.built)

    config_options = pop_preprocess_options(options)
    if corpus:
        dataset = open_corpus(ctx, corpus, **options)
        fitted = fit_on_train(dataset, PreprocessConfig.given(config_options, dataset.language))
        if fitted is None:

            raise IsarcasmError(f"corpus '{dataset.name}' has no training split to measure coverage on")
        _, coverage = embedding_matrix(fitted.vocab, vectors, missing=missing)
        result["corpus"] = dataset.name
        result["coverage"] = coverage.to_json()

    if as_json:
        echo_json(result)
        return
    for key, value in result.items():
        if key != "coverage":
            click.echo(f"{key}: {value:,}" if type(value) is int else f"{key}: {value}")
    if corpus:
        click.echo(f"coverage: {coverage}")
        if coverage.top_missing:
            click.echo(f"most frequent training words without a vector: {' '.join(coverage.top_missing)}")

"""``isarcasm train``, ``evaluate`` and ``predict``."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click
from click.core import ParameterSource

from experiments.cli.options import (
    data_dir,
    echo_json,
    file_corpus_options,
    json_option,
    open_corpus,
)
from experiments.cli.preprocess import (
    config_from_options,
    pop_preprocess_options,
    preprocess_options,
)
from experiments.runs.protocol import CLASS_WEIGHTS, CONTEXTS, QUICK, SELECT_ON, SELECTIONS, TrainConfig, changed_fields
from experiments.runs.store import run_dir
from preprocessing.errors import IsarcasmError
from preprocessing.fileio import read_text


def training_options(func):
    """Options shared by ``train`` and ``reproduce`` (defaults are the paper's)."""
    for option in reversed([
        click.option("--epochs", type=int, default=30, show_default=True),
        click.option("--batch-size", type=int, default=128, show_default=True),
        click.option("--lr", "learning_rate", type=float, default=1e-3, show_default=True),
        click.option("--selection", type=click.Choice(SELECTIONS), default="best", show_default=True,
                     help="best: weights of the best validation-F1 epoch; last: after the final epoch."),
        click.option("--select-on", type=click.Choice(SELECT_ON), default="default", show_default=True,
                     help="The validation F1 that --selection best maximises: default is the sarcastic class's "
                          "(macro-F1 for multi-class tasks); macro-f1 for binary tasks too (a named variant)."),
        click.option("--class-weight", type=click.Choice(CLASS_WEIGHTS), default="none", show_default=True,
                     help="balanced: weight the loss by inverse class frequency (a variant, not the paper's setting)."),
        click.option("--tune-threshold", is_flag=True,
                     help="Also report a variant whose threshold is tuned on validation data."),
        click.option("--embeddings", default="glove", show_default=True,
                     help="'glove' (data dir), 'random', 'word2vec' (trained on the training split), "
                          "or a GloVe/word2vec text file."),
        click.option("--context", type=click.Choice(CONTEXTS), default="none", show_default=True,
                     help="Dialogue context read beside the text by a second encoder: none, the last turn, or "
                          "all turns (corpora with context, e.g. mustard, kocosa)."),
        click.option("--output-dir", type=click.Path(file_okay=False), default="runs", show_default=True,
                     help="Root of the run store."),
        click.option("--force", is_flag=True, help="Retrain runs that already finished."),
        click.option("--tensorboard", is_flag=True, help="Write TensorBoard logs beside the runs."),
        click.option("--quick", is_flag=True,
                     help=f"Smoke test: {QUICK['epochs']} epochs, {QUICK['max_train']} training examples."),
    ]):
        func = option(func)
    return func


#: The options of :func:`training_options` that are TrainConfig fields.
_TRAIN_FIELDS = ("epochs", "batch_size", "learning_rate", "selection", "select_on", "class_weight", "tune_threshold",
                 "embeddings", "context")


def train_config(options: dict, quick: bool, protocol: TrainConfig | None = None) -> TrainConfig:
    """The TrainConfig of a command's options, which are removed from ``options``.

    With ``protocol`` (an experiment's own settings), an option left at its
    default takes the protocol's value instead; one given on the command line wins.
    """
    values = {name: options.pop(name) for name in _TRAIN_FIELDS}
    if protocol is not None:
        ctx = click.get_current_context()
        values.update({name: getattr(protocol, name) for name in _TRAIN_FIELDS
                       if ctx.get_parameter_source(name) in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)})
    config = TrainConfig(**values)
    return replace(config, **QUICK) if quick else config


@click.command()
@click.option("--corpus", required=True, help="Corpus name or a .csv/.tsv/.jsonl file.")
@click.option("--model", required=True, help="Model name (see `isarcasm models list`).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--experiment", default="train", show_default=True, help="Experiment folder in the run store.")
@training_options
@preprocess_options
@file_corpus_options
@click.pass_context
def train(ctx, corpus, model, seed, experiment, output_dir, force, tensorboard, quick, **options):
    """Train one model on one corpus with one seed and save the run.

    Preprocessing options (see `isarcasm preprocess --help`) default to the paper's settings;
    runs with other settings are stored under a name that lists what changed.
    """
    from experiments.runs.training import train_run
    from preprocessing.pipeline import PreprocessConfig

    config = train_config(options, quick)
    preprocess_given = pop_preprocess_options(options)
    dataset = open_corpus(ctx, corpus, **options)
    preprocess = config_from_options(preprocess_given, dataset.language)
    default_preprocess = PreprocessConfig(language=dataset.language)
    variant = [*filter(None, [config.variant()]), *changed_fields(preprocess, default_preprocess)]
    directory = run_dir(Path(output_dir), "-".join([experiment, *variant]), corpus, model, seed)
    result = train_run(dataset, model, seed, directory, data_dir(ctx), config, preprocess, force=force,
                       tensorboard=tensorboard)
    test = result.metrics["test"]
    state = "already finished, reused" if result.skipped else f"trained in {result.metrics['train_seconds']:.0f} s"
    click.echo(f"run: {result.directory} ({state}; selected epoch {result.metrics['selected_epoch']})")
    click.echo(_summary(test))


def _summary(test: dict) -> str:
    parts = [f"{k.replace('_sarcastic', '')} {test[k]:.3f}" for k in
             ("precision_sarcastic", "recall_sarcastic", "f1_sarcastic") if k in test]
    parts += [f"macro-F1 {test['f1_macro']:.3f}",
              *([f"micro-F1 {test['f1_micro']:.3f}", f"exact-match accuracy {test['accuracy']:.3f}"]
                if "f1_samples" in test else [f"accuracy {test['accuracy']:.3f}"])]
    return "test (sarcastic class): " + ", ".join(parts) if "f1_sarcastic" in test else "test: " + ", ".join(parts)


@click.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.option("--corpus", default=None, help="Evaluate on this corpus' test split (default: the training corpus).")
@click.option("--force", is_flag=True, help="Recompute an evaluation saved earlier.")
@json_option
@file_corpus_options
@click.pass_context
def evaluate(ctx, run_dirs, corpus, force, as_json, **corpus_options):
    """Evaluate finished runs on a corpus' test split (cross-dataset when --corpus differs)."""
    from experiments.runs.inference import evaluate_run, load_run

    results = []
    for directory in map(Path, run_dirs):
        run = load_run(directory, data_dir(ctx))
        dataset = open_corpus(ctx, corpus or run.config["corpus"], **corpus_options)
        results.append(evaluate_run(run, dataset, force=force))
    if as_json:
        echo_json(results if len(results) > 1 else results[0])
        return
    for result in results:
        click.echo(f"{result['run']} (trained on {result['trained_on']}) on {result['corpus']} {result['split']}:")
        click.echo("  " + _summary(result["test"]))


@click.command()
@click.argument("run_directory", type=click.Path(exists=True, file_okay=False))
@click.option("--text", "texts", multiple=True, help="Text to classify (repeatable).")
@click.option("--input", "input_file", type=click.Path(dir_okay=False), help="File with one text per line.")
@json_option
@click.pass_context
def predict(ctx, run_directory, texts, input_file, as_json):
    """Print the probability and label a trained run gives each text."""
    from experiments.runs.inference import load_run

    texts = list(texts)
    if input_file:
        texts += [line for line in read_text(Path(input_file)).splitlines() if line.strip()]
    if not texts:
        raise IsarcasmError("nothing to classify: give --text \"...\" or --input FILE")
    run = load_run(Path(run_directory), data_dir(ctx))
    probabilities = run.probabilities(texts)
    rows = [{"text": t, "label": label, "probabilities": dict(zip(run.label_names, map(float, p)))}
            for t, label, p in zip(texts, run.labels(probabilities), probabilities)]
    if as_json:
        echo_json(rows)
        return
    for row, p in zip(rows, probabilities):
        shown = row["probabilities"].get(row["label"], p.max())  # multi-label: the most probable label's
        click.echo(f"{row['label']}\t{shown:.3f}\t{row['text']}")

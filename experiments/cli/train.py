"""``isarcasm train``, ``evaluate`` and ``predict``."""
from __future__ import annotations

import logging
import shlex
from dataclasses import fields
from pathlib import Path

import click

from experiments.cli.options import (
    TRAIN_OPTIONS,
    TrainingCommand,
    checked_texts,
    command_start,
    data_dir,
    echo_json,
    file_corpus_options,
    json_option,
    open_corpus,
    option_flag,
    set_items_of,
    set_values,
    takes_settings,
    training_options,
)
from experiments.reports.evaluations import configuration, evaluation_summary, floor_line, summary_lines
from experiments.runs.one.operating_point import floors_of
from experiments.runs.one.metrics import absent_classes, main_metric, undefined_metrics
from experiments.runs.one.protocol import TrainConfig, experiment_name
from experiments.runs.one.reference import key_of, spec_of
from experiments.runs.one.spec import RunSpec
from experiments.runs.one.store import (
    FAILED,
    REFERENCE,
    REFERENCE_CACHE,
    RunStore,
    read_config,
    safe_name,
    writable_folder,
)
from experiments.studies.settings import Corpora, Settings
from preprocessing.corpora import corpus_options as reader_options
from preprocessing.corpora import is_file_corpus, refuse_file_options
from preprocessing.anyfile import file_format, read_texts
from preprocessing.config import PreprocessConfig
from preprocessing.errors import IsarcasmError, tsv_field
from preprocessing.fileio import text_lines


@click.command(cls=TrainingCommand)
@click.option("--corpus", required=True, help="Corpus name or a .csv/.tsv/.jsonl file.")
@click.option("--model", required=True, help="Model name (see `isarcasm models list`).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--experiment", default="train", show_default=True, help="Experiment folder in the run store.")
@training_options
@file_corpus_options
@takes_settings(study=False)
def train(corpus, model, seed, experiment, settings):
    """Train one model on one corpus with one seed and save the run.

    Preprocessing settings (see `isarcasm preprocess --help`) default to the paper's; `--set` takes them
    as it takes training settings (`--set lowercase=false`).  Runs with other settings are stored under a
    name that lists what changed.
    """
    preprocess = set_values(set_items_of(click.get_current_context(), preprocessing=True), PreprocessConfig)
    safe_name(experiment, "--experiment")  # '' would store the runs under the variant's name alone
    config = settings.train
    refuse_file_options(corpus, **settings.corpora.file_options)
    dataset = settings.corpora.load(corpus)
    dataset.require_context(config.context)
    spec = RunSpec(corpus, model, seed, config, preprocess=PreprocessConfig.given(preprocess, dataset.language))
    result = _trained(settings, spec, dataset, experiment_name(experiment, config, preprocess=spec.preprocess))
    test = result.metrics["test"]
    state = "already finished, reused" if result.skipped else (
        f"trained in {result.metrics['train_seconds']:.0f} s, one-time work (word vectors, tokenising) "
        f"{result.metrics['setup_seconds']:.0f} s apart")
    click.echo(f"run: {result.directory} ({state}; selected epoch {result.metrics['selected_epoch']})")
    click.echo(_summary(test))


def train_missing_option(func):
    return click.option("--train-missing", is_flag=True,
                        help="A reference run shipped with the repository carries predictions, not its model: train "
                             "that very run here (same settings and data, so the same configuration hash; a finished "
                             "run is reused), then use it.")(func)


def _trained(settings: Settings, spec: RunSpec, dataset, folder: str):
    """``spec`` trained on ``dataset`` (or its finished run reused) in experiment ``folder`` of the settings'
    store; a run that failed is an error."""
    from experiments.runs.one.training import expected_hash, train_run  # loads TensorFlow: only when a command trains

    writable_folder(settings.store.root, "--output-dir")  # before any training
    # the store's place, as the studies': a finished run of the same configuration hash in another folder is reused
    place = settings.store.place(folder, spec, expected_hash(spec, dataset, settings.corpora.data_dir))
    result = train_run(spec, dataset, place, settings.corpora.data_dir, settings.options)
    if result.failure:
        raise RunFailed(f"run {'failed earlier' if result.skipped else 'failed'}: {result.failure}; no result "
                        f"(recorded in {result.directory / FAILED}; the same settings fail the same way, "
                        "--force trains it again)")
    return result


def _with_model(ctx: click.Context, directory: Path, train_missing: bool, file_options: dict | None) -> Path:
    """``directory``; for a reference run shipped with the repository (experiments/runs/one/reference.py: its
    predictions and per-epoch record, no model), that very run trained here with ``--train-missing`` (the same
    configuration, so the same hash, at its key in the run store above ``.reference``), else one line saying so
    with the ``train`` command that makes it (stored where ``train`` stores runs of its settings: the same run,
    which ``reproduce`` finds by its hash).  ``file_options``: the command's, which a run on a file corpus was
    read with (None: a command without them, whose file runs get their defaults)."""
    from experiments.runs.one.inference import NoModel  # loads TensorFlow: only when a command loads a model
    from experiments.runs.one.training import expected_hash

    if not (directory / REFERENCE).is_file():
        return directory
    config, key = read_config(directory), Path(key_of(directory))
    spec = spec_of(config)
    shipped_in = directory.parents[len(key.parts) - 1]
    store = directory.parents[len(key.parts)] if shipped_in.name == REFERENCE_CACHE else Path("runs")
    if not train_missing:
        command = train_command(command_start(ctx), spec, _named(key.parts[0], spec), store, file_options)
        how = (f"train that very run here (the same configuration, so the same hash) with `{command}`, or give "
               "--train-missing" if command else "give --train-missing to train that very run here")
        raise NoModel(f"{directory} is a reference run shipped with the repository: it carries the run's "
                      f"predictions, not its model; {how}")
    settings = Settings(Corpora(data_dir(ctx), file_options or {}), RunStore(store))
    dataset = settings.corpora.load(spec.corpus)
    if expected_hash(spec, dataset, settings.corpora.data_dir) != config["config_hash"]:
        raise IsarcasmError(f"{directory}: the data here (or the options a file corpus is read with: `evaluate "
                            "--train-missing` takes them) gives the run another configuration than the one it was "
                            "shipped with, so training here would not make that run; check the data with `isarcasm "
                            "data verify`")
    return _trained(settings, spec, dataset, key.parts[0]).directory


def _named(folder: str, spec: RunSpec) -> str:
    """The ``--experiment`` under which ``train`` stores ``spec`` in ``folder`` (which ends with the name of
    its settings, :func:`experiment_name`); ``folder`` itself where it does not."""
    variant = experiment_name("", spec.train, preprocess=spec.preprocess)
    return folder[:-len(variant) - 1] if variant and folder.endswith("-" + variant) else folder


def train_command(start: list[str], spec: RunSpec, experiment: str, store: Path,
                  file_options: dict | None) -> str | None:
    """The ``train`` command (after ``start``: :func:`command_start`) that trains ``spec`` into ``experiment``'s
    folder of ``store``, with the same configuration (so the same hash), a file corpus read with ``file_options``;
    None where ``train`` has no option for one of its settings (a fold, or one that only an experiment's
    ``[train]`` table sets), or for a file corpus whose options are not known (None)."""
    default = TrainConfig()
    changed = {f.name: getattr(spec.train, f.name) for f in fields(TrainConfig)
               if getattr(spec.train, f.name) != getattr(default, f.name)}
    if spec.fold is not None or (file_options is None and is_file_corpus(spec.corpus)):
        return None
    words = [*start, "train", "--corpus", spec.corpus, "--model", spec.model, "--seed", str(spec.seed),
             "--experiment", experiment, *(() if store == Path("runs") else ("--output-dir", str(store)))]
    words += [w for name, value in changed.items()
              for w in ((TRAIN_OPTIONS[name][0], str(value)) if name in TRAIN_OPTIONS else ("--set", _set(name, value)))]
    preprocess = spec.preprocess
    paper = PreprocessConfig(language=preprocess.language)
    words += [] if preprocess.language == PreprocessConfig().language else ["--set", _set("language", preprocess.language)]
    words += [w for f in fields(PreprocessConfig) if getattr(preprocess, f.name) != getattr(paper, f.name)
              for w in ("--set", _set(f.name, getattr(preprocess, f.name)))]
    defaults, applied = reader_options(spec.corpus), reader_options(spec.corpus, **(file_options or {}))
    words += [w for name, value in applied.items() if value != defaults[name] for w in (option_flag(name), str(value))]
    return shlex.join(words)


def _set(name: str, value) -> str:
    """``--set``'s ``KEY=VALUE`` for a setting's value (true/false as TOML writes them)."""
    return f"{name}={str(value).lower() if isinstance(value, bool) else value}"


class RunFailed(click.ClickException):
    """A run whose training diverged: one line and exit code 3 (1 is a user error, 2 a usage error),
    so a script never takes it for a result."""

    exit_code = 3


def _summary(test: dict) -> str:
    """A result's scores in one line; a score the data leaves undefined (no sarcastic text) says so."""
    undefined = undefined_metrics(test)

    def shown_score(name: str) -> str:
        return "undefined" if name in undefined else f"{test[name]:.3f}"

    parts = [f"{k.replace('_sarcastic', '')} {shown_score(k)}" for k in
             ("precision_sarcastic", "recall_sarcastic", "f1_sarcastic") if k in test]
    parts += [f"macro-F1 {shown_score('f1_macro')}",
              *([f"micro-F1 {test['f1_micro']:.3f}", f"exact-match accuracy {test['accuracy']:.3f}"]
                if "f1_samples" in test else [f"accuracy {test['accuracy']:.3f}"])]
    return ("test (sarcastic class): " if main_metric(test) == "f1_sarcastic" else "test: ") + ", ".join(parts)


@click.command()
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.option("--corpus", default=None, help="Evaluate on this corpus' test split (default: the training corpus).")
@click.option("--force", is_flag=True, help="Recompute an evaluation saved earlier.")
@train_missing_option
@json_option
@file_corpus_options
@click.pass_context
def evaluate(ctx, run_dirs, corpus, force, train_missing, as_json, **corpus_options):
    """Evaluate finished runs on a corpus' test split (cross-dataset when --corpus differs).

    Each evaluation is saved in <run>/evaluations/ and reused only for the same data content and
    options; the output says which (`saved PATH` or `reused PATH`), then the evaluated split's
    floors (labelling every text sarcastic, or with its majority class).  Given several runs, a
    summary follows: mean ± std per configuration (model, training corpus and every setting that
    changes the numbers; runs of other settings are other rows, each saying what differs); a run
    given twice (or through a link) counts once.  A score the data leaves undefined (no sarcastic
    text) is printed as undefined and averaged nowhere (``--json``: ``{"evaluations": [...],
    "summary": [...]}``).
    """
    from experiments.runs.one.inference import NoModel, evaluate_run, load_run, sarcastic_share  # loads TensorFlow: only when needed

    results, shares, warned, modelless = [], {}, set(), []
    for directory in _distinct_runs(run_dirs):
        try:
            run = load_run(_with_model(ctx, directory, train_missing, corpus_options), data_dir(ctx))
        except NoModel as exc:  # an entrant's run among the runs of a folder: passed over, said once below
            modelless.append(exc)
            continue
        name = corpus or run.config["corpus"]
        dataset = open_corpus(ctx, name, **corpus_options)
        result = evaluate_run(run, dataset, force=force, options=reader_options(name, **corpus_options))
        results.append({**result, "model": run.config["model"], "configuration": configuration(run.config),
                        "undefined": undefined_metrics(result["test"])})
        _warn_undefined(results[-1], dataset.label_names, warned)
        if len(dataset.label_names) == 2 and not dataset.multi_label:
            shares[result["corpus"]] = sarcastic_share(dataset)
    _pass_over(modelless, evaluated=len(results))
    summary = evaluation_summary(results, shares) if len(results) > 1 else None
    if as_json:
        evaluations = [{**r, "floors": floors_of(shares.get(r["corpus"]))} for r in results]
        echo_json({"evaluations": evaluations, "summary": summary} if summary else evaluations[0])
        return
    for result in results:
        click.echo(f"{result['run']} (trained on {result['trained_on']}) on {result['corpus']} {result['split']}:")
        click.echo("  " + _summary(result["test"]))
        click.echo(f"  {'reused' if result['reused'] else 'saved'} {result['evaluation_file']}")
    for evaluated, split in dict.fromkeys((r["corpus"], r["split"]) for r in results if r["corpus"] in shares):
        click.echo(floor_line(evaluated, split, shares[evaluated]))
    if summary:
        click.echo("summary (mean ± std over runs):")
        for line in summary_lines(summary):
            click.echo("  " + line)


def _pass_over(modelless: list[IsarcasmError], evaluated: int) -> None:
    """One warning line for the runs given that keep no model (entrant runs beside the models' runs in
    a folder a glob matched); the error itself where no run was left to evaluate."""
    if modelless and not evaluated:
        raise modelless[0]
    if modelless:
        logging.getLogger("isarcasm").warning(
            f"passed over {len(modelless)} {'run that keeps' if len(modelless) == 1 else 'runs that keep'} no model to "
            f"evaluate (a reference rule, outside predictions, a Keras model entrant); the first: {modelless[0]}")


def _distinct_runs(run_dirs: tuple[str, ...]) -> list[Path]:
    """Each run folder once, as first given: a folder given twice, or a link to it, would count one
    run as two seeds in the summary."""
    unique: dict[Path, Path] = {}
    for given in map(Path, run_dirs):
        unique.setdefault(given.resolve(), given)
    dropped = len(run_dirs) - len(unique)
    if dropped:
        logging.getLogger("isarcasm").warning(
            f"{dropped} run folder{'s' if dropped != 1 else ''} given more than once (the same folder, or a link to "
            "one) counted once")
    return list(unique.values())


def _warn_undefined(result: dict, label_names: list[str], warned: set[str]) -> None:
    """One warning per evaluated corpus (``warned``: those warned about) whose split leaves a score
    undefined (a class with no text)."""
    if not result["undefined"] or result["corpus"] in warned:
        return
    warned.add(result["corpus"])
    absent = ", ".join(label_names[k] for k in absent_classes(result["test"]))
    logging.getLogger("isarcasm").warning(
        f"{result['corpus']} {result['split']} has no text labelled {absent}: {', '.join(result['undefined'])} "
        "undefined there (printed as undefined, averaged nowhere)")


@click.command()
@click.argument("run_directory", type=click.Path(exists=True, file_okay=False))
@click.option("--text", "texts", multiple=True, help="Text to classify (repeatable).")
@click.option("--input", "input_file",
              help="Texts to classify: a .csv/.tsv/.jsonl file (gzipped or not), its --text-col column, read as "
                   "every command reads a file; or a .txt file, one text per line.")
@click.option("--text-col", default="text", show_default=True, help="Text column of a .csv/.tsv/.jsonl --input.")
@train_missing_option
@json_option
@click.pass_context
def predict(ctx, run_directory, texts, input_file, text_col, train_missing, as_json):
    """Print the label a trained run gives each text and the probability of the sarcastic class.

    Tab-separated, with a header: label, p_sarcastic (a run with more than two classes, or several
    labels per text: one p_<class> column per class) and the text, its backslashes doubled and its tab,
    newline, control and bidirectional characters escaped (\\t, \\n, \\x1b, \\u202e).  A text longer than
    the run's max length is cut to it: a warning line says which texts; ``--json`` gives every text's
    tokens_used, tokens_total and truncated.
    """
    from experiments.runs.one.inference import load_run  # loads TensorFlow: only when a command loads a model

    texts = checked_texts(texts)
    if input_file:
        texts += _input_texts(Path(input_file), text_col)
    if not texts:
        raise IsarcasmError("nothing to classify: give --text \"...\" or --input FILE")
    run = load_run(_with_model(ctx, Path(run_directory), train_missing, None), data_dir(ctx))
    probabilities = run.probabilities(texts, by_length=True)
    binary = len(run.label_names) == 2 and not run.multi_label
    rows = [{"text": t, "label": label, **({"p_sarcastic": float(p[1])} if binary else {}),
             "probabilities": dict(zip(run.label_names, map(float, p))),
             "tokens_used": used, "tokens_total": total, "truncated": used < total}
            for t, label, p, (used, total) in zip(texts, run.labels(probabilities), probabilities,
                                                  run.token_counts(texts))]
    _warn_cut(rows, run.max_len)
    if as_json:
        echo_json(rows)
        return
    columns = ["p_sarcastic"] if binary else [f"p_{name}" for name in run.label_names]
    click.echo("\t".join(["label", *map(tsv_field, columns), "text"]))
    for row, p in zip(rows, probabilities):
        values = [row["p_sarcastic"]] if binary else p
        click.echo("\t".join([tsv_field(row["label"]), *(f"{v:.3f}" for v in values), tsv_field(row["text"])]))


def _input_texts(path: Path, text_col: str) -> list[str]:
    """``--input``'s texts: a .txt file's non-blank lines (ending in \\n, \\r\\n or \\r, never split at U+2028
    or \\x1c inside a text); any other file through the corpus readers, so a CSV's header, its label
    column and its quoted line breaks are never read as texts."""
    if file_format(path) != ".txt":
        return read_texts(path, text_col)
    if text_col != "text":
        raise IsarcasmError(f"--text-col {text_col}: {path.name} is a .txt file, one text per line, with no columns; "
                            "leave --text-col out or give a .csv/.tsv/.jsonl file")
    return [line for _, line in text_lines(path) if line.strip()]


def _warn_cut(rows: list[dict], max_len: int | None) -> None:
    """One warning line naming the texts cut to the run's max length, with how much of each was read."""
    cut = [(number, row) for number, row in enumerate(rows, start=1) if row["truncated"]]
    if not cut:
        return
    listed = "; ".join(f"text {number}: {row['tokens_used']} of {row['tokens_total']} tokens"
                       for number, row in cut[:5]) + ("; ..." if len(cut) > 5 else "")
    logging.getLogger("isarcasm").warning(
        f"{len(cut)} text{'s' if len(cut) != 1 else ''} longer than the run's max length ({max_len} tokens) "
        f"{'were' if len(cut) != 1 else 'was'} cut to it, so predicted from part of the text ({listed})")

"""The options and helpers that several commands share.

The commands that train take options only for the training settings people change daily
(:data:`TRAIN_OPTIONS`); every other field of :class:`~experiments.runs.one.protocol.TrainConfig`
is an experiment file's ``[train]`` key and ``--set KEY=VALUE`` (:func:`set_values`), checked by the
same declarations as a file.  Preprocessing options are generated from the fields of
:class:`~preprocessing.config.PreprocessConfig` (their ``help`` and ``choices``).  Command modules
import from here, never from each other.
"""
from __future__ import annotations

import functools
import json
import tomllib
import types
import typing
from dataclasses import MISSING, fields
from pathlib import Path

import click
from click.core import ParameterSource

from experiments.runs.many.cluster import RayExecutor, import_ray
from experiments.runs.one.protocol import QUICK, RETIRED_SETTINGS, TrainConfig, rerun_at
from experiments.runs.one.reference import SHIPPED, ReferenceSet
from experiments.runs.many.scheduler import Executor, LocalExecutor, capped_jobs
from experiments.runs.one.spec import RunOptions
from experiments.runs.one.store import RunStore, safe_name, writable_folder
from experiments.studies.experiment import available
from experiments.studies.settings import Corpora, Settings, TrainChoice
from preprocessing.config import PreprocessConfig
from preprocessing.corpora import corpus_options, load_corpus, refuse_file_options
from preprocessing.errors import IsarcasmError, json_shown
from preprocessing.fileio import surrogate_at, surrogate_problem, toml_value
from preprocessing.limits import MAX_SEEDS
from preprocessing.pipeline import Preprocessor
from preprocessing.records import Dataset
from preprocessing.schema import from_mapping


def file_corpus_options(func):
    """Options that make a CSV/TSV/JSONL path usable wherever a corpus name is."""
    for option in reversed([
        click.option("--text-col", default="text", show_default=True, help="Text column of a file corpus."),
        click.option("--label-col", default="label", show_default=True, help="Label column of a file corpus (0/1, true/false or sarcastic/not_sarcastic)."),
        click.option("--split-col", default=None, help="Split column of a file corpus (default: every row is 'test')."),
        click.option("--text-file", default=None,
                     help="id<TAB>text file supplying tweet text for 'isarcasm-ids'."),
    ]):
        func = option(func)
    return func


#: The options of :func:`file_corpus_options`.
FILE_OPTIONS = ("text_col", "label_col", "split_col", "text_file")


def open_corpus(ctx: click.Context, name: str, text_col: str = "text", label_col: str = "label",
                split_col: str | None = None, text_file: str | None = None) -> Dataset:
    """Load a corpus by name or path with the file-corpus options applied where they matter (given
    for a built-in corpus, they are refused: nothing would read them)."""
    refuse_file_options(name, text_col, label_col, split_col, text_file)
    return load_corpus(name, data_dir(ctx), **corpus_options(name, text_col, label_col, split_col, text_file))


def checked_texts(texts: tuple[str, ...]) -> list[str]:
    """``--text`` values, refused when empty (as a file's empty text is: there is nothing to read) or
    when one holds a lone surrogate (an argument with bytes that are not UTF-8 reaches Python as lone
    surrogates), in the words a file's text is refused with."""
    for number, text in enumerate(texts, start=1):
        if not text.strip():
            raise IsarcasmError(f"--text number {number}: empty text; give the text itself, or leave that --text out")
        index = surrogate_at(text)
        if index is not None:
            raise IsarcasmError(f"--text number {number}: {surrogate_problem(text, index)}")
    return list(texts)


def data_dir(ctx: click.Context) -> Path:
    return ctx.find_root().obj["data_dir"]


def command_start(ctx: click.Context) -> list[str]:
    """How a command suggested to the user starts: ``isarcasm``, with this command line's ``--data-dir``."""
    root = ctx.find_root().params.get("data_dir")
    return ["isarcasm", *(("--data-dir", str(root)) if root else ())]


def echo_json(value) -> None:
    """``value`` as indented JSON, with the characters a terminal would act on escaped (:func:`json_shown`)."""
    click.echo(json_shown(json.dumps(value, indent=2, ensure_ascii=False)))


def json_option(func):
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")(func)


def jobs_option(func):
    """Where the runs of a command that trains many (reproduce, cross-eval, benchmark) are trained:
    ``--jobs`` on this machine, or ``--executor ray`` on a Ray cluster (see experiments/runs/many/scheduler.py
    and experiments/runs/many/cluster.py), parsed by :func:`executor_of`."""
    for option in reversed([
        click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
                     help="Runs trained at once, each in its own process with cores/JOBS threads (Keras' epoch "
                          "lines are then not shown). A run's digits can depend on its threads: the committed "
                          "ones are one thread per run, --jobs N on N cores (docs/protocol.md#same-numbers)."),
        click.option("--executor", "executor_kind", type=click.Choice(EXECUTORS), default="local", show_default=True,
                     help="local: this machine (--jobs); ray: Ray tasks on a cluster or a Ray started here "
                          "(pip install -e '.[ray]'); same runs, same numbers."),
        click.option("--address", default=None,
                     help="--executor ray: the cluster (auto, host:port, ray://host:10001)  "
                          "[default: start Ray in this process]"),
        click.option("--cpus-per-run", type=click.FloatRange(min=0, min_open=True), default=1, show_default=True,
                     help="--executor ray: CPUs reserved for one run (and its TensorFlow threads)."),
        click.option("--gpus-per-run", type=click.FloatRange(min=0), default=0, show_default=True,
                     help="--executor ray: GPUs reserved for one run (fractions share a GPU)."),
    ]):
        func = option(func)
    return func


#: ``--executor`` choices.
EXECUTORS = ("local", "ray")
#: The options of :func:`jobs_option`.
EXECUTOR_OPTIONS = ("jobs", "executor_kind", "address", "cpus_per_run", "gpus_per_run")


def split_list(value: str | None, option: str) -> list[str] | None:
    """``"a, b,c"`` -> ``["a", "b", "c"]``; None (``option`` not given) -> None, the command's default.
    Given, it must name something: ``--corpora ,`` is refused, never read as "all corpora"."""
    if value is None:
        return None
    names = [v.strip() for v in value.split(",") if v.strip()]
    if not names:
        raise IsarcasmError(f"{option} {value!r} names nothing: give comma-separated names, or leave {option} out "
                            "for the default")
    return names


def seeds_option(func):
    return click.option("--seeds", type=click.IntRange(min=1, max=MAX_SEEDS), default=None,
                        help=f"Seeds per cell, 0 .. N-1 (N at most {MAX_SEEDS:,})  [default: 5; 1 with --quick]")(func)


def seed_list(seeds: int | None, quick: bool, default: int | None = None) -> list[int]:
    """Seeds 0 .. N-1: ``--seeds`` N where given, else 1 with ``--quick``, else ``default`` (an experiment
    file's ``seeds``) or 5."""
    return list(range(seeds if seeds is not None else 1 if quick else default or 5))


def results_dir_option(func):
    return click.option("--results-dir", type=click.Path(file_okay=False), default="results", show_default=True,
                        help="Where results files (json, csv, md) and figures are written.")(func)


# --- training options ---------------------------------------------------------------------------

def _plain_type(hint):
    """``int | None`` -> ``int``."""
    if isinstance(hint, types.UnionType):
        return next(arg for arg in typing.get_args(hint) if arg is not type(None))
    return hint


def option_flag(name: str, value: bool = True) -> str:
    """The command-line option named after setting ``name`` (a true/false one: the option that sets ``value``,
    ``--lowercase`` or ``--no-lowercase``)."""
    return ("--" if value else "--no-") + name.replace("_", "-")


def option_type(f, hint):
    """The click type of a settings field: its choices, its declared range (so ``--epochs 0`` is a
    usage error naming the range, like a file's ``epochs = 0``), or its plain type."""
    if f.metadata.get("choices"):
        return click.Choice(f.metadata["choices"])
    limits = f.metadata.get("range")
    if limits is None or hint not in (int, float):
        return hint
    kind = click.IntRange if hint is int else click.FloatRange
    return kind(limits.low, limits.high, min_open=limits.low_open, max_open=limits.high_open)


#: The training settings that are options of every command that trains, the ones people change daily:
#: setting -> (option, help).  Every other setting is given with ``--set`` (or an experiment file's [train]).
TRAIN_OPTIONS = {"epochs": ("--epochs", "Training epochs  [default: 30, the paper's]"),
                 "batch_size": ("--batch-size", "Examples per training step  [default: 128, the paper's]"),
                 "learning_rate": ("--lr", "Adam's learning rate  [default: 0.001]")}


def training_options(func):
    """The options of every command that trains: the daily settings (:data:`TRAIN_OPTIONS`), ``--set`` for
    any other, the results name, then where runs are stored and how.  A setting left out is the experiment
    file's (the paper's where it sets none)."""
    hints, settings = typing.get_type_hints(TrainConfig), {f.name: f for f in fields(TrainConfig)}
    daily = [click.option(flag, name, type=option_type(settings[name], _plain_type(hints[name])),
                          default=settings[name].default, help=help_text)
             for name, (flag, help_text) in TRAIN_OPTIONS.items()]
    for option in reversed([
        *daily,
        click.option("--set", "set_items", multiple=True, metavar="KEY=VALUE",
                     help="Any other training setting, as an experiment file's [train] key (repeatable; "
                          "docs/protocol.md#settings): " + ", ".join(sorted(set(settings) - set(TRAIN_OPTIONS))) + "."),
        click.option("--name", "results_name", default=None,
                     help="Name of the results and runs of other settings  [default: the experiment's name, then "
                          "what differs, printed before training]"),
        click.option("--output-dir", type=click.Path(file_okay=False), default="runs", show_default=True,
                     help="Root of the run store."),
        click.option("--force", is_flag=True, help="Retrain runs that already finished."),
        click.option("--tensorboard", is_flag=True, help="Write TensorBoard logs beside the runs."),
        click.option("--quick", is_flag=True,
                     help=f"Smoke test: {QUICK['epochs']} epochs, {QUICK['max_train']} training examples."),
    ]):
        func = option(func)
    return func


def given(ctx: click.Context, name: str) -> bool:
    """Whether option ``name`` was given (on the command line or in the environment), not left at its default."""
    return ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)


def set_values(items: tuple[str, ...], cls=TrainConfig) -> dict:
    """``--set KEY=VALUE`` items as settings of ``cls`` (TrainConfig, or PreprocessConfig for ``train``),
    each value read as a TOML value (``0.2``, ``true``; a bare word is text) and checked by the fields'
    declarations as a file's are (:func:`preprocessing.schema.from_mapping`); a key that is an option of
    its own, or given twice, is refused in one line."""
    values = {}
    for item in items:
        key, equals, text = item.partition("=")
        key = key.strip().replace("-", "_")
        if not equals or not key:
            raise IsarcasmError(f"--set {item!r}: give KEY=VALUE, e.g. --set clip_global_norm=0.2")
        if key in TRAIN_OPTIONS:
            raise IsarcasmError(f"--set {key}: give it with its own option, {TRAIN_OPTIONS[key][0]}")
        if key in RETIRED_SETTINGS:
            raise IsarcasmError(rerun_at(f"--set {key} ({RETIRED_SETTINGS[key]})",
                                         f"the same command with --{key.replace('_', '-')} {text.strip()}"))
        if key in values:
            raise IsarcasmError(f"--set {key} is given twice: give it once")
        try:
            values[key] = toml_value(f"value = {text.strip()}", "--set")["value"]
        except tomllib.TOMLDecodeError:
            values[key] = text.strip()
    config = from_mapping(cls, values, "--set")
    return {key: getattr(config, key) for key in values}


#: The ``--set`` keys that are preprocessing settings (``train`` takes them; the studies use each corpus' own).
PREPROCESS_KEYS = frozenset(f.name for f in fields(PreprocessConfig))


def set_items_of(ctx: click.Context, preprocessing: bool) -> tuple[str, ...]:
    """The ``--set`` items of a command whose keys are (``preprocessing``) or are not preprocessing settings."""
    return tuple(item for item in ctx.params["set_items"]
                 if (item.partition("=")[0].strip().replace("-", "_") in PREPROCESS_KEYS) == preprocessing)


def train_choice(ctx: click.Context, set_items: tuple[str, ...] | None = None) -> TrainChoice:
    """The training options of a command (:func:`training_options`): those given (:func:`given`) and those
    of ``--set`` (``set_items`` where the command keeps some for itself), one step, :meth:`TrainChoice.over`,
    sets them over an experiment's; ``--quick`` sets some of them itself (so giving one of those beside it is
    refused); ``--name`` names the results."""
    typed = {name: ctx.params[name] for name in TRAIN_OPTIONS if given(ctx, name)}
    choice = TrainChoice({**typed, **set_values(ctx.params["set_items"] if set_items is None else set_items)},
                         ctx.params["quick"], ctx.params["results_name"])
    if choice.name is not None:
        safe_name(choice.name, "--name")
    overridden = [name for name in QUICK if name in choice.given] if choice.quick else []
    if overridden:
        flags = ", ".join(TRAIN_OPTIONS[name][0] if name in TRAIN_OPTIONS else f"--set {name}" for name in overridden)
        raise IsarcasmError(f"--quick sets {', '.join(f'{k} {v}' for k, v in QUICK.items())}: give {flags} or "
                            "--quick, not both")
    return choice


def _retired_settings() -> dict:
    """The option each setting had before it became a ``--set`` key (``--clip-global-norm``; a true/false
    preprocessing one: ``--no-lowercase`` too) -> (its key, the value it set where the option says it)."""
    settings = [f for f in fields(TrainConfig) if f.name not in TRAIN_OPTIONS] + list(fields(PreprocessConfig))
    flags = {option_flag(f.name): (f.name, "true" if f.type in (bool, "bool") else None) for f in settings}
    flags.update({option_flag(f.name, False): (f.name, "false") for f in fields(PreprocessConfig)
                  if f.type in (bool, "bool")})
    return flags


#: Options that no command has any more -> what replaces them (from the value given, and the experiment
#: named on the command line), said in one line by :class:`TrainingCommand`.
RETIRED = {
    "--protocol": lambda value, experiment: (
        f"--protocol is gone: the paper's settings are the default, `isarcasm reproduce {experiment}`"
        if value == "as-written" else f"--protocol is gone: the authors' protocols are experiment files, "
                                      f"`isarcasm reproduce {experiment}-{value or 'authors-code'}`"),
    **{flag: (lambda value, experiment, flag=flag, key=key, fixed=fixed:
              f"{flag} is gone: give --set {key}={fixed or value or 'VALUE'}")
       for flag, (key, fixed) in _retired_settings().items()},
}


class TrainingCommand(click.Command):
    """A command that trains: an option retired from it (``--protocol``, a setting's own option) is refused
    in one line naming what replaces it (:data:`RETIRED`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given_args = list(args)  # the parser consumes the list it reads
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            if exc.option_name not in RETIRED:
                raise
            args = given_args
            value = next((arg.partition("=")[2] or (args[i + 1] if i + 1 < len(args) else "")
                          for i, arg in enumerate(args) if arg.partition("=")[0] == exc.option_name), "")
            value = "" if value.startswith("-") else value
            experiment = next((arg for arg in args if arg in available()), "EXPERIMENT")
            raise click.UsageError(RETIRED[exc.option_name](value, experiment), ctx) from None


def executor_of(params: dict) -> Executor:
    """Where the runs of a study are trained (:func:`jobs_option`), refusing options the executor
    does not read."""
    if params["executor_kind"] == "ray":
        if params["jobs"] != 1:
            raise IsarcasmError("--jobs is for --executor local; with --executor ray, the cluster's CPUs "
                                "and --cpus-per-run decide how many runs train at once")
        import_ray()  # fail now, in one line, rather than after loading the corpora
        return RayExecutor(params["address"], params["cpus_per_run"], params["gpus_per_run"])
    if params["address"] is not None or params["cpus_per_run"] != 1 or params["gpus_per_run"] != 0:
        raise IsarcasmError("--address, --cpus-per-run and --gpus-per-run are for --executor ray")
    return LocalExecutor(capped_jobs(params["jobs"]))  # said once, here, before any progress bar


def corpora_of(ctx: click.Context) -> Corpora:
    """The corpora of a command, read with its file-corpus options (:func:`file_corpus_options`)."""
    return Corpora(data_dir(ctx), file_options(ctx))


def file_options(ctx: click.Context) -> dict:
    """The file-corpus options of a command (:func:`file_corpus_options`)."""
    return {name: ctx.params[name] for name in FILE_OPTIONS}


def reference_of(folder: str | None) -> ReferenceSet | None:
    """The reference set of ``--reference-dir`` (:func:`reference_option`); None without it."""
    return ReferenceSet(Path(folder)) if folder else None


def study_settings(ctx: click.Context) -> Settings:
    """The :class:`Settings` of a command that runs a study, parsed from its options in one step: its
    corpora, store, results folder, training options, run options, executor and reference set (a
    command without :func:`reference_option` reads runs from the store alone)."""
    params = ctx.params
    training, executor = train_choice(ctx), executor_of(params)  # refused before a folder is made
    return Settings(corpora_of(ctx), RunStore(writable_folder(Path(params["output_dir"]), "--output-dir")),
                    writable_folder(Path(params["results_dir"]), "--results-dir"), training,
                    RunOptions(force=params["force"], tensorboard=params["tensorboard"]), executor,
                    reference_of(params.get("reference_dir")))


def run_settings(ctx: click.Context) -> Settings:
    """The :class:`Settings` of a command that trains one run outside every study (``train``): its corpora,
    store, training options and run options; its store's folder is checked where it is first written."""
    params = ctx.params
    return Settings(corpora_of(ctx), RunStore(Path(params["output_dir"])),
                    training=train_choice(ctx, set_items_of(ctx, preprocessing=False)),
                    options=RunOptions(force=params["force"], tensorboard=params["tensorboard"]))


def takes_settings(study: bool = True):
    """A command gets its :class:`Settings` (:func:`study_settings`; :func:`run_settings` where not
    ``study``) as ``settings``, in place of the options it is parsed from."""
    def decorator(func):
        @functools.wraps(func)
        def command(*args, **params):
            ctx = click.get_current_context()
            settings = study_settings(ctx) if study else run_settings(ctx)
            return func(*args, settings=settings,
                        **{name: value for name, value in params.items() if name not in STUDY_OPTIONS})
        return command
    return decorator


def reference_option(func):
    """Where the shipped reference runs are (experiments/runs/one/reference.py)."""
    return click.option("--reference-dir", type=click.Path(file_okay=False), default=str(SHIPPED),
                        show_default=False,
                        help="The reference set: finished classic-model runs shipped with the repository, used "
                             "where the local data gives the same splits and settings (a run in --output-dir comes "
                             "first)  [default: the repository's docs/results/runs]")(func)


# --- preprocessing options ----------------------------------------------------------------------

def preprocess_options(func):
    """One option per PreprocessConfig field (``--numbers keep``, ``--no-lowercase``...).

    Every option defaults to ``None`` = "not given", so the config's own
    default applies, and a corpus can supply the language.
    """
    hints = typing.get_type_hints(PreprocessConfig)
    for f in reversed(fields(PreprocessConfig)):
        flag = option_flag(f.name)
        default = "" if f.default in (MISSING, None) else f" [default: {f.default}]"
        help_text = f.metadata["help"] + (" [default: corpus language, else en]" if f.name == "language" else default)
        kind = _plain_type(hints[f.name])
        if kind is bool:
            option = click.option(f"{flag}/{option_flag(f.name, False)}", f.name, default=None, help=help_text)
        else:
            option = click.option(flag, f.name, type=option_type(f, kind), default=None, help=help_text)
        func = option(func)
    return func


def pop_preprocess_options(options: dict) -> dict:
    """Split the preprocessing options off a command's keyword arguments."""
    return {f.name: options.pop(f.name) for f in fields(PreprocessConfig) if f.name in options}


def fit_on_train(dataset: Dataset, config: PreprocessConfig) -> Preprocessor | None:
    """A :class:`Preprocessor` fitted on the corpus' training split, as models
    are; ``None`` when the corpus has no training split."""
    train = [r.text for r in dataset.split("train")]
    if not train:
        return None
    extra = [r.text for r in dataset.records if r.split != "train"]
    return Preprocessor(config).fit(train, extra_texts=extra)



#: The options a study's :class:`Settings` is parsed from (:func:`takes_settings`).
STUDY_OPTIONS = frozenset((*TRAIN_OPTIONS, *EXECUTOR_OPTIONS, *FILE_OPTIONS, "output_dir", "results_dir", "force",
                           "tensorboard", "quick", "reference_dir", "set_items", "results_name"))

"""``isarcasm cross-eval`` and ``isarcasm benchmark``."""
from __future__ import annotations

import shlex
from pathlib import Path

import click

from experiments.cli.options import (
    FILE_OPTIONS,
    TRAIN_OPTIONS,
    TrainingCommand,
    command_start,
    echo_json,
    file_corpus_options,
    given,
    jobs_option,
    json_option,
    reference_option,
    results_dir_option,
    seed_list,
    seeds_option,
    split_list,
    takes_settings,
    training_options,
)
from experiments.reports.benchmark import benchmark_summary
from experiments.reports.kinds import kind_of, save_result, write_html
from experiments.reports.leaderboard import NAME as LEADERBOARD
from experiments.reports.leaderboard import benchmark_entries, leaderboard, leaderboard_markdown
from experiments.reports.significance import DEFAULT_METHOD, DEFAULT_RESAMPLES, METHODS
from experiments.results.files import COMMITTED
from experiments.runs.entrants.registry import ENTRANTS
from experiments.runs.one.store import writable_folder
from experiments.studies.benchmark import BenchmarkRequest, classic_models, parse_experiments, run_benchmark
from experiments.studies.cross_eval import CORPORA, run_cross
from experiments.studies.cross_eval import NAME as CROSS
from experiments.studies.entrants import register_entrant
from preprocessing.limits import MAX_RESAMPLES

#: Options repeated in the commands suggested for missing runs (so they make runs of the same protocol).
_PROTOCOL_OPTIONS = (*TRAIN_OPTIONS, "set_items", "results_name", "output_dir", "quick", *FILE_OPTIONS)


def _changed_options(ctx: click.Context) -> tuple[str, str]:
    """How to start and end another command with this command line's data directory and protocol options:
    those given (:func:`given`, the test that makes them the settings' ``given``), so that command
    resolves its training settings from the same options as this one."""
    parts = []
    for param in ctx.command.params:
        if param.name in _PROTOCOL_OPTIONS and given(ctx, param.name):
            flag, value = param.opts[-1], ctx.params[param.name]
            values = value if param.multiple else (value,)
            parts += [flag] if param.is_flag else [f"{flag} {shlex.quote(str(one))}" for one in values]
    return shlex.join(command_start(ctx)), "".join(f" {p}" for p in parts)


@click.command("cross-eval", cls=TrainingCommand)
@click.option("--models", default=None, help="Comma-separated models  [default: the seven classic models]")
@click.option("--corpora", default=None,
              help="Comma-separated corpora (names or files)  [default: isarcasm, isarcasmeval, semeval2018-a, "
                   "riloff, ptacek, sarc-pol]")
@seeds_option
@results_dir_option
@jobs_option
@training_options
@file_corpus_options
@takes_settings()
def cross_eval(models, corpora, seeds, settings):
    """Train each model on each corpus and test it on every corpus' test split.

    Finished runs are reused (from runs/cross/, or from table6/table7 runs with the same configuration);
    each run is tested with its own vocabulary and preprocessing. Writes results/cross.{json,csv,md}
    and a heatmap per model in results/cross/.
    """
    seeds = seed_list(seeds, settings.training.quick)
    result = run_cross(split_list(models, "--models") or classic_models(),
                       split_list(corpora, "--corpora") or list(CORPORA), seeds, settings)
    click.echo(kind_of(result).markdown(result))
    click.echo(f"heatmaps: {Path(settings.results_root, result.experiment)}/heatmap-<model>.png")


@click.command(cls=TrainingCommand)
@click.argument("model")
@click.option("--against", default="all", show_default=True,
              help="Models to compare with: 'all' (the classic models and the reference rows all-sarcastic, "
                   "majority, tfidf-lr) or a comma-separated list of them.")
@click.option("--experiments", default="table6,table7,cross", show_default=True,
              help="Comma-separated: table6, table7, cross, or .toml experiment files (an entrant: table ones only; "
                   "its default leaves cross out).")
@click.option("--corpora", default=None, help="Only these corpora (comma-separated) in every experiment.")
@seeds_option
@click.option("--test", "method", type=click.Choice(METHODS), default=DEFAULT_METHOD,
              show_default=True, help="Paired significance test (see experiments/reports/significance.py).")
@click.option("--resamples", type=click.IntRange(min=100, max=MAX_RESAMPLES), default=DEFAULT_RESAMPLES,
              show_default=True, help=f"Bootstrap resamples of the test examples (at most {MAX_RESAMPLES:,}).")
@click.option("--estimator", default=None, metavar="FILE.py",
              help="MODEL is the scikit-learn estimator FILE.py's make_estimator() returns (its PARAM_GRID chosen "
                   "on validation); see examples/sklearn_pipeline.py.")
@click.option("--predictions", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="MODEL is predictions made elsewhere: DIR/<corpus>.tsv (or <corpus>.seed-N.tsv) with columns id "
                   "and p_sarcastic or label, for the test split; see examples/outside_predictions.py.")
@click.option("--keras-model", default=None, metavar="FILE.py",
              help="MODEL is the Keras model FILE.py's build(train_texts, seed) returns: it reads raw text (its own "
                   "tokenizer) and gives P(sarcastic); trained here, epoch chosen on validation; see "
                   "examples/keras_hub_transformer.py.")
@reference_option
@results_dir_option
@jobs_option
@training_options
@file_corpus_options
@click.pass_context
@takes_settings()
def benchmark(ctx, model, against, experiments, corpora, seeds, method, resamples, estimator, predictions, keras_model,
              settings):
    """Run MODEL through the cells of the reproductions and rank it among the classic models and the
    reference rows.

    MODEL is trained (or its finished runs reused) in every cell; the classic models' existing runs
    are used, and missing ones are listed with the command that makes them; the reference rows
    (all-sarcastic, majority, tfidf-lr) are scored where missing in the table experiments'
    cells. Each comparison is a paired test on the same test predictions. Writes results/benchmark-MODEL.{json,md}.
    MODEL may also be a reference row (all-sarcastic, majority, tfidf-lr), a scikit-learn estimator
    (--estimator), outside predictions (--predictions) or a Keras model that reads raw text
    (--keras-model), scored in table experiments' cells.
    """
    register_entrant(model, estimator, predictions, keras_model)
    names = parse_experiments(experiments)
    if model in ENTRANTS and not given(ctx, "experiments"):
        names = [name for name in names if name != CROSS]  # an entrant has no model to apply to other corpora
    request = BenchmarkRequest(model, names, seed_list(seeds, settings.training.quick),
                               None if against == "all" else split_list(against, "--against"),
                               split_list(corpora, "--corpora"),
                               method, resamples)
    result = run_benchmark(request, settings, _changed_options(ctx))
    click.echo("\n".join(benchmark_summary(result)))
    if settings.shipped_runs:
        click.echo(f"\n{len(settings.shipped_runs)} classic runs came from the reference set {settings.reference.folder} "
                   "(verified against the local data); the others from the run store")
    click.echo(f"\nEvery cell, model and seed: {Path(settings.results_root, result.experiment)}.md (and .json)")


@click.command("leaderboard")
@results_dir_option
@click.option("--committed/--no-committed", default=True, show_default=True,
              help="Also the benchmarks committed in docs/results (marked 'committed'; an entrant benchmarked in "
                   "RESULTS_DIR is taken from there).")
@click.option("--html", is_flag=True,
              help="Also write RESULTS_DIR/leaderboard/index.html: the board with a figure per cell, its tables "
                   "sortable by their headers, self-contained (the figures are PNG files beside it).")
@json_option
def leaderboard_command(results_dir, committed, html, as_json):
    """Every benchmarked entrant beside the classic models and the floors, cell by cell, in one table.

    Reads RESULTS_DIR/benchmark-*.json (nothing is trained): per cell, mean ± std over seeds, the rank among
    every row, each entrant's paired test against the best classic model (Holm over the board), costs and
    the floors each row scores below. Entrants benchmarked on other seeds, settings or data are shown apart,
    with why. Writes RESULTS_DIR/leaderboard.{json,md}.
    """
    folder = writable_folder(Path(results_dir), "--results-dir")
    board = leaderboard(*benchmark_entries(folder, COMMITTED if committed else None))
    save_result(board, folder)
    if as_json:
        echo_json(board.to_dict())
    else:
        click.echo(leaderboard_markdown(board))
    if html:
        click.echo(f"leaderboard page: {write_html(board, folder / LEADERBOARD)}", err=as_json)

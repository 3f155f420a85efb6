"""``isarcasm cross-eval`` and ``isarcasm benchmark``."""
from __future__ import annotations

from pathlib import Path

import click
from click.core import ParameterSource

from experiments.cli.options import data_dir, file_corpus_options, jobs_option
from experiments.cli.reproduce import _split_list
from experiments.cli.train import train_config, training_options
from preprocessing.errors import IsarcasmError

#: Options repeated in the commands suggested for missing runs (so they make runs of the same protocol).
_PROTOCOL_OPTIONS = ("epochs", "batch_size", "learning_rate", "selection", "select_on", "class_weight", "tune_threshold",
                     "embeddings", "context", "output_dir", "quick", "text_col", "label_col", "split_col", "text_file")


def _seeds(seeds: int | None, quick: bool) -> list[int]:
    seeds = seeds if seeds is not None else (1 if quick else 5)
    if seeds < 1:
        raise IsarcasmError("--seeds must be at least 1")
    return list(range(seeds))


def _settings(ctx, output_dir, force, tensorboard, config, file_options, jobs):
    from experiments.studies.cross_eval import Settings

    return Settings(data_dir(ctx), Path(output_dir), config, file_options, force=force, tensorboard=tensorboard,
                    jobs=jobs)


def _changed_options(ctx: click.Context) -> tuple[str, str]:
    """How to start and end another command with this command line's data directory and protocol options."""
    parts = []
    for param in ctx.command.params:
        if param.name in _PROTOCOL_OPTIONS and ctx.get_parameter_source(param.name) is ParameterSource.COMMANDLINE:
            flag, value = param.opts[-1], ctx.params[param.name]
            parts.append(flag if param.is_flag else f"{flag} {value}")
    root = ctx.find_root().params.get("data_dir")
    return "isarcasm" + (f" --data-dir {root}" if root else ""), "".join(f" {p}" for p in parts)


@click.command("cross-eval")
@click.option("--models", default=None, help="Comma-separated models  [default: the seven classic models]")
@click.option("--corpora", default=None,
              help="Comma-separated corpora (names or files)  [default: isarcasm, isarcasmeval, semeval2018-a, "
                   "riloff, ptacek, sarc-pol]")
@click.option("--seeds", type=int, default=None, help="Seeds per cell, 0 .. N-1  [default: 5; 1 with --quick]")
@click.option("--results-dir", type=click.Path(file_okay=False), default="results", show_default=True)
@jobs_option
@training_options
@file_corpus_options
@click.pass_context
def cross_eval(ctx, models, corpora, seeds, results_dir, jobs, output_dir, force, tensorboard, quick, **options):
    """Train each model on each corpus and test it on every corpus' test split.

    Finished runs are reused (from runs/cross/, or from table6/table7 runs with the same configuration);
    each run is tested with its own vocabulary and preprocessing. Writes results/cross.{json,csv,md}
    and a heatmap per model in results/cross/.
    """
    from experiments.studies.benchmark import classic_models
    from experiments.studies.cross_eval import CORPORA, run_cross

    config = train_config(options, quick)  # the rest are corpus options
    settings = _settings(ctx, output_dir, force, tensorboard, config, options, jobs)
    result = run_cross(_split_list(models) or classic_models(), _split_list(corpora) or list(CORPORA),
                       _seeds(seeds, quick), settings, Path(results_dir))
    click.echo(Path(results_dir, f"{result['experiment']}.md").read_text(encoding="utf-8"))
    click.echo(f"heatmaps: {Path(results_dir, result['experiment'])}/heatmap-<model>.png")


@click.command()
@click.argument("model")
@click.option("--against", default="all", show_default=True,
              help="Classic models to compare with: 'all' or a comma-separated list.")
@click.option("--experiments", default="table6,table7,cross", show_default=True,
              help="Comma-separated: table6, table7, cross, or .toml experiment files.")
@click.option("--corpora", default=None, help="Only these corpora (comma-separated) in every experiment.")
@click.option("--seeds", type=int, default=None, help="Seeds per cell, 0 .. N-1  [default: 5; 1 with --quick]")
@click.option("--test", "method", type=click.Choice(["bootstrap", "mcnemar"]), default="bootstrap",
              show_default=True, help="Paired significance test (see experiments/significance.py).")
@click.option("--resamples", type=click.IntRange(min=100), default=10_000, show_default=True,
              help="Bootstrap resamples of the test examples.")
@click.option("--results-dir", type=click.Path(file_okay=False), default="results", show_default=True)
@jobs_option
@training_options
@file_corpus_options
@click.pass_context
def benchmark(ctx, model, against, experiments, corpora, seeds, method, resamples, results_dir, jobs, output_dir,
              force, tensorboard, quick, **options):
    """Run MODEL through the cells of the reproductions and rank it among the classic models.

    MODEL is trained (or its finished runs reused) in every cell; the classic models' existing runs
    are used, and missing ones are listed with the command that makes them. Each comparison is a
    paired test on the same test predictions. Writes results/benchmark-MODEL.{json,md}.
    """
    from experiments.studies.benchmark import benchmark_summary, parse_experiments, run_benchmark

    config = train_config(options, quick)  # the rest are corpus options
    settings = _settings(ctx, output_dir, force, tensorboard, config, options, jobs)
    result = run_benchmark(model, parse_experiments(experiments), None if against == "all" else _split_list(against),
                           _seeds(seeds, quick), settings, Path(results_dir), _split_list(corpora), method, resamples,
                           _changed_options(ctx))
    click.echo("\n".join(benchmark_summary(result)))
    click.echo(f"\nEvery cell, model and seed: {Path(results_dir, result['experiment'])}.md (and .json)")

"""``isarcasm reproduce`` and ``isarcasm report``."""
from __future__ import annotations

from pathlib import Path

import click

from experiments.cli.options import data_dir, echo_json, file_corpus_options, jobs_option, json_option
from experiments.cli.train import train_config, training_options
from experiments.runs.store import read_json
from experiments.studies.experiment import available, load_experiment
from preprocessing.errors import IsarcasmError


def _split_list(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


@click.command()
@click.argument("experiment")
@click.option("--seeds", type=int, default=None, help="Seeds per cell, 0 .. N-1  [default: 5; 1 with --quick]")
@click.option("--models", default=None, help="Comma-separated subset of models.")
@click.option("--corpora", default=None, help="Comma-separated subset of corpora.")
@click.option("--results-dir", type=click.Path(file_okay=False), default="results", show_default=True)
@jobs_option
@training_options
@file_corpus_options
@click.pass_context
def reproduce(ctx, experiment, seeds, models, corpora, results_dir, output_dir, force, tensorboard, quick, jobs,
              **options):
    """Run every cell of an experiment (table6, table7, or a .toml file) and print the report.

    Finished runs are reused, so an interrupted reproduction resumes.
    """
    from experiments.studies.reproduce import run_experiment

    seeds = seeds if seeds is not None else (1 if quick else 5)
    if seeds < 1:
        raise IsarcasmError("--seeds must be at least 1")
    spec = load_experiment(experiment).select(_split_list(models), _split_list(corpora))
    config = train_config(options, quick, spec.protocol())  # the rest are corpus options
    result = run_experiment(spec, data_dir(ctx), Path(output_dir), Path(results_dir), list(range(seeds)),
                            config, quick=quick, force=force, tensorboard=tensorboard, file_options=options,
                            jobs=jobs)
    click.echo(Path(results_dir, f"{result['experiment']}.md").read_text(encoding="utf-8"))


@click.command()
@click.argument("experiment")
@click.option("--results-dir", type=click.Path(file_okay=False), default="results", show_default=True)
@click.option("--html", is_flag=True,
              help="Also draw the figures (PNG) and write RESULTS_DIR/EXPERIMENT/index.html showing them.")
@click.option("--against", metavar="OTHER",
              help="Compare with another results file of the same cells, e.g. a variant: "
                   "`isarcasm report multilingual --against multilingual-context-all`.")
@json_option
def report(experiment, results_dir, html, against, as_json):
    """Print the report of a results file: a reproduction (published beside ours), cross, or benchmark-MODEL."""
    result = _results(results_dir, experiment)
    if against:
        from experiments.reports.table import comparison_markdown

        click.echo(comparison_markdown(result, _results(results_dir, against)))
        return
    text = report_markdown(result)
    if as_json:
        echo_json(result)
    else:
        click.echo(text)
    if html:
        from experiments.reports.figures import write_html_report

        page = write_html_report(result, text, Path(results_dir) / experiment)
        click.echo(f"report with figures: {page}", err=as_json)


def _results(results_dir: str, experiment: str) -> dict:
    path = Path(results_dir) / f"{experiment}.json"
    if not path.is_file():
        raise IsarcasmError(f"no results for '{experiment}' in {results_dir}/ "
                            f"(run `isarcasm reproduce {experiment}` first; experiments: {', '.join(available())})")
    return read_json(path)


def report_markdown(result: dict) -> str:
    """The markdown report of any results file: a table reproduction, the cross-dataset matrix or a benchmark."""
    from experiments.reports.table import markdown_report
    from experiments.studies.benchmark import benchmark_markdown
    from experiments.studies.cross_eval import cross_markdown

    return {"cross": cross_markdown, "benchmark": benchmark_markdown}.get(result.get("kind"), markdown_report)(result)

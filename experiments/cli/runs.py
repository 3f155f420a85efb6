"""``isarcasm runs``: the reference set of finished runs shipped with the repository."""
from __future__ import annotations

from pathlib import Path

import click

from experiments.cli.options import data_dir, file_corpus_options, results_dir_option
from experiments.reports.results import load_results
from experiments.runs.reference import SHIPPED
from experiments.runs.store import read_json, writable_folder
from experiments.studies.reference_set import export_results
from experiments.studies.settings import Settings
from preprocessing.errors import IsarcasmError


@click.group("runs")
def runs() -> None:
    """The reference set: finished runs shipped with the repository (docs/results/runs)."""


@runs.command("export")
@click.argument("experiments", nargs=-1, required=True)
@results_dir_option
@click.option("--output-dir", type=click.Path(file_okay=False), default="runs", show_default=True,
              help="The run store, where a run the results file names is looked for when it is not where it names it.")
@click.option("--to", "to", type=click.Path(file_okay=False), default=str(SHIPPED), show_default=False,
              help="Where the reference set is written  [default: the repository's docs/results/runs]")
@file_corpus_options
@click.pass_context
def export_command(ctx, experiments, results_dir, output_dir, to, **options):
    """Write the runs behind results files (e.g. table7 table7-authors-code) as the reference set.

    Each run is checked against the local data first (its configuration hash), and each split's
    text ids and gold labels are recorded, so that a user's machine uses it only where its data
    gives the same splits. Every run must be finished: one missing is an error.
    """
    folder = writable_folder(Path(to), "--to")
    for experiment in experiments:
        path = Path(results_dir) / f"{experiment}.json"
        if not path.is_file():
            raise IsarcasmError(f"no results '{experiment}' in {results_dir}/: give --results-dir, or make them "
                                f"with `isarcasm reproduce {experiment}`")
        settings = Settings(data_dir(ctx), Path(output_dir), Path(results_dir), file_options=options)
        index, arrays = export_results(load_results(path), settings, folder)
        size = (index.stat().st_size + arrays.stat().st_size) / 1e6
        click.echo(f"{experiment}: {len(read_json(index)['runs'])} runs -> {index} and {arrays.name} ({size:.1f} MB)")

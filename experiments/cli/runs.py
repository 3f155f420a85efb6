"""``isarcasm runs``: the reference set of finished runs shipped with the repository."""
from __future__ import annotations

from pathlib import Path

import click

from experiments.cli.options import (
    corpora_of,
    executor_of,
    file_corpus_options,
    jobs_option,
    reference_of,
    reference_option,
    results_dir_option,
)
from experiments.runs.one import provenance
from experiments.runs.one.reference import SHIPPED
from experiments.runs.one.store import RunStore, read_json, safe_name, writable_folder
from experiments.studies.reference_set import export_results, spot_check
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
@click.option("--name", metavar="NAME",
              help="Write the set's file as NAME.json and NAME.npz instead of under the results file's name (one "
                   "EXPERIMENT only), e.g. table7-seeds-5-9 beside the shipped table7.")
@file_corpus_options
@click.pass_context
def export_command(ctx, experiments, results_dir, output_dir, to, name, **options):
    """Write the runs behind results files (e.g. table7 table7-authors-code) as the reference set.

    Each run is checked against the local data first (its configuration hash), and each split's
    text ids and gold labels are recorded, so that a user's machine uses it only where its data
    gives the same splits. Every run must be finished: one missing is an error. The index records the
    results file (its text and sha256), which reports then find by name on a fresh clone. A run another
    file of the set already ships (same key and configuration) is left out, not shipped twice; an export
    that would contradict or drop a shipped run is refused.
    """
    if name and len(experiments) > 1:
        raise IsarcasmError(f"--name names one file: give one EXPERIMENT with it, not {len(experiments)}")
    folder = writable_folder(Path(to), "--to")
    for experiment in experiments:
        path = Path(results_dir) / f"{experiment}.json"
        if not path.is_file():
            raise IsarcasmError(f"no results '{experiment}' in {results_dir}/: give --results-dir, or make them "
                                f"with `isarcasm reproduce {experiment}`")
        settings = Settings(corpora_of(ctx), RunStore(Path(output_dir)), Path(results_dir))
        index, arrays, elsewhere = export_results(path, settings, folder, name and safe_name(name, "--name"))
        size = (index.stat().st_size + arrays.stat().st_size) / 1e6
        shipped = (f"; {len(elsewhere)} already shipped in {', '.join(sorted(set(elsewhere.values())))}, left out"
                   if elsewhere else "")
        click.echo(f"{experiment}: {len(read_json(index)['runs'])} runs -> {index} and {arrays.name} ({size:.1f} MB)"
                   + shipped)


@runs.command("verify")
@click.argument("experiment")
@click.option("--sample", type=click.IntRange(min=1), default=3, show_default=True,
              help="How many of the experiment's reference runs to retrain.")
@click.option("--seed", type=int, default=0, show_default=True, help="Which runs are drawn.")
@click.option("--output-dir", type=click.Path(file_okay=False), default="runs", show_default=True,
              help="The run store; the retrained runs go to OUTPUT_DIR/.reference-check.")
@reference_option
@jobs_option
@file_corpus_options
@click.pass_context
def verify_command(ctx, experiment, sample, seed, output_dir, reference_dir, jobs, **options):
    """Retrain a sample of EXPERIMENT's reference runs and say whether each repeats to the last digit.

    On the same code and type of machine a run repeats exactly; on another CPU it can differ a little
    (docs/results/archive/engine-exact/cross-engine-exact.md#reproducibility): compare whole sets of seeds with
    benchmarks/same_distribution.py (seed by seed where both sets hold the same seeds).
    """
    settings = Settings(corpora_of(ctx), RunStore(writable_folder(Path(output_dir), "--output-dir")),
                        executor=executor_of(ctx.params), reference=reference_of(reference_dir))
    checked = spot_check(experiment, sample, settings, seed)
    here = provenance.machine()
    differences = sorted({provenance.cpu_difference(run["machine"], here) for run in checked})
    click.echo("the shipped runs were trained on a CPU like this one (name, vector instructions, model where recorded)"
               if differences == [""] else "the shipped runs were not trained on a CPU known to be like this one "
               f"({' | '.join(filter(None, differences))}), so their digits need not repeat here")
    for run in checked:
        if "failed" in run:
            verdict = f"its training failed here ({run['failed']})"
        elif run["identical"]:
            verdict = "the same to the last digit"
        else:
            verdict = (f"differs: test F1 {run['f1'][0]:.4f} shipped, {run['f1'][1]:.4f} here; largest difference of a "
                       f"test probability {run['largest_difference']:.2g}")
        click.echo(f"{run['key']}: {verdict}")
    same = sum(run.get("identical", False) for run in checked)
    click.echo(f"{same} of {len(checked)} retrained runs repeat the shipped ones to the last digit"
               + ("" if same == len(checked) else "; runs of another CPU or library version differ a little: "
                  "benchmarks/same_distribution.py compares whole sets of seeds"))

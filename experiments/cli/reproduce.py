"""``isarcasm reproduce`` and ``isarcasm report``."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from experiments.cli.options import (
    TrainingCommand,
    data_dir,
    echo_json,
    file_corpus_options,
    jobs_option,
    json_option,
    reference_option,
    results_dir_option,
    seed_list,
    seeds_option,
    split_list,
    reference_of,
    takes_settings,
    training_options,
)
from experiments.reports.fidelity import protocol_note
from experiments.reports.kinds import kind_of, save_result, write_html
from experiments.reports.merge import merged
from experiments.reports.table import comparison_markdown
from experiments.results.files import ResultsFiles, load_results
from experiments.results.schema import Result
from experiments.runs.one.protocol import RULES
from experiments.runs.one.reference import shipped_count
from experiments.runs.one.store import RunStore, safe_name, writable_folder
from experiments.studies.experiment import Experiment, available, load_experiment
from experiments.studies.reproduce import run_experiment
from experiments.studies.fidelity import elements as elements_of
from experiments.studies.fidelity import fidelity as fidelity_of
from experiments.studies.selection import reselect
from experiments.studies.settings import Corpora, Settings
from preprocessing.errors import IsarcasmError


def _experiment(ctx: click.Context, param: click.Parameter, name: str) -> Experiment:
    """``reproduce``'s EXPERIMENT, read as its options are parsed: a misspelled file is refused before
    anything (its settings' folders) is made."""
    return load_experiment(name)


@click.command(cls=TrainingCommand)
@click.argument("experiment", callback=_experiment)
@seeds_option
@click.option("--models", default=None, help="Comma-separated subset of models.")
@click.option("--corpora", default=None, help="Comma-separated subset of corpora.")
@click.option("--references", is_flag=True,
              help="Also the reference rows, not from the paper, per corpus and seed: all-sarcastic, majority and "
                   "tfidf-lr (TF-IDF + logistic regression, C chosen on validation).")
@click.option("--retrain", is_flag=True,
              help="Train the runs the reference set holds instead of using them (finished runs in --output-dir "
                   "are still reused; --force retrains those too).")
@reference_option
@results_dir_option
@jobs_option
@training_options
@file_corpus_options
@takes_settings()
def reproduce(experiment, seeds, models, corpora, references, retrain, settings):
    """Run every cell of an experiment (table6, table7, table7-authors-code, ... or a .toml file) and print
    the report.

    Finished runs are reused, so an interrupted reproduction resumes; so are the shipped reference
    runs (docs/results/runs) where the local data gives the same splits, unless --retrain.
    """
    spec = experiment.select(split_list(models, "--models"), split_list(corpora, "--corpora"))
    settings = replace(settings, reference=None if retrain else settings.reference)
    seeds = seed_list(seeds, settings.training.quick, experiment.seeds)
    result = run_experiment(spec, seeds, settings, references=references)
    click.echo(_noted(kind_of(result).markdown(result), protocol_note(result, settings.results_root)))


@click.command()
@click.argument("experiment")
@results_dir_option
@click.option("--html", is_flag=True,
              help="Also draw the figures (PNG) and write RESULTS_DIR/EXPERIMENT/index.html showing them.")
@click.option("--against", metavar="OTHER",
              help="Compare with another results file of the same cells, e.g. a variant: "
                   "`isarcasm report multilingual --against multilingual-context-all`.")
@click.option("--selection", type=click.Choice(RULES), default=None,
              help="Rescore a reproduction's runs under another selection rule, from their per-epoch records "
                   "(nothing is trained); saved as EXPERIMENT-selection-RULE.")
@click.option("--fidelity", is_flag=True,
              help="The paper as written beside the authors' own code (needs EXPERIMENT and EXPERIMENT-authors-code "
                   "results: reproduce EXPERIMENT-authors-code); saved as EXPERIMENT-fidelity.")
@click.option("--elements", is_flag=True,
              help="Each training element of the authors' code alone (the EXPERIMENT-<element> results of reproduce "
                   "--set clip_global_norm=0.2 --name EXPERIMENT-clip-global-norm-0.2, ...) beside EXPERIMENT as "
                   "written, model by model on paired seeds, from the results files alone; saved as "
                   "EXPERIMENT-elements. See docs/protocol.md.")
@click.option("--merge", type=click.Path(exists=True, dir_okay=False), default=None, metavar="FILE",
              help="Add the cells of FILE, results of the same experiment, seeds and training settings made by "
                   "another sweep (of other models, e.g. `reproduce table7 --models siarn,miarn --set "
                   "clip_global_norm=0.1 --results-dir other`); saved as EXPERIMENT, recording each sweep's command and commit.")
@click.option("--output-dir", type=click.Path(file_okay=False), default="runs", show_default=True,
              help="The run store: --selection, --fidelity and --html read the runs a results file names; those not "
                   "on this machine come from the reference set, verified and copied into OUTPUT_DIR/.reference.")
@reference_option
@json_option
@file_corpus_options
@click.pass_context
def report(ctx, experiment, results_dir, html, against, selection, fidelity, elements, merge,
           output_dir, reference_dir, as_json, **options):
    """Print the report of a results file: a reproduction (published beside ours), cross, or benchmark-MODEL."""
    settings = Settings(Corpora(data_dir(ctx), options), RunStore(Path(output_dir)), Path(results_dir),
                        reference=reference_of(reference_dir))
    localised, files = _localiser(settings), ResultsFiles(Path(results_dir))
    if fidelity and elements:
        raise IsarcasmError("--fidelity and --elements are two reports of the same results: give one of them")
    if merge:
        if fidelity or elements or selection or against:
            raise IsarcasmError("--merge writes the merged results file: give it alone, then the other options")
        saved = save_result(merged(_results(files, experiment), load_results(Path(merge)), merge),
                            writable_folder(Path(results_dir), "--results-dir"))
        click.echo(f"saved {saved[0].with_suffix('.*')} (the cells of {merge} added)", err=True)
    if fidelity or elements:
        result = fidelity_of(experiment, files, localised) if fidelity else elements_of(experiment, files)
        saved = save_result(result, writable_folder(Path(results_dir), "--results-dir"))
        click.echo(f"saved {saved[0].with_suffix('.*')}", err=True)
        experiment = result.experiment
    result = _results(files, experiment)
    if selection:
        result = reselect(result, selection, localised)
        if result.experiment != experiment:
            saved = save_result(result, writable_folder(Path(results_dir), "--results-dir"))
            click.echo(f"saved {saved[0].with_suffix('.*')} (rule '{result.selection}' applied to the runs' "
                       f"per-epoch records in "
                       f"{result.reselect_seconds:.1f} s)", err=True)
    elif html:
        result = localised(result)
    if against:
        click.echo(comparison_markdown(result, _results(files, against)))
        return
    if as_json:
        echo_json(result.to_dict())
    else:
        click.echo(_noted(kind_of(result).markdown(result), protocol_note(result, Path(results_dir))))
    if html:
        folder = writable_folder(Path(results_dir), "--results-dir") / safe_name(experiment, "experiment")
        page = write_html(result, folder)
        click.echo(f"report with figures: {page}", err=as_json)


def _noted(report: str, note: str) -> str:
    """A printed report and its closing note (:func:`protocol_note`), when it has one."""
    return report + (f"\n{note}" if note else "")


def _localiser(settings: Settings):
    """:meth:`Settings.localised`, saying (once per results file) how many runs came from the reference set."""
    said = set()

    def localised(result: Result) -> Result:
        local = settings.localised(result)
        count = shipped_count(run for cell in local.cells for run in cell.get("runs", []))
        if count and result.experiment not in said:
            said.add(result.experiment)
            click.echo(f"{result.experiment}: {count} of {sum(len(c.get('runs', [])) for c in local.cells)} "
                       f"runs from the reference set {settings.reference.folder} (verified against the local data)", err=True)
        return local
    return localised


def _results(files: ResultsFiles, experiment: str) -> Result:
    """Results ``experiment`` where ``files`` finds them (saying where, when not in the results folder)."""
    result = files.find(experiment)
    if result is None:
        raise IsarcasmError(f"{files.missing(experiment)}; experiments: {', '.join(available())})")
    for name, where in files.found.items():
        click.echo(f"{name}: none in {files.folder}/, read {where}", err=True)
    files.found.clear()
    return result

"""Exporting the runs behind a results file as the reference set (see experiments/runs/one/reference.py)."""
from __future__ import annotations

import random
from pathlib import Path

from experiments.results.files import load_results, results_text
from experiments.runs.one.provenance import without_options
from experiments.runs.one.reference import Backing, export, key_of, repeats, spec_of
from experiments.runs.many.scheduler import RunTask, run_tasks
from experiments.runs.one.spec import RunPlace
from experiments.runs.one.store import REFERENCE_CHECK, read_config
from experiments.studies.settings import Settings
from preprocessing.errors import IsarcasmError


def export_results(path: Path, settings: Settings, to: Path, name: str | None = None) -> tuple[Path, Path, dict]:
    """Write every run of the results file ``path``'s cells to ``to/<name>.{json,npz}``, recording that
    file; return both files and the runs another file of the set already ships (key -> file name), left out
    (:func:`experiments.runs.one.reference.export`).

    A run is read where the results file names it, else at the same place under the store
    ``settings.store.root`` (a store copied or mounted elsewhere).  Every run must be there: a reference
    set with a seed missing would rank and average fewer runs than the results file it stands for.
    """
    result, text = load_results(path), results_text(path)
    if result.kind != "table":
        raise IsarcasmError(f"'{result.experiment}' holds {result.kind} results: only a reproduction's runs are "
                            "exported (the cross matrix applies each run's model to other corpora, and models are "
                            "not shipped)")
    named = [run for cell in result.cells for run in cell.get("runs", [])]
    if not named:
        raise IsarcasmError(f"'{result.experiment}' names no runs: nothing to export")
    runs = [Path(run) if Path(run).is_dir() else settings.store.root / key_of(Path(run)) for run in named]
    missing = [run for run in runs if not run.is_dir()]
    if missing:
        raise IsarcasmError(f"{len(missing)} of {len(runs)} runs of '{result.experiment}' are neither where the "
                            f"results file names them nor under --output-dir {settings.store.root} (first: "
                            f"{missing[0]}): make them with `{result.command or 'isarcasm reproduce ...'}` "
                            "(finished runs are reused), then export again")
    corpora = dict.fromkeys(read_config(run)["corpus"] for run in runs)
    backing = Backing(result.experiment, retrain_command(result.command, result.experiment), text)
    return export(backing, runs, {corpus: settings.corpora.load(corpus) for corpus in corpora},
                  settings.corpora.data_dir, to, name)


#: Options of the command that made a results file that say where and how fast, not what: left out of
#: the command an export records (with their values), as are the cells chosen.
_WHERE = {"--output-dir", "--results-dir", "--jobs", "--executor", "--address", "--cpus-per-run", "--gpus-per-run",
          "--corpora", "--models"}


def retrain_command(command: str | None, experiment: str) -> str:
    """The command that made the results, from its verb on (``reproduce table7 --seeds 5``), without the
    options of :data:`_WHERE` nor ``--references``: the index's ``made_by``, a record of how they were made.  A
    refusal to use a run never suggests it (an old index's names options since removed):
    :meth:`~experiments.runs.one.reference.ReferenceSet.materialised` names the results the file backs."""
    words = (command or "").split()
    verb = next((i for i, word in enumerate(words) if word in ("reproduce", "cross-eval")), None)
    if verb is None:
        return f"isarcasm reproduce {experiment}"
    return " ".join(["isarcasm", *without_options(words[verb:], _WHERE, ("--references",))])


def spot_check(experiment: str, sample: int, settings: Settings, seed: int = 0) -> list[dict]:
    """Retrain ``sample`` of the reference runs behind results ``experiment`` (drawn with ``seed``) in
    ``<store>/.reference-check/``, each from its own configuration, and compare each with the shipped
    run (:func:`experiments.runs.one.reference.repeats`): a user can trust the set without retraining it all.
    Each shipped run is verified against the local data first, as any use of it is.  Each result also holds
    the CPU the shipped run recorded (``machine``), since a run repeats to the last digit only on a like CPU."""
    keys = settings.reference.keys(experiment)
    if not keys:
        raise IsarcasmError(f"the reference set {settings.reference.folder} holds no runs of '{experiment}' "
                            "(its runs are exported with `isarcasm runs export`)")
    chosen = sorted(random.Random(seed).sample(keys, min(sample, len(keys))))
    shipped = [settings.shipped(key, strict=True) for key in chosen]
    configs = [read_config(run) for run in shipped]
    specs = [spec_of(config) for config in configs]
    tasks = [RunTask(spec, RunPlace(settings.store.root / REFERENCE_CHECK / key), settings.corpora.data_dir,
                     tuple(sorted(settings.corpora.options(spec.corpus).items())))
             for key, spec in zip(chosen, specs)]
    results = run_tasks(tasks, {spec.corpus: settings.corpora.load(spec.corpus) for spec in specs}, settings.executor,
                        f"{experiment}: retraining {len(tasks)} reference run(s)")
    return [{"key": key, "shipped": str(run), "retrained": str(result.directory), "machine": config.get("machine", {}),
             **(repeats(run, result.directory) if not result.failure else {"failed": result.failure})}
            for key, run, config, result in zip(chosen, shipped, configs, results)]

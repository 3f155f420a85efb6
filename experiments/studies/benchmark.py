"""Benchmark a model against the classic ones, cell by cell, under the same protocol.

The new model is run through the cells of the experiments named (``table6``,
``table7``: the same corpora, seeds and training settings as the
reproduction, stored in the same run store so finished runs are reused;
``cross``: the cross-dataset matrix).  For each cell it gets a rank among the
classic models and, in the table experiments' cells, the reference rows
(all-sarcastic, majority, TF-IDF + LR) by the mean over seeds of the cell's
main metric (sarcastic-class F1; macro-F1 for multi-class corpora) and,
against each of them, a paired significance test on the same test predictions
(:mod:`experiments.reports.significance`; paired bootstrap by default).  The
reference rows are cheap, so they are scored where missing, stored as
``reproduce --references`` stores them: a model is never "rank 1" among the
neural models without the rows that say whether it beats a simple baseline.

The classic models are not trained here: training all of them takes hours.
Their finished runs are used where they exist with the same protocol (same
training settings, preprocessing, data and splits); the missing ones are
listed with the command that makes them.  Results go to
``results/benchmark-<model>.{json,md}``.

The model may also be an entrant (:mod:`experiments.studies.entrants`): a reference row such as
``tfidf-lr``, a scikit-learn estimator (``--estimator``) or outside predictions (``--predictions``),
whose runs are scored rather than trained, in the table experiments' cells.
"""
from __future__ import annotations

import shlex
import time
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path

import numpy as np

from experiments.reports.benchmark import compared_rows, competition_ranks
from experiments.reports.kinds import save_result
from experiments.runs.one.operating_point import all_sarcastic_floor
from experiments.reports.significance import DEFAULT_METHOD, DEFAULT_RESAMPLES, compare_runs, holm
from experiments.results.schema import Result
from experiments.runs.one import provenance
from experiments.runs.entrants.registry import ENTRANTS, REFERENCES, corpus_checksums, recorded_costs
from experiments.runs.one.footprint import COSTS
from experiments.runs.one.metrics import main_metric, summary_stats
from experiments.runs.one.spec import RunSpec
from experiments.runs.one.store import CONFIG, SCORED, read_config, read_metrics, run_state
from experiments.runs.one.outputs import model_parameters
from experiments.studies.cross_eval import CORPORA, Scored, cross_cells
from experiments.studies.cross_eval import NAME as CROSS
from experiments.studies.entrants import entrant_cells, plan_cells, reference_cells, run_entrant_experiment
from experiments.studies.experiment import Cell, Experiment, load_experiment
from experiments.studies.reproduce import run_experiment
from experiments.studies.settings import Settings
from preprocessing.corpora import corpus_label
from preprocessing.errors import IsarcasmError

EXPERIMENTS = ("table6", "table7", CROSS)


@dataclass
class BenchCell:
    experiment: str
    label: str
    candidate: list[Scored]
    classics: dict[str, list[Scored]]
    #: The reference rows scored in the cell (none in the cross-dataset cells).
    references: dict[str, list[Scored]] = field(default_factory=dict)
    #: The corpora (names) whose files the cell's runs read: its corpus, or the training and test corpora.
    corpora: tuple[str, ...] = ()


def classic_models(exclude: str | None = None) -> list[str]:
    """The built-in models (not plugins), without ``exclude``."""
    from baselines.plugins import origin  # with installed plugins: imported where used
    from baselines.registry import MODELS

    return [name for name in MODELS.names() if origin(name) is None and name != exclude]


def check_against(against: list[str] | None) -> None:
    """Refuse, in one line listing the valid names, a name ``--against`` cannot compare with."""
    valid = [*classic_models(), *REFERENCES]
    unknown = [name for name in against or () if name not in valid]
    if unknown:
        raise IsarcasmError(f"--against: unknown model '{unknown[0]}'; give 'all' or a comma-separated list of: "
                            f"{', '.join(valid)}")


@dataclass(frozen=True)
class BenchmarkRequest:
    """What a benchmark compares: ``model`` in the cells of ``experiments`` (only ``corpora``, if given)
    against the classic models and reference rows ``against`` (None: all of them), over ``seeds``, with a
    paired test."""
    model: str
    experiments: list[str]
    seeds: list[int]
    against: list[str] | None = None
    corpora: list[str] | None = None
    method: str = DEFAULT_METHOD
    n_resamples: int = DEFAULT_RESAMPLES


def run_benchmark(request: BenchmarkRequest, settings: Settings,
                  command: tuple[str, str] = ("isarcasm", "")) -> Result:
    """Train (or reuse) the request's model in every cell, compare it with the classics there, save and
    return the result.

    ``command``: how the commands suggested for missing runs start and end (``isarcasm`` and global
    options, then the training options to repeat so they make runs of the same protocol).
    """
    from baselines.registry import MODELS  # with installed plugins: imported where used

    model, experiments, against, seeds, corpora = (request.model, request.experiments, request.against,
                                                   request.seeds, request.corpora)
    method, n_resamples = request.method, request.n_resamples

    check_against(against)
    if model in ENTRANTS:  # scored, not trained: every run is settled (and its input checked) first
        _settle_entrant(model, experiments, seeds, settings, corpora)
    else:
        MODELS.get(model)
    started = time.time()
    cells, missing, failed = [], [], []
    for experiment in experiments:
        found, absent, diverged = (_cross(model, against, seeds, settings, corpora) if experiment == CROSS else
                                   _table(experiment, model, against, seeds, settings, corpora))
        cells += found
        missing += _commands(experiment, absent, seeds, command)
        failed += diverged
    summaries = with_holm([{**summarise(cell, model, method, n_resamples), "data_sha256": _checksums(cell, settings)}
                           for cell in cells])
    result = Result.made("benchmark", f"benchmark-{model}", summaries, started=started, runs=(
        s.run for cell in cells for s in chain(cell.candidate, *cell.classics.values(), *cell.references.values())),
        model=model, experiments=experiments, method=method, resamples=n_resamples if method == "bootstrap" else None,
        seeds=seeds, train=settings.train.recorded_form(), missing=missing, failed_runs=failed)
    save_result(result, settings.results_root)
    return result


def _cells(name: str, model: str, settings: Settings, corpora: list[str] | None) -> tuple[list[Cell], Experiment]:
    """The cells of table experiment ``name`` to benchmark in, and the experiment of the model's own cells."""
    experiment = load_experiment(name)
    wanted = [c for c in experiment.cells if not c.is_human and (not corpora or c.corpus in corpora)]
    corpus_names = list(dict.fromkeys(c.corpus for c in wanted))
    unpaired = sorted({c.corpus for c in wanted if c.folds or settings.corpora.load(c.corpus).multi_label})
    if unpaired:
        raise IsarcasmError(f"benchmark pairs runs on one test split per seed; in '{name}', "
                            f"{', '.join(unpaired)} use folds or several labels per text: run "
                            f"`isarcasm reproduce {name} --models {model},...` and compare its report instead")
    return wanted, Experiment(experiment.name, experiment.title, experiment.source,
                              tuple(Cell(corpus, model) for corpus in corpus_names), experiment.train,
                              experiment.metrics)


def _settle_entrant(model: str, experiments: list[str], seeds: list[int], settings: Settings,
                    corpora: list[str] | None) -> None:
    """Settle every run of entrant ``model`` (its checks: the predictions' ids and values...) in every
    experiment before any run or result is written."""
    if CROSS in experiments:
        raise IsarcasmError(f"'{model}' is an entrant ({ENTRANTS.get(model).description}): the cross-dataset cells "
                            "apply a trained model to other corpora; benchmark it in table6, table7 or .toml "
                            "experiments")
    for name in experiments:
        own = _cells(name, model, settings, corpora)[1]
        plan_cells(own, list(own.cells), seeds, settings)


def _table(name: str, model: str, against: list[str] | None, seeds: list[int], settings: Settings,
           corpora: list[str] | None) -> tuple[list[BenchCell], list[dict], list[dict]]:
    """The model in every corpus of a table experiment, beside the classic runs stored for that
    experiment and the reference rows; the classic runs not found; the model's runs that failed (a cell
    whose runs all failed is left out)."""

    wanted, own = _cells(name, model, settings, corpora)
    corpus_names = [cell.corpus for cell in own.cells]
    if not corpus_names:
        return [], [], []
    # The model's own aggregate (its table rows) is kept apart from the reproduction's results file; an
    # entrant's runs are scored rather than trained.
    run = run_entrant_experiment if model in ENTRANTS else run_experiment
    result = run(own, seeds, replace(settings, results_root=settings.results_root / f"benchmark-{model}"))
    references = _references(own, model, against, seeds, settings)
    cells, absent, failed = [], [], []
    for corpus, summary in zip(corpus_names, result.cells):
        failed += [{"model": model, "cell": f"{name} {summary['corpus']}", "seed": f["seed"], "reason": f["reason"]}
                   for f in summary.get("failed_runs", [])]
        candidate = [Scored.from_run(Path(d)) for d in summary["runs"]]
        if not candidate:
            continue
        classics = {}
        for classic in dict.fromkeys(c.model for c in wanted if c.corpus == corpus):
            if classic == model or (against and classic not in against):
                continue
            classics[classic] = []
            for seed in seeds:
                found = classic_run(settings, own, corpus, classic, seed)
                if found:
                    classics[classic].append(Scored.from_run(found))
                else:
                    absent.append({"cell": corpus_label(corpus), "corpus": corpus, "model": classic, "seed": seed})
        cells.append(BenchCell(result.experiment, corpus_label(corpus), candidate, classics,
                               references.get(corpus_label(corpus), {}), (corpus,)))
    return cells, absent, failed


def _references(own: Experiment, model: str, against: list[str] | None, seeds: list[int],
                settings: Settings) -> dict[str, dict[str, list[Scored]]]:
    """The reference rows of every corpus of the model's cells (corpus label -> name -> runs), scored or
    reused with the experiment's runs as ``reproduce --references`` does (they take seconds).  Only the
    benchmarked model is re-run under --force."""
    names = tuple(name for name in REFERENCES if name != model and (not against or name in against))
    if not names:
        return {}
    found: dict[str, dict[str, list[Scored]]] = {}
    reusing = _reusing(settings)
    for row in entrant_cells(own, reference_cells(own, reusing, names), seeds, reusing):
        found.setdefault(row["corpus"], {})[row["model"]] = [Scored.from_run(Path(d)) for d in row["runs"]]
    return found


def _checksums(cell: BenchCell, settings: Settings) -> dict[str, str]:
    """The content sha256 of the corpus files the cell's runs read (as their config.json records them): the
    leaderboard ranks two benchmarks' cells together only on the same data."""
    return {name: sha for corpus in cell.corpora for name, sha in
            corpus_checksums(corpus, settings.corpora.data_dir).items()}


def classic_run(settings: Settings, experiment: Experiment, corpus: str, classic: str, seed: int) -> Path | None:
    """The classic model's finished run of this cell and seed: the run ``reproduce`` makes of ``experiment``
    under the same options (the training settings and results name of its protocol: :meth:`Settings.train_for`,
    :meth:`Settings.experiment`), in that folder or wherever the reproduction reused it from."""
    protocol = experiment.protocol()
    return settings.finished(settings.experiment(experiment.name, protocol),
                             RunSpec(corpus, classic, seed, settings.train_for(protocol)))


def _cross(model: str, against: list[str] | None, seeds: list[int], settings: Settings,
           corpora: list[str] | None) -> tuple[list[BenchCell], list[dict], list[dict]]:
    """The model's cross-dataset matrix beside the classic models' existing cross-dataset runs; the
    classic runs not found; the model's runs that failed."""
    corpora = list(corpora or CORPORA)
    candidate, unfinished = cross_cells([model], corpora, seeds, settings)
    failed = [{"model": model, "cell": f"{CROSS}, trained on {m['train_corpus']}", "seed": seed, "reason": reason}
              for m in unfinished for seed, reason in m["failed"].items()]
    classics = [m for m in classic_models(model) if not against or m in against]
    # --force retrains the benchmarked model only; the classic runs are only ever read.
    found, missing = cross_cells(classics, corpora, seeds, _reusing(settings), train_missing=False)
    cells, named = [], {corpus_label(corpus): corpus for corpus in corpora}
    for own in candidate:
        others = {m: [] for m in classics}
        for cell in found:
            if (cell.train_corpus, cell.test_corpus) == (own.train_corpus, own.test_corpus):
                others[cell.model] = cell.scored
        cells.append(BenchCell(settings.experiment(CROSS), f"{own.train_corpus} → {own.test_corpus}", own.scored,
                               others, corpora=tuple(dict.fromkeys(named[c] for c in (own.train_corpus,
                                                                                     own.test_corpus)))))
    absent = [{"cell": f"trained on {m['train_corpus']}", "corpus": m["corpus"], "model": m["model"], "seed": seed}
              for m in missing for seed in m["seeds"]]
    return cells, absent, failed


def _commands(experiment: str, absent: list[dict], seeds: list[int], command: tuple[str, str]) -> list[dict]:
    """Group the missing classic runs of one experiment, with the one command that makes them all."""
    if not absent:
        return []
    models = ",".join(dict.fromkeys(a["model"] for a in absent))
    corpora = shlex.quote(",".join(dict.fromkeys(a["corpus"] for a in absent)))
    verb = f"cross-eval --models {models}" if experiment == CROSS else \
        f"reproduce {shlex.quote(experiment)} --models {models}"
    command = f"{command[0]} {verb} --corpora {corpora} --seeds {len(seeds)}{command[1]}"
    runs = {}
    for a in absent:
        runs.setdefault((a["cell"], a["model"]), []).append(a["seed"])
    return [{"experiment": experiment, "cell": cell, "model": model, "seeds": seeds_missing, "command": command}
            for (cell, model), seeds_missing in runs.items()]


def _profile(scored: list[Scored]) -> dict:
    """What the table shows beside a model's main metric: its macro-F1, for a binary cell the share of
    test texts it predicts sarcastic (at each run's threshold) over its seeds, and its cost: the weights
    of its saved model, its training time per run, its prediction throughput and the peak memory of a
    run, as each run recorded them on the machine that ran it (None where a run keeps no model, was
    written before the suite recorded that figure, or is outside predictions, whose costs the suite did
    not measure)."""
    binary = all("f1_sarcastic" in s.metrics for s in scored)
    parameters = [model_parameters(s.run) for s in scored]
    recorded = [recorded_costs(read_metrics(s.run)) if run_state(s.run) in SCORED else {} for s in scored]
    return {"f1_macro": summary_stats([s.metrics["f1_macro"] for s in scored]),
            "predicted_sarcastic": summary_stats([np.mean(s.read().labels(s.threshold) == 1) for s in scored])
            if binary else None,
            "parameters": round(float(np.mean(parameters))) if None not in parameters else None,
            **{cost: _recorded(recorded, cost) for cost in COSTS}}


def _recorded(metrics: list[dict], key: str) -> dict | None:
    """The summary of a cost every run recorded; None if one of them did not."""
    values = [m.get(key) for m in metrics]
    return summary_stats(values) if values and None not in values else None


def _floor(scored: list[Scored]) -> dict | None:
    """The cell's all-sarcastic floor (binary cells), from the gold labels of its test predictions."""
    if not all("f1_sarcastic" in s.metrics for s in scored):
        return None
    return all_sarcastic_floor(float(np.mean(scored[0].read().gold == 1)))


def summarise(cell: BenchCell, model: str, method: str, n_resamples: int) -> dict:
    """The candidate's rank among the classic models and reference rows present (ties shared) and among
    the classic models alone, a paired test against each of them, every model's macro-F1 and
    predicted-sarcastic share, and the cell's all-sarcastic floor."""
    metric = main_metric(cell.candidate[0].metrics)
    values = {s.seed: s.metrics[metric] for s in cell.candidate}
    own = summary_stats(list(values.values()))
    predictions = {s.seed: s.read() for s in cell.candidate}
    compared = {}
    for group in ("classics", "references"):
        compared[group] = [_compare(cell.candidate, predictions, name, scored, metric, (method, n_resamples))
                           for name, scored in getattr(cell, group).items() if scored]
    everyone = [*compared["classics"], *compared["references"]]
    ranks = competition_ranks({model: own["mean"], **{row["model"]: row["mean"] for row in everyone}})
    among_classics = competition_ranks({model: own["mean"], **{row["model"]: row["mean"]
                                                               for row in compared["classics"]}})[model]
    for row in everyone:
        row.update(ranks[row["model"]])
    return {
        "experiment": cell.experiment,
        "cell": cell.label,
        "metric": metric,
        "model": model,
        "candidate": {**own, "seeds": sorted(values), **_profile(cell.candidate)},
        **ranks[model],
        "of": len(everyone) + 1,
        "classic_rank": {**among_classics, "of": len(compared["classics"]) + 1},
        **compared,
        "all_sarcastic": _floor(cell.candidate),
        "not_found": [m for m, scored in cell.classics.items() if not scored],
        "cost_sweeps": cost_sweeps(chain(cell.candidate, *cell.classics.values(), *cell.references.values())),
    }


def cost_sweeps(scored) -> list[str]:
    """The sweeps (date, jobs, load: :func:`provenance.sweep_text`) that the recorded costs of these
    runs come from, each once: a reused run keeps the sweep that trained it, so a table's times may
    come from machines under different loads, which the report then says."""
    sweeps = set()
    for s in scored:
        if run_state(s.run) in SCORED and "train_seconds" in recorded_costs(read_metrics(s.run)):
            config = read_config(s.run) if (s.run / CONFIG).is_file() else {}
            sweeps.add(provenance.sweep_text(config.get("sweep")))
    return sorted(sweeps)


def _compare(candidate: list[Scored], predictions: dict, name: str, scored: list[Scored], metric: str,
             test_with: tuple[str, int]) -> dict:
    """One compared model's row: its scores and costs, and the paired test of the candidate (its runs and
    their read ``predictions``) against it (``test_with``: the method and its resamples)."""
    values = {s.seed: s.metrics[metric] for s in candidate}
    test = compare_runs(predictions, {s.seed: s.read() for s in scored}, (candidate[0].threshold, scored[0].threshold),
                        *test_with)
    paired = test["seeds"]
    theirs = {s.seed: s.metrics[metric] for s in scored}
    return {"model": name, **summary_stats(list(theirs.values())), "seeds": sorted(theirs), **_profile(scored),
            "delta": float(np.mean([values[s] - theirs[s] for s in paired])) if paired else None,
            "p_value": test["combined"]["p_value"] if paired else None,
            "p_per_seed": {str(s): r["p_value"] for s, r in test["per_seed"].items()},
            "test": test}


def with_holm(cells: list[dict]) -> list[dict]:
    """Add to every comparison its combined p-value adjusted for all the comparisons of the benchmark."""
    rows = [row for cell in cells for row in compared_rows(cell) if row["p_value"] is not None]
    for row, adjusted in zip(rows, holm([row["p_value"] for row in rows])):
        row["p_holm"] = adjusted
    return cells


def parse_experiments(value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    if not names:
        raise IsarcasmError("--experiments needs at least one of table6, table7, cross (or a .toml file)")
    return names


def _reusing(settings: Settings) -> Settings:
    """``settings`` without ``--force``: the classic models' runs and the reference rows are read as they
    are, only the benchmarked model is retrained."""
    return replace(settings, options=replace(settings.options, force=False))

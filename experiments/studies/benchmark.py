"""Benchmark a model against the classic ones, cell by cell, under the same protocol.

The new model is run through the cells of the experiments named (``table6``,
``table7``: the same corpora, seeds and training settings as the
reproduction, stored in the same run store so finished runs are reused;
``cross``: the cross-dataset matrix).  For each cell it gets a rank among the
classic models by the mean over seeds of the cell's main metric (sarcastic-
class F1; macro-F1 for multi-class corpora) and, against each classic model,
a paired significance test on the same test predictions
(:mod:`experiments.reports.significance`; paired bootstrap by default).

The classic models are not trained here: training all of them takes hours.
Their finished runs are used where they exist with the same protocol (same
training settings, preprocessing, data and splits); the missing ones are
listed with the command that makes them.  Results go to
``results/benchmark-<model>.{json,md}``.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace
from itertools import chain
from pathlib import Path

import numpy as np

from experiments.reports.significance import DEFAULT_METHOD, DEFAULT_RESAMPLES, compare_runs, holm
from experiments.runs import provenance
from experiments.runs.metrics import summary_stats
from experiments.runs.store import read_json, run_places, write_json, write_text
from experiments.studies.cross_eval import CORPORA, Scored, Settings, cross_cells
from experiments.studies.cross_eval import NAME as CROSS
from experiments.studies.experiment import Cell, Experiment, load_experiment
from preprocessing.corpora import corpus_label
from preprocessing.errors import IsarcasmError

EXPERIMENTS = ("table6", "table7", CROSS)
#: The part of a run's config.json that must be equal for two runs to be compared (all but the model).
PROTOCOL_KEYS = ("corpus", "seed", "train", "preprocess", "data_sha256", "splits")


@dataclass
class BenchCell:
    experiment: str
    label: str
    candidate: list[Scored]
    classics: dict[str, list[Scored]]


def classic_models(exclude: str | None = None) -> list[str]:
    """The built-in models (not plugins), without ``exclude``."""
    from baselines.plugins import origin
    from baselines.registry import MODELS

    return [name for name in MODELS.names() if origin(name) is None and name != exclude]


def run_benchmark(model: str, experiments: list[str], against: list[str] | None, seeds: list[int],
                  settings: Settings, results_root: Path, corpora: list[str] | None = None,
                  method: str = DEFAULT_METHOD, n_resamples: int = DEFAULT_RESAMPLES,
                  command: tuple[str, str] = ("isarcasm", "")) -> dict:
    """Train (or reuse) ``model`` in every cell, compare it with the classics there, save and return the result.

    ``against``: the classic models to compare with (None: all of them); ``command``: how the
    commands suggested for missing runs start and end (``isarcasm`` and global options, then the
    training options to repeat so they make runs of the same protocol).
    """
    from baselines.registry import MODELS

    MODELS.get(model)
    for name in against or ():
        MODELS.get(name)
    started = time.time()
    cells, missing = [], []
    for experiment in experiments:
        found, absent = (_cross(model, against, seeds, settings, corpora) if experiment == CROSS else
                         _table(experiment, model, against, seeds, settings, results_root, corpora))
        cells += found
        missing += _commands(experiment, absent, seeds, command)
    result = {
        "experiment": f"benchmark-{model}",
        "kind": "benchmark",
        "model": model,
        "experiments": experiments,
        "method": method,
        "resamples": n_resamples if method == "bootstrap" else None,
        "seeds": seeds,
        "train": asdict(settings.train),
        "cells": with_holm([summarise(cell, model, method, n_resamples) for cell in cells]),
        "missing": missing,
        "wall_seconds": round(time.time() - started, 1),
        **provenance.record(),
        "run_origins": provenance.run_origins(s.run for cell in cells
                                              for s in [*cell.candidate, *chain.from_iterable(cell.classics.values())]),
    }
    write_json(results_root / f"{result['experiment']}.json", result)
    write_text(results_root / f"{result['experiment']}.md", benchmark_markdown(result))
    return result


def _table(name: str, model: str, against: list[str] | None, seeds: list[int], settings: Settings,
           results_root: Path, corpora: list[str] | None) -> tuple[list[BenchCell], list[dict]]:
    """The model in every corpus of a table experiment, beside the classic runs stored for that experiment."""
    from experiments.studies.reproduce import run_experiment

    experiment = load_experiment(name)
    wanted = [c for c in experiment.cells if not c.is_human and (not corpora or c.corpus in corpora)]
    corpus_names = list(dict.fromkeys(c.corpus for c in wanted))
    if not corpus_names:
        return [], []
    unpaired = sorted({c.corpus for c in wanted if c.folds or settings.dataset(c.corpus).multi_label})
    if unpaired:
        raise IsarcasmError(f"benchmark pairs runs on one test split per seed; in '{name}', "
                            f"{', '.join(unpaired)} use folds or several labels per text: run "
                            f"`isarcasm reproduce {name} --models {model},...` and compare its report instead")
    own = Experiment(experiment.name, experiment.title, experiment.source,
                     tuple(Cell(corpus, model) for corpus in corpus_names), experiment.train, experiment.metrics)
    # The model's own aggregate (its table rows) is kept apart from the reproduction's results file.
    result = run_experiment(own, settings.data_dir, settings.runs_root, results_root / f"benchmark-{model}", seeds,
                            settings.train, force=settings.force, verbose=settings.verbose,
                            tensorboard=settings.tensorboard, file_options=settings.file_options,
                            jobs=settings.jobs)
    cells, absent = [], []
    for corpus, summary in zip(corpus_names, result["cells"]):
        candidate = [Scored.from_run(Path(d)) for d in summary["runs"]]
        by_seed = {s.seed: s for s in candidate}
        classics = {}
        for classic in dict.fromkeys(c.model for c in wanted if c.corpus == corpus):
            if classic == model or (against and classic not in against):
                continue
            classics[classic] = []
            for seed in seeds:
                found = classic_run(settings.runs_root, result["experiment"], corpus, classic, seed, by_seed[seed].run)
                if found:
                    classics[classic].append(Scored.from_run(found))
                else:
                    absent.append({"cell": corpus_label(corpus), "corpus": corpus, "model": classic, "seed": seed})
        cells.append(BenchCell(result["experiment"], corpus_label(corpus), candidate, classics))
    return cells, absent


def classic_run(root: Path, experiment: str, corpus: str, classic: str, seed: int, reference: Path) -> Path | None:
    """The classic model's run of this cell and seed under ``reference``'s protocol: in the
    experiment's folder, or wherever the reproduction reused it from."""
    places = run_places(root, experiment, corpus, classic, seed)
    return next((place for place in places if same_protocol(place, reference)), None)


def same_protocol(directory: Path, reference: Path) -> bool:
    """True when ``directory`` holds a finished run made under the same protocol as the run ``reference``."""
    if not (directory / "metrics.json").is_file():
        return False
    config, expected = read_json(directory / "config.json"), read_json(reference / "config.json")
    return all(config.get(key) == expected.get(key) for key in PROTOCOL_KEYS)


def _cross(model: str, against: list[str] | None, seeds: list[int], settings: Settings,
           corpora: list[str] | None) -> tuple[list[BenchCell], list[dict]]:
    """The model's cross-dataset matrix beside the classic models' existing cross-dataset runs."""
    corpora = list(corpora or CORPORA)
    candidate, _ = cross_cells([model], corpora, seeds, settings)
    classics = [m for m in classic_models(model) if not against or m in against]
    # --force retrains the benchmarked model only; the classic runs are only ever read.
    found, missing = cross_cells(classics, corpora, seeds, replace(settings, force=False), train_missing=False)
    cells = []
    for own in candidate:
        others = {m: [] for m in classics}
        for cell in found:
            if (cell.train_corpus, cell.test_corpus) == (own.train_corpus, own.test_corpus):
                others[cell.model] = cell.scored
        cells.append(BenchCell(settings.experiment(CROSS), f"{own.train_corpus} → {own.test_corpus}", own.scored,
                               others))
    absent = [{"cell": f"trained on {m['train_corpus']}", "corpus": m["corpus"], "model": m["model"], "seed": seed}
              for m in missing for seed in m["seeds"]]
    return cells, absent


def _commands(experiment: str, absent: list[dict], seeds: list[int], command: tuple[str, str]) -> list[dict]:
    """Group the missing classic runs of one experiment, with the one command that makes them all."""
    if not absent:
        return []
    models = ",".join(dict.fromkeys(a["model"] for a in absent))
    corpora = ",".join(dict.fromkeys(a["corpus"] for a in absent))
    verb = f"cross-eval --models {models}" if experiment == CROSS else f"reproduce {experiment} --models {models}"
    command = f"{command[0]} {verb} --corpora {corpora} --seeds {len(seeds)}{command[1]}"
    runs = {}
    for a in absent:
        runs.setdefault((a["cell"], a["model"]), []).append(a["seed"])
    return [{"experiment": experiment, "cell": cell, "model": model, "seeds": seeds_missing, "command": command}
            for (cell, model), seeds_missing in runs.items()]


def main_metric(metrics: dict) -> str:
    return "f1_sarcastic" if "f1_sarcastic" in metrics else "f1_macro"


def summarise(cell: BenchCell, model: str, method: str, n_resamples: int) -> dict:
    """The candidate's rank among the classic models present, and a paired test against each of them."""
    metric = main_metric(cell.candidate[0].metrics)
    values = {s.seed: s.metrics[metric] for s in cell.candidate}
    own = summary_stats(list(values.values()))
    predictions = {s.seed: s.read() for s in cell.candidate}
    rows = []
    for classic, scored in cell.classics.items():
        if not scored:
            continue
        test = compare_runs(predictions, {s.seed: s.read() for s in scored},
                            (cell.candidate[0].threshold, scored[0].threshold), method, n_resamples)
        paired = test["seeds"]
        theirs = {s.seed: s.metrics[metric] for s in scored}
        rows.append({"model": classic, **summary_stats(list(theirs.values())), "seeds": sorted(theirs),
                     "delta": float(np.mean([values[s] - theirs[s] for s in paired])) if paired else None,
                     "p_value": test["combined"]["p_value"] if paired else None,
                     "p_per_seed": {str(s): r["p_value"] for s, r in test["per_seed"].items()},
                     "test": test})
    return {
        "experiment": cell.experiment,
        "cell": cell.label,
        "metric": metric,
        "model": model,
        "candidate": {**own, "seeds": sorted(values)},
        "rank": 1 + sum(r["mean"] > own["mean"] for r in rows),
        "of": len(rows) + 1,
        "classics": rows,
        "not_found": [m for m, scored in cell.classics.items() if not scored],
    }


def _p(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.4f}" if value >= 0.0001 else f"{value:.1e}"


def with_holm(cells: list[dict]) -> list[dict]:
    """Add to every comparison its combined p-value adjusted for all the comparisons of the benchmark."""
    rows = [row for cell in cells for row in cell["classics"] if row["p_value"] is not None]
    for row, adjusted in zip(rows, holm([row["p_value"] for row in rows])):
        row["p_holm"] = adjusted
    return cells


def _significance(result: dict) -> list[str]:
    """How many comparisons look significant before and after correcting for their number."""
    rows = [row for cell in result["cells"] for row in cell["classics"] if row.get("p_holm") is not None]
    if not rows:
        return []
    raw = [row for row in rows if row["p_value"] < 0.05]
    kept = [row for row in rows if row["p_holm"] < 0.05]
    higher = sum(row["delta"] > 0 for row in kept)
    return ["", f"Of {len(rows)} paired comparisons, {len(raw)} have p < 0.05 (about {0.05 * len(rows):.0f} would "
            f"if no pair differed); {len(kept)} keep p < 0.05 after Holm's correction for {len(rows)} tests: "
            f"{result['model']} higher in {higher}, lower in {len(kept) - higher}."]


def benchmark_summary(result: dict) -> list[str]:
    """The overview table (one row per cell) and the missing runs: what the command prints."""
    model = result["model"]
    test = (f"paired bootstrap over the test examples ({result['resamples']:,} resamples), seed n against seed n; "
            "the combined p tests the difference of the seed averages"
            if result["method"] == "bootstrap" else
            "McNemar's exact test, seed n against seed n; the combined p is the median over seeds (a summary, "
            "not a test)")
    lines = [
        f"# Benchmark: {model} against the classic models",
        "",
        (f"Same cells, protocol and seeds ({', '.join(map(str, result['seeds']))}) as the reproductions. Rank: by "
         "the mean over seeds of the cell's main metric (sarcastic-class F1; macro-F1 for multi-class corpora) among "
         f"the classic models whose runs exist. p: {test}. Two-sided; p (Holm) is adjusted for all the comparisons "
         "of this benchmark. "
         f"Commit `{result['git_commit']}`."),
        "",
        f"| experiment | cell | metric | {model} (mean ± std) | rank | best other model | p vs best | p (Holm) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for cell in result["cells"]:
        best = max(cell["classics"], key=lambda r: r["mean"], default=None)
        best_text = f"{best['model']} {best['mean']:.3f}" if best else "—"
        candidate = cell["candidate"]
        lines.append(f"| {cell['experiment']} | {cell['cell']} | {cell['metric']} | {candidate['mean']:.3f} ± "
                     f"{candidate['std']:.3f} | {cell['rank']} / {cell['of']} | {best_text} | "
                     f"{_p(best['p_value']) if best else '—'} | {_p(best.get('p_holm')) if best else '—'} |")
    lines += _significance(result)
    if result["missing"]:
        lines += ["", "## Classic runs not found (not ranked where absent)", ""]
        for entry in result["missing"]:
            lines.append(f"- {entry['experiment']}, {entry['cell']}: {entry['model']} seed(s) "
                         f"{', '.join(map(str, entry['seeds']))}")
        lines += ["", "Make them with (finished runs are reused):", ""]
        lines += [f"    {command}" for command in dict.fromkeys(e["command"] for e in result["missing"])]
    return lines


def benchmark_markdown(result: dict) -> str:
    """The summary, then one table per cell with every model, its seeds and the p-value against it."""
    model = result["model"]
    lines = benchmark_summary(result)
    for cell in result["cells"]:
        candidate = cell["candidate"]
        own = f"{candidate['mean']:.3f} ± {candidate['std']:.3f} | {len(candidate['seeds'])}"
        lines += ["", f"## {cell['experiment']}: {cell['cell']} ({cell['metric']})", "",
                  f"{model} ranks {cell['rank']} of {cell['of']}.", "",
                  f"| model | mean ± std | seeds | Δ {model} − model (paired seeds) | p | p (Holm) | p per seed |",
                  "|---|---|---|---|---|---|---|",
                  f"| **{model}** | {own} | | | | |"]
        for row in sorted(cell["classics"], key=lambda r: -r["mean"]):
            delta = "—" if row["delta"] is None else f"{row['delta']:+.3f}"
            per_seed = ", ".join(_p(p) for p in row["p_per_seed"].values()) or "—"
            lines.append(f"| {row['model']} | {row['mean']:.3f} ± {row['std']:.3f} | {len(row['seeds'])} | {delta} | "
                         f"{_p(row['p_value'])} | {_p(row.get('p_holm'))} | {per_seed} |")
        if cell["not_found"]:
            lines.append(f"\nNo runs found for: {', '.join(cell['not_found'])}.")
    return "\n".join(lines) + "\n"


def parse_experiments(value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    if not names:
        raise IsarcasmError("--experiments needs at least one of table6, table7, cross (or a .toml file)")
    return names

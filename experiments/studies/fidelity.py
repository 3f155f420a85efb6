"""How the paper's numbers arise: the paper as written beside the authors' own code.

Reads two finished reproductions of one experiment (Table 7 or Table 6), the paper's
protocol as written (``table7``) and the authors'-code protocol (``table7-authors-code``,
the experiment file ``isarcasm reproduce table7-authors-code`` runs), and, from their runs' per-epoch
records, the two mixed protocols (as-written training with the authors' grid rule; the authors' training
with the paper's rule), so each element's effect is measured on paired seeds.  Results
of single elements (``table7-batching-class-ratio``, ``table7-clip-global-norm-1``, and the others
of :data:`ELEMENTS`, by the names listed there) join the ablation when they exist.  Nothing is trained.

:func:`elements` (``isarcasm report table7 --elements``) sets each of those elements alone beside the
paper as written, from results files only, with the same pairing (:func:`_paired`).

Table 6's "iSarcasm impl." column gives one F-score per cell, without precision and
recall, and does not say which F-score it is, so each protocol is set beside it in both
sarcastic-class F1 and macro-F1.

The threshold ceiling is a diagnostic, never a result: it picks the threshold on the
test split itself, to bound what any threshold rule could reach with these models.
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
from sklearn.metrics import precision_recall_curve

from experiments.runs.one import provenance
from experiments.reports.fidelity import paper_numbers
from experiments.reports.table import run_ids
from experiments.results.files import ResultsFiles
from experiments.results.schema import Result
from experiments.runs.one.metrics import summary_stats
from experiments.runs.one.store import EPOCHS
from experiments.runs.one.trajectory import load_record
from experiments.studies.experiment import available, load_experiment
from experiments.studies.selection import reselect
from preprocessing.errors import IsarcasmError

#: The protocols compared, as (key, label, results suffix, rule applied to the record or None).
PROTOCOLS = (
    ("as-written", "as written (best epoch, threshold 0.5)", "", None),
    ("as-written+grid", "as written + the authors' grid rule", "", "grid"),
    ("authors-training+best", "the authors' training + best epoch at 0.5", "-authors-code", "best"),
    ("authors-code", "the authors' code (training + grid rule)", "-authors-code", None),
    ("authors-scripts", "the authors' scripts (every value bin/run.sh passes + grid rule)", "-authors-scripts", None),
)
#: The results of the paper's protocol as written each fidelity study reads, where they are not the experiment's own:
#: Table 7's study is iSarcasm over 10 seeds, the seeds and corpus of ``table7-authors-code``, under a name of its own
#: (the experiment file ``table7-seeds-10``), never ``table7`` (Table 7 itself: both corpora, 5 seeds).
AS_WRITTEN = {"table7": "table7-seeds-10"}
#: Protocols compared where their results exist (docs/results has them for Table 7 and Table 6); no ceiling reads
#: their runs, so they need none on this machine.
OPTIONAL = {"authors-scripts"}


#: Where the iSarcasm authors' code sets a training setting to a value, by (setting, value), in the order an
#: element's sources list them (docs/protocol.md#settings has them with every setting).
AUTHORS_LINES = {
    ("batching", "class-ratio"): "src/data_and_resources_acl.py:54-61",
    ("batching", "class-ratio-once"): "src/data_and_resources_acl.py:54-106, :280-307",
    ("clip_global_norm", 1.0): "src/main.py:53, src/model.py:304-305",
    ("clip_global_norm", 0.2): "bin/run.sh:21, bin/best_riloff_ia_lstm.sh:10",
    ("clip_global_norm", 0.1): "bin/run_riloff.sh:21, bin/run_me.sh:20",
    ("initial_state", "random"): "src/main.py:134-138, src/model.py:219-224",
    ("oov_init", "uniform"): "src/data_and_resources_acl.py:126",
    ("vocabulary", "all-splits-drop"): "src/data_and_resources_acl.py:349-363, :121, :217-219, bin/run.sh:23",
    ("min_train_tokens", 3): "src/data_and_resources_acl.py:99, bin/run.sh:24",
    ("cut_train_tokens", 40): "src/data_and_resources_acl.py:217, src/main.py:36, bin/run.sh:25",
    ("batch_order", "each-epoch"): "src/data_and_resources_acl.py:381-382, src/main.py:156, :229-230",
    ("batch_size", 16): "bin/best_riloff_ia_lstm.sh:9",
    ("epochs", 100): "bin/best_riloff_ia_lstm.sh:26, src/main.py:79-81",
    ("dropout", 0.5): "bin/best_riloff_ia_lstm.sh:11, src/main.py:76-78",
}
#: The options of the settings that have their own (experiments/cli/options.py); every other is ``--set``.
_OWN_OPTIONS = {"epochs": "--epochs", "batch_size": "--batch-size"}


class Element(NamedTuple):
    """One training element of the authors' code measured alone on the paper's protocol: ``changed``, the
    settings it changes, and ``name``, its results' name after the experiment's (``<experiment>-<name>``),
    listed here, never worked out from the settings.  ``extends``: its settings are an experiment file's
    (``<experiment>-<name>``, e.g. ``table7-authors-code``), which trains it."""

    label: str
    changed: dict
    name: str
    extends: bool = False

    def results_name(self, experiment: str) -> str:
        return f"{experiment}-{self.name}"

    def command(self, experiment: str) -> str:
        """The command that trains its results of ``experiment``."""
        if self.extends:
            return f"isarcasm reproduce {self.results_name(experiment)}"
        return f"isarcasm reproduce {experiment} {self.options} --name {self.results_name(experiment)}"

    @property
    def options(self) -> str:
        """The options that train it on an experiment (``--set clip_global_norm=0.2``); '' for an experiment
        file's."""
        if self.extends:
            return ""
        return " ".join(f"{_OWN_OPTIONS[key]} {value}" if key in _OWN_OPTIONS else f"--set {key}={value}"
                        for key, value in self.changed.items())

    @property
    def sources(self) -> str:
        """Its lines in the authors' code (:data:`AUTHORS_LINES`)."""
        return "; ".join(lines for (key, value), lines in AUTHORS_LINES.items()
                         if key in self.changed and self.changed[key] == value)


#: Results of one training element alone, joined to the ablation when present and reported by
#: :func:`elements`, with the names their results have.  The batch order redrawn each epoch is ours (the
#: authors' batches, like Keras' on TensorFlow, keep one order); batch 16, 100 epochs and dropout 0.5 are
#: bin/best_riloff_ia_lstm.sh's values where the paper states its own.
ELEMENTS = tuple(Element(label, changed, name) for label, changed, name in (
    ("class-ratio batches alone", {"batching": "class-ratio"}, "batching-class-ratio"),
    ("the authors' class-ratio batches, formed once, alone", {"batching": "class-ratio-once"},
     "batching-class-ratio-once"),
    ("global-norm clipping 1.0 alone", {"clip_global_norm": 1.0}, "clip-global-norm-1"),
    ("global-norm clipping 0.2 (their scripts) alone", {"clip_global_norm": 0.2}, "clip-global-norm-0.2"),
    ("global-norm clipping 0.1 (their scripts) alone", {"clip_global_norm": 0.1}, "clip-global-norm-0.1"),
    ("OOV vectors U(-0.1, 0.1) alone", {"oov_init": "uniform"}, "oov-init-uniform"),
    ("vocabulary over all splits, rare words dropped, alone", {"vocabulary": "all-splits-drop"},
     "vocabulary-all-splits-drop"),
    ("training texts under 3 tokens dropped alone", {"min_train_tokens": 3}, "min-train-tokens-3"),
    ("training texts cut to 40 tokens alone", {"cut_train_tokens": 40}, "cut-train-tokens-40"),
    ("random LSTM initial state alone", {"initial_state": "random"}, "initial-state-random"),
    ("batch order redrawn each epoch alone", {"batch_order": "each-epoch"}, "batch-order-each-epoch"),
    ("batch size 16 (bin/best_riloff_ia_lstm.sh) alone", {"batch_size": 16}, "batch-size-16"),
    ("100 epochs (bin/best_riloff_ia_lstm.sh) alone", {"epochs": 100}, "epochs-100"),
    ("dropout 0.5 before the classifier (bin/best_riloff_ia_lstm.sh) alone", {"dropout": 0.5}, "dropout-0.5")))
#: The experiment files of the authors' protocols (``<experiment>-authors-code``, ``-authors-scripts``): all their
#: elements together with their grid rule, reported after the single elements on the same paired seeds.
TOGETHER = ("authors-code", "authors-scripts")


def together_elements(experiment: str) -> tuple[Element, ...]:
    """The elements of the authors' protocols of ``experiment``: the [train] settings their experiment files
    add to it (none where it has no such file)."""
    base = dict(load_experiment(experiment).train) if experiment in available() else {}

    def changed(name: str) -> dict:
        if name not in available():
            return {}
        return {key: value for key, value in load_experiment(name).train if base.get(key) != value}
    return tuple(Element(f"{name}: all its elements together, with its rule", changed(f"{experiment}-{name}"), name,
                         extends=True) for name in TOGETHER)


def input_name(experiment: str, suffix: str) -> str:
    """The results name of the protocol of ``experiment`` whose results suffix is ``suffix`` (:data:`PROTOCOLS`):
    ``<experiment><suffix>``; the protocol as written (suffix '') its :data:`AS_WRITTEN` study where it has one."""
    return experiment + suffix if suffix else AS_WRITTEN.get(experiment, experiment)


F1, P, R, MACRO = "f1_sarcastic", "precision_sarcastic", "recall_sarcastic", "f1_macro"
RATE = "predicted_positive_rate"


def fidelity(experiment: str, results: ResultsFiles, localised=lambda result: result) -> Result:
    """The fidelity result of ``experiment``: its trained cells that have the paper's F1.  ``results``
    finds the results files it reads by name; ``localised`` gives a results file's runs where this machine
    has them (:meth:`Settings.localised`)."""
    loaded = {}
    for key, _, suffix, rule in PROTOCOLS:
        if key in OPTIONAL:
            if (found := results.find(input_name(experiment, suffix))) is not None:
                loaded[key] = found
            continue
        result = localised(_load(results, input_name(experiment, suffix)))
        loaded[key] = reselect(result, rule) if rule else result
    elements = _element_results(results, experiment, ELEMENTS)  # its protocols are compared whole above
    cells = []
    for cell in loaded["as-written"].cells:
        paper = paper_numbers(cell)
        if F1 not in paper or not cell.get("runs"):
            continue
        corpus = cell["corpus"]
        by_protocol = {key: _cell(result, cell["model"], corpus) for key, result in loaded.items()}
        alone = {label: _cell(result, cell["model"], corpus) for label, result in elements.items()}
        cells.append({
            "corpus": corpus,
            "model": cell["model"],
            "paper": paper,
            "protocols": {key: _summary(found, paper[F1]) for key, found in by_protocol.items() if found},
            "ablation": _ablation(by_protocol["as-written"], {**{k: v for k, v in by_protocol.items()
                                                                 if k != "as-written"}, **alone}),
            "ceiling": {key: _ceiling(by_protocol[key], paper.get(R)) for key in ("as-written", "authors-code")
                        if by_protocol[key]},
        })
    if not cells:
        raise IsarcasmError(f"'{experiment}' has no trained cell with the paper's sarcastic-class F1")
    corpora = ", ".join(dict.fromkeys(c["corpus"] for c in cells))
    return Result("fidelity", f"{experiment}-fidelity", cells, {
        "corpus": corpora, "title": f"{experiment}: the paper as written beside the authors' own code ({corpora})",
        "sources": {key: result.experiment for key, result in loaded.items()},
        "elements": {label: result.experiment for label, result in elements.items()}, **provenance.record()})


def _load(results: ResultsFiles, name: str) -> Result:
    """The results ``name``; refused in one line when missing."""
    found = results.find(name)
    if found is None:
        raise IsarcasmError(f"{results.missing(name)}, reusing finished runs)")
    return found


def _cell(result: Result, model: str, corpus: str) -> dict | None:
    return next((c for c in result.cells if c["model"] == model and c["corpus"] == corpus and c.get("runs")), None)


#: How F1 values over seeds stand to the paper's one run: the mean within 0.03 of it, the paper inside their range.
NEAR_THE_PAPER = {"within_0.03": lambda values, paper: abs(float(np.mean(values)) - paper) <= 0.03,
                  "paper_in_range": lambda values, paper: min(values) <= paper <= max(values)}


def _summary(cell: dict, paper_f1: float) -> dict:
    values, macro = cell["metrics"][F1]["values"], cell["metrics"][MACRO]["values"]
    point = cell.get("operating_point") or {}
    return {
        "seeds": cell["seeds"],
        **{metric: cell["metrics"][metric] for metric in (F1, P, R, MACRO)},
        "min": min(values), "max": max(values),
        **{test: check(values, paper_f1) for test, check in NEAR_THE_PAPER.items()},
        "paper_in_macro_range": NEAR_THE_PAPER["paper_in_range"](macro, paper_f1),
        "macro_within_0.03": NEAR_THE_PAPER["within_0.03"](macro, paper_f1),
        "predicted_positive_rate": point.get("predicted_positive_rate", {}).get("mean"),
        "positive_share": point.get("positive_share"),
        "thresholds": cell.get("thresholds", []),
        "selected_epochs": cell.get("selected_epochs", []),
    }


def _ablation(base: dict, others: dict[str, dict | None]) -> dict:
    """Each protocol's F1 minus the paper-as-written F1, seed by seed (the same validation carving)."""
    return {label: _paired(base, cell) for label, cell in others.items() if cell}


def _paired(base: dict, other: dict, metric: str = F1) -> dict:
    """``other``'s ``metric`` (sarcastic-class F1 unless told) minus ``base``'s on the runs both have (the same
    seed and fold: the same validation carving), and each side's metric and share labelled sarcastic over those
    runs alone."""
    mine, theirs = _by_run(base, metric), _by_run(other, metric)
    shared = [key for key in mine if key in theirs]
    deltas = [theirs[key][metric] - mine[key][metric] for key in shared]
    row = {"pairs": len(shared), "seeds": [seed for seed, _ in shared],
           "mean_delta": float(np.mean(deltas)) if deltas else None, "higher_in": sum(d > 0 for d in deltas)}
    if shared:
        row.update({side: {metric: summary_stats([runs[key][metric] for key in shared]),
                           RATE: _mean_rate(runs, shared)} for side, runs in (("base", mine), ("other", theirs))})
    return row


def _by_run(cell: dict, metric: str = F1) -> dict[tuple, dict]:
    """A cell's ``metric`` and share labelled sarcastic (None where it has no operating point) per run, by (seed,
    fold) (:func:`~experiments.reports.table.run_ids`)."""
    keys = run_ids(cell)
    values = cell["metrics"][metric]["values"]
    if len(keys) != len(values):
        raise IsarcasmError(f"{cell['corpus']}/{cell['model']}: {len(values)} {metric} values for {len(keys)} runs, "
                            "so they cannot be paired by seed; run the command that made the results again")
    rates = ((cell.get("operating_point") or {}).get(RATE) or {}).get("values") or []
    rates = rates if len(rates) == len(keys) else [None] * len(keys)
    return {key: {metric: value, RATE: rate} for key, value, rate in zip(keys, values, rates)}


def _mean_rate(runs: dict[tuple, dict], keys: list[tuple]) -> float | None:
    rates = [runs[key][RATE] for key in keys]
    return None if None in rates else float(np.mean(rates))


def elements(experiment: str, results: ResultsFiles) -> Result:
    """Each element of :data:`ELEMENTS` alone beside the paper as written, model by model on paired seeds,
    from results files alone (no per-epoch record, no authors'-code run).  Every element and model of the
    corpora measured gets a row: one without results, a cell or a seed in common is marked not measured."""
    base = _load(results, experiment)
    together = together_elements(experiment)
    found = _element_results(results, experiment, (*ELEMENTS, *together))
    if not found:
        raise IsarcasmError(f"no results of a single element of '{experiment}' in {results.folder}/: make one with "
                            f"`{ELEMENTS[0].command(experiment)}` (the others: docs/protocol.md)")
    corpora = {c["corpus"] for result in found.values() for c in result.cells if c.get("runs")}
    keys = dict.fromkeys((c["corpus"], c["model"]) for result in (base, *found.values()) for c in result.cells
                         if c["corpus"] in corpora and c.get("runs"))
    cells = [_element_row(element, experiment, found.get(element.label),
                          _cell(base, model, corpus), (corpus, model))
             for element in (*ELEMENTS, *together) for corpus, model in keys]
    shown = ", ".join(sorted(corpora))
    return Result("elements", f"{experiment}-elements", cells, {
        "as_written": experiment, "corpus": shown,
        "title": f"{experiment}: the authors' training elements, each alone on the paper's protocol ({shown})",
        "inputs": {result.experiment: _made(result) for result in (base, *found.values())},
        **provenance.record()})


def _made(result: Result) -> dict:
    """What made ``result``, as the elements report cites it: its commit and command, and its sweeps (merged
    results); each where it records one."""
    made = {"git_commit": result.git_commit, "command": result.command, "parts": result.parts}
    return {key: value for key, value in made.items() if value}


def _element_results(results: ResultsFiles, experiment: str, elements: tuple[Element, ...]) -> dict[str, Result]:
    """The results of each of ``elements`` that ``results`` finds, by label."""
    found = {element.label: results.find(element.results_name(experiment)) for element in elements}
    return {label: result for label, result in found.items() if result is not None}


def _element_row(element: Element, experiment: str, result: Result | None, base: dict | None, key: tuple) -> dict:
    """One element and model: the paired comparison, or why it is not measured."""
    corpus, model, name = *key, element.results_name(experiment)
    other = _cell(result, model, corpus) if result else None
    paired = _paired(base, other) if base and other else {"pairs": 0}
    why = (f"no results {name} in this folder" if result is None else f"no {model} cell in {name}" if other is None
           else "no as-written cell" if base is None else "no seed in common" if not paired["pairs"] else None)
    if not why and F1 in paper_numbers(base):  # the paper's F1: is each side's mean within 0.03, its range around it
        paper = paper_numbers(base)
        paired.update(paper=paper[F1], **_near(paired, F1, paper[F1]))
        if R not in paper:  # one F-score of unstated kind (Table 6): macro-F1 beside it too, as in the fidelity report
            macro = _paired(base, other, MACRO)
            paired["macro"] = {**macro, **_near(macro, MACRO, paper[F1])}
    return {"corpus": corpus, "model": model, "element": element.label, "options": element.options,
            "command": element.command(experiment), "sources": element.sources, "results": name,
            "measured": why is None,
            **({"why": why} if why else paired)}


def _near(paired: dict, metric: str, paper: float) -> dict:
    """Whether each side's mean ``metric`` over the paired runs lies within 0.03 of ``paper``, and its range around it."""
    return {f"{side}_{test}": check(paired[side][metric]["values"], paper)
            for side in ("base", "other") for test, check in NEAR_THE_PAPER.items()}


def _ceiling(cell: dict, paper_recall: float | None) -> dict:
    """DIAGNOSTIC, chosen on the test split: at each run's selected epoch, the best sarcastic-class F1
    any threshold gives, and the best precision at a recall of at least the paper's (when the paper
    gives its recall)."""
    best, precision_at = [], []
    for run, epoch in zip(cell["runs"], cell["selected_epochs"]):
        record = load_record(Path(run) / EPOCHS)
        gold, positive = record.test_gold.argmax(axis=1), record.test[epoch - 1][:, 1]
        precision, recall, _ = precision_recall_curve(gold, positive)
        f1 = np.where(precision + recall > 0, 2 * precision * recall / np.maximum(precision + recall, 1e-12), 0)
        best.append(float(f1.max()))
        if paper_recall is not None:
            precision_at.append(float(precision[recall >= paper_recall].max()))
    return {"best_f1": best, "precision_at_paper_recall": precision_at or None}

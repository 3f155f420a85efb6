"""How the paper's numbers arise: the paper as written beside the authors' own code.

Reads two finished reproductions of one experiment (Table 7 or Table 6), the paper's
protocol as written (``table7``) and the authors'-code protocol (``table7-authors-code``,
see ``isarcasm reproduce --protocol``), and, from their runs' per-epoch records, the two
mixed protocols (as-written training with the authors' grid rule; the authors' training
with the paper's rule), so each element's effect is measured on paired seeds.  Results
of single elements (``table7-batching-class-ratio``, ``table7-clip-global-norm-1``, and the others
of :data:`ELEMENTS`) join the ablation when they exist.  Nothing is trained.

Table 6's "iSarcasm impl." column gives one F-score per cell, without precision and
recall, and does not say which F-score it is, so each protocol is set beside it in both
sarcastic-class F1 and macro-F1.

The threshold ceiling is a diagnostic, never a result: it picks the threshold on the
test split itself, to bound what any threshold rule could reach with these models.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.metrics import precision_recall_curve

from experiments.runs import provenance
from experiments.reports.fidelity import paper_numbers
from experiments.reports.results import load_results
from experiments.runs.protocol import TrainConfig
from experiments.runs.store import EPOCHS
from experiments.runs.trajectory import load_record
from experiments.studies.selection import reselect
from preprocessing.errors import IsarcasmError

#: The protocols compared, as (key, label, results suffix, rule applied to the record or None).
PROTOCOLS = (
    ("as-written", "as written (best epoch, threshold 0.5)", "", None),
    ("as-written+grid", "as written + the authors' grid rule", "", "grid"),
    ("authors-training+best", "the authors' training + best epoch at 0.5", "-authors-code", "best"),
    ("authors-code", "the authors' code (training + grid rule)", "-authors-code", None),
)
#: Results of one training element alone, joined to the ablation when present: only elements that leave the
#: test texts as published (the authors' length rules on the test split would score another test set).
ELEMENTS = tuple((label, "-" + TrainConfig(**changed).variant()) for label, changed in (
    ("class-ratio batches alone", {"batching": "class-ratio"}),
    ("the authors' class-ratio batches, formed once, alone", {"batching": "class-ratio-once"}),
    ("global-norm clipping 1.0 alone", {"clip_global_norm": 1.0}),
    ("OOV vectors U(-0.1, 0.1) alone", {"oov_init": "uniform"}),
    ("vocabulary over all splits, rare words dropped, alone", {"vocabulary": "all-splits-drop"}),
    ("training texts under 3 tokens dropped alone", {"min_train_tokens": 3}),
    ("training texts cut to 40 tokens alone", {"cut_train_tokens": 40}),
    ("random LSTM initial state alone", {"initial_state": "random"})))
F1, P, R = "f1_sarcastic", "precision_sarcastic", "recall_sarcastic"


def fidelity(experiment: str, results_root: Path, localised=lambda result: result) -> dict:
    """The fidelity result of ``experiment``: its trained cells that have the paper's F1.  ``localised``
    gives a results file's runs where this machine has them (:meth:`Settings.localised`)."""
    loaded = {}
    for key, _, suffix, rule in PROTOCOLS:
        result = localised(_load(results_root, experiment, suffix))
        loaded[key] = reselect(result, rule) if rule else result
    elements = {label: _load(results_root, experiment, suffix) for label, suffix in ELEMENTS
                if (results_root / f"{experiment}{suffix}.json").is_file()}
    cells = []
    for cell in loaded["as-written"]["cells"]:
        paper = paper_numbers(cell)
        if F1 not in paper or not cell.get("runs"):
            continue
        corpus = cell["corpus"]
        by_protocol = {key: _cell(loaded[key], cell["model"], corpus) for key, *_ in PROTOCOLS}
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
    return {"kind": "fidelity", "experiment": f"{experiment}-fidelity", "corpus": corpora,
            "title": f"{experiment}: the paper as written beside the authors' own code ({corpora})",
            "sources": {key: loaded[key]["experiment"] for key, *_ in PROTOCOLS},
            "elements": {label: result["experiment"] for label, result in elements.items()},
            **provenance.record(), "cells": cells}


def _load(results_root: Path, experiment: str, suffix: str) -> dict:
    name = experiment + suffix
    path = results_root / f"{name}.json"
    if not path.is_file():
        command = f"isarcasm reproduce {experiment}" + (" --protocol authors-code" if suffix == "-authors-code" else "")
        raise IsarcasmError(f"no results '{name}' in {results_root}/: make them with `{command}` (reusing finished runs)")
    return load_results(path)


def _cell(result: dict, model: str, corpus: str) -> dict | None:
    return next((c for c in result["cells"] if c["model"] == model and c["corpus"] == corpus and c.get("runs")), None)


def _summary(cell: dict, paper_f1: float) -> dict:
    values, macro = cell["metrics"][F1]["values"], cell["metrics"]["f1_macro"]["values"]
    point = cell.get("operating_point") or {}
    return {
        "seeds": cell["seeds"],
        **{metric: cell["metrics"][metric] for metric in (F1, P, R, "f1_macro")},
        "min": min(values), "max": max(values),
        "paper_in_range": min(values) <= paper_f1 <= max(values),
        "within_0.03": abs(float(np.mean(values)) - paper_f1) <= 0.03,
        "paper_in_macro_range": min(macro) <= paper_f1 <= max(macro),
        "macro_within_0.03": abs(float(np.mean(macro)) - paper_f1) <= 0.03,
        "predicted_positive_rate": point.get("predicted_positive_rate", {}).get("mean"),
        "positive_share": point.get("positive_share"),
        "thresholds": cell.get("thresholds", []),
        "selected_epochs": cell.get("selected_epochs", []),
    }


def _ablation(base: dict, others: dict[str, dict | None]) -> dict:
    """Each protocol's F1 minus the paper-as-written F1, seed by seed (the same validation carving)."""
    mine = dict(zip(base["seeds"], base["metrics"][F1]["values"]))
    rows = {}
    for label, cell in others.items():
        if not cell:
            continue
        pairs = [(mine[s], v) for s, v in zip(cell["seeds"], cell["metrics"][F1]["values"]) if s in mine]
        deltas = [b - a for a, b in pairs]
        rows[label] = {"pairs": len(pairs), "mean_delta": float(np.mean(deltas)) if deltas else None,
                       "higher_in": sum(d > 0 for d in deltas)}
    return rows


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

"""The "manual labelling" row: third-party annotators scored like a model.

iSarcasmEval ships, for its English task A test set, the labels that
third-party annotators gave without knowing the authors' intent
(``human_aggregated``) beside the authors' gold label (``sarcasm_ref``).
"""
from __future__ import annotations

from pathlib import Path

from experiments.runs.one.metrics import classification_metrics
from preprocessing.fileio import parse_label, read_csv

ANNOTATIONS = "isarcasmeval/third-party annotations/english_task_a.csv"


def manual_labelling_metrics(data_dir: Path) -> dict:
    path = data_dir / ANNOTATIONS
    gold, human = [], []
    for row_no, row in read_csv(path, ("text", "sarcasm_ref", "human_aggregated")):
        gold.append(parse_label(path, row_no, row["sarcasm_ref"], {"0": 0, "1": 1}))
        human.append(parse_label(path, row_no, row["human_aggregated"], {"0": 0, "1": 1}))
    return classification_metrics(gold, human)

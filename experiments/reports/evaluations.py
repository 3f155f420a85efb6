"""``isarcasm evaluate`` over several runs: each configuration's mean ± std beside the corpus' floors.

One evaluation is one seed's number; a researcher comparing models on their own file needs the
spread over seeds and the scores of a constant label (on a file with many sarcastic texts the
all-sarcastic floor can beat every model), so the runs of one configuration (model, training
corpus, every setting that changes the numbers; only the seed differs) evaluated on one corpus
are summarised together, and runs of different settings never are.
"""
from __future__ import annotations

import json

from experiments.runs.one.operating_point import floors_of
from experiments.runs.one.metrics import MAIN_METRICS, METRIC_NAMES, summary_stats, undefined_metrics

#: The keys of a run's config.json that make its numbers (besides the seed, its fold and the split
#: sizes, which follow from them): runs that agree on all of them are seeds of one configuration.
CONFIGURATION_KEYS = ("corpus", "model", "train", "preprocess", "data_sha256", "model_source", "keras_backend",
                      "lexicon_tokens", "aux_tasks")


def configuration(config: dict) -> dict:
    """The configuration of a run's config.json: what its seeds share (see :data:`CONFIGURATION_KEYS`)."""
    return {key: config[key] for key in CONFIGURATION_KEYS if key in config}


def evaluation_groups(results: list[dict]) -> dict[tuple, list[dict]]:
    """(model, training corpus, evaluated corpus, configuration) -> its evaluations, in the order given."""
    groups: dict[tuple, list[dict]] = {}
    for result in results:
        key = (result["model"], result["trained_on"], result["corpus"],
               json.dumps(result.get("configuration", {}), sort_keys=True))
        groups.setdefault(key, []).append(result)
    return groups


def differences(configurations: list[dict]) -> list[dict]:
    """For each configuration, the settings whose values are not the same in all of them (dotted
    name -> value): what tells groups of one model and training corpus apart."""
    flat = [_flat(c) for c in configurations]
    names = sorted({name for f in flat for name in f
                    if len({json.dumps(g.get(name), sort_keys=True) for g in flat}) > 1})
    return [{name: f.get(name) for name in names} for f in flat]


def _flat(configuration: dict) -> dict:
    """``{"train": {"epochs": 2}}`` -> ``{"train.epochs": 2}`` (one level: what config.json nests)."""
    flat = {}
    for key, value in configuration.items():
        if isinstance(value, dict):
            flat.update((f"{key}.{inner}", v) for inner, v in value.items())
        else:
            flat[key] = value
    return flat


def evaluation_summary(results: list[dict], sarcastic_shares: dict[str, float]) -> list[dict]:
    """One row per group: the number of runs, the settings that differ from the other groups of its
    model and training corpus (``differs``), each defined metric's statistics, the metrics the data
    leaves undefined (``undefined``: averaged nowhere) and the evaluated corpus' floors
    (``sarcastic_shares``: evaluated corpus -> the share of sarcastic texts in the split scored; a
    corpus missing from it, e.g. multi-class, or with texts of one class only has none)."""
    groups = evaluation_groups(results)
    siblings: dict[tuple, list[tuple]] = {}
    for key in groups:
        siblings.setdefault(key[:3], []).append(key)
    differs = {}
    for keys in siblings.values():
        differs.update(zip(keys, differences([groups[k][0].get("configuration", {}) for k in keys])))
    rows = []
    for key, group in groups.items():
        model, trained_on, corpus, _ = key
        undefined = sorted({m for r in group for m in undefined_metrics(r["test"])})
        metrics = {m: summary_stats([r["test"][m] for r in group]) for m in MAIN_METRICS
                   if all(m in r["test"] for r in group) and m not in undefined}
        floors = floors_of(sarcastic_shares.get(corpus)) or {}
        rows.append({"model": model, "trained_on": trained_on, "corpus": corpus, "runs": len(group),
                     "differs": differs[key], "metrics": metrics,
                     "undefined": [m for m in MAIN_METRICS if m in undefined],
                     "all_sarcastic": floors.get("all_sarcastic"), "majority": floors.get("majority")})
    return rows


def summary_lines(rows: list[dict]) -> list[str]:
    """The summary as console lines (one per group)."""
    lines = []
    for row in rows:
        parts = [f"{METRIC_NAMES[m]} {s['mean']:.3f} ± {s['std']:.3f}" for m, s in row["metrics"].items()]
        parts += [f"{METRIC_NAMES[m]} undefined" for m in row.get("undefined", [])]
        floor = row["all_sarcastic"]
        if floor is not None:
            parts.append(f"all-sarcastic floor F1(sarcastic) {floor['f1_sarcastic']:.3f}")
        settings = ", ".join(f"{name.split('.', 1)[-1] if name.startswith('train.') else name} {_shown(value)}"
                             for name, value in row.get("differs", {}).items())
        lines.append(f"{row['model']} trained on {row['trained_on']}" + (f" [{settings}]" if settings else "")
                     + f", on {row['corpus']} ({row['runs']} run{'s' if row['runs'] != 1 else ''}): "
                     + ", ".join(parts))
    return lines


def _shown(value) -> str:
    """A setting's value as the summary prints it (a checksum shortened)."""
    text = json.dumps(value) if not isinstance(value, str) else value
    return text[:12] if isinstance(value, str) and len(value) == 64 else text


def floor_line(corpus: str, split: str, share: float) -> str:
    """The scores of a constant label on the evaluated split, which every model's number is read beside."""
    floors = floors_of(share)
    if floors is None:
        return f"floors on {corpus} {split}: undefined (its texts are of one class only)"
    majority = "sarcastic" if share > 0.5 else "not sarcastic"
    return (f"floors on {corpus} {split} ({share:.0%} sarcastic): all sarcastic F1(sarcastic) "
            f"{floors['all_sarcastic']['f1_sarcastic']:.3f}, macro-F1 {floors['all_sarcastic']['f1_macro']:.3f}; "
            f"majority class ({majority}) F1(sarcastic) {floors['majority']['f1_sarcastic']:.3f}, "
            f"macro-F1 {floors['majority']['f1_macro']:.3f}")

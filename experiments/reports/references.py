"""The reference rows of a table report (``reproduce --references``): simple scorers that no paper
reports, shown in a section of their own so the paper-vs-ours table stays as it is."""
from __future__ import annotations

from experiments.reports.format import markdown_table
from experiments.results.schema import Result

#: The metrics of the section, each when the rows have it.
_COLUMNS = ("f1_sarcastic", "precision_sarcastic", "recall_sarcastic", "f1_macro", "accuracy")


def reference_section(result: Result) -> list[str]:
    """Markdown lines of the result's reference rows (none when it has none)."""
    rows = result.reference_rows
    if not rows:
        return []
    columns = [m for m in dict.fromkeys([*_COLUMNS, *result.shown_metrics])
               if any(m in row["metrics"] for row in rows)]
    lines = ["", "## Reference rows (not from the paper)", "",
             "Scored per seed on the same splits as the models above (validation carved from training data with "
             "the run's seed, test untouched until scoring); no paper reports these rows.", ""]
    table = []
    for row in rows:
        cells = []
        for metric in columns:
            stats = row["metrics"].get(metric)
            spread = f" ± {stats['std']:.3f}" if stats and len(stats["values"]) > 1 else ""
            cells.append(f"{stats['mean']:.3f}{spread}" if stats else "—")
        corpus = row["corpus"] + (f" ({row['folds']} folds)" if row.get("folds") else "")
        table.append([corpus, row["model"], *cells])
    lines += markdown_table(table, ["corpus", "reference", *columns])
    described = dict.fromkeys(f"{row['model']}: {row['entrant']['description']}" for row in rows if row.get("entrant"))
    if described:
        lines += [""] + [f"- {line}" for line in described]
    return lines

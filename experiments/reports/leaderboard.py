"""The leaderboard (``isarcasm leaderboard``): every benchmarked entrant beside the classic models and the
reference rows, cell by cell, from the benchmark results files alone (nothing is trained or scored).

Each ``benchmark-MODEL.json`` holds, per cell, the entrant's scores over its seeds, the classic models' and
reference rows' scores over the same seeds, the paired test of the entrant against each of them, and
every model's cost.  The board puts the files side by side:

- Entrants are ranked together only when their benchmarks ran on the same seeds, under the same training
  settings (the file's ``train``), with the same paired test, on the same data (the corpus files' sha256
  recorded per cell) and against the same classic and reference runs (equal recorded scores in the cells they
  share); the others form groups of their own, shown apart with what differs.  A file written before cells
  recorded their data's checksums cannot show it ran on the same data, so it is never ranked with another.
- In a cell every row is ranked by the mean of the cell's main metric with the benchmark's own rule
  (:func:`~experiments.reports.benchmark.competition_ranks`), so with one entrant its rank is the rank its
  benchmark report gives; beside it, its rank in its own benchmark ("3 of 10").
- Each entrant's test against the best classic model of the cell is the combined p-value its benchmark
  recorded (:mod:`experiments.reports.significance`), then Holm-adjusted for every such test on the board.
- The floors (all-sarcastic, majority, TF-IDF + LR) are the reference rows' means; a file written before the
  reference rows were compared gives the two constant floors from its test labels (unranked rows) and no
  TF-IDF + LR.  Every row names the floors it scores below.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from experiments.reports import figures
from experiments.reports.benchmark import (
    compared_rows,
    competition_ranks,
    floor_means,
    floors_above,
    model_columns,
    p_text,
    rank_text,
)
from experiments.reports.format import markdown_table
from experiments.runs.one.operating_point import floors_of
from experiments.reports.significance import holm
from experiments.results.files import COMMITTED as COMMITTED_FOLDER
from experiments.results.files import load_results, require_kind, retired_results
from experiments.results.schema import Result
from experiments.runs.one.store import write_text
from preprocessing.errors import IsarcasmError

NAME = "leaderboard"
#: The floors every row is read against, in the order the table names them, with how it names them.
FLOORS = {"all-sarcastic": "all-sarcastic", "majority": "majority", "tfidf-lr": "TF-IDF + LR"}
#: Where the benchmark files of a board come from, as the board says it.
RESULTS, COMMITTED = "results", "committed"
_SHOWN_DIFFERENCES = 4


@dataclass(frozen=True)
class Entry:
    """One benchmark results file on the board: its contents, its path and where it was found."""

    result: Result
    path: Path
    source: str

    @property
    def model(self) -> str:
        return self.result.model

    @property
    def shown(self) -> str:
        """The file as the board names it: a committed one from the repository's root, another as found."""
        if self.source == COMMITTED:
            return str(Path(COMMITTED_FOLDER.parent.name, COMMITTED_FOLDER.name, self.path.name))
        return str(self.path)


def benchmark_entries(folder: Path, committed: Path | None) -> tuple[list[Entry], list[str]]:
    """Every ``benchmark-*.json`` of the results ``folder``, then of ``committed`` (None: not read); an entrant
    benchmarked in both is taken from ``folder``.  A committed file made by what left the suite (the exact
    engine) stays on the board, never ranked with another (:func:`differences`).  Returns the entries and a line per committed file left out."""
    entries, shadowed = [], []
    places = [(folder, RESULTS)] + ([(committed, COMMITTED)] if committed else [])
    seen_folders = set()
    for place, source in places:
        if not place.is_dir() or place.resolve() in seen_folders:
            continue
        seen_folders.add(place.resolve())
        for path in sorted(place.glob("benchmark-*.json")):
            result = load_results(path, retired=source == COMMITTED)  # the committed record, whatever made it
            require_kind(result, "benchmark", "the leaderboard")
            _check_rows(result, path)
            if any(entry.model == result.model for entry in entries):
                shadowed.append(f"{path.name}: {result.model} is on the board from {folder}/")
                continue
            entries.append(Entry(result, path, COMMITTED if committed and place.resolve() == committed.resolve()
                                 else source))
    return entries, shadowed


def _check_rows(result: Result, path: Path) -> None:
    """One line naming the first score the board reads that a benchmark file lacks or holds malformed (an
    edited or truncated file): the entrant's and every compared model's mean, values and seeds."""
    for number, cell in enumerate(result.cells, start=1):
        compared = [(f"'{row.get('model')}'", row) for row in compared_rows(cell)]
        for where, row in [("candidate", cell["candidate"]), *compared]:
            wrong = [key for key, kinds in (("mean", (int, float)), ("values", list), ("seeds", list))
                     if not isinstance(row.get(key), kinds)]
            if where != "candidate":
                wrong += [] if isinstance(row.get("model"), str) else ["model"]
                wrong += [] if row.get("p_value") is None or isinstance(row["p_value"], (int, float)) else ["p_value"]
            if wrong or not math.isfinite(row["mean"]):
                raise IsarcasmError(f"{path}: cell {number}, {where}: missing or malformed "
                                    f"{', '.join(wrong or ['mean'])}; run the benchmark that made it again")


def differences(a: Entry, b: Entry) -> list[str]:
    """What keeps two benchmarks from being ranked together: other seeds, training settings, paired test,
    data (the corpus files' checksums of the cells they share) or classic and reference runs; [] when
    nothing does."""
    ra, rb = a.result, b.result
    gone = {entry.path.name: retired_results(entry.result.to_dict()) for entry in (a, b)}
    found = [f"{name}: {why}" for name, why in gone.items() if why][:1] if len(set(gone.values())) > 1 else []
    if ra.seeds != rb.seeds:
        found.append(f"seeds {_seeds(ra.seeds)}, not {_seeds(rb.seeds)}")
    train_a, train_b = ra.train or {}, rb.train or {}
    settings = sorted(key for key in {*train_a, *train_b} if train_a.get(key, "—") != train_b.get(key, "—"))
    if settings:
        shown = ", ".join(f"{key} {train_a.get(key, 'not recorded')} (not {train_b.get(key, 'not recorded')})"
                          for key in settings[:_SHOWN_DIFFERENCES])
        more = f" and {len(settings) - _SHOWN_DIFFERENCES} more" if len(settings) > _SHOWN_DIFFERENCES else ""
        found.append(f"training settings: {shown}{more}")
    if (ra.method, ra.resamples) != (rb.method, rb.resamples):
        found.append(f"paired test {_test(ra.method, ra.resamples)}, not {_test(rb.method, rb.resamples)}")
    cells_a, cells_b = _cells(ra), _cells(rb)
    shared = [(key, cells_a[key], cells_b[key]) for key in cells_a if key in cells_b]
    unrecorded = [entry.path.name for side, entry in ((1, a), (2, b)) if any(not pair[side].get("data_sha256")
                                                                            for pair in shared)]
    if unrecorded:
        found.append(f"data checksums not recorded in {' and '.join(dict.fromkeys(unrecorded))} (written before "
                     "benchmark recorded them: run that benchmark again to rank it with others)")
    else:
        data = [" ".join(key) for key, cell, other in shared if cell["data_sha256"] != other["data_sha256"]]
        if data:
            found.append(f"other data in {', '.join(data)} (the corpus files' sha256 differ)")
    runs = [" ".join(key) for key, cell, other in shared if _compared_scores(cell) != _compared_scores(other)]
    if runs and not found:
        found.append(f"other runs of the classic models or reference rows in {', '.join(runs)} (their scores differ)")
    return found


def _cells(result: Result) -> dict[tuple[str, str], dict]:
    return {(cell["experiment"], cell["cell"]): cell for cell in result.cells}


def _compared_scores(cell: dict) -> dict[str, list]:
    return {row["model"]: row["values"] for row in compared_rows(cell)}


def _seeds(seeds: list[int]) -> str:
    return ", ".join(map(str, seeds))


def _test(method: str, resamples: int | None) -> str:
    """A benchmark's paired test in words."""
    return method + (f" ({resamples:,} resamples)" if resamples else "")


def groups_of(entries: list[Entry]) -> list[list[Entry]]:
    """The entries in groups ranked together: each joins the first group with every member of which
    :func:`differences` finds nothing, else starts one.  The largest group comes first, then in order."""
    groups: list[list[Entry]] = []
    for entry in entries:
        home = next((group for group in groups if not any(differences(entry, other) for other in group)), None)
        if home is None:
            groups.append([entry])
        else:
            home.append(entry)
    return sorted(groups, key=lambda group: -len(group))


def leaderboard(entries: list[Entry], shadowed: list[str] | None = None) -> Result:
    """The board of ``entries``: its groups (each after the first with why it is not ranked with the first)
    and, per group, a cell per experiment cell with every row ranked; the entrants' tests against the best classic
    model Holm-adjusted over the whole board."""
    if not entries:
        raise IsarcasmError("no benchmark results to put on a leaderboard: run `isarcasm benchmark MODEL` first "
                            "(it writes RESULTS_DIR/benchmark-MODEL.json)")
    groups, cells, ordered = [], [], groups_of(entries)
    for number, group in enumerate(ordered):
        first = group[0].result
        apart = next((found for other in ordered[0] if (found := differences(group[0], other))), []) if number else []
        groups.append({"entrants": [entry.model for entry in group], "seeds": first.seeds,
                       "train": first.train, "method": first.method, "resamples": first.resamples,
                       "apart": apart})
        cells += [{"group": number, **cell} for cell in _group_cells(group, _shares([*group, *entries]))]
    tested = [row for cell in cells for row in cell["rows"] if row.get("p_vs_best_classic") is not None]
    for row, adjusted in zip(tested, holm([row["p_vs_best_classic"] for row in tested])):
        row["p_holm"] = adjusted
    entrants = [{"model": e.model, "source": e.source, "file": e.shown, "seeds": e.result.seeds,
                 "git_commit": e.result.git_commit} for e in entries]
    return Result(NAME, NAME, cells, {"tests": len(tested), "entrants": entrants, "groups": groups,
                                      "shadowed": shadowed or []})


def _shares(entries: list[Entry]) -> dict[tuple[str, str], tuple[float, str]]:
    """The sarcastic share of each cell's test split (the published one, whatever the seeds or settings: a
    benchmark ranks on no other) as the first file recording it gives it, and that file's name: the constant
    floors of a cell whose own file (written before benchmark recorded them) lacks them.  The group's own
    files come first."""
    shares = {}
    for entry in entries:
        for key, cell in _cells(entry.result).items():
            if cell.get("all_sarcastic"):
                shares.setdefault(key, (cell["all_sarcastic"]["sarcastic_share"], entry.path.name))
    return shares


def _group_cells(group: list[Entry], shares: dict[tuple[str, str], tuple[float, str]]) -> list[dict]:
    """Every cell any entrant of the group was benchmarked in, in the order first met."""
    keys = list(dict.fromkeys(key for entry in group for key in _cells(entry.result)))
    return [_board_cell([(entry, _cells(entry.result)[key]) for entry in group if key in _cells(entry.result)],
                        len(group[0].result.seeds), shares.get(key)) for key in keys]


def _board_cell(present: list[tuple[Entry, dict]], seeds: int, share: tuple[float, str] | None) -> dict:
    """One cell of the board: the entrants, then the classic models and reference rows their files compared
    them with (an entrant's own row where it is one of them), the constant floors from the test labels where
    no reference row holds them (``share``: the test split's sarcastic share and the file it comes from);
    every row ranked, with the floors it scores below."""
    first = present[0][1]
    rows = {entry.model: _entrant_row(entry, cell) for entry, cell in present}
    for _, cell in present:
        for role, compared in (("classic", cell["classics"]), ("reference", cell.get("references", []))):
            for row in compared:
                rows.setdefault(row["model"], {**_scores(row), "model": row["model"], "role": role})
    ranks = competition_ranks({name: row["mean"] for name, row in rows.items()})
    for name, row in rows.items():
        row.update(ranks[name])
    floors = {name: mean for _, cell in present for name, mean in floor_means(cell).items()}
    constant = floors_of(share[0]) if share and first["metric"] == "f1_sarcastic" else None
    for name, key in (("all-sarcastic", "all_sarcastic"), ("majority", "majority")):
        if constant and name not in rows:
            floors[name] = constant[key][first["metric"]]
            rows[name] = {**_floor_row(name, constant[key], first["metric"], seeds), "source": share[1]}
    floors = {name: floors[name] for name in FLOORS if name in floors}
    for name, row in rows.items():
        row["below"] = [floor for floor, _ in floors_above(row["mean"], floors) if floor != name]
    ordered = sorted(rows.values(), key=lambda row: (-row["mean"], row["role"] != "entrant"))
    return {"experiment": first["experiment"], "cell": first["cell"], "metric": first["metric"], "floors": floors,
            "rows": ordered}


def _entrant_row(entry: Entry, cell: dict) -> dict:
    """An entrant's row: its scores and costs, its rank in its own benchmark, and its recorded paired test
    against the best classic model of the cell (the highest mean; None where no classic run was found)."""
    best = max(cell["classics"], key=lambda row: row["mean"], default=None)
    return {**_scores(cell["candidate"]), "model": entry.model, "role": "entrant", "source": entry.source,
            "benchmark_rank": {"rank": cell["rank"], "shared": cell.get("shared", False), "of": cell["of"]},
            "best_classic": best["model"] if best else None,
            "p_vs_best_classic": best["p_value"] if best else None}


#: What a row keeps of a benchmark file's statistics: its main metric's summary, macro-F1, predicted share, costs.
_KEPT = ("mean", "std", "values", "seeds", "f1_macro", "predicted_sarcastic", "parameters", "train_seconds",
         "setup_seconds", "predict_texts_per_second", "peak_memory_mb")


def _scores(row: dict) -> dict:
    return {key: row[key] for key in _KEPT if key in row}


def _floor_row(name: str, floor: dict, metric: str, seeds: int) -> dict:
    """A constant floor's row from the test labels (every seed scores the same): unranked, never compared."""
    constant = lambda value: {"mean": value, "std": 0.0, "values": [value] * seeds}  # noqa: E731
    return {**constant(floor[metric]), "model": name, "role": "floor", "seeds": list(range(seeds)),
            "f1_macro": constant(floor["f1_macro"]),
            "predicted_sarcastic": constant(1.0 if floor["f1_sarcastic"] > 0 else 0.0)}


# --- the report -------------------------------------------------------------------------------------------

#: The summary table: every entrant in every cell of its group.
SUMMARY_COLUMNS = ["group", "cell", "entrant", "mean ± std", "rank", "rank in its benchmark", "best classic",
                   "p vs best classic", "p (Holm, board)", "floors"]
#: A cell's table: every row.
COLUMNS = ["rank", "model", "mean ± std", "macro-F1", "predicted sarcastic", "parameters", "training per run",
           "predicting", "peak memory", "seeds", "rank in its benchmark", "p vs best classic", "p (Holm, board)",
           "floors"]


def leaderboard_markdown(board: Result, figures: list[str] | None = None) -> str:
    """The board as markdown: what it reads, a summary of every entrant in every cell, then per group (each
    after the first with why it is apart) a table per cell, after the cell's figure where ``figures`` (a
    file name per cell of the board, for the HTML page) gives one."""
    lines = [
        "# Leaderboard: the benchmarked entrants beside the classic models and the floors",
        "",
        (f"{len(board.entrants)} benchmark results files "
         f"({', '.join(_entry_name(e) for e in board.entrants)}). "
         "Per cell of each experiment: every entrant, the classic models and the reference rows (all-sarcastic, "
         "majority, TF-IDF + LR) its benchmark compared it with; mean ± std over seeds of the cell's main metric "
         "(sarcastic-class F1; macro-F1 for multi-class corpora). Rank: among every ranked row of the cell (ties "
         "share a rank, 2=), as `isarcasm benchmark` ranks; rank in its benchmark: the entrant among the classic "
         "models and reference rows alone, as its report gives it. p vs best classic: the paired test its "
         "benchmark recorded against the classic model with the highest mean in the cell; p (Holm, board): "
         f"adjusted for the {board.tests} such tests of this board. Floors: those whose mean is above the "
         "row's. Floor rows in italics, unranked, come from the test labels (the benchmark file holds no "
         "reference row for them). Costs as in the benchmark reports: comparable only between runs of one sweep "
         "on one machine. Entrants are ranked together only when their benchmarks share seeds, training "
         "settings, paired test, data (the corpus files' sha256) and classic runs; the others are shown apart, "
         "with why."),
        "",
        "## Every entrant in every cell",
        "",
        *markdown_table([_summary_row(cell, row) for cell in board.cells for row in cell["rows"]
                         if row["role"] == "entrant"], SUMMARY_COLUMNS),
    ]
    for number, group in enumerate(board.groups):
        lines += ["", _group_heading(number, group), ""]
        if group["apart"]:
            lines += [f"Not ranked with group 1: {'; '.join(group['apart'])}.", ""]
        for index, cell in enumerate(board.cells):
            if cell["group"] == number:
                lines += [f"### {_cell_name(cell)}", ""]
                lines += [f"![{_cell_name(cell)}]({figures[index]})", ""] if figures else []
                lines += [*markdown_table([_row(row, bool(cell["floors"])) for row in cell["rows"]], COLUMNS), ""]
    if board.shadowed:
        lines += ["", "Left out (the results folder's file of the same entrant is on the board):", "",
                  *(f"- {line}" for line in board.shadowed)]
    lines += ["", "## Where the entries come from", "",
              *(f"- {_entry_name(e)}: `{e['file']}` (seeds {_seeds(e['seeds'])}, commit `{e['git_commit']}`)"
                for e in board.entrants)]
    return "\n".join(lines) + "\n"


def _entry_name(entry: dict) -> str:
    return f"{entry['model']} ({entry['source']})"


def _cell_name(cell: dict) -> str:
    return f"{cell['experiment']} {cell['cell']} ({cell['metric']})"


def _group_heading(number: int, group: dict) -> str:
    kind = "ranked together" if len(group["entrants"]) > 1 else "alone"
    return (f"## Group {number + 1}: {', '.join(group['entrants'])} ({kind}; seeds {_seeds(group['seeds'])}, "
            f"{_test(group['method'], group.get('resamples'))})")


def _summary_row(cell: dict, row: dict) -> list[str]:
    """An entrant's line in the summary: where, its score and ranks, its test against the best classic model."""
    rank, name, mean, *_, benchmark, _, adjusted, below = _row(row, bool(cell["floors"]))
    return [str(cell["group"] + 1), _cell_name(cell), name, mean, rank, benchmark, row["best_classic"] or "—",
            p_text(row["p_vs_best_classic"]), adjusted, below]


def _row(row: dict, floors: bool) -> list[str]:
    """A row's columns: rank, name (entrants bold, reference rows and floors in italics), its scores and costs,
    then an entrant's rank in its benchmark and tests, and the floors above it (``floors``: whether the cell
    has any)."""
    name = {"entrant": f"**{row['model']}** ({row.get('source')})", "classic": row["model"],
            "reference": f"*{row['model']}* (reference)",
            "floor": f"*{row['model']}* (test labels of {row.get('source')})"}
    ranked = row if row["role"] != "floor" else {}
    columns = model_columns(name[row["role"]], ranked, row)
    entrant = row["role"] == "entrant"
    benchmark = row.get("benchmark_rank")
    tests = [f"{rank_text(benchmark)} of {benchmark['of']}", p_text(row["p_vs_best_classic"])
             + (f" ({row['best_classic']})" if row["best_classic"] else ""), p_text(row.get("p_holm"))] \
        if entrant else ["", "", ""]
    below = ", ".join(f"below {FLOORS[floor]}" for floor in row["below"]) or \
        ("clears every floor" if entrant and floors else "")
    return [*columns, *tests, below]


def leaderboard_html(board: Result, folder: Path) -> Path:
    """``folder/index.html``: the board's report with each cell's figure (PNG files beside it, drawn into
    ``folder``) above its table, the tables sortable by their headers, nothing fetched from elsewhere."""
    drawn = figures.leaderboard_figures(board, folder)
    page = figures.html_page("Leaderboard", [figures.markdown_to_html(leaderboard_markdown(board, [
        path.name for path in drawn]))], style="td{white-space:nowrap}")
    path = folder / "index.html"
    write_text(path, page)
    return path

"""The leaderboard puts every benchmark results file side by side: entrants of the same protocol ranked together
with the benchmark's own rank rule and the p-values their benchmarks recorded (Holm over the board), the others
apart with why, every row saying which floor it scores below; a page with a figure per cell, checked in a real
browser where one is installed."""
import json
import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np
import pytest
from click.testing import CliRunner
from markdown_tables import unpadded
from toy_corpus import write_corpus

from experiments.cli import main
from experiments.reports.benchmark import p_text
from experiments.reports.leaderboard import Entry, benchmark_entries, differences, leaderboard, leaderboard_markdown
from experiments.reports.significance import holm
from experiments.results.files import COMMITTED
from experiments.results.schema import Result

SHA = {"toy.csv": "a" * 64}
TRAIN = {"epochs": 30, "engine": "fast"}
#: The all-sarcastic floor of a test split a fifth sarcastic: 2 * 0.2 / 1.2.
FLOOR = 1 / 3


def _row(model: str, values: list[float], p: float | None = None) -> dict:
    return {"model": model, "mean": float(np.mean(values)), "std": float(np.std(values, ddof=1)),
            "values": values, "seeds": list(range(len(values))), **({"p_value": p} if p is not None else {})}


def bench(model: str, mean: float, *, seeds=(0, 1), train=None, data=SHA, classics=None, p=0.04, cell="isarcasm",
          references=True) -> dict:
    """A benchmark results file of ``model`` in one table7 cell, with two classic models (the best at 0.30,
    tested at ``p``) and the three reference rows."""
    classics = classics or {"siarn": [0.29, 0.31], "lstm": [0.20, 0.22]}
    rows = [{**_row(name, values), "p_value": p if name == "siarn" else 0.5} for name, values in classics.items()]
    refs = [_row("all-sarcastic", [FLOOR] * 2, 0.2), _row("majority", [0.0] * 2, 0.01),
            _row("tfidf-lr", [0.27, 0.29], 0.3)] if references else []
    everyone = {model: mean, **{row["model"]: row["mean"] for row in rows + refs}}
    rank = 1 + sum(value > mean for value in everyone.values())
    return Result.from_dict({
        "experiment": f"benchmark-{model}", "kind": "benchmark", "model": model, "experiments": ["table7"],
        "method": "bootstrap", "resamples": 1000, "seeds": list(seeds), "train": train or TRAIN, "missing": [],
        "git_commit": "0" * 40,
        "cells": [{"experiment": "table7", "cell": cell, "metric": "f1_sarcastic", "model": model,
                   "candidate": {**_row(model, [mean - 0.01, mean + 0.01]), "seeds": list(seeds)}, "rank": rank,
                   "shared": False, "of": len(everyone), "classics": rows, "references": refs,
                   "all_sarcastic": {"sarcastic_share": 0.2, "f1_sarcastic": FLOOR, "f1_macro": FLOOR / 2},
                   **({"data_sha256": data} if data else {})}]})


def entry(tmp_path, result: Result, source="results") -> Entry:
    path = tmp_path / f"{result.experiment}.json"
    path.write_text(json.dumps(result.to_dict()))
    return Entry(result, path, source)


def test_entrants_of_one_protocol_are_ranked_together_with_every_classic_and_reference_row(tmp_path):
    board = leaderboard([entry(tmp_path, bench("mine", 0.35, p=0.04)), entry(tmp_path, bench("other", 0.25, p=0.01))])
    assert [group["entrants"] for group in board.groups] == [["mine", "other"]]
    (cell,) = board.cells
    ranks = {row["model"]: (row["rank"], row["role"]) for row in cell["rows"]}
    assert ranks == {"mine": (1, "entrant"), "all-sarcastic": (2, "reference"), "siarn": (3, "classic"),
                     "tfidf-lr": (4, "reference"), "other": (5, "entrant"), "lstm": (6, "classic"),
                     "majority": (7, "reference")}
    mine, other = (next(row for row in cell["rows"] if row["model"] == name) for name in ("mine", "other"))
    # Each entrant keeps its own benchmark's rank and its recorded test against the best classic model ...
    assert (mine["benchmark_rank"]["rank"], other["benchmark_rank"]["rank"]) == (1, 4)
    assert (mine["best_classic"], mine["p_vs_best_classic"], other["p_vs_best_classic"]) == ("siarn", 0.04, 0.01)
    # ... Holm-adjusted over every such test of the board.
    assert [mine["p_holm"], other["p_holm"]] == holm([0.04, 0.01]) == [0.04, 0.02]
    assert cell["floors"] == pytest.approx({"all-sarcastic": FLOOR, "majority": 0.0, "tfidf-lr": 0.28})
    assert (mine["below"], other["below"]) == ([], ["all-sarcastic", "tfidf-lr"])
    report = unpadded(leaderboard_markdown(board))
    (line,) = [line for line in report.splitlines() if line.startswith("| 5 | **other** (results) | 0.250 ± 0.014 |")]
    assert line.endswith("| 4 of 6 | 0.0100 (siarn) | 0.0200 | below all-sarcastic, below TF-IDF + LR |")
    assert "| 1 | **mine** (results) | 0.350 ± 0.014 |" in report and "clears every floor |" in report


@pytest.mark.parametrize("change, reason", [
    ({"seeds": (0, 1, 2)}, "seeds 0, 1, 2, not 0, 1"),
    ({"train": {"epochs": 10, "engine": "fast"}}, "training settings: epochs 10 (not 30)"),
    ({"train": {"epochs": 30}}, "training settings: engine not recorded (not fast)"),
    ({"data": {"toy.csv": "b" * 64}}, "other data in table7 isarcasm (the corpus files' sha256 differ)"),
    ({"data": None}, "data checksums not recorded in benchmark-late.json"),
    ({"classics": {"siarn": [0.30, 0.32], "lstm": [0.20, 0.22]}}, "other runs of the classic models or reference "
                                                                   "rows in table7 isarcasm"),
])
def test_an_entrant_of_other_seeds_settings_data_or_runs_is_shown_apart_saying_why(tmp_path, change, reason):
    first, late = entry(tmp_path, bench("first", 0.3)), entry(tmp_path, bench("late", 0.3, **change))
    assert any(reason in line for line in differences(late, first))
    board = leaderboard([first, late])
    assert [group["entrants"] for group in board.groups] == [["first"], ["late"]]
    assert any(reason in line for line in board.groups[1]["apart"])
    assert {cell["group"] for cell in board.cells} == {0, 1}
    assert "Not ranked with group 1: " in leaderboard_markdown(board)


def test_benchmarks_of_other_cells_alone_share_a_group_without_sharing_a_cell(tmp_path):
    board = leaderboard([entry(tmp_path, bench("a", 0.3)), entry(tmp_path, bench("b", 0.3, cell="isarcasmeval"))])
    assert len(board.groups) == 1 and [cell["cell"] for cell in board.cells] == ["isarcasm", "isarcasmeval"]


def test_a_file_without_reference_rows_gets_the_constant_floors_from_its_test_labels_unranked(tmp_path):
    board = leaderboard([entry(tmp_path, bench("old", 0.25, references=False))])
    rows = {row["model"]: row for row in board.cells[0]["rows"]}
    assert (rows["all-sarcastic"]["role"], rows["all-sarcastic"]["mean"]) == ("floor", pytest.approx(FLOOR))
    assert "rank" not in rows["all-sarcastic"] and rows["old"]["rank"] == 2  # as its benchmark ranks it
    assert rows["old"]["below"] == ["all-sarcastic"]
    assert "| — | *all-sarcastic* (test labels of benchmark-old.json) | 0.333 ± 0.000 |" in unpadded(
        leaderboard_markdown(board))


def test_a_single_committed_entrant_gets_its_benchmark_reports_ranks_and_p_values(tmp_path):
    entries, _ = benchmark_entries(tmp_path / "no-results", COMMITTED)
    assert {e.model for e in entries} >= {"tfidf-lr"}
    for one in entries:
        board = leaderboard([one])
        recorded = {(c["experiment"], c["cell"]): c for c in one.result.cells}
        assert len(board.cells) == len(recorded)
        for cell in board.cells:
            own = recorded[cell["experiment"], cell["cell"]]
            row = next(row for row in cell["rows"] if row["role"] == "entrant")
            best = max(own["classics"], key=lambda r: r["mean"])
            assert (row["rank"], row["shared"]) == (own["rank"], own.get("shared", False)), (one.model, cell["cell"])
            assert row["benchmark_rank"]["of"] == own["of"]
            assert row["p_vs_best_classic"] == best["p_value"]
            assert all(classic["rank"] == r["rank"] for r in own["classics"] for classic in cell["rows"]
                       if classic["model"] == r["model"] and "rank" in r)


# --- the command, end to end -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def benchmarked(tmp_path_factory):
    """Two entrants (outside predictions) benchmarked by the command in a toy table7 cell with the reference rows:
    one above the all-sarcastic floor (0.4), one below it."""
    from experiments.runs.entrants.registry import ENTRANTS

    saved = dict(ENTRANTS._items)
    root = tmp_path_factory.mktemp("board")
    corpus = write_corpus(root / "toy.csv")
    experiment = root / "mini.toml"
    experiment.write_text(f"name = 'table7'\n[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n")
    chosen = {"eager": lambda i: i % 4 == 0 or i % 8 == 1, "poor": lambda i: i % 2 == 1 or i % 8 == 0}
    for name, sarcastic in chosen.items():
        folder = root / name
        folder.mkdir()
        (folder / "toy.tsv").write_text("id\tp_sarcastic\n" + "".join(f"test{i}\t{0.9 if sarcastic(i) else 0.1}\n"
                                                                      for i in range(40)))
        outcome = CliRunner().invoke(main, [
            "benchmark", name, "--predictions", str(folder), "--experiments", str(experiment), "--seeds", "2",
            "--epochs", "1", "--set", "embeddings=random", "--split-col", "split", "--resamples", "300",
            "--output-dir", str(root / "runs"), "--results-dir", str(root / "results")])
        assert outcome.exit_code == 0, outcome.output
    ENTRANTS._items.clear()
    ENTRANTS._items.update(saved)
    return root / "results"


def test_two_benchmarked_entrants_share_one_table_with_their_reports_ranks(benchmarked):
    outcome = CliRunner().invoke(main, ["leaderboard", "--no-committed", "--results-dir", str(benchmarked), "--json"])
    assert outcome.exit_code == 0, outcome.output
    board = json.loads(outcome.output)
    assert board == json.loads((benchmarked / "leaderboard.json").read_text())
    assert [group["entrants"] for group in board["groups"]] == [["eager", "poor"]]  # data checksums recorded, equal
    (cell,) = board["cells"]
    assert [row["model"] for row in cell["rows"] if row["role"] == "reference"] == ["tfidf-lr", "all-sarcastic",
                                                                                     "majority"]
    for name in ("eager", "poor"):
        recorded = json.loads((benchmarked / f"benchmark-{name}.json").read_text())["cells"][0]
        row = next(row for row in cell["rows"] if row["model"] == name)
        assert (row["benchmark_rank"]["rank"], row["benchmark_rank"]["of"]) == (recorded["rank"], recorded["of"])
        assert row["mean"] == recorded["candidate"]["mean"]
    poor = next(row for row in cell["rows"] if row["model"] == "poor")
    assert poor["below"] == ["tfidf-lr", "all-sarcastic"]  # the highest floor first
    report = unpadded((benchmarked / "leaderboard.md").read_text())
    assert "| **poor** (results) | 0.286 ± 0.000 |" in report and "below TF-IDF + LR, below all-sarcastic |" in report


def test_the_command_refuses_in_one_line_no_benchmark_or_a_malformed_one(tmp_path):
    outcome = CliRunner().invoke(main, ["leaderboard", "--no-committed", "--results-dir", str(tmp_path)])
    assert outcome.exit_code == 1 and "run `isarcasm benchmark MODEL` first" in outcome.output
    broken = bench("broken", 0.3)
    del broken.cells[0]["candidate"]["values"]
    (tmp_path / "benchmark-broken.json").write_text(json.dumps(broken.to_dict()))
    outcome = CliRunner().invoke(main, ["leaderboard", "--no-committed", "--results-dir", str(tmp_path)])
    assert outcome.exit_code == 1 and len(outcome.output.strip().splitlines()) == 1
    assert "benchmark-broken.json: cell 1, candidate: missing or malformed values" in outcome.output


class _Tables(HTMLParser):
    """The text of every table cell of a page, table by table, row by row."""

    def __init__(self):
        super().__init__()
        self.tables, self.images, self.scripts, self.in_cell = [], [], [], False

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.tables[-1][-1].append("")
            self.in_cell = True
        elif tag == "img":
            self.images.append(dict(attrs)["src"])
        elif tag == "script":
            self.scripts.append(dict(attrs).get("src"))

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1][-1] = self.tables[-1][-1][-1].strip()
            self.in_cell = False

    def handle_data(self, data):
        if self.in_cell:
            self.tables[-1][-1][-1] += data


def _parsed(text: str) -> _Tables:
    parser = _Tables()
    parser.feed(text)
    return parser


def _page(benchmarked):
    outcome = CliRunner().invoke(main, ["leaderboard", "--no-committed", "--results-dir", str(benchmarked), "--html"])
    assert outcome.exit_code == 0, outcome.output
    page = benchmarked / "leaderboard" / "index.html"
    return page, json.loads((benchmarked / "leaderboard.json").read_text())


def test_the_page_is_self_contained_with_a_figure_per_cell(benchmarked):
    page, board = _page(benchmarked)
    parsed = _parsed(page.read_text())
    assert parsed.scripts == [None]  # one inline script (the sortable tables), nothing fetched
    assert len(parsed.images) == len(board["cells"]) and all((page.parent / src).is_file() for src in parsed.images)
    assert "http" not in page.read_text().replace("sort by", "")
    assert len(parsed.tables) == 1 + len(board["cells"])  # the summary, then a table per cell


def _summary_numbers(table: list[list[str]]) -> list[tuple[str, str, str, str]]:
    header = table[0]
    return [(row[header.index("entrant")].split()[0], row[header.index("mean ± std")], row[header.index("rank")],
             row[header.index("p vs best classic")]) for row in table[1:]]


def _entrants(board: dict) -> list[tuple[dict, dict]]:
    return [(cell, row) for cell in board["cells"] for row in cell["rows"] if row["role"] == "entrant"]


def test_the_page_renders_in_headless_chromium_with_the_jsons_numbers(benchmarked, tmp_path):
    chromium = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    if chromium is None:
        pytest.skip("no Chromium on this machine (Debian: apt-get install chromium; .ci/run installs it)")
    page, board = _page(benchmarked)
    shot = tmp_path / "page.png"
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,2000"]
    subprocess.run([*flags, f"--screenshot={shot}", page.as_uri()], check=True, capture_output=True, timeout=120)
    import matplotlib.image

    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[:2] == (2000, 1400) and pixels[..., :3].std() > 0.05  # not a blank page
    dom = subprocess.run([*flags, "--dump-dom", page.as_uri()], check=True, capture_output=True, text=True,
                         timeout=120).stdout
    expected = [(row["model"], f"{row['mean']:.3f} ± {row['std']:.3f}", str(row["rank"]),
                 p_text(row["p_vs_best_classic"])) for _, row in _entrants(board)]
    assert _summary_numbers(_parsed(dom).tables[0]) == expected
    # A click on a header sorts the table by that column, highest first, a second click lowest first (against
    # the page's own order), by the script in the page itself.
    clicked = page.with_name("clicked.html")
    header = "document.querySelector('table').querySelectorAll('th')[3]"
    twice = f"<script>{header}.click(); {header}.click()</script></body>"
    clicked.write_text(page.read_text().replace("</body>", twice))
    dom = subprocess.run([*flags, "--dump-dom", clicked.as_uri()], check=True, capture_output=True, text=True,
                         timeout=120).stdout
    means = [float(mean.split()[0]) for _, mean, _, _ in _summary_numbers(_parsed(dom).tables[0])]
    assert means == sorted(round(row["mean"], 3) for _, row in _entrants(board)) and means[0] < means[-1]


def test_a_committed_benchmark_of_the_exact_engine_stays_on_the_board_apart_and_a_users_is_refused(tmp_path):
    """The board shows every entrant benchmarked so far: a committed benchmark the exact engine trained stays,
    in a group of its own that says why; a user's file of that kind is refused in one line."""
    from experiments.results.files import RetiredResults

    committed, mine = tmp_path / "committed", tmp_path / "mine"
    committed.mkdir(), mine.mkdir()
    fast = json.loads((COMMITTED / "benchmark-tfidf-lr.json").read_text(encoding="utf-8"))
    exact = {**fast, "model": "bigru", "train": {k: v for k, v in fast["train"].items() if k != "engine"}}
    (committed / "benchmark-tfidf-lr.json").write_text(json.dumps(fast))
    (committed / "benchmark-bigru.json").write_text(json.dumps(exact))  # made before engines had names
    entries, left_out = benchmark_entries(mine, committed)
    assert sorted(e.model for e in entries) == ["bigru", "tfidf-lr"] and left_out == []
    groups = leaderboard(entries).groups
    assert [group["entrants"] for group in groups] == [["bigru"], ["tfidf-lr"]]
    assert groups[1]["apart"][0] == "benchmark-bigru.json: trained by the exact engine"
    (mine / "benchmark-bigru.json").write_text(json.dumps(exact))
    with pytest.raises(RetiredResults, match="trained by the exact engine"):
        benchmark_entries(mine, committed)

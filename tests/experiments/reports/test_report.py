"""Report formatting: like-for-like rows, deltas, flags, variants."""

import pytest
from markdown_tables import cells, tables, unpadded

from experiments.reports.table import comparison_markdown, markdown_report, results_csv
from experiments.results.schema import Result
from experiments.studies.experiment import Cell, Reference
from experiments.runs.one.metrics import per_class_scores
from experiments.studies.cells import aggregate
from preprocessing.errors import IsarcasmError


def result_with(values, references, note="a data note"):
    cell = Cell("riloff", "lstm", tuple(references), note)
    metrics = [{"test": {"f1_sarcastic": v, "f1_macro": v + 0.1, "precision_sarcastic": 0.5}, "selected_epoch": 3,
                "train_seconds": 10.0} for v in values]
    return Result("table", "t", [aggregate(cell, metrics, ["d"] * len(values), list(range(len(values))))],
                  {"title": "T", "source": "S", "seeds": list(range(len(values))), "git_commit": "abc",
                   "wall_seconds": 3725, "compute_seconds": 60})


def test_rows_compare_each_reference_in_its_own_metric():
    result = result_with([0.60, 0.70], [Reference("published", "f1_macro", 0.70),
                                        Reference("iSarcasm impl.", "f1_sarcastic", 0.66)])
    text = unpadded(markdown_report(result))
    assert "| riloff | lstm | f1_macro | 0.700 | — | 0.750 ± 0.071 | +0.050 | — |" in text
    assert "| riloff | lstm | f1_sarcastic | — | 0.660 | 0.650 ± 0.071 | — | -0.010 |" in text
    assert "Wall time 1 h 02 min" in text
    assert "⚑" not in text
    # the footer names the results file, not a folder it may not be in (--results-dir)
    assert "see `t.json` (in the results directory" in text and "results/t.json" not in text


def test_the_papers_number_stands_under_paper_and_a_reference_no_row_has_is_left_out():
    result = result_with([0.50], [Reference("iSarcasm impl.", "f1_sarcastic", 0.66)])
    header, *rows = tables(markdown_report(result))[0].rows
    assert header == ["corpus", "model", "metric", "paper", "ours (mean ± std)", "Δ paper"]
    assert rows[0] == ["riloff", "lstm", "f1_sarcastic", "0.660", "0.500", "-0.160 ⚑"]
    both = tables(markdown_report(result_with([0.60, 0.70], [Reference("published", "f1_macro", 0.70),
                                                             Reference("iSarcasm impl.", "f1_sarcastic", 0.66)])))
    assert both[0].rows[0] == ["corpus", "model", "metric", "first published", "paper", "ours (mean ± std)",
                               "Δ first published", "Δ paper"]


def test_cells_far_from_the_implementation_are_flagged_with_their_note():
    result = result_with([0.50], [Reference("iSarcasm impl.", "f1_sarcastic", 0.66)], note="smaller corpus")
    text = unpadded(markdown_report(result))
    assert "| 0.660 | 0.500 | -0.160 ⚑ |" in text
    assert "- riloff/lstm f1_sarcastic: -0.160. smaller corpus" in text


@pytest.mark.parametrize("train, smoke", [({"epochs": 2, "max_train": 600}, True),  # --quick
                                          ({"epochs": 30, "max_train": 50}, False),  # an experiment file's cap
                                          ({"epochs": 2, "max_train": None}, False)])
def test_a_quick_runs_report_says_it_is_a_smoke_run_and_flags_nothing(train, smoke):
    result = result_with([0.0], [Reference("iSarcasm impl.", "f1_sarcastic", 0.66)]).updated(train=train)
    text = unpadded(markdown_report(result))
    assert ("**Smoke run** (`--quick`: 2 epoch(s) on at most 600 training texts)" in text) == smoke
    assert ("not comparable" in text) == smoke
    assert ("⚑" in text) != smoke and ("| 0.660 | 0.000 | -0.660 |" in text) == smoke


def test_csv_has_one_row_per_metric_with_references():
    result = result_with([0.60, 0.70], [Reference("published", "f1_macro", 0.70)])
    rows = results_csv(result).splitlines()
    assert rows[0] == "corpus,model,metric,mean,std,n_seeds,published,isarcasm_impl"
    assert "riloff,lstm,f1_macro,0.7500,0.0707,2,0.7,"in rows


def test_the_wall_time_says_when_runs_were_reused_from_an_earlier_invocation():
    result = result_with([0.60, 0.70], [])
    assert "reused" not in markdown_report(result)
    result.cells[0]["reused_runs"] = 2
    assert "2 of 2 runs were finished by an earlier invocation and reused" in markdown_report(result)


def test_per_class_rows_average_each_class_over_the_runs():
    def run(p0, p1):
        return {"per_class": {"0": {"precision": p0, "recall": 0.5, "f1": 0.4, "support": 6},
                              "1": {"precision": p1, "recall": 1.0, "f1": 0.8, "support": 4}}}

    per_class = per_class_scores(("not sarcastic", "sarcastic"), [run(0.2, 0.6), run(0.4, 0.8)], [None, None])
    assert per_class["sarcastic"]["precision"]["mean"] == 0.7
    assert per_class["sarcastic"]["support"] == 4  # per seed, not summed over the runs
    result = result_with([0.60], [])
    result.cells[0]["per_class"] = per_class
    assert ("| riloff | lstm | not sarcastic | 6 | 0.300 ± 0.141 | 0.500 ± 0.000 | 0.400 ± 0.000 |"
            in unpadded(markdown_report(result)))


def test_a_variant_is_compared_cell_by_cell_with_the_difference_of_means():
    base = result_with([0.60, 0.70, 0.65], []).updated(experiment="dialogue")
    variant = result_with([0.70, 0.50, 0.80], []).updated(experiment="dialogue-context-all")
    for result in (base, variant):  # the same folds and seeds, listed in different orders
        ids = [{"seed": 0, "fold": f} for f in (0, 1, 2)]
        result.cells[0]["runs"] = [f"runs/{result.experiment}/riloff/lstm/run-{f}" for f in (1, 2, 3)]
        result.cells[0]["run_ids"] = ids if result is base else ids[::-1]
    text = unpadded(comparison_markdown(base, variant))
    # Paired by fold: 0.60 vs 0.80, 0.70 vs 0.50, 0.65 vs 0.70, so the variant is higher in 2 of 3.
    assert "| riloff | lstm | f1_sarcastic | 0.650 ± 0.050 | 0.667 ± 0.153 | +0.017 | +0.017 | 2/3 |" in text
    assert "Seeds: dialogue 0, 1, 2; dialogue-context-all 0, 1, 2." in text
    # the same runs' Δ where the seeds differ: a variant with a fourth seed moves the means, not the paired Δ
    extra = {**variant.cells[0], "runs": [*variant.cells[0]["runs"], "runs/x/riloff/lstm/run-4"],
             "run_ids": [*variant.cells[0]["run_ids"], {"seed": 1, "fold": 0}],
             "metrics": {"f1_sarcastic": {"mean": 0.75, "std": 0.1, "values": [0.7, 0.5, 0.8, 1.0]}}}
    assert "| 0.650 ± 0.050 | 0.750 ± 0.100 | +0.100 | +0.017 | 2/3 |" in unpadded(
        comparison_markdown(base, variant.updated(cells=[extra])))
    # Without run_ids, runs named after folds are not told apart by their names: refused in one line.
    del base.cells[0]["run_ids"]
    base.cells[0]["runs"] = [f"runs/dialogue/riloff/lstm/fold-{f}/seed-0" for f in (1, 2, 3)]
    base.cells[0]["seeds"] = [0]
    with pytest.raises(IsarcasmError, match="3 runs for 1 seeds and no run_ids"):
        comparison_markdown(base, variant)
    base.cells[0]["run_ids"] = [{"seed": 0, "fold": f} for f in (0, 1, 2)]
    # A variant whose every run failed (learning_rate = 1e30) says so, beside the base's runs.
    failed = {**variant.cells[0], "metrics": {}, "failed_runs": [{"seed": 0, "reason": "non-finite loss"}]}
    text = unpadded(comparison_markdown(base, variant.updated(cells=[failed])))
    assert ("| riloff | lstm | — | 3 run(s), nothing to compare with | 1 of 1 seeds failed: non-finite loss; "
            "no mean | | | |") in text
    variant.cells[0]["model"] = "cnn"
    with pytest.raises(IsarcasmError, match="no \\(corpus, model\\) cell in common"):
        comparison_markdown(base, variant)


# --- the closing note of an as-written table: the authors'-code protocol and its measured difference ---------

def fidelity_file(folder, name, deltas):
    """A fidelity results file of ``name`` whose cells moved F1 by ``deltas`` (authors' code, grid rule alone)."""
    import json

    from experiments.results.schema import Result

    cells = [{"corpus": "riloff", "model": f"m{i}", "paper": {"f1_sarcastic": 0.3}, "protocols": {},
              "ablation": {"authors-code": {"pairs": 3, "mean_delta": code, "higher_in": 2},
                           "as-written+grid": {"pairs": 3, "mean_delta": grid, "higher_in": 2}}}
             for i, (code, grid) in enumerate(deltas)]
    result = Result("fidelity", f"{name}-fidelity", cells, {"title": "F", "corpus": "riloff",
                                                           "sources": {"as-written": name}, "git_commit": "abc"})
    (folder / f"{name}-fidelity.json").write_text(json.dumps(result.to_dict()))


def test_an_as_written_table_ends_pointing_to_the_authors_code_with_the_measured_range(tmp_path):
    from experiments.reports.fidelity import protocol_note

    result = result_with([0.2, 0.3], [Reference("iSarcasm impl.", "f1_sarcastic", 0.33)])
    unmeasured = protocol_note(result, tmp_path)
    assert "`isarcasm reproduce t-authors-code`" in unmeasured
    assert "`isarcasm report t --fidelity`" in unmeasured
    assert "not measured" in unmeasured and "+0." not in unmeasured and "\n" not in unmeasured
    fidelity_file(tmp_path, "t", [(0.031, 0.12), (0.17, 0.05), (-0.01, 0.2)])
    measured = protocol_note(result, tmp_path)
    assert "(3 cells, 3 paired seeds each)" in measured and "\n" not in measured
    assert "F1 by -0.010 to +0.170, its threshold rule alone by +0.050 to +0.200." in measured
    # a variant, a rule applied afterwards, or a table without the paper's F1 gets no note
    assert protocol_note(result.updated(train={"selection": "grid", "batching": "class-ratio"}), tmp_path) == ""
    assert protocol_note(result.updated(selection="grid"), tmp_path) == ""
    assert protocol_note(result_with([0.2], [Reference("published", "f1_macro", 0.7)]), tmp_path) == ""
    # a benchmark's cells hold references of another shape (rows of models): no note, and no KeyError
    benchmark = Result("benchmark", "benchmark-m", [{"references": [{"model": "majority"}]}])
    assert protocol_note(benchmark, tmp_path) == ""
    # fidelity results made from other results are not read as this table's
    fidelity_file(tmp_path, "other", [(0.5, 0.5)])
    (tmp_path / "other-fidelity.json").replace(tmp_path / "t-fidelity.json")
    assert "+0.500" not in protocol_note(result, tmp_path) and "other results" in protocol_note(result, tmp_path)


def test_report_prints_the_note_as_its_last_line(tmp_path):
    from click.testing import CliRunner

    from experiments.cli import main
    from experiments.reports.kinds import save_result

    save_result(result_with([0.2, 0.3], [Reference("iSarcasm impl.", "f1_sarcastic", 0.33)]), tmp_path)
    fidelity_file(tmp_path, "t", [(0.04, 0.06), (0.1, 0.08)])
    printed = CliRunner().invoke(main, ["report", "t", "--results-dir", str(tmp_path)])
    assert printed.exit_code == 0, printed.output
    last = printed.output.strip().splitlines()[-1]
    assert last.startswith("Protocol: the paper as written.") and "by +0.040 to +0.100" in last


def test_reproduce_prints_the_note_as_its_last_line(tmp_path, monkeypatch):
    """``reproduce`` prints the saved report, then the note (the study itself is stood in for: nothing is trained)."""
    from click.testing import CliRunner

    import experiments.cli.reproduce as command
    from experiments.cli import main
    from experiments.reports.kinds import save_result

    def study(spec, seeds, settings, references=False):
        result = result_with([0.2, 0.3], [Reference("iSarcasm impl.", "f1_sarcastic", 0.33)])
        save_result(result, settings.results_root)
        return result

    monkeypatch.setattr(command, "run_experiment", study)
    printed = CliRunner().invoke(main, ["reproduce", "table7", "--results-dir", str(tmp_path),
                                        "--output-dir", str(tmp_path / "runs")])
    assert printed.exit_code == 0, printed.output
    last = printed.output.strip().splitlines()[-1]
    assert last.startswith("Protocol: the paper as written.") and "`isarcasm report t --fidelity`" in last
    assert "not measured" in last


def test_every_table_of_a_report_parses_as_a_markdown_table_with_its_columns_and_values():
    result = result_with([0.60, 0.70], [Reference("published", "f1_macro", 0.70)])
    run = {"per_class": {"0": {"precision": 0.2, "recall": 0.5, "f1": 0.4, "support": 6},
                         "1": {"precision": 0.6, "recall": 1.0, "f1": 0.8, "support": 4}}}
    result.cells[0]["per_class"] = per_class_scores(("not sarcastic", "sarcastic"), [run], [None])
    text = markdown_report(result)
    found = tables(text)
    assert len(found) == 2  # the paper-vs-ours table and the per-class table
    for table in found:
        width = len(table.rows[0])
        assert set(table.lines[1].replace("|", "")) == {"-"}  # the separator row
        assert len(table.rows) == len(table.lines) - 1  # every source line but the separator is a row
        assert all(len(cells(line)) == width for line in table.lines)  # no row cut or padded by the parser
    main, per_class = found
    # the paper's column and its Δ are left out: no row has the paper's number
    assert main.rows[0] == ["corpus", "model", "metric", "first published", "ours (mean ± std)",
                            "Δ first published"]
    assert main.rows[1:] == [["riloff", "lstm", "f1_macro", "0.700", "0.750 ± 0.071", "+0.050"],
                             ["riloff", "lstm", "f1_sarcastic", "—", "0.650 ± 0.071", "—"]]
    assert per_class.rows[0] == ["corpus", "model", "class", "support", "precision", "recall", "F1"]
    assert per_class.rows[2] == ["riloff", "lstm", "sarcastic", "4", "0.600 ± 0.000", "1.000 ± 0.000",
                                 "0.800 ± 0.000"]


# --- a variant's pooled difference, seed by seed ---------------------------------------------------------------

def test_the_sign_flip_test_counts_every_sign_pattern():
    from itertools import product

    from experiments.reports.significance import sign_flip_test

    assert sign_flip_test([0.01] * 10) == pytest.approx(2 / 2**10)  # only all-plus and all-minus are as far
    assert sign_flip_test([0.02, -0.02]) == 1.0
    values = [0.03, -0.01, 0.02, 0.005, -0.004]
    brute = sum(abs(sum(s * v for s, v in zip(signs, values))) >= abs(sum(values)) - 1e-12
                for signs in product((1, -1), repeat=5)) / 2**5
    assert sign_flip_test(values) == pytest.approx(brute)
    assert sign_flip_test([0.01] * 20) < 1e-3  # drawn above 16 values, seeded
    with pytest.raises(IsarcasmError, match="at least one"):
        sign_flip_test([])


def test_a_comparison_pools_the_cells_seed_by_seed_with_a_sign_flip_test():
    def result(name, values_by_model):
        cells = []
        for model, values in values_by_model.items():
            cell = {**result_with(values, []).cells[0], "model": model}
            cell["run_ids"] = [{"seed": seed, "fold": None} for seed in range(len(values))]
            cells.append(cell)
        return result_with(values_by_model["lstm"], []).updated(experiment=name, cells=cells)

    base = result("k", {"lstm": [0.60, 0.70, 0.65], "cnn": [0.50, 0.55, 0.52]})
    variant = result("k-context-all", {"lstm": [0.62, 0.74, 0.64], "cnn": [0.56, 0.57, 0.55]})
    text = unpadded(comparison_markdown(base, variant))
    # per seed, the mean of (variant - base) over both cells: +0.04, +0.03, +0.01; all three above zero, so
    # only the all-plus and all-minus of 2**3 sign patterns are as far from zero: p 0.25
    assert "| f1_sarcastic | 3 | +0.027 | 3/3 | 0.25 |" in text
    assert "(k-context-all minus k)" in text
    one_seed = result("k-context-all", {"lstm": [0.62], "cnn": [0.56]})
    assert "Pooled over" not in comparison_markdown(base, one_seed)  # one seed pairs: no test to make


def test_a_cell_without_run_ids_holds_one_run_of_each_seed_and_nothing_is_read_out_of_a_folder_name():
    from experiments.reports.table import run_ids

    cell = {"corpus": "toy", "model": "cnn", "seeds": [3, 4], "runs": ["runs/x/toy/cnn/fold-2/seed-7", "elsewhere"]}
    assert run_ids(cell) == [(3, None), (4, None)]
    assert run_ids({**cell, "run_ids": [{"seed": 4, "fold": 1}, {"seed": 3, "fold": 0}]}) == [(4, 1), (3, 0)]
    with pytest.raises(IsarcasmError, match="toy/cnn: 1 runs for 2 seeds and no run_ids") as refused:
        run_ids({**cell, "runs": cell["runs"][:1]})
    assert "\n" not in str(refused.value)

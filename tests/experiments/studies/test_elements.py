"""``isarcasm report EXPERIMENT --elements``: each authors'-code element alone beside the paper as written,
paired seed by seed, from tiny results files built here (nothing is trained, no per-epoch record is read)."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from markdown_tables import tables, unpadded

from experiments.cli import main
from experiments.reports.elements import elements_markdown
from experiments.results.files import ResultsFiles, load_results
from experiments.results.schema import Result
from experiments.studies.fidelity import ELEMENTS, elements, together_elements
from preprocessing.errors import IsarcasmError

CLIP = next(element for element in ELEMENTS if element.changed == {"clip_global_norm": 0.2})
OOV = next(element for element in ELEMENTS if element.changed == {"oov_init": "uniform"})
SCRIPTS = next(element for element in together_elements("t") if element.name == "authors-scripts")


def table_cell(model, seeds, f1, rates=None, run_ids=None):
    """A table cell of ``seeds`` with these sarcastic-class F1 values (and shares labelled sarcastic)."""
    cell = {"corpus": "isarcasm", "model": model, "note": "", "references": [], "seeds": seeds,
            "runs": [f"runs/{model}/seed-{s}" for s in seeds],
            "metrics": {"f1_sarcastic": {"mean": sum(f1) / len(f1), "std": 0.0, "values": f1}}}
    if rates is not None:
        cell["operating_point"] = {"threshold": 0.5, "predicted_positive_rate": {"mean": 0.0, "std": 0.0,
                                                                                 "values": rates}}
    if run_ids is not None:
        cell["run_ids"] = [{"seed": seed, "fold": None} for seed in run_ids]
    return cell


def write_table(folder, name, cells, train=None):
    result = Result("table", name, cells, {"title": name, "source": "S", "seeds": [0, 1, 2, 3, 4],
                                           "git_commit": f"commit-of-{name}", "command": f"isarcasm reproduce {name}",
                                           **({"train": {"engine": "fast", **train}} if train else {})})  # the default engine
    (folder / f"{name}.json").write_text(json.dumps(result.to_dict()))


@pytest.fixture
def results(tmp_path):
    """As written: lstm and cnn on seeds 0-4.  Clipping 0.2 alone: lstm on seeds 1, 2, 3 and 5 (seed 5 has
    no as-written twin); no cnn cell.  No other element has results."""
    write_table(tmp_path, "t", [table_cell("lstm", [0, 1, 2, 3, 4], [0.9, 0.2, 0.3, 0.4, 0.9],
                                           [0.5, 0.1, 0.2, 0.3, 0.5]),
                                table_cell("cnn", [0, 1, 2, 3, 4], [0.1] * 5, [0.1] * 5)])
    write_table(tmp_path, CLIP.results_name("t"), [table_cell("lstm", [1, 2, 3, 5], [0.25, 0.2, 0.5, 0.0],
                                                         [0.05, 0.1, 0.15, 0.9])])
    return tmp_path


def row(result, element, model):
    return next(c for c in result.cells if c["element"] == element.label and c["model"] == model)


def test_only_the_seeds_both_have_are_paired_and_the_deltas_are_the_hand_computed_ones(results):
    lstm = row(elements("t", ResultsFiles(results)), CLIP, "lstm")
    assert lstm["measured"] and lstm["pairs"] == 3 and lstm["seeds"] == [1, 2, 3]
    # seed by seed: 0.25 - 0.2, 0.2 - 0.3, 0.5 - 0.4 = +0.05, -0.1, +0.1
    assert lstm["mean_delta"] == pytest.approx((0.05 - 0.1 + 0.1) / 3) and lstm["higher_in"] == 2
    assert lstm["base"]["f1_sarcastic"]["mean"] == pytest.approx(0.3)  # seeds 0 and 4 (0.9) left out
    assert lstm["base"]["f1_sarcastic"]["std"] == pytest.approx(0.1)
    assert lstm["other"]["f1_sarcastic"]["mean"] == pytest.approx(0.95 / 3)
    assert lstm["base"]["predicted_positive_rate"] == pytest.approx(0.2)
    assert lstm["other"]["predicted_positive_rate"] == pytest.approx(0.1)
    shown = unpadded(elements_markdown(elements("t", ResultsFiles(results))))
    assert "| lstm | 0.300 ± 0.100 | 0.317 ± 0.161 | +0.017 | 2 of 3 | 1–3 | 20% → 10% | — | — | — |" in shown


def test_a_failed_run_is_paired_by_the_run_ids_and_values_without_seeds_are_refused(tmp_path):
    write_table(tmp_path, "t", [table_cell("lstm", [0, 1, 2], [0.2, 0.3, 0.4])])
    # seed 1 failed: its seed is still listed, its value is not
    write_table(tmp_path, CLIP.results_name("t"), [table_cell("lstm", [0, 1, 2], [0.1, 0.6], run_ids=[0, 2])])
    lstm = row(elements("t", ResultsFiles(tmp_path)), CLIP, "lstm")
    assert lstm["seeds"] == [0, 2] and lstm["mean_delta"] == pytest.approx((-0.1 + 0.2) / 2)
    assert lstm["other"]["predicted_positive_rate"] is None  # no operating point: not guessed
    write_table(tmp_path, CLIP.results_name("t"), [table_cell("lstm", [0, 1, 2], [0.1, 0.6])])
    with pytest.raises(IsarcasmError, match="2 f1_sarcastic values for 3 runs"):
        elements("t", ResultsFiles(tmp_path))


def test_an_element_or_model_without_results_is_shown_as_not_measured(results):
    result = elements("t", ResultsFiles(results))
    assert {(c["element"], c["model"]) for c in result.cells} == {(e.label, m) for e in (*ELEMENTS, *together_elements("t"))
                                                                     for m in ("lstm", "cnn")}
    cnn = row(result, CLIP, "cnn")
    assert not cnn["measured"] and cnn["why"] == f"no cnn cell in {CLIP.results_name('t')}" and "mean_delta" not in cnn
    assert not row(result, OOV, "lstm")["measured"]
    shown = unpadded(elements_markdown(result))
    assert f"| cnn | — | not measured: no cnn cell in {CLIP.results_name('t')} | — | — | — | — | — | — | — |" in shown
    assert "Not measured: no `t-oov-init-uniform` results; `isarcasm reproduce t --set oov_init=uniform --name " \
        "t-oov-init-uniform` makes them." in shown
    # each element cites its lines in the authors' code
    assert f"## {CLIP.label} (`bin/run.sh:21, bin/best_riloff_ia_lstm.sh:10`)" in shown
    assert "Results `t-clip-global-norm-0.2` (commit `commit-of-t-clip-global-norm-0.2`)" in shown
    assert all(table.rows[0][0] == "model" for table in tables(shown))


def test_no_element_results_at_all_is_one_line(tmp_path):
    write_table(tmp_path, "t", [table_cell("lstm", [0, 1], [0.2, 0.3])])
    with pytest.raises(IsarcasmError, match="no results of a single element of 't'.*--set batching=class-ratio --name t-batching-class-ratio"):
        elements("t", ResultsFiles(tmp_path))


def test_the_report_is_written_with_its_provenance_and_never_overwritten_silently(results):
    command = ["report", "t", "--elements", "--results-dir", str(results)]
    first = CliRunner().invoke(main, command)
    assert first.exit_code == 0, first.output
    saved = load_results(results / "t-elements.json")
    assert saved.kind == "elements" and saved.schema_version >= 1 and saved.git_commit
    assert saved.inputs["t"]["git_commit"] == "commit-of-t"
    assert (results / "t-elements.md").read_text(encoding="utf-8") in first.output
    again = CliRunner().invoke(main, command)
    assert again.exit_code == 0, again.output
    kept = sorted(path.name for path in (results / "previous").iterdir())
    assert [name.split("-2")[0] for name in kept] == ["t-elements", "t-elements"]  # the json and md, stamped
    both = CliRunner().invoke(main, [*command, "--fidelity"])
    assert both.exit_code == 1 and "give one of them" in both.output and len(both.output.strip().splitlines()) == 1


def test_the_elements_include_the_scripts_clipping_values_with_their_lines():
    by_suffix = {element.results_name(""): element for element in ELEMENTS}
    assert by_suffix["-clip-global-norm-0.1"].sources == "bin/run_riloff.sh:21, bin/run_me.sh:20"
    assert by_suffix["-clip-global-norm-1"].sources == "src/main.py:53, src/model.py:304-305"
    assert by_suffix["-clip-global-norm-0.2"].options == "--set clip_global_norm=0.2"
    assert by_suffix["-batching-class-ratio"].sources == "src/data_and_resources_acl.py:54-61"
    assert by_suffix["-min-train-tokens-3"].sources == "src/data_and_resources_acl.py:99, bin/run.sh:24"
    assert all(element.sources for element in ELEMENTS) and len(by_suffix) == len(ELEMENTS)


def test_a_named_protocol_is_a_row_of_its_own_with_the_papers_f1_beside_each_side(tmp_path):
    """The authors' scripts (the experiment file `t-authors-scripts`: all its elements and the grid rule) is
    compared like one element, and where the as-written cell carries the paper's F1 each side's mean is checked
    against it (±0.03)."""
    scripts = SCRIPTS
    assert scripts.results_name("t") == "t-authors-scripts" and scripts.command("t") == "isarcasm reproduce t-authors-scripts"
    base = table_cell("lstm", [0, 1], [0.20, 0.24], [0.2, 0.2])
    base["references"] = [{"label": "iSarcasm impl.", "metric": metric, "value": value} for metric, value in
                          (("f1_sarcastic", 0.30), ("precision_sarcastic", 0.3), ("recall_sarcastic", 0.3))]
    write_table(tmp_path, "t", [base])
    write_table(tmp_path, "t-authors-scripts", [table_cell("lstm", [0, 1], [0.26, 0.30], [0.3, 0.4])])
    lstm = row(elements("t", ResultsFiles(tmp_path)), scripts, "lstm")
    assert lstm["mean_delta"] == pytest.approx(0.06) and lstm["paper"] == 0.30
    assert not lstm["base_within_0.03"] and lstm["other_within_0.03"]  # 0.22 is 0.08 off, 0.28 is 0.02 off
    assert not lstm["base_paper_in_range"] and lstm["other_paper_in_range"]  # 0.20-0.24 and 0.26-0.30
    shown = unpadded(elements_markdown(elements("t", ResultsFiles(tmp_path))))
    assert "| lstm | 0.220 ± 0.028 | 0.280 ± 0.028 | +0.060 | 2 of 2 | 0, 1 | 20% → 35% | 0.300 | no → yes | no → yes |" in shown


def test_the_scripts_values_and_the_batch_order_are_elements_with_their_lines():
    by_suffix = {element.results_name(""): element for element in ELEMENTS}
    assert by_suffix["-batch-order-each-epoch"].options == "--set batch_order=each-epoch"
    assert by_suffix["-batch-order-each-epoch"].sources == "src/data_and_resources_acl.py:381-382, src/main.py:156, " \
                                                          ":229-230"
    assert by_suffix["-batch-size-16"].sources == "bin/best_riloff_ia_lstm.sh:9"
    assert by_suffix["-epochs-100"].sources == "bin/best_riloff_ia_lstm.sh:26, src/main.py:79-81"
    assert by_suffix["-dropout-0.5"].options == "--set dropout=0.5"
    assert by_suffix["-batch-size-16"].options == "--batch-size 16"
    assert by_suffix["-dropout-0.5"].sources == "bin/best_riloff_ia_lstm.sh:11, src/main.py:76-78"


def test_results_on_another_test_set_are_refused_in_one_line_by_the_elements_and_fidelity_reports(tmp_path):
    write_table(tmp_path, "t", [table_cell("lstm", [0, 1], [0.2, 0.3])])
    write_table(tmp_path, CLIP.results_name("t"), [table_cell("lstm", [0, 1], [0.2, 0.3])])
    diagnostic = json.loads((tmp_path / "t.json").read_text())
    diagnostic["train"] = {"engine": "fast", "test_texts": "authors-length-rules"}
    (tmp_path / "t.json").write_text(json.dumps(diagnostic))
    with pytest.raises(IsarcasmError, match="t.json: scored on another test set \\(--test-texts authors-length-rules, "
                                            "a diagnostic\\), which left the suite; commit e853916"):
        elements("t", ResultsFiles(tmp_path))
    shown = CliRunner().invoke(main, ["report", "t", "--fidelity", "--results-dir", str(tmp_path)])
    assert shown.exit_code == 1 and len(shown.output.strip().splitlines()) == 1
    assert "scored on another test set" in shown.output


def test_an_element_results_file_on_another_test_set_is_refused_too(tmp_path):
    write_table(tmp_path, "t", [table_cell("lstm", [0, 1], [0.2, 0.3])])
    write_table(tmp_path, CLIP.results_name("t"), [table_cell("lstm", [0, 1], [0.2, 0.3])])
    element = json.loads((tmp_path / f"{CLIP.results_name('t')}.json").read_text())
    element["train"] = {"engine": "fast", "test_texts": "authors-length-rules"}
    (tmp_path / f"{CLIP.results_name('t')}.json").write_text(json.dumps(element))
    with pytest.raises(IsarcasmError, match=f"{CLIP.results_name('t')}.json: scored on another test set"):
        elements("t", ResultsFiles(tmp_path))


def test_an_elements_results_made_by_two_sweeps_merge_into_one_file_that_names_each_sweep(results):
    """`report --merge`: the cells of another sweep's results of the same element (other models) join the file,
    which records both commands; the elements report then pairs every model and names both sweeps."""
    other = results / "other"
    other.mkdir()
    write_table(results, CLIP.results_name("t"), [table_cell("lstm", [1, 2, 3, 5], [0.25, 0.2, 0.5, 0.0])],
                train={"clip_global_norm": 0.2})
    # written after --batch-order, --dropout and --test-texts existed, at the values runs had before them
    write_table(other, CLIP.results_name("t"), [table_cell("cnn", [0, 1, 2, 3, 4], [0.2] * 5)],
                train={"clip_global_norm": 0.2, "batch_order": "once", "dropout": None, "test_texts": "published"})
    merge = ["report", CLIP.results_name("t"), "--results-dir", str(results), "--merge",
             str(other / f"{CLIP.results_name('t')}.json")]
    done = CliRunner().invoke(main, merge)
    assert done.exit_code == 0, done.output
    saved = load_results(results / f"{CLIP.results_name('t')}.json")
    assert [c["model"] for c in saved.cells] == ["lstm", "cnn"]
    command = f"isarcasm reproduce {CLIP.results_name('t')}"
    assert [(p["cells"], p["command"]) for p in saved.parts] == [(["isarcasm/lstm"], command),
                                                                    (["isarcasm/cnn"], command)]
    assert "Merged from 2 sweeps" in done.output and (results / "previous").is_dir()  # the one-sweep file is kept
    cnn = row(elements("t", ResultsFiles(results)), CLIP, "cnn")
    assert cnn["measured"] and cnn["mean_delta"] == pytest.approx(0.1)
    report = elements_markdown(elements("t", ResultsFiles(results)))
    assert f"Results `{CLIP.results_name('t')}`, merged from 2 sweeps: isarcasm/lstm by `isarcasm reproduce" in report
    again = CliRunner().invoke(main, merge)  # the same cells twice
    assert again.exit_code == 1 and "isarcasm/cnn already in" in again.output
    assert len(again.output.strip().splitlines()) == 1
    for name, train, refused in (("t", {"clip_global_norm": 0.2}, "its experiment differs from those of"),
                                 (CLIP.results_name("t"), {"clip_global_norm": 0.1}, "its train differs from those of")):
        write_table(other, name, [table_cell("siarn", [0, 1, 2, 3, 4], [0.2] * 5)], train=train)
        mixed = CliRunner().invoke(main, ["report", CLIP.results_name("t"), "--results-dir", str(results), "--merge",
                                          str(other / f"{name}.json")])
        assert mixed.exit_code == 1 and refused in mixed.output, mixed.output


def test_a_paper_f_score_without_precision_and_recall_gets_macro_f1_of_the_same_runs_beside_it(tmp_path):
    """Table 6's paper gives one F-score of unstated kind: each protocol's macro-F1 is paired and set beside it
    too, as the fidelity report does; a cell with the paper's precision and recall (Table 7's) gets no macro row."""
    scripts = SCRIPTS

    def cell(corpus, f1, macro, paper):
        found = {**table_cell("lstm", [0, 1], f1), "corpus": corpus, "references": [
            {"label": "iSarcasm impl.", "metric": metric, "value": value} for metric, value in paper.items()]}
        found["metrics"]["f1_macro"] = {"mean": sum(macro) / 2, "std": 0.0, "values": macro}
        return found

    fscore_only, full = {"f1_sarcastic": 0.70}, {"f1_sarcastic": 0.30, "precision_sarcastic": 0.3,
                                                  "recall_sarcastic": 0.3}
    write_table(tmp_path, "t", [cell("riloff", [0.40, 0.50], [0.60, 0.64], fscore_only),
                                cell("isarcasm", [0.2, 0.2], [0.5, 0.5], full)])
    write_table(tmp_path, "t-authors-scripts", [cell("riloff", [0.45, 0.45], [0.66, 0.70], {}),
                                                cell("isarcasm", [0.3, 0.3], [0.6, 0.6], {})])
    result = elements("t", ResultsFiles(tmp_path))
    riloff = next(c for c in result.cells if c["element"] == scripts.label and c["corpus"] == "riloff")
    isarcasm = next(c for c in result.cells if c["element"] == scripts.label and c["corpus"] == "isarcasm")
    assert "macro" not in isarcasm
    macro = riloff["macro"]  # seed by seed: 0.66 - 0.60, 0.70 - 0.64
    assert macro["mean_delta"] == pytest.approx(0.06) and macro["higher_in"] == 2 and macro["pairs"] == 2
    assert not macro["base_within_0.03"] and macro["other_within_0.03"]  # 0.62 is 0.08 off, 0.68 is 0.02 off
    assert not macro["base_paper_in_range"] and macro["other_paper_in_range"]  # 0.60-0.64 and 0.66-0.70
    assert riloff["mean_delta"] == pytest.approx(0.0) and not riloff["other_within_0.03"]  # F1: 0.45 against 0.70
    shown = unpadded(elements_markdown(result))
    assert "| riloff/lstm | 0.620 ± 0.028 | 0.680 ± 0.028 | +0.060 | 2 of 2 | 0.700 | no → yes | no → yes |" in shown
    assert shown.count("Macro-F1 of the same runs beside the paper's F-score:") == 1
    assert "isarcasm/lstm | 0.500" not in shown


def test_the_elements_results_are_found_by_the_names_listed_never_by_a_name_worked_out_from_settings(tmp_path):
    """An element's results are ``<experiment>-<its listed name>``, whatever the experiment's name holds; the
    authors' protocols are the experiment files ``table7-authors-code`` and ``-authors-scripts``, whose [train]
    tables give their elements and sources."""
    write_table(tmp_path, "t-engine-exact", [table_cell("lstm", [0, 1], [0.2, 0.3])])
    write_table(tmp_path, "t-engine-exact-clip-global-norm-0.2", [table_cell("lstm", [0, 1], [0.4, 0.4])])
    result = elements("t-engine-exact", ResultsFiles(tmp_path))
    assert row(result, CLIP, "lstm")["results"] == "t-engine-exact-clip-global-norm-0.2"
    assert row(result, CLIP, "lstm")["mean_delta"] == pytest.approx(0.15)
    code = next(element for element in together_elements("table7") if element.name == "authors-code")
    assert code.changed == {"batching": "class-ratio", "clip_global_norm": 1.0, "selection": "grid"}
    assert code.sources == "src/data_and_resources_acl.py:54-61; src/main.py:53, src/model.py:304-305"
    assert code.command("table7") == "isarcasm reproduce table7-authors-code" and code.options == ""


def test_the_committed_elements_folder_is_read_after_the_results_folder(tmp_path):
    """The committed single elements live in docs/results/elements/, beside the committed tables: a fresh
    clone's elements report finds them there; one in the results folder comes first."""
    committed, folder = tmp_path / "committed", tmp_path / "results"
    (committed / "elements").mkdir(parents=True)
    folder.mkdir()
    write_table(committed, "t", [table_cell("lstm", [0, 1], [0.2, 0.3])])
    write_table(committed / "elements", CLIP.results_name("t"), [table_cell("lstm", [0, 1], [0.4, 0.4])])
    files = ResultsFiles(folder, committed=committed)
    assert row(elements("t", files), CLIP, "lstm")["mean_delta"] == pytest.approx(0.15)
    assert files.found[CLIP.results_name("t")] == str(committed / "elements" / f"{CLIP.results_name('t')}.json")
    write_table(folder, CLIP.results_name("t"), [table_cell("lstm", [0, 1], [0.9, 0.9])])
    assert row(elements("t", ResultsFiles(folder, committed=committed)), CLIP, "lstm")["mean_delta"] == \
        pytest.approx(0.65)


def test_table7s_fidelity_study_reads_its_own_10_seed_results_never_table7():
    """'table7' is Table 7 (both corpora, 5 seeds); the study's as-written input has its own name, whose committed
    file a fresh clone reads (and whose experiment file makes it again), beside the authors' code's 10 seeds."""
    from experiments.studies.experiment import load_experiment
    from experiments.studies.fidelity import input_name

    assert input_name("table7", "") == "table7-seeds-10" and input_name("table6", "") == "table6"
    assert input_name("table7", "-authors-code") == "table7-authors-code"
    files = ResultsFiles(Path("no-results-here"))
    ten, code, table7 = (files.find(name) for name in ("table7-seeds-10", "table7-authors-code", "table7"))
    assert ten.experiment == "table7-seeds-10" and ten.seeds == code.seeds == list(range(10))
    assert {c["corpus"] for c in ten.cells} == {c["corpus"] for c in code.cells} == {"isarcasm"}
    assert table7.seeds == list(range(5)) and {c["corpus"] for c in table7.cells} == {"isarcasm", "isarcasmeval"}
    study = load_experiment("table7-seeds-10")
    assert (study.seeds, {c.corpus for c in study.cells}, study.train) == (10, {"isarcasm"}, ())


def test_each_committed_results_name_is_one_file_holding_the_results_of_that_name():
    from experiments.results.files import COMMITTED, ELEMENTS

    top, elements = ({path.stem for path in folder.glob("*.json")} for folder in (COMMITTED, COMMITTED / ELEMENTS))
    assert not top & elements
    for path in [*COMMITTED.glob("*.json"), *(COMMITTED / ELEMENTS).glob("*.json")]:
        assert json.loads(path.read_text())["experiment"] == path.stem, path

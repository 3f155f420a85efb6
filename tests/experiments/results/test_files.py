"""Results files carry a schema version and load through one function, which checks or refuses them."""
import json
import math
import re

import pytest
from click.testing import CliRunner

from experiments.cli import main
from experiments.reports.kinds import ResultKind, kind_of
from experiments.results.files import load_results, retired_results
from experiments.results.schema import SCHEMA_VERSION
from experiments.runs.one.protocol import RETIRED_AT
from preprocessing.errors import IsarcasmError
from locations import ROOT

#: Every committed results file: the current ones, the elements' and the archive's groups (not the criterion's
#: outputs, the fast engine's checks or the shipped run sets).
COMMITTED = sorted(path for folder in ("", "elements/", "archive/*/") for path in
                   (ROOT / "docs" / "results").glob(f"{folder}*.json")
                   if path.parent.name not in ("criterion", "fast-engine"))


@pytest.mark.parametrize("path", COMMITTED, ids=[p.name for p in COMMITTED])
def test_every_committed_results_file_loads_and_renders(path):
    """Or, made by what left the suite (the exact engine, a diagnostic on another test set), is one line naming
    the commit that has it."""
    if retired_results(json.loads(path.read_text(encoding="utf-8"))):
        with pytest.raises(IsarcasmError, match=f"^{path}: .*, which left the suite; commit {RETIRED_AT}"):
            load_results(path)
        return
    result = load_results(path)
    assert result.schema_version == SCHEMA_VERSION and result.kind
    assert kind_of(result).markdown(result).startswith("#")


@pytest.mark.parametrize("path", COMMITTED, ids=[p.name for p in COMMITTED])
def test_every_committed_results_file_names_its_kind_and_version(path):
    """As written: the loader reads no file of an older version."""
    written = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(written["schema_version"], int) and written["kind"]


def test_committed_results_exist():
    assert len(COMMITTED) >= 10


def test_a_file_of_a_newer_version_is_refused_in_one_line(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"experiment": "x", "kind": "table", "schema_version": SCHEMA_VERSION + 1}))
    with pytest.raises(IsarcasmError, match="newer isarcasm"):
        load_results(path)


@pytest.mark.parametrize("content, message", [
    ("[1, 2]", "not a results file"),
    ('{"experiment": "x", "kind": "table", "schema_version": 1, "cells": []}', "missing or malformed"),
    ('{"kind": "other", "schema_version": 1}', "unknown kind"),
    ('{"schema_version": 1}', "unknown kind"),
    ("{not json", "not valid JSON"),
    ('{"experiment": "x", "kind": "table", "schema_version": 1, "title": "t", "source": "s", "seeds": [0], '
     '"cells": [{"corpus": "c"}]}', "cell 1 lacks"),
])
def test_malformed_files_are_one_line(tmp_path, content, message):
    path = tmp_path / "x.json"
    path.write_text(content)
    with pytest.raises(IsarcasmError, match=message):
        load_results(path)


def test_a_file_from_before_results_carried_a_version_is_refused_in_one_line(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"experiment": "t", "title": "t", "source": "s", "seeds": [0], "cells": []}))
    with pytest.raises(IsarcasmError, match="t.json: written before results files carried a schema version.*again"):
        load_results(path)


@pytest.mark.parametrize("edit, message", [
    (lambda r: r["cells"][0]["metrics"].update(f1_sarcastic={"mean": "high"}), "cell 1 .* metrics.f1_sarcastic"),
    (lambda r: r["cells"][0]["references"].append({"label": "x"}), r"cell 1 .* references\[\d+\]"),
    (lambda r: r["cells"][1].update(note=None), "cell 2 .* note"),
    (lambda r: r.update(seeds="0-4"), "missing or malformed: seeds"),
])
def test_a_malformed_part_of_a_table_is_named_on_loading(tmp_path, edit, message):
    result = json.loads((ROOT / "docs" / "results" / "table7.json").read_text(encoding="utf-8"))
    edit(result)
    path = tmp_path / "table7.json"
    path.write_text(json.dumps(result))
    with pytest.raises(IsarcasmError, match=message):
        load_results(path)


@pytest.fixture
def committed(tmp_path):
    """A results folder with a copy of the committed table7 and cross results, both as the default (fast) engine's
    (cross was made by the exact engine, whose results a plain name no longer finds)."""
    for name in ("table7", "cross"):
        result = json.loads((ROOT / "docs" / "results" / f"{name}.json").read_text("utf-8"))
        result["train"] = {**result["train"], "engine": "fast"}
        (tmp_path / f"{name}.json").write_text(json.dumps(result))
    return tmp_path


def test_a_bug_in_report_code_raises_instead_of_blaming_the_file(committed, monkeypatch):
    def broken(result):
        return result.cells[0]["no such key"]

    monkeypatch.setattr("experiments.cli.reproduce.kind_of", lambda result: ResultKind(broken))
    outcome = CliRunner().invoke(main, ["report", "table7", "--results-dir", str(committed)])
    assert isinstance(outcome.exception, KeyError) and "results file" not in outcome.output


@pytest.mark.parametrize("options, message", [
    (["cross", "--selection", "grid"], "--selection reads table results; 'cross' is a cross results file"),
    (["table7", "--against", "cross"], "--against reads table results; 'cross' is a cross results file"),
])
def test_a_table_only_option_on_another_kind_is_one_line(committed, options, message):
    outcome = CliRunner().invoke(main, ["report", *options, "--results-dir", str(committed)])
    assert outcome.exit_code == 1 and outcome.output.strip().splitlines() == [f"Error: {message}"]


@pytest.mark.parametrize("name, edit", [
    ("table7", lambda r: r["cells"][0]["metrics"]["f1_sarcastic"].update(mean=float("nan"))),
    ("table7", lambda r: r["cells"][2]["metrics"]["f1_macro"]["values"].__setitem__(0, float("inf"))),
    ("cross", lambda r: r["cells"][0]["metrics"]["f1_macro"].update(std=float("nan"))),
])
def test_a_score_edited_to_nan_is_refused_in_one_line_not_shown_as_nan(committed, name, edit):
    """Python's JSON reader accepts NaN and Infinity; a report printed "nan" in the cell."""
    result = json.loads((committed / f"{name}.json").read_text(encoding="utf-8"))
    edit(result)
    (committed / f"{name}.json").write_text(json.dumps(result))
    outcome = CliRunner().invoke(main, ["report", name, "--results-dir", str(committed)])
    assert outcome.exit_code == 1, outcome.output
    [line] = outcome.output.strip().splitlines()
    assert re.search(r"cell \d+: metrics\.f1_\w+ holds NaN or an infinity where a score is expected", line), line


def test_a_benchmark_p_value_may_be_nan(tmp_path):
    """A p-value is NaN where no test applies (identical scores): that is no score, and loads."""
    result = json.loads((ROOT / "docs" / "results" / "benchmark-tfidf-lr.json").read_text(encoding="utf-8"))
    result["cells"][0]["classics"][0]["p_value"] = float("nan")
    path = tmp_path / "benchmark-tfidf-lr.json"
    path.write_text(json.dumps(result))
    assert math.isnan(load_results(path).cells[0]["classics"][0]["p_value"])


def test_a_cross_cell_whose_test_split_leaves_a_score_undefined_loads_and_is_shown(tmp_path):
    """A cross-eval test column without a sarcastic text leaves its F1 undefined (mean null, with why): a file
    the suite writes itself, which must load and print "undefined", not be refused as malformed."""
    result = json.loads((ROOT / "docs" / "results" / "cross.json").read_text(encoding="utf-8"))
    cell = result["cells"][0]
    cell["metrics"]["f1_sarcastic"] = {"mean": None, "std": None, "values": [],
                                       "undefined": "the test split has no text of one class"}
    (tmp_path / "cross.json").write_text(json.dumps(result))
    assert load_results(tmp_path / "cross.json").cells[0]["metrics"]["f1_sarcastic"]["mean"] is None
    outcome = CliRunner().invoke(main, ["report", "cross", "--results-dir", str(tmp_path)])
    assert outcome.exit_code == 0, outcome.output
    assert "undefined" in outcome.output
    # a summary with numbers missing and no reason stays malformed
    cell["metrics"]["f1_sarcastic"] = {"mean": None, "std": None, "values": []}
    (tmp_path / "cross.json").write_text(json.dumps(result))
    with pytest.raises(IsarcasmError, match="malformed metrics.f1_sarcastic"):
        load_results(tmp_path / "cross.json")

"""benchmarks/same_results.py: every results file of a commit holds the same numbers in the working tree.

A tiny git repository built here commits two results files and a run set; the working tree then
changes: a file moved into the archive or renamed passes, an upgraded schema (a field added, one
renamed, cells in another order, a provenance field changed) passes, a changed number or a dropped
cell fails, a file gone is missing, and a commit that is not there is one line, exit status 2.
"""
import json
import subprocess

import pytest
from locations import benchmark_script

same_results = benchmark_script("same_results")

TABLE = {"kind": "table", "schema_version": 1, "title": "Table 7", "seeds": [0, 1], "git_commit": "abc",
         "cells": [{"corpus": "isarcasm", "model": model, "runs": [f"runs/table7/isarcasm/{model}/seed-0"],
                    "seeds": [0, 1], "selected_epochs": [3, 4],
                    "metrics": {"f1_sarcastic": {"mean": f1, "std": 0.01, "values": [f1 - 0.01, f1 + 0.01]}}}
                   for model, f1 in (("lstm", 0.3), ("cnn", 0.25))]}
CROSS = {"kind": "cross", "cells": [{"train_corpus": "a", "test_corpus": "b", "model": "lstm", "f1": 0.4}]}


def git(repo, *arguments):
    subprocess.run(["git", *arguments], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    """A repository whose first commit holds table7.json, sub/cross.json and a run set's file."""
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.email", "test@example.org")
    git(tmp_path, "config", "user.name", "test")
    for path, document in (("table7.json", TABLE), ("sub/cross.json", CROSS), ("runs/set/config.json", {"a": 1})):
        write(tmp_path, path, document)
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "results")
    return tmp_path


def write(repo, path, document):
    target = repo / "docs" / "results" / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(document))


def run(repo, capsys, *arguments):
    status = same_results.main(["--before", "HEAD", "--repo", str(repo), *arguments])
    out, err = capsys.readouterr()
    return status, out, err


def edited(change):
    document = json.loads(json.dumps(TABLE))
    change(document)
    return document


def test_an_unchanged_tree_has_no_difference_and_the_run_sets_are_not_read(repo, capsys):
    status, out, _ = run(repo, capsys)
    assert status == 0
    assert out.splitlines() == ["docs/results/sub/cross.json: same", "docs/results/table7.json: same",
                                "2 files, 3 cells, 19 numbers compared: 0 differences"]


@pytest.mark.parametrize("moved_to", ["archive/engine/sub/cross.json", "archive/cross.json"])
def test_a_file_moved_into_the_archive_is_found_by_name(repo, capsys, moved_to):
    (repo / "docs/results/archive").mkdir()
    (repo / "docs/results" / moved_to).parent.mkdir(parents=True, exist_ok=True)
    (repo / "docs/results/sub/cross.json").rename(repo / "docs/results" / moved_to)
    status, out, _ = run(repo, capsys)
    assert status == 0 and f"docs/results/sub/cross.json -> docs/results/{moved_to}: same" in out


def test_several_archived_files_of_one_name_are_told_apart_by_their_path_or_refused(repo, capsys):
    (repo / "docs/results/sub/cross.json").unlink()
    write(repo, "archive/x/sub/cross.json", CROSS)
    write(repo, "archive/y/cross.json", {"kind": "cross", "cells": []})
    status, out, _ = run(repo, capsys)
    assert status == 0 and "-> docs/results/archive/x/sub/cross.json: same" in out
    (repo / "docs/results/archive/x/sub/cross.json").rename(repo / "docs/results/archive/x/cross.json")
    status, out, err = run(repo, capsys)
    assert status == 2 and out == "" and "several files named cross.json" in err and err.count("\n") == 1


def test_archived_files_whose_paths_end_alike_are_told_apart_by_gits_renames(repo, capsys):
    (repo / "docs/results/archive/a").mkdir(parents=True)
    git(repo, "mv", "docs/results/table7.json", "docs/results/archive/a/table7.json")
    write(repo, "archive/b/table7.json", edited(lambda d: d["cells"].pop()))
    git(repo, "add", ".")
    status, out, _ = run(repo, capsys)
    assert status == 0 and "docs/results/table7.json -> docs/results/archive/a/table7.json: same" in out


def test_a_renamed_file_is_found_by_git(repo, capsys):
    git(repo, "mv", "docs/results/table7.json", "docs/results/table7-five-seeds.json")
    status, out, _ = run(repo, capsys)
    assert status == 0 and "docs/results/table7.json -> docs/results/table7-five-seeds.json: same" in out


def test_a_changed_number_fails_and_is_named(repo, capsys):
    write(repo, "table7.json", edited(lambda d: d["cells"][1]["metrics"]["f1_sarcastic"]["values"].__setitem__(0, 0.2)))
    status, out, _ = run(repo, capsys)
    assert status == 1 and "docs/results/table7.json: 1 differences" in out
    assert "cells/corpus=isarcasm,model=cnn/metrics/f1_sarcastic/values/[0]: 0.24 before, 0.2 after" in out
    assert out.splitlines()[-1] == "2 files, 3 cells, 19 numbers compared: 1 differences"


@pytest.mark.parametrize("change", [
    lambda d: d["cells"][0]["seeds"].__setitem__(1, 5),  # a seed list
    lambda d: d["cells"].pop(),  # a cell dropped
    lambda d: d["cells"][0].__setitem__("selected_epochs", [3, True]),  # a number become a boolean
])
def test_a_changed_seed_or_dropped_cell_fails(repo, capsys, change):
    write(repo, "table7.json", edited(change))
    assert run(repo, capsys)[0] == 1


def test_an_upgraded_schema_passes(repo, capsys):
    def upgrade(document):
        document.update(schema_version=2, git_commit="def", title="Table 7, five seeds", engine="default")
        document["cells"].reverse()  # cells named by corpus and model, not position
        for cell in document["cells"]:
            cell["scores"] = cell.pop("metrics")  # a field renamed, its numbers kept
            cell["runs"] = ["elsewhere"]
    write(repo, "table7.json", edited(upgrade))
    status, out, _ = run(repo, capsys)
    assert status == 0 and "docs/results/table7.json: same" in out


def test_a_missing_file_fails(repo, capsys):
    (repo / "docs/results/sub/cross.json").unlink()
    status, out, _ = run(repo, capsys)
    assert status == 1 and "docs/results/sub/cross.json: missing" in out
    assert out.splitlines()[-1] == "1 files, 2 cells, 18 numbers compared: 0 differences, 1 files missing"


def test_an_unknown_commit_is_one_line_and_exit_status_2(repo, capsys):
    status, out, err = run(repo, capsys, "--before", "0" * 40)
    assert status == 2 and out == "" and err.startswith("same_results: git ") and err.count("\n") == 1

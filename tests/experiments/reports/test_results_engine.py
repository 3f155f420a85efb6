"""A results file is found by name only when the engine that trained its runs is the one the name says: since
the fast engine became the default, ``table7`` means fast runs and ``table7-engine-exact`` exact ones, and a
file made before (no engine recorded: the exact one) under a plain name is passed over, never read as fast."""
import json
import logging

from experiments.results.files import ResultsFiles, engine_mismatch
from experiments.results.schema import Result


def write(folder, name, train):
    folder.mkdir(exist_ok=True)
    result = Result("table", name, [], {"title": name, "source": "S", "seeds": [0], "git_commit": "c",
                                        "command": f"isarcasm reproduce {name}",
                                        **({"train": train} if train is not None else {})})
    (folder / f"{name}.json").write_text(json.dumps(result.to_dict()))
    return result


def test_the_name_says_the_engine_and_a_file_without_one_is_the_exact_engines():
    assert engine_mismatch("t", {"train": {"engine": "fast"}}) == ""
    assert engine_mismatch("t-engine-exact", {"train": {"epochs": 30}}) == ""
    assert engine_mismatch("t-batch-size-16-engine-exact-authors-code", {"train": {"engine": "exact"}}) == ""
    assert "trained by the exact engine" in engine_mismatch("t", {"train": {"epochs": 30}})
    assert "trained by the fast engine" in engine_mismatch("t-engine-exact", {"train": {"engine": "fast"}})
    assert engine_mismatch("t", {"cells": []}) == ""  # no training settings (outside predictions): no engine


def test_a_file_of_the_other_engine_is_passed_over_with_a_line_and_the_next_place_is_read(tmp_path, caplog):
    write(tmp_path / "mine", "t", {"epochs": 30})  # made before the switch: the exact engine's
    write(tmp_path / "committed", "t", {"epochs": 30, "engine": "fast"})
    write(tmp_path / "committed", "t-engine-exact", {"epochs": 30})
    files = ResultsFiles(tmp_path / "mine", committed=tmp_path / "committed")
    with caplog.at_level(logging.WARNING, logger="isarcasm"):
        found = files.find("t")
    assert found["train"]["engine"] == "fast" and files.found["t"] == str(tmp_path / "committed" / "t.json")
    assert "results 't' were trained by the exact engine" in caplog.text and "not used" in caplog.text
    assert files.find("t-engine-exact")["train"] == {"epochs": 30}


def test_nothing_is_found_where_every_place_holds_the_other_engines_file(tmp_path, caplog):
    write(tmp_path / "mine", "t", {"epochs": 30})
    write(tmp_path / "committed", "u", {"epochs": 30})
    files = ResultsFiles(tmp_path / "mine", committed=tmp_path / "committed")
    with caplog.at_level(logging.WARNING, logger="isarcasm"):
        assert files.find("t") is None and files.find("u") is None
    assert "'t'" in caplog.text and "'u'" not in caplog.text  # the committed files' engines are documented


def test_an_exact_name_reads_the_committed_file_the_default_has_not_trained_again(tmp_path):
    """types.json, made before names carried the engine, is still the exact engine's: reachable as
    types-engine-exact; a file the default has trained again under that name is not."""
    write(tmp_path / "committed", "t", {"epochs": 30})
    write(tmp_path / "committed", "u", {"epochs": 30, "engine": "fast"})
    files = ResultsFiles(tmp_path / "mine", committed=tmp_path / "committed")
    assert files.find("t-engine-exact")["experiment"] == "t"
    assert files.found["t-engine-exact"] == str(tmp_path / "committed" / "t.json")
    assert files.find("u-engine-exact") is None and files.find("t") is None


def test_the_missing_line_names_the_command_and_where_the_other_engines_file_is(tmp_path):
    write(tmp_path / "committed", "t", {"epochs": 30})
    files = ResultsFiles(tmp_path / "mine", committed=tmp_path / "committed")
    line = files.missing("t")
    assert "read them as 't-engine-exact'" in line and "the command that made them, `isarcasm reproduce t`" in line
    assert "run `isarcasm reproduce u` first" in files.missing("u")
    assert "run `isarcasm reproduce u --engine exact` first" in files.missing("u-engine-exact")
    assert "read them as" not in files.missing("u")


def test_the_missing_line_names_the_exact_engines_file_and_the_default_command_that_would_make_it(tmp_path):
    """types-context-all-engine-exact.json, the exact engine's file renamed when the default's types.json replaced
    its sibling: asking for types-context-all names it and the variant's own command as a user would type it for the
    default (not `reproduce types-context-all`, no experiment; without --engine, -q and the maker's folders); the
    engine's mark is found wherever the name puts it (t-engine-exact-authors-scripts for t-authors-scripts)."""
    commands = {"t-context-all-engine-exact": "__main__.py -q reproduce t --context all --seeds 1 --engine exact "
                                              "--output-dir /w/runs --results-dir=/w/r",
                "t-engine-exact-authors-scripts": "isarcasm reproduce t --protocol authors-scripts"}
    for name, command in commands.items():
        path = tmp_path / "committed" / f"{name}.json"
        write(tmp_path / "committed", name, {"epochs": 30})
        path.write_text(json.dumps({**json.loads(path.read_text()), "command": command}))
    files = ResultsFiles(tmp_path / "mine", committed=tmp_path / "committed")
    line, renamed = files.missing("t-context-all"), tmp_path / "committed" / "t-context-all-engine-exact.json"
    assert f"committed, as 't-context-all-engine-exact' ({renamed})" in line
    assert line.endswith("make the default's with `isarcasm reproduce t --context all --seeds 1`")
    assert "committed, as 't-engine-exact-authors-scripts'" in files.missing("t-authors-scripts")
    assert "run `isarcasm reproduce t-batch-size-16` first" in files.missing("t-batch-size-16")


def test_an_exact_name_reads_the_users_own_earlier_file_before_the_committed_one(tmp_path, caplog):
    """A results folder with types.json from before the switch (the exact engine's): types-engine-exact is that
    file, not the committed one; a default's file there under the plain name is passed over without a line."""
    write(tmp_path / "mine", "t", {"epochs": 30, "lr": 0.1})
    write(tmp_path / "committed", "t", {"epochs": 30})
    write(tmp_path / "mine", "u", {"epochs": 30, "engine": "fast"})
    write(tmp_path / "committed", "u", {"epochs": 30})
    files = ResultsFiles(tmp_path / "mine", committed=tmp_path / "committed")
    with caplog.at_level(logging.WARNING, logger="isarcasm"):
        assert files.find("t-engine-exact")["train"]["lr"] == 0.1
        assert files.find("u-engine-exact")["train"] == {"epochs": 30}
    assert files.found["t-engine-exact"] == str(tmp_path / "mine" / "t.json")
    assert files.found["u-engine-exact"] == str(tmp_path / "committed" / "u.json")
    assert caplog.text == ""

"""Results files carry a schema version and load through one function, which upgrades or refuses them."""
import json

import pytest

from experiments.reports.kinds import kind_of
from experiments.reports.results import SCHEMA_VERSION, load_results, stamped, upgrade
from preprocessing.errors import IsarcasmError
from locations import ROOT

COMMITTED = sorted((ROOT / "docs" / "results").glob("*.json"))


@pytest.mark.parametrize("path", COMMITTED, ids=[p.name for p in COMMITTED])
def test_every_committed_results_file_loads_and_renders(path):
    result = load_results(path)
    assert result["schema_version"] == SCHEMA_VERSION and result["kind"]
    assert kind_of(result).markdown(result).startswith("#")


@pytest.mark.parametrize("path", COMMITTED, ids=[p.name for p in COMMITTED])
def test_every_committed_results_file_names_its_kind_and_version(path):
    """As written, not as loaded (the loader stamps an older file): an older one is upgraded by ``load_results``
    and written back, numbers unchanged."""
    written = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(written["schema_version"], int) and written["kind"]


def test_committed_results_exist():
    assert len(COMMITTED) >= 10


def test_a_file_of_a_newer_version_is_refused_in_one_line(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({**stamped({"experiment": "x"}), "schema_version": SCHEMA_VERSION + 1}))
    with pytest.raises(IsarcasmError, match="newer isarcasm"):
        load_results(path)


@pytest.mark.parametrize("content, message", [
    ("[1, 2]", "not a results file"),
    ('{"experiment": "x", "cells": []}', "missing or malformed"),
    ('{"kind": "other"}', "unknown kind"),
    ("{not json", "not valid JSON"),
    ('{"experiment": "x", "title": "t", "source": "s", "seeds": [0], "cells": [{"corpus": "c"}]}', "cell 1 lacks"),
])
def test_malformed_files_are_one_line(tmp_path, content, message):
    path = tmp_path / "x.json"
    path.write_text(content)
    with pytest.raises(IsarcasmError, match=message):
        load_results(path)


def test_a_version_0_table_is_upgraded():
    old = {"experiment": "t", "title": "t", "source": "s", "seeds": [0], "cells": []}
    assert upgrade(old, "t.json")["kind"] == "table"

"""Where the data directory is looked for: option > $ISARCASM_DATA > ./data > the checkout's data/."""
from __future__ import annotations

import pytest

from preprocessing import datadir
from preprocessing.datadir import resolve_data_dir


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """Run from an empty folder with no $ISARCASM_DATA, the checkout's data/ at tmp_path/checkout/data."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv(datadir.ENV_VAR, raising=False)
    monkeypatch.setattr(datadir, "CHECKOUT_DATA", tmp_path / "checkout" / "data")
    return tmp_path


def test_option_wins_over_the_environment(elsewhere, monkeypatch):
    monkeypatch.setenv(datadir.ENV_VAR, str(elsewhere / "env"))
    assert resolve_data_dir(elsewhere / "option") == elsewhere / "option"
    assert resolve_data_dir() == elsewhere / "env"


def test_data_in_the_working_directory_comes_before_the_checkouts(elsewhere):
    (elsewhere / "checkout" / "data").mkdir(parents=True)
    assert resolve_data_dir() == elsewhere / "checkout" / "data"
    (elsewhere / "work" / "data").mkdir()
    assert resolve_data_dir().resolve() == (elsewhere / "work" / "data").resolve()


def test_without_any_data_the_working_directorys_data_is_named(elsewhere):
    assert resolve_data_dir().resolve() == (elsewhere / "work" / "data").resolve()

"""Fuzzing the settings files: an experiment file (its [train] table, cells and top-level keys) and a
run's preprocess.json, inputs.json and config.json.

The property, for any content: the file is either accepted, and then every value it gives is the
value used (nothing rounded, clipped or dropped), or refused with one line naming the file and the
key.  Never another exception.  Values are drawn plausible (each setting's own type and range) and
implausible (huge, negative, non-finite, of another type, unknown keys).
"""
from __future__ import annotations

import json
import math
import traceback
import typing
from dataclasses import fields
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from experiments.runs.one.inference import run_config  # noqa: E402
from experiments.runs.one.inputs import ModelInputs  # noqa: E402
from experiments.runs.one.protocol import TrainConfig  # noqa: E402
from experiments.studies.experiment import CELL_KEYS, FILE_KEYS, PUBLISHED_KEYS, load_experiment  # noqa: E402
from preprocessing.config import PreprocessConfig  # noqa: E402
from preprocessing.errors import IsarcasmError  # noqa: E402
from preprocessing.pipeline import Preprocessor  # noqa: E402
from preprocessing.vocab import SPECIALS, Vocabulary  # noqa: E402

#: Parsing a small file is cheap: these properties get more examples than the profile's default.
FILE_EXAMPLES = settings(max_examples=300)

# Text TOML and JSON both write plainly: printable characters of the Basic Multilingual Plane.
words = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFFFD, blacklist_categories=("Cs", "Cc")),
                max_size=12)
numbers = st.one_of(st.integers(-3, 200), st.integers(min_value=-(2 ** 63), max_value=2 ** 63 - 1),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0.5, 1e-3, 1e18, 0.0, 1.0, 10 ** 400]))
scalars = st.one_of(numbers, st.booleans(), words, st.sampled_from(["best", "none", "all", "glove", "keep", "pre"]))
values = st.one_of(scalars, st.lists(scalars, max_size=3), st.dictionaries(words, scalars, max_size=2))


def toml_value(value) -> str:
    """``value`` written as TOML (no TOML writer is a dependency)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def one_line_naming(error: BaseException, path: Path, keys) -> None:
    """A user error in one line, naming the file and one of ``keys``."""
    assert isinstance(error, IsarcasmError), "".join(traceback.format_exception(error))
    message = str(error)
    assert "\n" not in message and str(path) in message, message
    assert any(str(key) in message for key in keys), (message, keys)


def same(used, given, cls, key: str) -> bool:
    """``used`` is the value given, as the setting's type (a whole number given for a float setting
    is that float: one value, one configuration hash)."""
    wanted = float if typing.get_type_hints(cls)[key] in (float, float | None) and type(given) is int else type(given)
    return used == given and type(used) is wanted


def valid(setting, kind) -> st.SearchStrategy:
    """Values the declaration allows (its choices; whole numbers or finite numbers in its range)."""
    limits = setting.metadata.get("range")
    if setting.metadata.get("choices"):
        return st.sampled_from(setting.metadata["choices"])
    if kind is bool:
        return st.booleans()
    if kind in (int, float):
        low = limits.low if limits and limits.low is not None else -1e6
        high = limits.high if limits and limits.high is not None else 1e6
        if kind is int:
            return st.integers(int(low), int(high))
        numbers_in = st.floats(low, high, exclude_min=bool(limits and limits.low_open),
                               exclude_max=bool(limits and limits.high_open))
        whole = st.integers(int(low), int(high)).filter(lambda x: limits is None or x in limits)  # 1 for 1.0
        return st.one_of(numbers_in, whole).filter(lambda x: x != setting.default)
    return words


def edges(setting) -> st.SearchStrategy:
    """Values at and just beyond the ends of a setting's range, and of its neighbours' types."""
    limits = setting.metadata.get("range")
    ends = [limits.low, limits.high] if limits else []
    near = [v + d for v in ends if v is not None for d in (-1, -1e-9, 0, 1e-9, 1)]
    return st.sampled_from([*near, 0, -1, 1.5, True, "", "1"])


@st.composite
def tables(draw, cls, unknown: list[str]):
    """A table of up to three of ``cls``'s settings (or unknown keys): allowed values mostly, edge
    values and any value sometimes."""
    declared = {f.name: f for f in fields(cls)}
    hints = typing.get_type_hints(cls)
    names = draw(st.lists(st.sampled_from([*declared, *unknown]), max_size=3, unique=True))
    table = {}
    for name in names:
        if name not in declared:
            table[name] = draw(values)
            continue
        kind = next(k for k in (bool, int, float, str) if k == hints[name] or k in typing.get_args(hints[name]))
        good = valid(declared[name], kind)
        table[name] = draw(st.one_of(good, good, good, good, edges(declared[name]), values))
    return table


TRAIN_FIELDS = [f.name for f in fields(TrainConfig)]
train_tables = tables(TrainConfig, ["epoch", "seed"])


@FILE_EXAMPLES
@given(train=train_tables)
def test_an_experiment_train_table_is_honoured_or_refused_naming_the_key(tmp_path_factory, train):
    path = tmp_path_factory.mktemp("exp") / "exp.toml"
    lines = [f"{key} = {toml_value(value)}" for key, value in train.items()]
    path.write_text("[train]\n" + "\n".join(lines) + "\n[[cells]]\ncorpus = 'riloff'\nmodel = 'cnn'\n")
    try:
        protocol = load_experiment(str(path)).protocol()
    except Exception as error:  # noqa: BLE001  (the property: which exceptions, and how they read)
        one_line_naming(error, path, train)
        return
    for key, value in train.items():
        assert same(getattr(protocol, key), value, TrainConfig, key), (key, value, getattr(protocol, key))


experiment_keys = st.sampled_from(["name", "title", "source", "metrics", "cells", "train"])
cell_keys = st.sampled_from(["corpus", "model", "note", "folds", "published", "isarcasm_impl", "extra"])
cells = st.lists(st.one_of(st.dictionaries(cell_keys, values, max_size=5), scalars), max_size=2)


@FILE_EXAMPLES
@given(top=st.dictionaries(experiment_keys, st.one_of(values, cells), max_size=3), table=cells)
def test_any_experiment_file_loads_or_is_refused_in_one_line(tmp_path_factory, top, table):
    path = tmp_path_factory.mktemp("exp") / "exp.toml"
    top.setdefault("cells", table)
    path.write_text("\n".join(f"{key} = {toml_value(value)}" for key, value in top.items()) + "\n")
    try:
        experiment = load_experiment(str(path))
    except Exception as error:  # noqa: BLE001
        one_line_naming(error, path, [*top, "cell", "metric"])
        return
    assert len(experiment.cells) == len(top["cells"])
    for cell, raw in zip(experiment.cells, top["cells"]):
        assert (cell.corpus, cell.model, cell.folds) == (raw["corpus"], raw["model"], raw.get("folds", False))


#: Keys near the declared ones: each in other cases, with a letter dropped, training settings and
#: options out of place, and made-up names.
def _near(declared) -> st.SearchStrategy:
    return st.sampled_from(sorted(declared)).flatmap(lambda key: st.sampled_from(
        [key.upper(), key.capitalize(), key[:-1], key + "s", key.replace("_", "-")]))


stray_keys = st.one_of(_near(FILE_KEYS), _near(CELL_KEYS), _near(PUBLISHED_KEYS),
                       st.sampled_from(["lr", "epochs", "threshold", "seeds", "models", "Learning_Rate"]),
                       st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=10))
LEVELS = {"top": FILE_KEYS, "cell": CELL_KEYS, "published": PUBLISHED_KEYS}


@FILE_EXAMPLES
@given(key=stray_keys, level=st.sampled_from(sorted(LEVELS)), value=st.one_of(scalars, st.just(0.2)))
def test_a_key_an_experiment_file_does_not_declare_is_refused_naming_it(tmp_path_factory, key, level, value):
    """Wherever it stands, a key that is not declared there is refused in one line naming it (and the
    declared key it is a case of); a declared key is read (never a key silently ignored)."""
    path = tmp_path_factory.mktemp("exp") / "exp.toml"
    stray = f"{json.dumps(key)} = {toml_value(value)}"
    top, cell, published = [stray] if level == "top" else [], [stray] if level == "cell" else [], \
        [stray] if level == "published" else []
    path.write_text("\n".join([*top, "[[cells]]", "corpus = 'riloff'", "model = 'cnn'", *cell,
                               "[cells.published]", "metric = 'f1_macro'", "value = 0.5", *published]) + "\n")
    if key in LEVELS[level] or (level == "published" and key in ("metric", "value")):
        return  # a declared key (checked by the other properties); a repeated one is not valid TOML
    try:
        load_experiment(str(path))
    except Exception as error:  # noqa: BLE001
        one_line_naming(error, path, [key])
        same_but_case = [k for k in LEVELS[level] if k.lower() == key.lower()]
        assert all(f"'{k}'" in str(error) for k in same_but_case), (str(error), same_but_case)
        return
    raise AssertionError(f"{key!r} in the {level} table was accepted")


config_tables = tables(PreprocessConfig, ["stemming"])


def run_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("run")
    Vocabulary(list(SPECIALS) + ["word"], [0] * (len(SPECIALS) + 1)).save(folder / "vocab.json")
    (folder / "preprocess.json").write_text(json.dumps({"config": {}, "max_len": 7}))
    return folder


@FILE_EXAMPLES
@given(config=config_tables, max_len=st.one_of(st.integers(1, 10_000), numbers, scalars))
def test_a_runs_preprocess_json_is_honoured_or_refused_naming_the_key(tmp_path_factory, config, max_len):
    folder = run_folder(tmp_path_factory)
    path = folder / "preprocess.json"
    path.write_text(json.dumps({"config": config, "max_len": max_len}))
    try:
        loaded = Preprocessor.load(folder)
    except Exception as error:  # noqa: BLE001
        one_line_naming(error, path, [*config, "max_len"])
        return
    assert loaded.max_len == max_len and type(max_len) is int and 1 <= max_len <= 10_000
    for key, value in config.items():
        assert same(getattr(loaded.config, key), value, PreprocessConfig, key), (key, value)


scaling = st.integers(0, 3).flatmap(lambda n: st.tuples(
    st.lists(st.floats(-5, 5), min_size=n, max_size=n), st.lists(st.floats(0.1, 5), min_size=n, max_size=n)))
inputs_files = st.fixed_dictionaries({
    "inputs": st.one_of(st.just(["tokens"]), st.just(["tokens", "lexicon"]), st.lists(scalars, max_size=3)),
    "context": st.one_of(st.sampled_from(["none", "last", "all"]), st.sampled_from(["none", "last"]), scalars),
    "context_len": st.one_of(st.integers(0, 10_000), st.integers(0, 10_000), numbers, scalars),
}, optional={"scaling": st.one_of(scaling, scaling, st.tuples(values, values))}).map(
    lambda meta: {**{k: v for k, v in meta.items() if k != "scaling"},
                  **(dict(zip(("mean", "std"), meta["scaling"])) if "scaling" in meta else {})})


@FILE_EXAMPLES
@given(meta=st.one_of(inputs_files, values))
def test_a_runs_inputs_json_is_honoured_or_refused_naming_the_key(tmp_path_factory, meta):
    folder = run_folder(tmp_path_factory)
    path = folder / "inputs.json"
    path.write_text(json.dumps(meta))
    try:
        inputs = ModelInputs.load(folder, folder)
    except Exception as error:  # noqa: BLE001
        keys = [*meta] if isinstance(meta, dict) else []
        one_line_naming(error, path, [*keys, "inputs", "expected a JSON object", "without the other", "means but"])
        return
    assert inputs.context == meta.get("context", "none") and inputs.context_len == meta.get("context_len", 0)
    assert list(inputs.input_names) == [n for n in meta["inputs"] if n != "context"] + \
        (["context"] if inputs.context != "none" else [])
    if "mean" in meta:
        assert inputs.lexicon_dim == len(meta["mean"]) and (inputs.lexicon_std > 0).all()


#: A run's recorded training settings (every field a run records), some changed or left out.
recorded_train = st.tuples(train_tables, st.lists(st.sampled_from(TRAIN_FIELDS), max_size=1)).map(
    lambda edit: {**{k: v for k, v in TrainConfig().identity().items() if k not in edit[1]}, **edit[0]})
run_configs = st.fixed_dictionaries({
    "corpus": st.one_of(st.just("riloff"), scalars),
    "label_names": st.one_of(st.just(["not_sarcastic", "sarcastic"]), st.lists(scalars, max_size=3)),
    "train": st.one_of(recorded_train, recorded_train, train_tables, scalars),
    "model_config": st.one_of(st.just({}), st.dictionaries(st.just("multi_label"), scalars), scalars),
})


@FILE_EXAMPLES
@given(config=run_configs)
def test_a_runs_config_json_is_accepted_or_refused_naming_the_key(tmp_path_factory, config):
    folder = tmp_path_factory.mktemp("run")
    path = folder / "config.json"
    path.write_text(json.dumps(config))
    try:
        loaded = run_config(folder)
    except Exception as error:  # noqa: BLE001
        train = config["train"] if isinstance(config["train"], dict) else {}
        one_line_naming(error, path, [*config, *train, "expected a table"])
        return
    TrainConfig(**{key: value for key, value in loaded["train"].items() if key in TRAIN_FIELDS})
    threshold = loaded["train"]["threshold"]  # what using the run reads
    assert type(threshold) in (int, float) and 0 < threshold < 1

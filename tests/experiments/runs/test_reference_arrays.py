"""The reference set's leaner array format (experiments/runs/one/reference_arrays.py, version 2): the same values
bit for bit as version 1, so every metric and selection rule scores a materialised run as the original."""
import io

import numpy as np
import pytest

from experiments.runs.one.protocol import RULES, THRESHOLD_RULES
from experiments.runs.one.reference_arrays import PARTS, npz_bytes, packed, unpacked
from experiments.runs.one.trajectory import Trajectory, choose_in, scored


def softmax_float32(logits: np.ndarray) -> np.ndarray:
    """Probabilities as a model gives them: a float32 softmax, whose columns sum to 1 only up to rounding."""
    logits = logits.astype(np.float32)
    exponentials = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return (exponentials / exponentials.sum(axis=-1, keepdims=True)).astype(np.float32)


def one_hot(labels: np.ndarray, classes: int) -> np.ndarray:
    return np.eye(classes, dtype=np.uint8)[labels]


def run_arrays(classes: int = 2, multi_label: bool = False, epochs: int = 6, texts: int = 50, seed: int = 0,
               spread: float = 8) -> dict:
    """A run's arrays as version 1 holds them (float32 probabilities, uint8 targets, test ids); logits of
    standard deviation ``spread``: by default probabilities from 1e-9 to 1 - 1e-9, where 1 - P(sarcastic)
    and P(not sarcastic) differ most."""
    rng = np.random.default_rng(seed)
    gold = {split: (rng.random((texts, classes)) < 0.4).astype(np.uint8) if multi_label
            else one_hot(rng.integers(0, classes, texts), classes) for split in ("validation", "test")}
    probabilities = {split: softmax_float32(rng.normal(0, spread, (epochs, texts, classes))) for split in gold}
    return {**probabilities, "validation_gold": gold["validation"], "test_gold": gold["test"],
            "predictions": probabilities["test"][-1], "test_ids": np.asarray([f"t{i}" for i in range(texts)])}


def through_the_file(arrays: dict, binary: bool) -> dict:
    """``arrays`` written in version 2 and read back, as the reference set reads its .npz."""
    content = npz_bytes({"version": np.asarray(2), **packed("r0", arrays, binary)})
    with np.load(io.BytesIO(content), allow_pickle=False) as data:
        return unpacked({name: data[name] for name in data.files}, "r0", 2)


def record_of(arrays: dict) -> Trajectory:
    """The per-epoch record a materialised run's epochs.npz gives (float64, as load_record reads it)."""
    return Trajectory(*(arrays[part].astype("float64") for part in ("validation", "test", "validation_gold",
                                                                    "test_gold")))


def bits(array: np.ndarray) -> bytes:
    return array.dtype.str.encode() + str(array.shape).encode() + np.ascontiguousarray(array).tobytes()


def test_a_binary_run_comes_back_bit_for_bit_though_its_columns_do_not_sum_to_one():
    original = run_arrays()
    assert np.any(original["test"][..., 0] != np.float32(1) - original["test"][..., 1])  # the case that matters
    again = through_the_file(original, binary=True)
    assert {part: bits(again[part]) for part in PARTS} == {part: bits(original[part]) for part in PARTS}


def test_a_binary_run_keeps_one_probability_column_and_a_small_difference_for_the_other():
    members = packed("r0", run_arrays(), binary=True)
    assert members["r0_test"].dtype == np.uint8 and members["r0_test"].shape == (4, 6, 50)  # P(sarcastic)'s bytes
    assert members["r0_predictions"].shape == (4, 50)
    assert np.issubdtype(members["r0_test_p0_ulps"].dtype, np.signedinteger)


@pytest.mark.parametrize("rule", RULES)
def test_every_selection_rule_scores_the_materialised_binary_run_as_the_original(rule):
    original = run_arrays(epochs=8, texts=80, seed=3)
    again = through_the_file(original, binary=True)
    records = [record_of(arrays) for arrays in (original, again)]
    choices = [choose_in(record, rule, 0.5) for record in records]
    assert choices[0] == choices[1]
    assert scored(records[0], choices[0]) == scored(records[1], choices[1])


@pytest.mark.parametrize("classes, multi_label", [(3, False), (2, True)])
def test_multi_class_and_multi_label_runs_keep_every_column(classes, multi_label):
    original = run_arrays(classes, multi_label)
    members = packed("r0", original, binary=False)
    assert not any(name.endswith("_p0_ulps") for name in members)
    assert members["r0_test"].shape == (4, 6, 50, classes)
    again = through_the_file(original, binary=False)
    assert {part: bits(again[part]) for part in PARTS} == {part: bits(original[part]) for part in PARTS}
    records = [record_of(arrays) for arrays in (original, again)]
    for rule in sorted(set(RULES) - set(THRESHOLD_RULES)):  # the rules of multi-class and multi-label tasks
        choices = [choose_in(record, rule) for record in records]
        assert choices[0] == choices[1] and scored(records[0], choices[0]) == scored(records[1], choices[1])


def test_version_1_members_are_read_as_they_are():
    original = run_arrays()
    members = {f"r4_{part}": value for part, value in original.items()}
    assert {part: bits(value) for part, value in unpacked(members, "r4", 1).items()} == \
        {part: bits(original[part]) for part in PARTS}


def test_the_same_runs_give_the_same_bytes_in_about_half_the_space():
    original = run_arrays(epochs=30, texts=400, spread=2)  # a trained model's: few texts near 0 or 1
    members = {"version": np.asarray(2), **packed("r0", original, binary=True)}
    assert npz_bytes(members) == npz_bytes(members)  # no date in the file: a re-export leaves git nothing to store
    version_1 = io.BytesIO()
    np.savez_compressed(version_1, version=np.asarray(1), **{f"r0_{part}": v for part, v in original.items()})
    assert len(npz_bytes(members)) < 0.65 * len(version_1.getvalue())

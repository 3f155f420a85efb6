"""Shared fixtures.

Unit tests build their own tiny files under ``tmp_path``.  Integration tests
use the real corpora through ``real_data_dir``: ``$ISARCASM_DATA``, else the
project's ``./data``, else ``../shared/data`` beside the checkout; they are
skipped with the reason when none of these holds the data.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from locations import TEST_FOLDERS

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(folder) for folder in TEST_FOLDERS]  # tests reuse each other's fixtures by module name


def _candidate_dirs() -> list[Path]:
    env = os.environ.get("ISARCASM_DATA")
    return [Path(env)] if env else [ROOT / "data", ROOT.parent / "shared" / "data"]


@pytest.fixture(scope="session")
def real_data_dir() -> Path:
    for path in _candidate_dirs():
        if (path / "isarcasm").is_dir():
            return path
    pytest.skip(f"real data not found in {', '.join(map(str, _candidate_dirs()))}; set ISARCASM_DATA")


@pytest.fixture
def clean_model_registry():
    """Every test leaves the model registry, the plugin records and sys.modules as it found them."""
    from baselines import plugins
    from baselines.registry import MODELS

    items, loaded, origins = dict(MODELS._items), dict(plugins._LOADED), dict(plugins._ORIGINS)
    modules = set(sys.modules)
    yield
    MODELS._items.clear()
    MODELS._items.update(items)
    for store, saved in ((plugins._LOADED, loaded), (plugins._ORIGINS, origins)):
        store.clear()
        store.update(saved)
    for name in set(sys.modules) - modules:
        if name.startswith(("isarcasm_plugin_", "toy_entry")):
            del sys.modules[name]


# Property-based tests (tests/test_fuzz_*.py): one fixed profile, so `make test` stays within minutes and a
# failure found once is found again (derandomized: the same examples on every run and machine).
try:
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "isarcasm", max_examples=60, deadline=10_000, derandomize=True, print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
    )
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "isarcasm"))
except ImportError:  # the test extra is not installed: the fuzz tests skip themselves
    pass


#: Modules whose every test trains end to end, starts worker processes or another Keras backend.
SLOW_MODULES = {"test_training_e2e", "test_parallel", "test_crash_safety", "test_ray_executor", "test_backends",
                "test_keras_entrants", "test_failed_runs", "test_examples", "test_train_reuse", "test_shipped_runs"}
#: In other modules, the tests that train a model (or start a Python that does), named by the test function or
#: by the fixture that trains for them (a module-scoped fixture trains once for all its tests, so they go
#: together); `pytest --durations=50 -m "not slow"` shows what to add when the fast tier (`make test-fast`)
#: nears 3 minutes.
SLOW_TESTS = {
    "test_run_costs": {"test_the_first_run_on_a_vectors_file_does_not_count_the_cache_build_as_training"},
    "test_models": {"test_learns_a_separable_toy_task"},
    "test_context_models": {"test_learns_a_task_whose_label_is_in_the_context"},
    "test_predict_output": {"run"},
    "test_evaluate_summary": {"two_seeds"},
    "test_batching": {"test_a_bucket_run_trains_and_is_stored_as_a_named_variant",
                      "test_authors_elements_train_and_are_stored_as_named_variants_and_repeat_to_the_digit"},
    "test_context_training": {"dialogue"},
    "test_damaged_runs": {"pristine"},
    "test_evaluation_reuse": {"run"},
    "test_machine_faults": {"run", "test_a_full_disk_while_training_leaves_no_run_and_no_staging_folder"},
    "test_multilabel": {"tagged"},
    "test_multitask": {"multitask"},
    "test_outside_predictions": {"store"},
    "test_quiet_console": {"test_train_evaluate_predict_and_a_quick_reproduction_print_no_foreign_line_with_q",
                           "test_tf_cpp_min_log_level_0_shows_tensorflows_lines_again"},
    "test_selection_rules": {"runs", "toy_reproduction", "test_fidelity_sets_the_paper_beside_both_protocols",
                             "test_fidelity_of_a_table6_shape_sets_macro_f1_beside_an_f_score_without_precision"},
    "test_sklearn_entrants": {"store", "test_the_example_runs_on_its_own"},
    "test_cross_eval": {"store"},
    "test_settings_precedence": {"test_the_printed_command_makes_the_very_runs_the_benchmark_then_ranks"},
    "test_experiment_files": {"test_the_train_table_of_an_experiment_file_is_what_its_runs_use"},
    "test_references": {"toy"},
    "test_leaderboard": {"benchmarked"},
    "test_fuzz_user_files": {"trained_run"},
    "test_named_vectors": {"trained"},
}


def pytest_collection_modifyitems(items):
    """Mark ``slow`` every test on the real corpora (it asks for ``real_data_dir``), every test of a module
    in :data:`SLOW_MODULES` and every test :data:`SLOW_TESTS` names, so ``pytest -m "not slow"`` gives a
    quick pass (tests/test_tiers.py checks that every name there is still in its module)."""
    for item in items:
        module = item.module.__name__.split(".")[-1]
        fixtures = set(getattr(item, "fixturenames", ()))
        if ("real_data_dir" in fixtures or module in SLOW_MODULES
                or SLOW_TESTS.get(module, set()) & ({item.originalname} | fixtures)):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def clean_entrants():
    """Every test leaves the entrant registry as it found it."""
    from experiments.runs.entrants.registry import ENTRANTS

    saved = dict(ENTRANTS._items)
    yield
    ENTRANTS._items.clear()
    ENTRANTS._items.update(saved)


@pytest.fixture(scope="session", autouse=True)
def other_backends_from_the_start(request, tmp_path_factory):
    """The JAX and torch helpers of tests/experiments/runs/test_backends.py start with the session when tests
    of theirs are selected, so that they train beside the tests before theirs (see ``Helpers`` there).

    Not under pytest-xdist (``make test``): every worker collects every test and cannot tell whether
    test_backends.py will be sent to it, so each worker started both helpers and one pair trained for nothing
    beside the suite. There the helpers start with the first test of theirs, on the worker that runs it (the
    workers keep both cores busy, so nothing is gained by starting sooner)."""
    module = next((item.module for item in request.session.items
                   if item.module.__name__.split(".")[-1] == "test_backends"), None)
    if module is None:
        yield
        return
    module.HELPERS.wanted = module.asked_for(request.session.items)
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        module.HELPERS.start(module.HELPERS.wanted, tmp_path_factory)
    yield
    module.HELPERS.stop()

"""A user's scikit-learn estimator as an entrant: ``isarcasm benchmark NAME --estimator FILE.py``.

The file defines ``make_estimator()``, returning an unfitted estimator (or pipeline) with
``fit(texts, labels)`` and ``predict_proba(texts)``, and optionally ``PARAM_GRID``: the
hyper-parameters to try, in :class:`sklearn.model_selection.ParameterGrid`'s form (a dict of
lists, or a list of them; names as ``set_params`` takes them, e.g. ``"classifier__C"``).  Each run
fits one estimator per grid point on its training split and keeps the one with the best validation
score (the split and metric the neural runs choose their epoch with); the test split is predicted
only by the one kept.  A ``random_state`` left at None (anywhere in a pipeline) is set to the run's
seed, so a run is the same every time.

The file's sha256 is in every run's config, so runs of an edited file are never taken for the old
one's.  A file that cannot be used (missing, not Python, raising on import, without the function, an
object without ``fit`` or ``predict_proba``, a grid naming parameters the estimator lacks) stops with
one line before anything is written.
"""
from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

from sklearn.model_selection import ParameterGrid

from experiments.runs.entrants.registry import FIT_COST, Entrant, Job, Origin, Prepared, enter, fit_on_validation
from preprocessing.errors import IsarcasmError
from preprocessing.fileio import content_sha256, require_file

FUNCTION = "make_estimator"
GRID = "PARAM_GRID"
#: What an estimator must have.
METHODS = ("fit", "predict_proba")


def load_estimator(name: str, path: str | Path) -> Entrant:
    """Register entrant ``name``: the estimator of file ``path`` (see the module's docstring)."""
    path = Path(path)
    module, factory = user_function(path, "estimator", FUNCTION, "an unfitted scikit-learn estimator with "
                                    "fit(texts, labels) and predict_proba(texts)")
    estimator = _made(path, factory)
    grid = _grid(path, getattr(module, GRID, None), factory)
    identity = {"kind": "scikit-learn", "file": path.name, "sha256": content_sha256(path), "function": FUNCTION}

    def prepare(job: Job) -> Prepared:
        return Prepared(identity, lambda: fit_on_validation(lambda: seeded(_made(path, factory), job.seed), grid, job,
                                                            str(path)))

    return enter(Entrant(name, "scikit-learn", f"{type(estimator).__name__} from {path.name}", prepare,
                         source=f"{path.resolve()} sha256 {identity['sha256']}",
                         origin=Origin(load_estimator, str(path)), cost=lambda train: FIT_COST * len(grid)))


def seeded(estimator, seed: int):
    """``estimator`` with every ``random_state`` left at None (its own, its steps') set to ``seed``."""
    params = estimator.get_params(deep=True) if hasattr(estimator, "get_params") else {}
    unset = {key: seed for key, value in params.items()
             if (key == "random_state" or key.endswith("__random_state")) and value is None}
    return estimator.set_params(**unset) if unset else estimator


def user_function(path: Path, kind: str, function: str, returning: str) -> tuple[object, Callable]:
    """The user's file ``path`` imported, and its function ``function`` (which should return
    ``returning``); a file that cannot be used is one line naming it."""
    require_file(path, f"{kind} file {path} not found (give a .py file defining {function}())")
    if path.suffix != ".py":
        raise IsarcasmError(f"{kind} file {path} is not a .py file")
    module = _import(path)
    found = getattr(module, function, None)
    if not callable(found):
        raise IsarcasmError(f"{path}: defines no function {function}() (it should return {returning})")
    return module, found


def _import(path: Path):
    """The file imported under a module name of its own (two files called ``model.py`` do not collide)."""
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:10]
    module_name = f"isarcasm_estimator_{''.join(c if c.isalnum() else '_' for c in path.stem)}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # before executing: pickling and dataclasses look it up
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        del sys.modules[module_name]
        raise IsarcasmError(f"{path}: syntax error on line {exc.lineno}: {exc.msg}") from None
    except Exception as exc:  # noqa: BLE001  (whatever the user's file raises becomes one line naming it)
        del sys.modules[module_name]
        raise IsarcasmError(f"{path}: importing it raised {type(exc).__name__}: {exc}") from None
    return module


def _made(path: Path, factory: Callable):
    """``factory()``, checked to be an estimator this suite can fit and ask for probabilities."""
    try:
        estimator = factory()
    except Exception as exc:  # noqa: BLE001  (the user's function: whatever it raises is one line)
        raise IsarcasmError(f"{path}: {FUNCTION}() raised {type(exc).__name__}: {exc}") from None
    missing = [method for method in METHODS if not callable(getattr(estimator, method, None))]
    if missing:
        raise IsarcasmError(f"{path}: {FUNCTION}() returned a {type(estimator).__name__}, which has no "
                            f"{' and no '.join(missing)} (an estimator needs fit(texts, labels) and "
                            "predict_proba(texts); a classifier without probabilities can be wrapped in "
                            "sklearn.calibration.CalibratedClassifierCV)")
    return estimator


def _grid(path: Path, raw, factory: Callable) -> list[dict]:
    """The points of ``PARAM_GRID`` (one empty point without it), each checked on a fresh estimator."""
    if raw is None:
        return [{}]
    try:
        points = list(ParameterGrid(raw))
    except (TypeError, ValueError) as exc:
        raise IsarcasmError(f"{path}: {GRID} is not a parameter grid ({exc}); write a dict of lists, e.g. "
                            "{\"classifier__C\": [0.1, 1, 10]}") from None
    if not points:
        raise IsarcasmError(f"{path}: {GRID} is empty")
    for point in points:
        estimator = factory()
        try:
            estimator.set_params(**point)
        except (AttributeError, TypeError, ValueError) as exc:
            raise IsarcasmError(f"{path}: {GRID} sets {', '.join(point)}, which {type(estimator).__name__} does not "
                                f"take ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from None
    return points

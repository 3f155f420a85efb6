"""Models from outside the package: a Python file, or an installed package's entry point.

A plugin registers its builder with :func:`baselines.register_model`, exactly
as the built-in models do, so every command (train, reproduce, benchmark,
cross-eval, models) sees it like any other model:

- a file: ``isarcasm --model-module path/to/my_model.py train --model mine ...``
  (:func:`load_model_file`, imported under a module name of its own, so two
  files called ``model.py`` do not collide);
- a package: an entry point in the group ``isarcasm.models`` naming the module
  that registers the model, e.g. in ``pyproject.toml``::

      [project.entry-points."isarcasm.models"]
      bigru = "my_package.bigru"

  Entry points are loaded when :mod:`baselines` is first imported
  (:func:`load_entry_points`), i.e. when the model registry is first used.

A plugin that cannot be used (missing file, syntax error, an exception or ``exit()``
while importing, no model registered, a name that is taken) stops with one line
naming the plugin and the problem.  Where each plugin model came from is kept
(:func:`origin`) and written into the run's configuration, so a run records
which plugin code produced it and an edited plugin is never mistaken for the
old one.
"""
from __future__ import annotations

import hashlib
import importlib.util
import sys
from importlib import metadata
from pathlib import Path

from preprocessing.errors import IsarcasmError
from preprocessing.fileio import content_sha256, require_file

from .registry import MODELS

ENTRY_POINT_GROUP = "isarcasm.models"

#: Plugin model name -> where its code came from (recorded in the run's config).
_ORIGINS: dict[str, dict] = {}
#: Resolved file path (or entry point value) -> the model names it registered; loading is idempotent.
_LOADED: dict[str, list[str]] = {}


def origin(model: str) -> dict | None:
    """Where plugin model ``model`` came from; ``None`` for a built-in model."""
    return _ORIGINS.get(model)


def load_model_file(path: str | Path) -> list[str]:
    """Import a plugin file and return the names of the models it registered."""
    path = Path(path)
    require_file(path, f"model module {path} not found (give the path to a .py file that calls register_model)")
    if path.suffix != ".py":
        raise IsarcasmError(f"model module {path} is not a .py file")
    key = str(path.resolve())
    if key in _LOADED:
        return _LOADED[key]
    digest = hashlib.sha1(key.encode()).hexdigest()[:10]
    module_name = f"isarcasm_plugin_{_identifier(path.stem)}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)

    sys.modules[module_name] = module  # before executing: dataclasses and Keras serialisation look it up
    try:
        names = _registering(str(path), lambda: spec.loader.exec_module(module))
    except BaseException:
        del sys.modules[module_name]  # a rejected plugin leaves nothing behind
        raise
    _remember(key, names, {"file": path.name, "sha256": content_sha256(path)})
    return names


def plugin_files() -> list[str]:
    """The plugin files loaded so far (resolved paths), e.g. to load them again in a worker process."""
    return [key for key, names in _LOADED.items() if names and "file" in _ORIGINS.get(names[0], {})]


def load_entry_points() -> list[str]:
    """Load every installed ``isarcasm.models`` entry point; return the model names they registered."""
    names = []
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        key = f"{entry_point.name} = {entry_point.value}"
        if key in _LOADED:
            names += _LOADED[key]
            continue
        registered = _registering(f"plugin entry point '{key}' (group {ENTRY_POINT_GROUP})", entry_point.load)
        distribution = getattr(entry_point, "dist", None)
        _remember(key, registered, {"entry_point": key,
                                    "distribution": f"{distribution.name} {distribution.version}"
                                    if distribution else "unknown"})
        names += registered
    return names


def load_plugins(files: tuple[str, ...] | list[str] = ()) -> list[str]:
    """Installed entry points, then the given plugin files (what the CLI calls at start)."""
    return load_entry_points() + [name for path in files for name in load_model_file(path)]


def _registering(what: str, load) -> list[str]:
    """Run ``load`` and return the model names it registered, turning every failure into one line."""
    before = set(MODELS.names())
    try:
        load()
    except SyntaxError as exc:
        raise IsarcasmError(f"{what}: syntax error on line {exc.lineno}: {exc.msg}") from None
    except ValueError as exc:
        if "registered twice" in str(exc):
            raise IsarcasmError(f"{what}: {exc} (a model of that name already exists; register yours under "
                                f"another name)") from None
        raise IsarcasmError(f"{what}: importing it raised ValueError: {exc}") from None
    except Exception as exc:  # noqa: BLE001  (whatever a plugin raises becomes one line naming it)
        raise IsarcasmError(f"{what}: importing it raised {type(exc).__name__}: {exc}") from None
    except SystemExit as exc:  # exit() on import ended every command at exit code 0, silently
        raise IsarcasmError(f"{what}: importing it called exit({'' if exc.code is None else repr(exc.code)}); a "
                            "plugin module only defines and registers models: put a script's code under "
                            "`if __name__ == \"__main__\":`") from None
    names = [name for name in MODELS.names() if name not in before]
    if not names:
        raise IsarcasmError(f"{what}: registers no model (decorate a builder with "
                            "@register_model(\"name\", paper=\"...\") from baselines)")
    return names


def _remember(key: str, names: list[str], source: dict) -> None:
    _LOADED[key] = names
    for name in names:
        _ORIGINS[name] = source


def _identifier(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text)

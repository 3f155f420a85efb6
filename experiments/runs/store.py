"""The results store: one directory per run, written atomically.

Layout: ``<root>/<experiment>/<corpus>/<model>/seed-<n>/`` holding
config.json, metrics.json, predictions.tsv, history.csv, model.keras and the
preprocessor files.  A run is complete when its metrics.json exists; it is
written last, so a crash never leaves a half-run that looks finished.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from preprocessing.corpora import corpus_label
from preprocessing.errors import IsarcasmError
from preprocessing.fileio import usual_mode

#: Where a results file goes when a later invocation writes the same experiment's results.
PREVIOUS = "previous"


def run_dir(root: Path, experiment: str, corpus: str, model: str, seed: int, fold: int | None = None) -> Path:
    """``root/experiment/corpus/model/seed-N``, with ``fold-K/`` (1-based) before the seed for a fold's run."""
    folder = root / experiment / corpus_label(corpus) / model
    return (folder if fold is None else folder / f"fold-{fold + 1}") / f"seed-{seed}"


def twin_runs(root: Path, experiment: str, corpus: str, model: str, seed: int, fold: int | None = None) -> list[Path]:
    """The same (corpus, model, seed, fold) in every other experiment folder of the store.

    Experiments share cells (Table 7's iSarcasm runs are the cross-dataset matrix's in-domain
    runs), so a run finished for one is reused by another when its configuration hash matches.
    """
    if not root.is_dir():
        return []
    return [run_dir(root, other.name, corpus, model, seed, fold) for other in sorted(root.iterdir())
            if other.is_dir() and other.name != experiment]


def run_places(root: Path, experiment: str, corpus: str, model: str, seed: int, fold: int | None = None) -> list[Path]:
    """Where a finished run of (corpus, model, seed, fold) may be: the experiment's own folder, then its twins."""
    own = run_dir(root, experiment, corpus, model, seed, fold)
    return [own, *twin_runs(root, experiment, corpus, model, seed, fold)]


def write_json(path: Path, value) -> None:
    """Write JSON atomically (temp file in the same directory, then rename)."""
    write_text(path, json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    os.chmod(tmp, usual_mode())
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_result_files(result: dict, results_root: Path, csv_text: str, markdown: str) -> list[Path]:
    """``<results_root>/<experiment>.{json,csv,md}``, each written atomically.

    Results an earlier invocation wrote there are never replaced silently:
    they are first moved to ``<results_root>/previous/`` under their time
    stamp (they hold, e.g., the wall time of the invocation that trained the
    runs a later one reused), and a line on stderr says so.
    """
    paths = [results_root / f"{result['experiment']}.{ext}" for ext in ("json", "csv", "md")]
    if paths[0].is_file():
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(paths[0].stat().st_mtime))
        kept = results_root / PREVIOUS
        kept.mkdir(parents=True, exist_ok=True)
        for path in paths:
            if path.is_file():
                path.replace(kept / f"{path.stem}-{stamp}{path.suffix}")
        print(f"earlier {paths[0].stem} results moved to {kept}/ (suffix -{stamp})", file=sys.stderr)
    write_json(paths[0], result)
    write_text(paths[1], csv_text)
    write_text(paths[2], markdown)
    return paths


def read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IsarcasmError(f"{path} not found") from None
    except ValueError as exc:
        raise IsarcasmError(f"{path}: not valid JSON ({exc})") from None


def completed(directory: Path, config_hash: str) -> bool:
    """True when the run finished with exactly this configuration (resume skips it)."""
    metrics = directory / "metrics.json"
    if not metrics.is_file():
        return False
    try:
        return json.loads(metrics.read_text()).get("config_hash") == config_hash
    except ValueError:
        return False


class RunWriter:
    """Collects a run's files in a staging directory and moves them into place at the end.

    An existing finished run is only replaced with ``force=True``; a different
    configuration in the same place is an error, never a silent overwrite.
    """

    def __init__(self, directory: Path, config_hash: str, force: bool = False):
        self.directory = directory
        if (directory / "metrics.json").is_file() and not force:
            raise IsarcasmError(
                f"{directory} already holds a finished run with another configuration; "
                "pass --force to replace it or choose another --output-dir"
            )
        directory.parent.mkdir(parents=True, exist_ok=True)
        self.staging = Path(tempfile.mkdtemp(dir=directory.parent, prefix=f".{directory.name}.staging-"))
        self.staging.chmod(usual_mode(directory=True))

    def path(self, name: str) -> Path:
        return self.staging / name

    def commit(self) -> Path:
        """Atomically swap the staging directory in (the old run, if any, is removed after)."""
        old = None
        if self.directory.exists():
            old = self.directory.with_name(f".{self.directory.name}.old-{os.getpid()}")
            os.replace(self.directory, old)
        os.replace(self.staging, self.directory)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.directory

    def abort(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)

"""The reference set: finished runs shipped with the repository, used only where the local data agrees.

A fresh clone has no trained runs, yet ``benchmark``, ``report --selection`` and ``report --fidelity``
read finished runs (their per-epoch records and test predictions), and training the classic models
first takes hours.  ``isarcasm runs export`` writes the runs behind a results file as a reference set
(``docs/results/runs/<experiment>.json`` and ``.npz``; format below); the commands then use a
reference run as if it were in the run store, but only after checking it against the local data:

* the same split: the validation and test ids with their gold labels, recomputed here with
  :func:`experiments.runs.one.protocol.make_splits`, hash to the checksums recorded at export;
* the same protocol: the configuration hash computed here (settings, data files, word vectors)
  equals the run's.

A verified run is *materialised* as a read-only run folder under ``<store>/.reference/<key>``
(config.json, metrics.json, predictions.tsv, epochs.npz, history.csv and reference.json in place of
the model, which is not shipped), so every reader of run folders reads it unchanged.  A mismatch
is one line naming the corpus, what differs and the command that retrains the cell, and the run
is not used.  A run is found by its configuration hash (whichever experiment's key it was exported under),
and a run of that hash in the store itself always comes before a reference run.

Format (version :data:`VERSION`; the versions read are
:data:`~experiments.runs.one.reference_arrays.VERSIONS`): the index ``<name>.json`` (the results file's name unless
``runs export --name`` gives another) holds ``format``,
``version``, ``experiment`` (the results file's name), ``made_by`` (the command that made it), ``exported``
(the provenance of the export), ``arrays`` and ``arrays_sha256`` (the ``.npz`` file and its content hash)
and ``runs``: per run its ``key`` (its place in a store, ``<experiment>/<corpus>/<model>/[fold-K/]seed-N``),
``directory`` (where it was exported from), ``config`` (config.json: settings, ``config_hash``,
``data_sha256``, provenance), ``metrics`` (metrics.json), ``history`` (history.csv's text),
``parameters`` (the model's weights) and ``splits`` (per split, the number of texts and the sha256 of
its ``id<TAB>gold labels`` lines).  An export may also record ``results`` (the results
file it backs: ``name``, ``sha256`` and ``text``; reports read the committed copy in docs/results) and
``elsewhere`` (the runs of those results that another file of the set already ships: key -> file name);
an index without them (the committed ``table7``) backs the results file of its ``experiment`` in
docs/results.  The ``.npz`` holds per run ``<key>`` (``r0``, ``r1``...): the
per-epoch record (``_validation``, ``_test``: float32, epochs x texts x classes; ``_validation_gold``,
``_test_gold``: uint8 targets), the selected epoch's test probabilities (``_predictions``, float32)
and the test ids (``_test_ids``).  Version 1 holds these arrays as they are; version 2 holds the same
values, bit for bit, in about half the bytes (a binary run's P(not sarcastic) as its difference from
1 - P(sarcastic), floats as byte planes, LZMA): see :mod:`experiments.runs.one.reference_arrays`.
"""
from __future__ import annotations

import hashlib
import logging
import lzma
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from experiments.runs.one import provenance
from experiments.runs.one.metrics import main_metric
from experiments.runs.one.protocol import Splits, TrainConfig, make_splits
from experiments.runs.one.reference_arrays import VERSIONS, npz_bytes, packed, unpacked
from experiments.runs.one.spec import RunSpec
from experiments.runs.one.store import (CONFIG, EPOCHS, HISTORY, METRICS, MODEL, PREDICTIONS, REFERENCE,
                                        REFERENCE_CACHE, RunWriter, is_finished, json_text, read_config, read_json,
                                        read_metrics, run_claim, write_json, write_run, write_text)
from experiments.runs.one.outputs import model_parameters, predictions_tsv, read_predictions
from experiments.runs.one.trajectory import Trajectory, load_record, save_record
from preprocessing.config import PreprocessConfig
from preprocessing.corpora import corpus_label
from preprocessing.errors import IsarcasmError
from preprocessing.fileio import content_sha256
from preprocessing.records import Dataset

#: What the index's ``format`` says: a JSON file without it is not a reference set.
FORMAT = "isarcasm-reference-runs"
#: The format's version, the one export writes; a set of a version not in ``VERSIONS`` is refused, not guessed at.
VERSION = 2
#: Where the repository ships its reference set.
SHIPPED = Path(__file__).resolve().parents[3] / "docs" / "results" / "runs"
#: The results a shipped file of the set backs, by the file's name, where its index (whose bytes are kept) names
#: them otherwise: ``table7-seeds-5-9`` records Table 7's 10-seed iSarcasm study under ``table7``, the name of
#: Table 7 itself (both corpora, 5 seeds); that study's name is ``table7-seeds-10``.
BACKS = {"table7-seeds-5-9": "table7-seeds-10"}

log = logging.getLogger("isarcasm")


def key_of(directory: Path) -> str:
    """The key of the run folder ``directory`` (``.../<experiment>/<corpus>/<model>/[fold-K/]seed-N``)."""
    parts = Path(directory).parts
    return "/".join(parts[-5:] if len(parts) >= 5 and parts[-2].startswith("fold-") else parts[-4:])


def split_checksum(dataset: Dataset, records: list) -> dict:
    """The number of texts of a split and the sha256 of its ``id<TAB>gold label indices`` lines, in order."""
    lines = "".join(f"{r.id}\t{'|'.join(map(str, dataset.labels_of(r)))}\n" for r in records)
    return {"texts": len(records), "sha256": hashlib.sha256(lines.encode("utf-8")).hexdigest()}


def spec_of(config: dict) -> RunSpec:
    """The run a config.json describes."""
    train = TrainConfig.recorded(config["train"], f"run {config.get('experiment_dir', config.get('config_hash'))}")
    return RunSpec(config["corpus"], config["model"], int(config["seed"]), train, config.get("fold"),
                   PreprocessConfig(**config["preprocess"]))


def shipped_count(directories: Iterable) -> int:
    """How many of the run folders ``directories`` are materialised reference runs."""
    return sum(REFERENCE_CACHE in Path(directory).parts for directory in directories)


# --- export -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Backing:
    """The results file an export backs: its name (``experiment``), the command that made it (``made_by``) and its
    text, which the index records with its sha256: what its runs stand for."""

    experiment: str
    made_by: str
    text: str


def export(backing: Backing, runs: list[Path], datasets: dict[str, Dataset], data_dir: Path, to: Path,
           name: str | None = None) -> tuple[Path, Path, dict]:
    """Write the finished ``runs`` behind results ``backing`` as ``to/<name>.{json,npz}`` (``name``: the
    results file's by default); return both files and the runs left out, by key, with the file of the set
    that ships each.

    A run the set in ``to`` already ships in another file (the same key and configuration hash) is left
    out and listed in the index (``elsewhere``), so seeds 5-9 of a results file can join a set that ships
    seeds 0-4 without shipping those twice; one shipped there with another configuration, or a rewrite of
    ``name`` that would drop one of its runs, is refused in one line.  Each run written is checked first,
    as it will be on the user's machine: it is finished, and its configuration hash is what the local data
    (``datasets``, by corpus name, and ``data_dir``) gives, so the split checksums recorded now are those
    of the data it was trained on.
    """
    name = name or backing.experiment
    kept, elsewhere = _new_runs(runs, ReferenceSet(to).runs(), to / f"{name}.json")
    entries, arrays = [], {}
    for index, directory in enumerate(kept):
        entry, run_arrays, binary = _exported(Path(directory), datasets, data_dir)
        entries.append({**entry, "arrays": f"r{index}"})
        arrays.update(packed(f"r{index}", run_arrays, binary))
    content = npz_bytes({"version": np.asarray(VERSION), **arrays})
    text_sha256 = hashlib.sha256(backing.text.encode("utf-8")).hexdigest()
    index = {"format": FORMAT, "version": VERSION, "experiment": backing.experiment, "made_by": backing.made_by,
             "exported": provenance.record(), "arrays": f"{name}.npz",
             "arrays_sha256": hashlib.sha256(content).hexdigest(),
             "results": {"name": backing.experiment, "sha256": text_sha256, "text": backing.text},
             "elsewhere": elsewhere, "runs": entries}
    to.mkdir(parents=True, exist_ok=True)
    staged = to / f".{name}.npz.staging"
    staged.write_bytes(content)
    staged.replace(to / index["arrays"])
    write_text(to / f"{name}.json", json_text(index))
    return to / f"{name}.json", to / index["arrays"], elsewhere


def _new_runs(runs: list[Path], shipped: dict[str, tuple[Path, dict]], target: Path) -> tuple[list[Path], dict]:
    """The ``runs`` to write to the set's file ``target`` and those its other files already ship (key ->
    file name); refused in one line where the export would contradict or drop a shipped run."""
    kept, elsewhere = [], {}
    for directory in runs:
        key = key_of(Path(directory))
        path, entry = shipped.get(key, (target, None))
        if path == target:
            kept.append(Path(directory))
            continue
        ours, theirs = read_config(Path(directory))["config_hash"], entry["config"]["config_hash"]
        if ours != theirs:
            raise IsarcasmError(f"{directory}: run {key} is shipped in {path} with another configuration (hash "
                                f"{theirs[:12]}, this run's {ours[:12]}): exporting it would contradict the set; "
                                "export to another folder (--to), or rebuild that file from the runs it came from")
        elsewhere[key] = path.name
    written = {key_of(directory) for directory in kept}
    dropped = [key for key, (path, _) in shipped.items() if path == target and key not in written]
    if dropped:
        raise IsarcasmError(f"{target} ships {len(dropped)} run(s) this export does not hold (first: {dropped[0]}): "
                            "rewriting it would drop them; export under another --name")
    if not kept:
        raise IsarcasmError(f"every run is already shipped in {', '.join(sorted(set(elsewhere.values())))} of "
                            f"{target.parent}: nothing to export")
    return kept, elsewhere


def _exported(directory: Path, datasets: dict[str, Dataset], data_dir: Path) -> tuple[dict, dict, bool]:
    """One run's index entry, its arrays and whether it is binary, after checking it against the local data."""
    if not is_finished(directory) or not (directory / MODEL).is_file():
        raise IsarcasmError(f"{directory} is not a finished run of a trained model: make it with the command "
                            "that made the results (finished runs are reused), then export again")
    config, metrics = read_config(directory), read_metrics(directory)
    dataset = datasets[config["corpus"]]
    splits, problem = _against_local(config, dataset, data_dir)
    if problem:
        raise IsarcasmError(f"{directory} was trained on other data or settings than this machine's ({problem}): "
                            "export it where it was trained")
    record, predictions = load_record(directory / EPOCHS), read_predictions(directory / PREDICTIONS)
    if predictions.ids != [r.id for r in splits.test]:
        raise IsarcasmError(f"{directory / PREDICTIONS}: its ids are not the test split's: retrain the run")
    entry = {"key": key_of(directory), "directory": str(directory), "config": config, "metrics": metrics,
             "history": (directory / HISTORY).read_text(encoding="utf-8") if (directory / HISTORY).is_file() else "",
             "parameters": model_parameters(directory),
             "splits": {name: split_checksum(dataset, getattr(splits, name)) for name in ("validation", "test")}}
    arrays = {"validation": record.validation.astype("float32"), "test": record.test.astype("float32"),
              "validation_gold": record.validation_gold.astype("uint8"), "test_gold": record.test_gold.astype("uint8"),
              "predictions": predictions.probabilities.astype("float32"), "test_ids": np.asarray(predictions.ids)}
    return entry, arrays, record.binary


def differences(recorded: dict, local: dict) -> list[str]:
    """What identifies a run and differs between its recorded config.json and the local one: the
    settings by name, the data files by file name."""
    changed = []
    for name in sorted(set(local) | (set(recorded) & {"model_source", "keras_backend", "aux_tasks"})):
        if name == "data_sha256":
            files = recorded.get(name, {})
            changed += [f"data file {file}" for file in sorted(set(files) | set(local[name]))
                        if files.get(file) != local[name].get(file)]
        elif recorded.get(name) != local.get(name):
            changed.append(name)
    return changed or ["the configuration hash"]


# --- use -----------------------------------------------------------------------------------------

class Mismatch(IsarcasmError):
    """A reference run that does not match the local data or settings: it is not used."""


@dataclass
class ReferenceSet:
    """The reference runs in ``folder`` (every ``<experiment>.json`` index there), read when first asked."""

    folder: Path
    _runs: dict | None = field(default=None, repr=False)
    _indexes: dict = field(default_factory=dict, repr=False)  # index path -> its content
    _verdicts: dict = field(default_factory=dict, repr=False)  # key -> what differs ('' when nothing)
    _arrays_of: dict = field(default_factory=dict, repr=False)  # .npz path -> its arrays, once checked
    _said: set = field(default_factory=set, repr=False)

    def runs(self) -> dict[str, tuple[Path, dict]]:
        """Every run of the set by key: (its index file, its entry).  A file that is not a reference set
        of this version is refused in one line and left out."""
        if self._runs is None:
            self._runs = {}
            for path in sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []:
                index = self._index(path)
                runs = index.get("runs") if index else None
                if not isinstance(runs, list) or not all(isinstance(e, dict) and "key" in e for e in runs):
                    if index:
                        self.warn_once(f"{path}: its runs cannot be read: left out (rebuild it with `isarcasm runs export`)")
                    continue
                self._indexes[path] = index
                for entry in runs:
                    self._runs.setdefault(entry["key"], (path, entry))
        return self._runs

    def _index(self, path: Path) -> dict | None:
        try:
            index = read_json(path)
        except IsarcasmError as exc:
            return self.warn_once(str(exc))
        if not isinstance(index, dict) or index.get("format") != FORMAT:
            return self.warn_once(f"{path} is not a reference set (no format '{FORMAT}'): left out")
        if index.get("version") not in VERSIONS:
            return self.warn_once(f"{path}: reference set of version {index.get('version')}; this isarcasm reads "
                                  f"versions {' and '.join(map(str, VERSIONS))}: left out (rebuild it with "
                                  "`isarcasm runs export`)")
        return index

    def key_holding(self, config_hash: str) -> str | None:
        """The key of the set's run of this configuration hash (the one its config.json records); None where
        the set ships none.  A run is reused by its hash, whichever experiment's folder it was exported from."""
        for key, (_, entry) in self.runs().items():
            config = entry.get("config")
            if isinstance(config, dict) and config.get("config_hash") == config_hash:
                return key
        return None

    def keys(self, experiment: str) -> list[str]:
        """The keys of the runs behind results ``experiment`` (:meth:`backs`)."""
        return [key for key, (path, _) in self.runs().items() if self.backs(path) == experiment]

    def backs(self, path: Path) -> str:
        """The name of the results the set's file ``path`` backs: its index's ``experiment``, or its name in
        :data:`BACKS` where the index records them under another results' name."""
        return BACKS.get(path.stem, self._indexes[path].get("experiment"))

    def warn_once(self, line: str) -> None:
        """``line`` as a warning, the first time it is said (every seed of a cell refused says the same)."""
        if line not in self._said:
            self._said.add(line)
            log.warning(line)
        return None

    def materialised(self, key: str, store: Path, datasets: Callable[[str], Dataset], data_dir: Path,
                     config_hash: str | None = None) -> Path | None:
        """The run ``key`` as a verified run folder under ``store/.reference/``; None when the set has
        no such run, or (given ``config_hash``) when its run is of another configuration.  ``datasets`` loads
        a corpus by name.  A run that does not match the local data raises :class:`Mismatch` (one line)."""
        found = self.runs().get(key)
        if found is None:
            return None
        path, entry = found
        index = self._indexes[path]
        try:
            if key not in self._verdicts:
                self._verdicts[key] = _mismatch(entry, datasets(entry["config"]["corpus"]), data_dir) or ""
            if not self._verdicts[key]:
                if config_hash not in (None, entry["config"]["config_hash"]):
                    return None
                return _materialise(store / REFERENCE_CACHE / key, entry, index, self._arrays(path, index))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:  # a hand-edited or half-copied index
            raise Mismatch(f"{path}: reference run {key} cannot be read ({type(exc).__name__}: {exc}); restore the "
                           "file (git checkout) or rebuild it with `isarcasm runs export`") from None
        corpus, model = corpus_label(entry["config"]["corpus"]), entry["config"]["model"]
        raise Mismatch(f"reference runs of {key.rsplit('/', 1)[0]} ({path.name}) not used: corpus '{corpus}': "
                       f"{self._verdicts[key]}; train the cell here with `isarcasm reproduce {self.backs(path)} "
                       f"--corpora {corpus} --models {model}`")

    def _arrays(self, path: Path, index: dict) -> dict:
        """The ``.npz`` of an index, checked against the sha256 the index records."""
        file = path.parent / index["arrays"]
        if file not in self._arrays_of:
            damaged = (f"{file} is damaged or not the one its index {path.name} was written with: restore it "
                       f"(git checkout {file.name}) or rebuild it with `isarcasm runs export`")
            if not file.is_file() or content_sha256(file) != index["arrays_sha256"]:
                raise Mismatch(damaged)
            try:
                with np.load(file, allow_pickle=False) as data:
                    arrays = {name: data[name] for name in data.files}
            except (OSError, ValueError, EOFError, zipfile.BadZipFile, lzma.LZMAError):
                raise Mismatch(damaged) from None
            if "version" not in arrays or arrays["version"].item() != index["version"]:  # its index's version, too
                raise Mismatch(damaged)
            self._arrays_of[file] = arrays
        return self._arrays_of[file]


def _mismatch(entry: dict, dataset: Dataset, data_dir: Path) -> str | None:
    """What differs between a reference run and the local data and settings: the splits first (what a
    reader of its predictions depends on), then the rest of its configuration; None when nothing does."""
    try:
        splits, problem = _against_local(entry["config"], dataset, data_dir)
    except IsarcasmError as exc:
        return f"it cannot be checked here ({exc})"
    for name in ("validation", "test"):
        if split_checksum(dataset, getattr(splits, name)) != entry["splits"][name]:
            return f"the {name} split (its text ids or gold labels) differs from the one the run was trained on"
    return f"{problem} from the run's" if problem else None


def _against_local(config: dict, dataset: Dataset, data_dir: Path) -> tuple[Splits, str | None]:
    """The splits of the run ``config`` describes on the local data, and what differs between its
    configuration and the one the local data gives (None when its hash is the same)."""
    from experiments.runs.one.training import data_checksums, run_config  # the training path: imported where used

    spec = spec_of(config)
    splits = make_splits(dataset, spec.seed, spec.train.validation_fraction, spec.train.max_train, spec.fold)
    local = run_config(spec, dataset, splits, data_checksums(dataset.name, data_dir, spec.train))
    if provenance.config_hash(local) == config["config_hash"]:
        return splits, None
    return splits, f"{', '.join(differences(config, local))} differ"


def _materialise(directory: Path, entry: dict, index: dict, arrays: dict) -> Path:
    """The run folder of ``entry`` at ``directory`` (written once, atomically, metrics.json last; written
    again when the set changed since)."""
    marker = {"key": entry["key"], "experiment": index["experiment"], "exported_from": entry["directory"],
              "parameters": entry.get("parameters"), "arrays_sha256": index["arrays_sha256"],
              "entry_sha256": hashlib.sha256(json_text(entry).encode("utf-8")).hexdigest()}
    config_hash = entry["config"]["config_hash"]
    if _holds(directory, config_hash, marker):
        return directory
    run = unpacked(arrays, entry["arrays"], index["version"])
    with run_claim(directory):
        if _holds(directory, config_hash, marker):  # written by another process while this one waited
            return directory
        return write_run(directory, config_hash, partial(_write_files, entry, marker, run), force=True).directory


def _write_files(entry: dict, marker: dict, run: dict, writer: RunWriter) -> dict:
    """The files of the reference run ``entry`` (its arrays ``run``), read-only, metrics.json last."""
    write_json(writer.path(CONFIG), entry["config"])
    if entry["history"]:
        write_text(writer.path(HISTORY), entry["history"])
    save_record(writer.path(EPOCHS), Trajectory(run["validation"], run["test"], run["validation_gold"],
                                                run["test_gold"]))
    write_text(writer.path(PREDICTIONS), predictions_tsv([str(i) for i in run["test_ids"]], run["test_gold"],
                                                         run["predictions"], multi_label=False))
    write_json(writer.path(REFERENCE), marker)
    write_json(writer.path(METRICS), entry["metrics"])
    for path in writer.staging.iterdir():
        path.chmod(0o444)
    return entry["metrics"]


def repeats(shipped: Path, retrained: Path) -> dict:
    """How a reference run retrained here compares with the shipped one: ``identical`` when every
    per-epoch probability and the test predictions are the same to the last digit; else the largest
    difference of a test probability (any epoch) and the test F1 of each."""
    first, again = load_record(shipped / EPOCHS), load_record(retrained / EPOCHS)
    arrays = ("validation", "test", "validation_gold", "test_gold")
    same_shape = all(getattr(first, name).shape == getattr(again, name).shape for name in arrays)
    identical = same_shape and all(np.array_equal(getattr(first, name), getattr(again, name)) for name in arrays) \
        and _rows(shipped / PREDICTIONS) == _rows(retrained / PREDICTIONS)
    tests = [read_metrics(run)["test"] for run in (shipped, retrained)]
    f1 = [test[main_metric(test)] for test in tests]
    largest = float(np.max(np.abs(first.test - again.test))) if same_shape else None
    return {"identical": identical, "largest_difference": largest, "f1": f1}


def _rows(predictions: Path) -> bytes:
    """A predictions file without its header, whose probability columns were renamed (prob_k -> p_*)."""
    return predictions.read_bytes().partition(b"\n")[2]


def _holds(directory: Path, config_hash: str, marker: dict) -> bool:
    """True when ``directory`` already holds this reference run, materialised from this very set."""
    return is_finished(directory, config_hash) and (directory / REFERENCE).is_file() \
        and read_json(directory / REFERENCE) == marker

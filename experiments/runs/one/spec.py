"""What a run is, where it lives and how it is carried out: the types every layer passes.

A study turns its cells into :class:`RunSpec` s (what to train: the same spec gives the same
configuration hash wherever and whenever it is trained), asks the store
(:class:`~experiments.runs.one.store.RunStore`) for each one's :class:`RunPlace` (its readable folder, and
the run of the same configuration hash found elsewhere, which is reused from there), and hands both to an
executor with :class:`RunOptions` (how to carry it out: nothing in them changes a number).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from experiments.runs.one.protocol import TrainConfig
from preprocessing.config import PreprocessConfig
from preprocessing.records import Dataset


@dataclass(frozen=True)
class RunSpec:
    """One run's identity: ``corpus`` (a registered name or a file path) trained with ``model`` and
    ``seed`` under ``train``; ``fold`` (0-based) trains and tests on an official cross-validation
    fold instead of the corpus' splits; ``preprocess`` None is the defaults for the corpus' language."""

    corpus: str
    model: str
    seed: int = 0
    train: TrainConfig = TrainConfig()
    fold: int | None = None
    preprocess: PreprocessConfig | None = None

    def preprocessing(self, dataset: Dataset) -> PreprocessConfig:
        return self.preprocess or PreprocessConfig(language=dataset.language)

    def training_examples(self, dataset: Dataset) -> int:
        """The most texts the run trains on: the corpus' size, capped by ``--quick``'s ``max_train`` (what a
        scheduler weighs a run's cost by)."""
        examples = len(dataset.records)
        return examples if self.train.max_train is None else min(examples, self.train.max_train)

    def describe(self) -> str:
        """How progress lines and errors name the run."""
        return f"{self.corpus}/{self.model} seed {self.seed}" + ("" if self.fold is None else f" fold {self.fold + 1}")


@dataclass(frozen=True)
class RunPlace:
    """Where a run is written (``directory``, its readable folder) and the run of its configuration hash
    found elsewhere when it was placed (``found``: another experiment's folder of the store, or a shipped
    reference run), which is reused from there.  A run is identified by its hash, never by its folder: a
    run of other settings in ``directory`` is neither reused nor overwritten."""

    directory: Path
    found: Path | None = None

    @property
    def all(self) -> tuple[Path, ...]:
        return (self.directory,) if self.found is None else (self.directory, self.found)


@dataclass(frozen=True)
class RunOptions:
    """How a run is carried out; none of it changes the run's numbers.  ``force`` retrains a
    finished run in its own folder, ``verbose`` is Keras' (0 silent, 2 one line per epoch),
    ``tensorboard`` writes TensorBoard logs into the run."""

    force: bool = False
    verbose: int = 2
    tensorboard: bool = False

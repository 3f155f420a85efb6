"""Model selection on validation data, in Keras terms.

:class:`EpochRecorder` records every epoch's validation and test probabilities, logs the validation
scores Keras' own validation pass would (:class:`ValidationLogs`), and keeps the weights of the epoch
each selection rule chooses so far, by the rules' one function
(:func:`~experiments.runs.one.trajectory.choose`).  :func:`selection_metric` is the same F1 in Keras,
logged on the training batches: Keras' F1Score with ``threshold=None`` takes the arg-max class, which for a
2-way softmax is the same as P(sarcastic) >= 0.5, so it matches scikit-learn's F1 at 0.5.
"""
from __future__ import annotations

from dataclasses import dataclass

import keras
import numpy as np

from baselines.batching import predict_by_length
from baselines.config import MAIN_OUTPUT, main_output
from experiments.runs.one.metrics import NonFinite, main_metric_for, require_finite
from experiments.runs.one.trajectory import Trajectory, choose, validation_f1


@keras.saving.register_keras_serializable(package="isarcasm")
class ClassF1(keras.metrics.F1Score):
    """F1 of one class (the sarcastic class by default)."""

    def __init__(self, class_index: int = 1, name: str = "f1", dtype=None):
        super().__init__(average=None, threshold=None, name=name, dtype=dtype)
        self.class_index = class_index

    def result(self):
        return super().result()[self.class_index]

    def get_config(self):
        return {"class_index": self.class_index, "name": self.name, "dtype": self.dtype}


def selection_metric(num_classes: int, multi_label: bool = False, select_on: str = "default") -> keras.metrics.Metric:
    """The task's main metric (:func:`~experiments.runs.one.metrics.main_metric_for`) in Keras: the sarcastic
    class' F1, or macro-F1 (over labels at 0.5 for multi-label tasks); logged as ``f1``/``val_f1``."""
    if main_metric_for(num_classes == 2 and not multi_label, select_on) == "f1_sarcastic":
        return ClassF1(class_index=1, name="f1")
    return keras.metrics.F1Score(average="macro", threshold=0.5 if multi_label else None, name="f1")


#: A loss above this means the weights diverged: Keras clips probabilities to [1e-7, 1 - 1e-7], so
#: cross-entropy is at most -ln(1e-7) = 16.1 per text and head (times its class weight); only
#: exploded weights (through a layer's weight penalty) reach 1e6.  A huge learning rate (``--lr 1e30``)
#: can leave the loss finite yet far above this while the model predicts one class: a run that learned nothing.
DIVERGED_LOSS = 1e6


class StopOnNonFinite(keras.callbacks.Callback):
    """Stops training at the end of the first epoch whose losses or weights are not finite, or whose
    loss shows diverged weights (:data:`DIVERGED_LOSS`), by raising :class:`NonFinite` (the run is
    then stored as failed).  Keras' TerminateOnNaN only stops quietly, and what it leaves would be
    scored: NaN probabilities give a plausible F1.  Listed first among the callbacks, so no other
    one sees the epoch."""

    def on_epoch_end(self, epoch, logs=None):
        for name, value in (logs or {}).items():
            if name.endswith("loss") and not np.isfinite(value):
                raise NonFinite(f"non-finite {name.replace('_', ' ')} ({value}) in epoch {epoch + 1}")
            if name.endswith("loss") and value > DIVERGED_LOSS:
                raise NonFinite(f"diverged: {name.replace('_', ' ')} {value:.3g} in epoch {epoch + 1}, above any "
                                f"cross-entropy ({DIVERGED_LOSS:.0e}); lower --lr")
        if not all(np.isfinite(w).all() for w in self.model.get_weights()):
            raise NonFinite(f"non-finite weights after epoch {epoch + 1}")


@dataclass(frozen=True)
class ValidationLogs:
    """What a run logs after each epoch in place of Keras' validation pass, computed from the
    record's one prediction of the validation split: ``monitor`` (the selection F1, as Keras' metric
    computes it: the arg-max class, 0.5 for multi-label) and ``val_loss`` (the compiled losses: each
    head's cross-entropy, summed over heads; a multi-task model's heads each as ``val_<head>_loss`` too).  ``targets`` are the validation targets as fit() gets
    them: an array, or one per head of a multi-task model."""

    monitor: str
    targets: object
    multi_label: bool = False
    select_on: str = "default"

    def of(self, outputs, gold: np.ndarray) -> dict[str, float]:
        heads = outputs if isinstance(outputs, dict) else {None: outputs}
        targets = self.targets if isinstance(self.targets, dict) else {None: self.targets}
        losses = {head: _cross_entropy(targets[head], np.asarray(values), self.multi_label and head in (None, MAIN_OUTPUT))
                  for head, values in heads.items()}
        per_head = {f"val_{head}_loss": loss for head, loss in losses.items() if head is not None}  # as Keras names them
        return {"val_loss": float(sum(losses.values())), **per_head,
                self.monitor: validation_f1(gold, main_output(outputs), 0.5, self.select_on)}


def _cross_entropy(targets: np.ndarray, probabilities: np.ndarray, binary: bool) -> float:
    """Keras' categorical (or, per label, binary) cross-entropy, probabilities clipped to [1e-7, 1 - 1e-7]."""
    p = np.clip(probabilities.astype("float64"), 1e-7, 1 - 1e-7)
    if binary:
        return float(np.mean(-(targets * np.log(p) + (1 - targets) * np.log(1 - p))))
    p = p / p.sum(axis=1, keepdims=True)
    return float(np.mean(-(targets * np.log(p)).sum(axis=1)))


class EpochRecorder(keras.callbacks.Callback):
    """Records, after every epoch, the class probabilities of the validation and test splits (the
    run's per-epoch record, :mod:`experiments.runs.one.trajectory`), and keeps the weights of the epoch
    each rule in ``keep`` chooses so far (:func:`~experiments.runs.one.trajectory.choose`, which reads the
    validation arrays only).

    The test split is predicted for the record alone: no choice here or in any rule reads it.  The splits
    are predicted on length-sorted batches cut to their longest text (the same probabilities, fewer
    steps), and the validation scores that Keras' own validation pass would log are derived from the
    record's prediction (``logs``, :class:`ValidationLogs`), so validation is predicted once per epoch.
    """

    def __init__(self, inputs: dict, gold: dict, logs: ValidationLogs, keep: tuple[str, ...] = ("best",),
                 threshold: float = 0.5, select_on: str = "default"):
        super().__init__()
        self.inputs, self.gold, self.keep = inputs, gold, keep
        self.threshold, self.select_on, self.logs = threshold, select_on, logs
        self.probabilities = {"validation": [], "test": []}
        self.weights: dict[str, list] = {}
        self.epochs: dict[str, int] = {}

    def on_epoch_end(self, epoch, logs=None):
        for split, values in self.probabilities.items():
            outputs = predict_by_length(self.model, self.inputs[split])
            values.append(require_finite(main_output(outputs), f"{split} probabilities in epoch {epoch + 1}"))
            if split == "validation" and logs is not None:
                logs.update(self.logs.of(outputs, self.gold["validation"]))
        for rule in self.keep:
            chosen = choose(rule, np.stack(self.probabilities["validation"]), self.gold["validation"],
                            self.threshold, self.select_on)
            if chosen.epoch == epoch + 1:
                self.weights[rule], self.epochs[rule] = self.model.get_weights(), epoch + 1

    def trajectory(self) -> Trajectory:
        return Trajectory(np.stack(self.probabilities["validation"]), np.stack(self.probabilities["test"]),
                          self.gold["validation"], self.gold["test"])

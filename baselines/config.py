"""Hyperparameters shared by every baseline model.

One flat dataclass instead of one per model: the paper uses the same sizes
(100 hidden units, 100 filters, 100-d GloVe) across models, and an experiment
record stores a single ``asdict(config)``.  Fields a model does not use are
ignored by it.  Defaults are the iSarcasm paper's settings (supplement) and
those of each model's original paper.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from preprocessing.errors import IsarcasmError

#: The name of the main (sarcasm) output when a model has auxiliary heads.
MAIN_OUTPUT = "label"
#: An LSTM's initial state: Keras' zeros, or the iSarcasm authors' random one (see ``ModelConfig.initial_state``).
INITIAL_STATES = ("zeros", "random")


def main_output(outputs):
    """The main head's probabilities from a model's outputs (a dict when it has auxiliary heads)."""
    return outputs[MAIN_OUTPUT] if isinstance(outputs, dict) else outputs


@dataclass(frozen=True)
class ModelConfig:
    vocab_size: int
    max_len: int
    embedding_dim: int = 100
    num_classes: int = 2
    #: Independent sigmoid outputs (one per label, several may be on) instead of a softmax.
    multi_label: bool = False
    trainable_embeddings: bool = True
    #: LSTM units, and the size of the dense/ReLU projections (all 100 in the paper).
    hidden: int = 100
    #: Convolution filters per width (Kim 2014 as configured by iSarcasm: 100).
    filters: int = 100
    #: Size of the additive attention's hidden layer (Att-LSTM; Yang et al. 2016).
    attention_size: int = 100
    #: MIARN's pair dimensions: s_ij = W_p ReLU(W_q[w_i; w_j] + b_q) + b_p with W_q of k columns.
    k: int = 10
    #: Densely connected LSTM layers of Dense-LSTM (Wu et al. 2018: four).
    dense_layers: int = 4
    #: Dropout before the classifier; ``None`` means the model's paper default
    #: (``isarcasm models list`` shows it).
    dropout: float | None = None
    #: Width of the lexicon feature vector (Dense-LSTM's second input).
    lexicon_dim: int = 0
    #: Extra softmax outputs ``{name: classes}`` beside the main one (multi-task training).
    aux_heads: dict[str, int] = field(default_factory=dict)
    #: Length of the dialogue-context input; 0: the model reads the text alone
    #: (see :func:`baselines.building.build_model`).
    context_len: int = 0
    #: Every LSTM's initial state: "zeros", or "random": uniform in ±0.01, drawn anew for every batch, in
    #: training and prediction alike (:class:`baselines.layers.RandomStateLSTM`).
    initial_state: str = "zeros"

    def __post_init__(self):
        for name in ("vocab_size", "max_len", "embedding_dim", "hidden", "filters", "attention_size", "k",
                     "dense_layers"):
            _require(isinstance(getattr(self, name), int) and getattr(self, name) >= 1,
                     f"model config: {name} must be a positive integer, got {getattr(self, name)!r}")
        _require(self.vocab_size >= 2, "model config: vocab_size must be at least 2 (padding id 0 plus one word)")
        _require(isinstance(self.num_classes, int) and self.num_classes >= 2,
                 f"model config: num_classes must be an integer >= 2, got {self.num_classes!r}")
        _require(isinstance(self.lexicon_dim, int) and self.lexicon_dim >= 0,
                 f"model config: lexicon_dim must be a non-negative integer, got {self.lexicon_dim!r}")
        _require(isinstance(self.context_len, int) and self.context_len >= 0,
                 f"model config: context_len must be a non-negative integer, got {self.context_len!r}")
        _require(self.dropout is None or (isinstance(self.dropout, (int, float)) and 0 <= self.dropout < 1),
                 f"model config: dropout must be in [0, 1), got {self.dropout!r}")
        _require(self.initial_state in INITIAL_STATES,
                 f"model config: initial_state must be one of {', '.join(INITIAL_STATES)}, got {self.initial_state!r}")
        for head, classes in self.aux_heads.items():
            _require(head != MAIN_OUTPUT and head.isidentifier(),
                     f"model config: auxiliary head name {head!r} must be an identifier other than '{MAIN_OUTPUT}'")
            _require(isinstance(classes, int) and classes >= 2,
                     f"model config: auxiliary head {head!r} needs an integer number of classes >= 2, got {classes!r}")

    def training_bytes(self, batch: int, pairwise: bool = False) -> int:
        """An upper estimate of the bytes one training step holds, before anything is built: the
        embedding matrix with its gradient and Adam's two moments, and every position's activations
        (embedding, four LSTM gates, filters, attention) kept for the backward pass, float32.  A
        ``pairwise`` model also holds a (batch, T, T, k + 1) tensor of position pairs."""
        length = self.max_len + self.context_len
        width = self.embedding_dim + 4 * self.hidden * self.dense_layers + self.filters + self.attention_size
        steps = 2 * batch * length * width
        pairs = 2 * batch * self.max_len ** 2 * (self.k + 1) if pairwise else 0
        return 4 * (4 * self.vocab_size * self.embedding_dim + steps + pairs)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> ModelConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        _require(not unknown,
                 f"model config: unknown field(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        missing = [name for name in ("vocab_size", "max_len") if name not in values]
        _require(not missing, f"model config: missing required field(s) {', '.join(missing)}")
        return cls(**values)


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise IsarcasmError(message)

"""A Transformer with its own tokenizer (keras_hub), benchmarked against the classic models.

The classic models read this suite's tokens and word vectors.  A model that
does its own preprocessing (here a WordPiece tokenizer and a small BERT-style
encoder from keras_hub; or a pretrained keras_hub preset) is benchmarked as
an entrant: this file builds it, and the suite trains it and scores it in the
same cells, with the same seeds, splits, validation, epoch selection,
threshold and test scoring as the classic models:

    pip install 'isarcasm-baselines[hub]'     # keras-hub (and tensorflow-text)
    isarcasm benchmark wordpiece-bert --keras-model examples/keras_hub_transformer.py --experiments table7

Read from top to bottom; run ``python examples/keras_hub_transformer.py`` to
see the model built and trained for two epochs on a few made-up texts.
"""
import os

import keras
import keras_hub
import tensorflow as tf

# 0. A pretrained model instead: a keras_hub preset saved in a local folder
#    (nothing is downloaded), e.g. ISARCASM_HUB_PRESET=/models/bert_tiny_en_uncased.
#    Whatever build() reads from outside this file goes into SETTINGS, which the
#    suite records in every run's config: runs of another preset are other runs.
PRESET = os.environ.get("ISARCASM_HUB_PRESET", "")
SETTINGS = {"preset": PRESET}

#    Fine-tuning pretrained weights wants a small learning rate; this replaces
#    --lr for this model (None: the run's --lr, the paper's 1e-3).
LEARNING_RATE = 5e-5 if PRESET else None

# The random-initialised model's sizes: small, since it learns from a few
# thousand tweets only.
VOCABULARY_SIZE = 8000
SEQUENCE_LENGTH = 64
RESERVED_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


# 1. The one thing the file must define: build(train_texts, seed) -> keras.Model.
#
#    The model takes a batch of strings and returns, per text, a probability
#    per class (a softmax; class 1 is sarcastic) or P(sarcastic) (one sigmoid
#    unit).  The suite calls build() once per run, with that run's training
#    texts (never the validation or test ones) and seed; the seed is already
#    set in Python, NumPy and Keras, so the random weights are the run's.  Then
#    the suite compiles the model (Adam, cross-entropy) and trains it for
#    --epochs, shuffling by the seed, keeps the epoch with the best validation
#    F1 and only then predicts the test split.
def build(train_texts, seed):
    if PRESET:
        return keras_hub.models.TextClassifier.from_preset(PRESET, num_classes=2, activation="softmax")
    # The vocabulary is learnt from the run's training texts only: WordPiece
    # keeps whole frequent words and splits the rest into pieces ("sooo" ->
    # "so", "##oo"), so no text is out of vocabulary.
    vocabulary = keras_hub.tokenizers.compute_word_piece_vocabulary(
        tf.data.Dataset.from_tensor_slices(train_texts).batch(256),  # a plain list would be read as file names
        vocabulary_size=VOCABULARY_SIZE, lowercase=True, reserved_tokens=RESERVED_TOKENS)
    # The preprocessor turns strings into token ids with [CLS] ... [SEP],
    # padded or cut to SEQUENCE_LENGTH: it is part of the model, so the model
    # reads raw text.
    preprocessor = keras_hub.models.BertTextClassifierPreprocessor(
        keras_hub.models.BertTokenizer(vocabulary=vocabulary, lowercase=True), sequence_length=SEQUENCE_LENGTH)
    # Two Transformer layers, 128 wide: a small model, most of whose weights are the token embedding
    # (up to VOCABULARY_SIZE x 128).
    backbone = keras_hub.models.BertBackbone(vocabulary_size=len(vocabulary), num_layers=2, num_heads=4,
                                             hidden_dim=128, intermediate_dim=256,
                                             max_sequence_length=SEQUENCE_LENGTH)
    # The [CLS] position's vector, dropout, then a softmax over the two classes.
    return keras_hub.models.BertTextClassifier(backbone, num_classes=2, preprocessor=preprocessor,
                                               activation="softmax")


# 2. Nothing else is needed.  The file's sha256 is recorded in every run's
#    config.json, so editing this file makes new runs instead of reusing old
#    ones; each epoch's validation score is saved in the run's entrant.json.


if __name__ == "__main__":
    import numpy as np

    texts = ["oh great, another monday", "i love waiting in traffic", "the meeting is at noon",
             "lunch was fine today", "yeah right, best exam ever", "the train is on time"] * 8
    labels = np.array([1, 1, 0, 0, 1, 0] * 8)
    keras.utils.set_random_seed(0)
    model = build(texts, seed=0)
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy")
    model.fit(np.array(texts), labels, batch_size=16, epochs=2, verbose=0)
    for text, row in zip(["oh great, traffic again", "the exam is at noon"],
                         model.predict(np.array(["oh great, traffic again", "the exam is at noon"]), verbose=0)):
        print(f"P(sarcastic) = {row[1]:.2f}  {text}")

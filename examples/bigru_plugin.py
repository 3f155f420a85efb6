"""
Title: A bidirectional GRU as an isarcasm plugin
Description: Add a new architecture without touching the package, then benchmark it
against the classic sarcasm detectors under exactly the same protocol.

## Introduction

The seven classic models of this suite (LSTM, Att-LSTM, CNN, 3CNN, SIARN,
MIARN, Dense-LSTM) are each a single function registered under a name. Your
model can be one more such function, living in a file of your own. In this
example we write a bidirectional GRU: it reads the tweet left to right and
right to left, so the representation of the last word has also seen the first
one. That is a cheap way to give a recurrent model the whole context, and a
reasonable thing to compare with the one-directional LSTM of the paper.

The file does one thing: it registers a *builder*. The suite calls the
builder while it assembles the Keras model, and takes care of everything
around it:

- the token ids go in, padded with id 0;
- the embedding layer is created for you, initialised from GloVe (or random
  vectors with `--set embeddings=random`), and it masks the padding;
- the classifier head is added after your encoder: optional dropout, then a
  softmax over the classes (for the binary corpora, column 1 is P(sarcastic));
- training, model selection on validation data, the test evaluation and the
  results store are the same as for every other model.

So the builder only has to turn a sequence of word vectors into one vector per
tweet.

## Try it

Train it once on one corpus:

    isarcasm --model-module examples/bigru_plugin.py train --corpus isarcasm --model bigru

then compare it with the classic models, cell by cell, with a significance
test against each of them:

    isarcasm --model-module examples/bigru_plugin.py benchmark bigru --experiments table7

`--model-module` is an option of the `isarcasm` command itself (it comes
before the sub-command), so every sub-command sees the model: `models summary
bigru`, `reproduce`, `cross-eval`, `evaluate` and `predict` included.
"""

## Setup
#
# Two imports: Keras for the layers, and the decorator that registers a model.
# Keep heavy work out of the module's top level: the file is imported every
# time you pass `--model-module`, even for `isarcasm models summary`.

import keras

from baselines import register_model

## The builder
#
# `register_model` takes the name you will type on the command line and a short
# description that `isarcasm models list` prints in its "paper" column. The
# optional `dropout` is the rate of the dropout layer the suite puts before the
# classifier (0 means none); we keep the GRU plain and use a little dropout
# there, as the CNN baselines do.
#
# The builder receives two arguments:
#
# - `encoded.embedded`: the embedded tweet, shaped (batch, max_len,
#   embedding_dim). It carries Keras' padding mask, and every built-in Keras
#   recurrent layer respects it: the GRU simply skips the padded positions, so
#   a short tweet padded to 57 tokens gets the same vector as the unpadded one.
#   One catch: on a GPU, Keras' fast cuDNN kernel accepts only texts padded
#   after their words and never a text that is all padding, while ours are
#   padded before them; `use_cudnn=False` keeps the generic kernel everywhere
#   (the one the CPU uses anyway).
# - `config`: the `ModelConfig` of the run. `config.hidden` is the paper's 100
#   units; reusing it keeps the comparison with the LSTM fair in width. (The
#   bidirectional layer concatenates both directions, so the tweet vector has
#   200 numbers.)
#
# Whatever the builder returns, one vector per tweet, goes to the classifier.


@register_model("bigru", paper="Bidirectional GRU, 100 units per direction (example plugin)", dropout=0.2)
def bigru(encoded, config):
    forward_and_backward = keras.layers.Bidirectional(
        keras.layers.GRU(config.hidden, use_cudnn=False),  # the final state of each direction
        merge_mode="concat",
        name="bigru",
    )
    return forward_and_backward(encoded.embedded)


## What else a plugin can do
#
# - Use more inputs: `register_model(..., inputs=("tokens", "lexicon"))` also
#   gives the builder `encoded.inputs["lexicon"]`, the 43 lexicon features that
#   Dense-LSTM uses.
# - Use your own layers: decorate the class with
#   `@keras.saving.register_keras_serializable(package="my_plugin")`, so a saved
#   run can be loaded again (by `evaluate`, `predict` and `cross-eval`) as long
#   as the same `--model-module` is given.
# - Ship it as a package: instead of `--model-module`, declare an entry point in
#   the group `isarcasm.models` pointing at the module, and every `isarcasm`
#   command finds the model once the package is installed (see README.md here).
#
# Each run records where a plugin model came from (the file name and its
# sha256) in its `config.json`. If you edit the file, the suite will not reuse
# runs made with the old version: it asks for `--force` instead of mixing them.

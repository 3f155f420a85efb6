"""Chinese and Korean segmentation: speed and vocabulary, without training.

    python benchmarks/cjk_tokenize.py [--data-dir DIR]

For ToSarcasm (zh) and KoCoSa (ko) prints, per segmentation: throughput
(tokens/s, one fresh tokenizer, all splits), training types, types seen
twice or more (the vocabulary after ``<unk>``), and the share of test tokens
that the training vocabulary lacks (they become ``<unk>``).  Segmentations:
the suite's tokenizer (``NormalisingTokenizer``, default options),
``spacy.blank("zh")``'s raw ``char`` segmenter, and, when the ``jieba``
package is importable, spaCy's ``jieba`` segmenter (not a dependency of
the suite: install it to compare).
"""
from __future__ import annotations

import time
from collections import Counter
from itertools import chain
from pathlib import Path

import click

from preprocessing.corpora import load_corpus
from preprocessing.datadir import resolve_data_dir
from preprocessing.config import PreprocessConfig
from preprocessing.tokenize import NormalisingTokenizer


def _spacy_zh(segmenter: str):
    import spacy

    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"segmenter": segmenter}}})
    return lambda texts: [[t.text for t in doc if not t.is_space] for doc in nlp.tokenizer.pipe(texts)]


def _segmenters(language: str) -> dict:
    found = {"suite": lambda texts: NormalisingTokenizer(PreprocessConfig(language=language))(texts)}
    if language == "zh":
        found["spacy char"] = _spacy_zh("char")
        try:
            import jieba  # noqa: F401

            found["spacy jieba"] = _spacy_zh("jieba")
        except ImportError:
            print("jieba not importable: skipped")
    return found


@click.command()
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
def main(data_dir: Path | None) -> None:
    data_dir = resolve_data_dir(data_dir)
    for corpus in ("tosarcasm", "kocosa"):
        dataset = load_corpus(corpus, data_dir)
        train_split = "train" if "train" in dataset.splits else "dev"  # KoCoSa ships no train split
        texts = {s: [r.text for r in dataset.split(s)] for s in dataset.splits}
        for name, segment in _segmenters(dataset.language).items():
            start = time.perf_counter()
            tokens = {s: segment(t) for s, t in texts.items()}
            took = time.perf_counter() - start
            total = sum(len(t) for split in tokens.values() for t in split)
            counts = Counter(chain.from_iterable(tokens[train_split]))
            kept = {w for w, c in counts.items() if c >= 2}
            test = list(chain.from_iterable(tokens["test"]))
            unk = sum(t not in kept for t in test) / len(test)
            print(f"{corpus:<10} {name:<12} {total / took:>10,.0f} tokens/s  {len(counts):>7,} {train_split} types  "
                  f"{len(kept):>6,} seen 2+  test tokens <unk> {100 * unk:5.1f}%")


if __name__ == "__main__":
    main()

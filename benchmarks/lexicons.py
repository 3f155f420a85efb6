"""How long the lexicon featuriser takes to load and to transform tweets.

    python benchmarks/lexicons.py [--data-dir DIR] [--repeat 10]

Prints the cold load (parsing every file, per lexicon), the warm load (same
process, served by the in-memory cache), the tweet tokenizer's throughput
(:func:`preprocessing.lexicons.tweet_tokens`, what training uses) and transform
throughput on the iSarcasm tweets (all splits, repeated ``--repeat`` times).
"""
from __future__ import annotations

import time
from pathlib import Path

import click

from preprocessing.corpora import load_corpus
from preprocessing.datadir import resolve_data_dir
from preprocessing.lexicons import LEXICONS, LexiconFeaturizer, tweet_tokens


@click.command()
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--repeat", default=10, show_default=True, help="copies of the corpus to featurise")
def main(data_dir: Path | None, repeat: int) -> None:
    data_dir = resolve_data_dir(data_dir)
    total = 0.0
    for name in LEXICONS.names():
        start = time.perf_counter()
        LexiconFeaturizer.from_data_dir(data_dir, names=[name])
        took = time.perf_counter() - start
        total += took
        print(f"cold load {name:<24} {took:7.3f} s")
    print(f"cold load {'all':<24} {total:7.3f} s")
    start = time.perf_counter()
    featurizer = LexiconFeaturizer.from_data_dir(data_dir)
    print(f"warm load {'all':<24} {time.perf_counter() - start:7.4f} s  (dim {featurizer.dim})")

    texts = [r.text for r in load_corpus("isarcasm", data_dir).records] * repeat
    start = time.perf_counter()
    tweets = tweet_tokens(texts)
    took = time.perf_counter() - start
    print(f"tweet tokens {len(texts):,} tweets: {took:.2f} s = {len(texts) / took:,.0f} tweets/s")
    n_tokens = sum(map(len, tweets))
    start = time.perf_counter()
    featurizer.transform(tweets)
    took = time.perf_counter() - start
    print(f"transform {len(tweets):,} tweets ({n_tokens:,} tokens): {took:.2f} s = {len(tweets) / took:,.0f} tweets/s")


if __name__ == "__main__":
    main()

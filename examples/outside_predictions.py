"""Write a predictions folder for ``isarcasm benchmark NAME --predictions DIR``.

A system that lives outside this suite (another framework, an API, people)
enters the benchmark through its predictions on the suite's test splits: one
tab-separated file per corpus, named after the corpus, with the columns

    id            the text's id in the corpus (exactly the test split's ids: none missing, none extra)
    p_sarcastic   the probability that the text is sarcastic, in [0, 1]
                  (or a column ``label`` with 0 or 1 instead, for a system that gives no probabilities)

``DIR/isarcasm.tsv`` serves every seed; ``DIR/isarcasm.seed-0.tsv`` (and so
on) gives one file per seed instead, for a system trained several times.  This
script writes such a folder for a stand-in system, a list of cue phrases;
replace :func:`p_sarcastic` with yours:

    python examples/outside_predictions.py preds/ --data-dir data --corpus isarcasm
    isarcasm benchmark cue-phrases --predictions preds/ --experiments table7 --corpora isarcasm

The suite checks every file before it writes anything (a wrong id, a value
outside [0, 1] or a missing file is one line naming the file and row), then
stores each as a run, like a trained model's, and tests it against the classic
models' runs on the same test texts.
"""
import argparse
import csv
from pathlib import Path

from experiments.runs.one.protocol import make_splits
from preprocessing.corpora import corpus_label, corpus_options, load_corpus

CUES = ("yeah right", "oh great", "i love", "just what i needed", "#sarcasm", "#not", "so much fun", "can't wait")


def p_sarcastic(text: str) -> float:
    """The stand-in system: fairly sure when the text has a cue phrase, unsure otherwise."""
    hits = sum(cue in text.lower() for cue in CUES)
    return min(0.95, 0.2 + 0.4 * hits)


def write_folder(folder: Path, corpora: list[str], data_dir: Path, column: str = "p_sarcastic",
                 **file_options) -> list[Path]:
    """``folder/<corpus>.tsv`` for every corpus: the id and prediction of each text of its test split."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for corpus in corpora:
        dataset = load_corpus(corpus, data_dir, **corpus_options(corpus, **file_options))
        test = make_splits(dataset, seed=0).test  # the suite's test split (the same for every seed)
        path = folder / f"{corpus_label(corpus)}.tsv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
            writer.writerow(["id", column])
            for record in test:
                p = p_sarcastic(record.text)
                writer.writerow([record.id, f"{p:.4f}" if column == "p_sarcastic" else int(p >= 0.5)])
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="Where the <corpus>.tsv files go.")
    parser.add_argument("--corpus", action="append", required=True, help="A corpus name or file (repeatable).")
    parser.add_argument("--data-dir", type=Path, default=Path("data"))
    parser.add_argument("--column", choices=("p_sarcastic", "label"), default="p_sarcastic")
    parser.add_argument("--split-col", default=None, help="Split column of a file corpus.")
    args = parser.parse_args(argv)
    for path in write_folder(args.folder, args.corpus, args.data_dir, args.column, split_col=args.split_col):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

"""A tiny separable corpus file that tests write for themselves."""
import csv
import random


def write_corpus(path, flip_test=False, seed=0):
    """Sarcastic rows say 'yeah right'; a separable task with a train and a test split."""
    rng = random.Random(seed)
    words = "movie weather monday traffic coffee exam train meeting".split()
    rows = []
    for split, n in (("train", 160), ("test", 40)):
        for i in range(n):
            label = int(i % 4 == 0)
            text = " ".join(rng.choice(words) for _ in range(5)) + (" yeah right" if label else " is fine")
            gold = 1 - label if (flip_test and split == "test") else label
            rows.append({"id": f"{split}{i}", "text": text, "label": gold, "split": split})
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["id", "text", "label", "split"])
        writer.writeheader()
        writer.writerows(rows)
    return path


def train_toy(dataset, model: str, directory, data_dir, train, options=None):
    """A test's run: ``model`` on ``dataset`` with seed 0 under ``train``, written to ``directory``
    (Keras silent unless ``options`` say otherwise)."""
    from pathlib import Path

    from experiments.runs.one.spec import RunOptions, RunPlace, RunSpec
    from experiments.runs.one.training import train_run

    return train_run(RunSpec(dataset.name, model, 0, train), dataset, RunPlace(Path(directory)), data_dir,
                     options or RunOptions(verbose=0))

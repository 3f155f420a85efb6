"""Peak memory of reading a large user file (.tsv, .csv or .jsonl) the way every command does.

Writes a file of about ``--mb`` MB of tweet-like rows to a temporary folder, then
reads it in a fresh child process through :func:`preprocessing.corpora.load_corpus`
(the path ``isarcasm preprocess --corpus FILE``, ``evaluate --corpus FILE`` and
training take: the streaming CSV/JSONL reader, label and id checks, the
validated :class:`Dataset`).  Prints one line per format: file size, rows,
seconds, the child's peak resident memory (``ru_maxrss``), the memory the
interpreter had before reading, and the peak per MB of file.

The file is read one row at a time, so what remains is the records themselves
(every text, id and label is kept: commands need them all).

Usage: ``python benchmarks/user_file_memory.py [--mb 200] [--formats tsv,csv,jsonl]``.
"""
from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS = ("oh great another monday yeah right love waiting in traffic for hours best day ever totally not "
         "sarcastic coffee meeting exam weather train delayed again so happy #not @bob http://t.co/x").split()


def write_file(path: Path, megabytes: float, seed: int = 0) -> int:
    """About ``megabytes`` MB of rows with id, text (a tweet of 8-25 words) and label; returns the row count."""
    rng = random.Random(seed)
    target, written, rows = megabytes * 1_000_000, 0, 0
    fmt = path.suffix
    with path.open("w", encoding="utf-8", newline="") as handle:
        header = {".tsv": "id\ttext\tlabel\n", ".csv": "id,text,label\n", ".jsonl": ""}[fmt]
        handle.write(header)
        written += len(header)
        while written < target:
            batch = []
            for _ in range(10_000):
                text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 25)))
                label = rows % 2
                if fmt == ".jsonl":
                    batch.append(json.dumps({"id": f"t{rows}", "text": text, "label": label}) + "\n")
                elif fmt == ".csv":
                    batch.append(f't{rows},"{text}",{label}\n')
                else:
                    batch.append(f"t{rows}\t{text}\t{label}\n")
                rows += 1
            chunk = "".join(batch)
            handle.write(chunk)
            written += len(chunk)
    return rows


def child(path: str) -> None:
    """Runs in the child process: read the file as a command does, print what it took."""
    from preprocessing.corpora import load_corpus

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started = time.perf_counter()
    dataset = load_corpus(path, Path(path).parent)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB
    print(json.dumps({"rows": len(dataset.records), "seconds": seconds, "peak_mib": peak, "before_mib": before}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=200)
    parser.add_argument("--formats", default="tsv,csv,jsonl")
    args = parser.parse_args()
    print(f"{'format':<7}{'file MB':>9}{'rows':>12}{'seconds':>9}{'peak MiB':>10}{'before':>8}{'MiB/MB':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for fmt in args.formats.split(","):
            path = Path(folder) / f"big.{fmt}"
            rows = write_file(path, args.mb)
            out = subprocess.run([sys.executable, __file__, "--child", str(path)], cwd=ROOT, check=True,
                                 capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)})
            result = json.loads(out.stdout.strip().splitlines()[-1])
            assert result["rows"] == rows, (result, rows)
            size = path.stat().st_size / 1e6
            print(f"{fmt:<7}{size:>9.0f}{rows:>12,}{result['seconds']:>9.1f}{result['peak_mib']:>10.0f}"
                  f"{result['before_mib']:>8.0f}{result['peak_mib'] / size:>8.2f}")
            path.unlink()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        sys.path.insert(0, str(ROOT))
        child(sys.argv[2])
    else:
        main()

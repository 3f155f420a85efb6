"""Options and helpers shared by the CLI modules."""
from __future__ import annotations

import json
from pathlib import Path

import click

from preprocessing.corpora import corpus_options, load_corpus
from preprocessing.records import Dataset


def file_corpus_options(func):
    """Options that make a CSV/TSV/JSONL path usable wherever a corpus name is."""
    for option in reversed([
        click.option("--text-col", default="text", show_default=True, help="Text column of a file corpus."),
        click.option("--label-col", default="label", show_default=True, help="Label column of a file corpus (0/1, true/false or sarcastic/not_sarcastic)."),
        click.option("--split-col", default=None, help="Split column of a file corpus (default: every row is 'test')."),
        click.option("--text-file", type=click.Path(dir_okay=False), default=None,
                     help="id<TAB>text file supplying tweet text for 'isarcasm-ids'."),
    ]):
        func = option(func)
    return func


def open_corpus(ctx: click.Context, name: str, text_col: str = "text", label_col: str = "label",
                split_col: str | None = None, text_file: str | None = None) -> Dataset:
    """Load a corpus by name or path with the file-corpus options applied where they matter."""
    return load_corpus(name, data_dir(ctx), **corpus_options(name, text_col, label_col, split_col, text_file))


def data_dir(ctx: click.Context) -> Path:
    return ctx.find_root().obj["data_dir"]


def echo_json(value) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def json_option(func):
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")(func)


def table(rows: list[list[str]], header: list[str]) -> str:
    """A plain aligned text table (right-aligned numbers)."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    def fmt(row):
        return "  ".join(
            str(c).rjust(w) if _numeric(c) else str(c).ljust(w) for c, w in zip(row, widths)
        ).rstrip()
    lines = [fmt(header), "  ".join("-" * w for w in widths)]
    return "\n".join(lines + [fmt(r) for r in rows])


def _numeric(value) -> bool:
    text = str(value).replace(",", "").replace("%", "").replace(".", "", 1).lstrip("-")
    return text.isdigit()


#: ``--jobs`` of the commands that train runs (reproduce, cross-eval, benchmark); see experiments/parallel.py.
jobs_option = click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
                           help="Runs trained at once, each in its own process with cores/JOBS threads (same "
                                "numbers; Keras' epoch lines are then not shown).")

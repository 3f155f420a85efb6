"""``isarcasm data``: list, inspect, fetch and verify corpora and resources."""
from __future__ import annotations

import logging
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import click

from experiments.cli.options import (
    data_dir,
    echo_json,
    file_corpus_options,
    json_option,
    open_corpus,
)
from experiments.reports.format import table
from preprocessing.corpora import load_corpus, packages, reader_options, require_data_dir
from preprocessing.errors import IsarcasmError
from preprocessing.fetch import FileStatus, fetch, verify
from preprocessing.records import Dataset
from preprocessing.registry import Registry
from preprocessing.specs import CorpusSpec, DataPackage
from preprocessing.stats import LENGTH_KEY, PERCENTILES, corpus_stats


@click.group("data")
def data() -> None:
    """List, inspect, fetch and verify corpora (data directory: --data-dir > $ISARCASM_DATA > ./data)."""


@contextmanager
def _reader_warnings_hidden():
    """Readers log their warnings; commands that print them (or only count records) hide the log copy."""
    logger = logging.getLogger("isarcasm")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


# --- list ------------------------------------------------------------------------------------------

@data.command("list")
@json_option
@click.pass_context
def list_corpora(ctx: click.Context, as_json: bool) -> None:
    """Every corpus: language, whether it is available here, split sizes and % sarcastic."""
    directory = data_dir(ctx)
    require_data_dir(directory)
    summaries = [_summary(spec, directory) for spec in packages() if isinstance(spec, CorpusSpec)]
    if as_json:
        echo_json(summaries)
        return
    columns = ["train", "dev", "test"]
    rows = []
    for s in summaries:
        sizes = [f"{s['splits'][c]['records']:,}" if c in s["splits"] else "" for c in columns]
        if not s["available"]:
            balance = ""
        elif s["multi_label"]:
            balance = f"{s['classes']} labels, multi-label"
        elif s["classes"] > 2:
            balance = f"{s['classes']} classes"
        else:
            balance = " / ".join(f"{v['sarcastic_pct']:.1f}" for v in s["splits"].values())
        available = "no" if not s["available"] else "ids only" if not s["with_text"] else "yes"
        rows.append([s["name"], s["language"], available, *sizes, balance])
    click.echo(table(rows, ["corpus", "lang", "available", *columns, "% sarcastic (per split)"]))
    for s in summaries:
        if not s["available"]:
            click.echo(f"{s['name']}: {s['reason']}")
        elif "text" in s:
            click.echo(f"{s['name']}: {s['text']}")


def _summary(spec: CorpusSpec, directory: Path) -> dict:
    summary = {"name": spec.name, "language": spec.language, "classes": len(spec.label_names),
               "multi_label": spec.multi_label}
    try:
        with _reader_warnings_hidden():
            dataset = load_corpus(spec.name, directory)
    except IsarcasmError as exc:
        return {**summary, "available": False, "reason": str(exc), "splits": {}}
    splits = {}
    for split in dataset.splits:
        counts = dataset.label_counts(split)
        total = len(dataset.split(split))
        splits[split] = {"records": total, "labels": {n: counts.get(i, 0) for i, n in enumerate(spec.label_names)}}
        if spec.is_binary:
            splits[split]["sarcastic_pct"] = round(100 * counts.get(1, 0) / total, 1)
    with_text = sum(r.text is not None for r in dataset.records)
    return {
        **summary, "available": True, "records": len(dataset.records), "with_text": with_text,
        **_missing_text(spec, len(dataset.records), with_text), "splits": splits,
        "folds": len(dataset.folds), "warnings": dataset.warnings,
    }


def _missing_text(spec: CorpusSpec, records: int, with_text: int) -> dict:
    """``text``: what a corpus whose records lack text holds, and how to supply it (isarcasm-ids ships
    tweet ids and labels, its text comes from the user's --text-file); none where every record has text."""
    if with_text == records:
        return {}
    if with_text:
        return {"text": f"only {with_text:,} of {records:,} records have text"}
    supply = ("; the commands that read it take the text from --text-file FILE (id<TAB>text lines)"
              if "text_file" in reader_options(spec) else "")
    return {"text": f"ids and labels of {records:,} records, no text: nothing to train or evaluate on{supply}"}


# --- stats -----------------------------------------------------------------------------------------

@data.command()
@click.argument("name")
@file_corpus_options
@json_option
@click.pass_context
def stats(ctx: click.Context, name: str, text_col: str, label_col: str, split_col: str | None,
          text_file: str | None, as_json: bool) -> None:
    """Per-split counts, labels, types, text lengths, duplicates and overlap of NAME (a corpus or a file)."""
    with _reader_warnings_hidden():
        dataset = open_corpus(ctx, name, text_col, label_col, split_col, text_file)
    result = corpus_stats(dataset)
    if as_json:
        echo_json(result)
    else:
        click.echo(_stats_text(dataset, result))


def _stats_text(dataset: Dataset, result: dict) -> str:
    splits = result["splits"]
    binary = dataset.is_binary
    label_rows = [
        [split, f"{s['records']:,}", *(f"{n:,}" for n in s["labels"].values()),
         *([f"{s['sarcastic_pct']:.1f}%"] if binary else [])]
        for split, s in splits.items()
    ]
    parts = [
        f"{result['name']} ({result['language']}): {result['records']:,} records",
        table(label_rows, ["split", "records", *dataset.label_names, *(["% sarcastic"] if binary else [])]),
    ]
    types = sorted({t for s in splits.values() for t in s["types"]})
    if types:
        parts.append("sarcasm types\n" + table(
            [[t, *(f"{s['types'].get(t, 0):,}" for s in splits.values())] for t in types], ["type", *splits]))
    length_rows = [
        [split, f"{s['with_text']:,}", f"{s['duplicate_texts']:,}",
         *((f"{v:g}" for v in s[LENGTH_KEY].values()) if s[LENGTH_KEY] else [""] * (len(PERCENTILES) + 1))]
        for split, s in splits.items()
    ]
    parts.append("text length in whitespace tokens\n" + table(
        length_rows, ["split", "with text", "duplicate texts", *(f"p{p}" for p in PERCENTILES), "max"]))
    if result["text_overlap"]:
        parts.append("texts shared between splits: " + ", ".join(
            f"{pair} {n:,}" for pair, n in result["text_overlap"].items()))
    if result["folds"]:
        parts.append("folds\n" + table(
            [[f["fold"], f["train"], f["test"], *f["test_labels"].values()] for f in result["folds"]],
            ["fold", "train", "test", *(f"test {n}" for n in dataset.label_names)]))
    if result["warnings"]:
        parts.append("warnings\n" + "\n".join(f"  - {w}" for w in result["warnings"]))
    return "\n\n".join(parts)


# --- fetch and verify ---------------------------------------------------------------------------------

def _packages(name: str) -> list[DataPackage]:
    """The packages NAME stands for: one corpus or resource, or ``all`` (every package but the optional ones)."""
    known: Registry[list[DataPackage]] = Registry("corpus or resource")
    for package in packages():
        known.add(package.name, [package])
    known.add("all", [package for package in packages() if not package.optional])
    return known.get(name)


@data.command("fetch")
@click.argument("name")
@click.option("--mirror", type=click.Path(file_okay=False),
              help="Local folder laid out like ../shared/data to link or copy from instead of downloading.")
@click.option("--from", "given", type=click.Path(dir_okay=False),
              help="An upstream archive already downloaded (e.g. glove.6B.zip, or gensim-data's "
                   "glove-wiki-gigaword-100.gz) to make NAME from instead of downloading it.")
@click.pass_context
def fetch_command(ctx: click.Context, name: str, mirror: str | None, given: str | None) -> None:
    """Get NAME (a corpus, a resource, or 'all') into the data directory and verify its checksums.

    Without --mirror every file comes from its pinned public upstream ($ISARCASM_UPSTREAM moves every
    upstream host under one base URL). A package that fails does not stop the others: the command ends
    with one line per package and exits non-zero when any failed.
    """
    directory = data_dir(ctx)
    chosen = _packages(name)
    if given and (mirror or len(chosen) > 1):
        raise IsarcasmError("--from FILE makes one package from its upstream archive: name that package "
                            "(e.g. glove), without --mirror")
    done: dict[str, str] = {}

    def show(result: FileStatus) -> None:
        done.setdefault(result.path, result.status)
        click.echo(f"  {result.status:<10} {result.path}")

    outcomes, failures = [], []
    for package in chosen:
        click.echo(f"{package.name}:")
        try:
            results = fetch(package, directory, Path(mirror) if mirror else None,
                            Path(given) if given else None, progress=show)
        except IsarcasmError as exc:
            failures.append(str(exc))
            outcomes.append([package.name, f"failed: {exc}"])
            continue
        fetched = any(result.status != "present" for result in results)
        outcomes.append([package.name, "fetched" if fetched else "present"])
    if len(chosen) > 1:
        click.echo(table(outcomes, ["package", "outcome"]))
    if failures:
        more = f" (and {len(failures) - 1} more failed package(s) above)" if len(failures) > 1 else ""
        raise IsarcasmError(f"{failures[0]}{more}")
    counts = Counter(done.values())
    click.echo(f"fetched {len(chosen)} package(s) into {directory}: "
               + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) + "; checksums ok")


@data.command("verify")
@click.argument("name", default="all")
@click.pass_context
def verify_command(ctx: click.Context, name: str) -> None:
    """Check the sha256 of every file of NAME (default: all corpora and resources)."""
    directory = data_dir(ctx)
    require_data_dir(directory)
    rows, problems = [], []
    for package in _packages(name):
        for result in verify(package, directory):
            rows.append([package.name, result.path, result.status, result.detail])
            if result.status != "ok":
                problems.append((package.name, result))
    click.echo(table(rows, ["package", "file", "status", "detail"]))
    if problems:
        package_name, first = problems[0]
        more = f" (and {len(problems) - 1} more problem(s) above)" if len(problems) > 1 else ""
        raise IsarcasmError(f"{directory / first.path}: {first.detail or 'file is missing'}{more}; "
                            f"re-fetch with `isarcasm data fetch {package_name}` (add --mirror DIR for a local copy)")
    click.echo(f"all {len(rows)} file(s) ok")

"""The ``isarcasm`` command line.

Each command family lives in its own ``cli_*`` module and is attached here.
User errors (:class:`IsarcasmError`) become one line on stderr and exit code 1.
"""
from __future__ import annotations

import logging
import os

import click

from preprocessing.datadir import resolve_data_dir
from preprocessing.errors import IsarcasmError

# Hide TensorFlow's C++ log lines (a few start-up lines are printed before this takes effect).
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


class _Group(click.Group):
    """A click group that reports user errors in one line, without a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except IsarcasmError as exc:
            raise click.ClickException(str(exc)) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--data-dir", type=click.Path(file_okay=False), envvar=None,
              help="Data directory (default: $ISARCASM_DATA, else ./data).")
@click.option("-q", "--quiet", is_flag=True, help="Hide warnings.")
@click.option("--model-module", "model_modules", multiple=True, metavar="FILE.py",
              help="A Python file registering a model with baselines.register_model (repeatable).")
@click.version_option(package_name="isarcasm-baselines")
@click.pass_context
def main(ctx: click.Context, data_dir: str | None, quiet: bool, model_modules: tuple[str, ...]) -> None:
    """Classic neural sarcasm detectors and the iSarcasm (ACL 2020) baseline tables."""
    logging.basicConfig(level=logging.ERROR if quiet else logging.WARNING, format="warning: %(message)s")
    ctx.obj = {"data_dir": resolve_data_dir(data_dir)}
    if model_modules:  # imported only when asked: importing the models loads TensorFlow
        from baselines.plugins import load_plugins

        load_plugins(model_modules)


def _attach() -> None:
    from experiments.cli.benchmark import benchmark, cross_eval
    from experiments.cli.data import data
    from experiments.cli.embeddings import embeddings
    from experiments.cli.models import models
    from experiments.cli.preprocess import preprocess
    from experiments.cli.reproduce import report, reproduce
    from experiments.cli.train import evaluate, predict, train

    main.add_command(data)
    main.add_command(preprocess)
    main.add_command(embeddings)
    main.add_command(models)
    for command in (train, evaluate, predict, reproduce, report, cross_eval, benchmark):
        main.add_command(command)


_attach()

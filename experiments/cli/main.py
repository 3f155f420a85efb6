"""The ``isarcasm`` group: global options, and every command attached.

Each command family lives in its own module of this package.  User errors
(:class:`IsarcasmError`) become one line on stderr and exit code 1.
"""
from __future__ import annotations

import logging
import os

import click

# Hide TensorFlow's C++ log lines (a few start-up lines are printed before this takes effect).
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from experiments.cli.benchmark import benchmark, cross_eval  # noqa: E402
from experiments.cli.data import data  # noqa: E402
from experiments.cli.embeddings import embeddings  # noqa: E402
from experiments.cli.models import models  # noqa: E402
from experiments.cli.preprocess import preprocess  # noqa: E402
from experiments.cli.reproduce import report, reproduce  # noqa: E402
from experiments.cli.train import evaluate, predict, train  # noqa: E402
from preprocessing.datadir import resolve_data_dir  # noqa: E402
from preprocessing.errors import IsarcasmError  # noqa: E402


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


for command in (data, preprocess, embeddings, models, train, evaluate, predict, reproduce, report, cross_eval,
                benchmark):
    main.add_command(command)

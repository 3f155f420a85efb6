"""One registry of result kinds: each result names its kind (:attr:`~experiments.results.schema.Result.kind`),
and the kind supplies its report.

``reproduce`` writes table results, ``cross-eval`` the cross-dataset matrix, ``benchmark`` a benchmark,
``leaderboard`` the board of every benchmark.  Every place that shows or saves a results file (``report``,
``--html``, the studies) asks the registry, so a new kind of study is one :class:`ResultKind` here, not another
``if result.kind == ...``.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from experiments.reports import figures
from experiments.reports.benchmark import benchmark_markdown
from experiments.reports.cross import cross_csv, cross_markdown
from experiments.reports.elements import elements_markdown
from experiments.reports.fidelity import fidelity_markdown
from experiments.reports.leaderboard import leaderboard_html, leaderboard_markdown
from experiments.reports.table import markdown_report, results_csv
from experiments.results.files import write_result_files
from experiments.results.schema import Result
from preprocessing.registry import Registry

#: [(section heading, [(figure title, its PNG or None when its data is missing)])]
Figures = list[tuple[str, list[tuple[str, Path | None]]]]


def _no_figures(result: Result, folder: Path) -> Figures:
    return []


@dataclass(frozen=True)
class ResultKind:
    markdown: Callable[[Result], str]
    #: The csv beside the json and markdown (None: the kind writes none).
    csv: Callable[[Result], str] | None = None
    #: Draws the kind's figures into a folder (for ``report --html``).
    figures: Callable[[Result, Path], Figures] = _no_figures
    #: Draw the figures whenever the results are saved, not only for ``--html``.
    figures_on_save: bool = False
    #: Writes the kind's own page into a folder (its figures beside it) in place of the report then its figures.
    html: Callable[[Result, Path], Path] | None = None


KINDS: Registry[ResultKind] = Registry("result kind")
KINDS.add("table", ResultKind(markdown_report, results_csv, figures.table_figures))
KINDS.add("cross", ResultKind(cross_markdown, cross_csv, figures.cross_figures, figures_on_save=True))
KINDS.add("benchmark", ResultKind(benchmark_markdown))
KINDS.add("fidelity", ResultKind(fidelity_markdown))
KINDS.add("elements", ResultKind(elements_markdown))
KINDS.add("leaderboard", ResultKind(leaderboard_markdown, html=leaderboard_html))


def kind_of(result: Result) -> ResultKind:
    return KINDS.get(result.kind)


def save_result(result: Result, results_root: Path) -> list[Path]:
    """``<results_root>/<experiment>.{json,csv,md}`` (and figures, for kinds that draw them on save), committed
    as one set (a kill leaves the previous set or this one: :mod:`experiments.results.commit`)."""
    kind = kind_of(result)

    def figures(folder: Path) -> list[Path]:  # drawn into the set's staging folder, committed with the files
        return [path for _, drawn in kind.figures(result, folder) for _, path in drawn if path]

    return write_result_files(result, results_root, kind.csv(result) if kind.csv else None, kind.markdown(result),
                              figures if kind.figures_on_save else None)


def write_html(result: Result, folder: Path) -> Path:
    """``folder/index.html``: the report, then the kind's figures (drawn into ``folder``)."""
    kind = kind_of(result)
    if kind.html:
        return kind.html(result, folder)
    return figures.write_html_report(result, kind.markdown(result), kind.figures(result, folder), folder)

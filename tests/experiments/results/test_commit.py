"""A results set (json, csv, md, figures) is committed as a whole: after a kill at any point a reader reads the
previous set or the new one without writing, and the next writer leaves that set complete and no stray file.

Each kill is real: a forked child writes the set and SIGKILLs itself at one point of the commit (while
staging, at the commit point, or between any two of its renames), so no ``finally`` runs.
"""
from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from experiments.results import commit
from experiments.results.files import load_results, write_result_files
from experiments.results.schema import Result

NAME = "t"
#: keep json, csv, md; put json, csv, md, figure
STEPS = 7


def draw(marker: str):
    def figures(folder: Path) -> list[Path]:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "heatmap.png").write_text(marker)
        return [folder / "heatmap.png"]
    return figures


def result(marker: str) -> Result:
    return Result("table", NAME, [], {"title": NAME, "source": "test", "seeds": [0], "marker": marker})


def save(root: Path, marker: str) -> list[Path]:
    return write_result_files(result(marker), root, f"marker\n{marker}\n", f"# {marker}\n", draw(marker))


def current_set(root: Path) -> str:
    """The one marker every file of the current set holds (fails on a mix or a missing file)."""
    markers = {json.loads((root / f"{NAME}.json").read_text())["marker"],
               (root / f"{NAME}.csv").read_text().split()[1], (root / f"{NAME}.md").read_text()[2:].strip(),
               (root / NAME / "heatmap.png").read_text()}
    assert len(markers) == 1, markers
    return markers.pop()


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def strays(root: Path) -> list[str]:
    return [p.name for p in root.rglob(".*") if p.suffix != ".lock"]


def killed_at(root: Path, point: int) -> None:
    """Save the "new" set in a child that SIGKILLs itself at ``point``: -2 while drawing the figures,
    -1 just before the journal's rename (the commit point), k >= 0 after k steps."""
    pid = os.fork()
    if pid == 0:  # the child: never returns
        die = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)  # noqa: E731
        if point == -1:
            commit._sync = die
        done = [0]
        for kind, step in list(commit._STEPS.items()):
            def counted(*args, _step=step):
                if done[0] == point:
                    die()
                _step(*args)
                done[0] += 1
            commit._STEPS[kind] = counted
        try:
            write_result_files(result("new"), root, "marker\nnew\n", "# new\n", die if point == -2 else draw("new"))
        finally:
            os._exit(3)  # not killed: the point was never reached
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, f"point {point} was never reached"


@pytest.mark.parametrize("point", range(-2, STEPS))
def test_a_kill_at_any_point_leaves_the_previous_set_or_the_new_one(tmp_path, point):
    save(tmp_path, "old")
    killed_at(tmp_path, point)
    decided = "old" if point < 0 else "new"
    left = snapshot(tmp_path)
    assert load_results(tmp_path / f"{NAME}.json").fields["marker"] == decided
    assert snapshot(tmp_path) == left  # the reader wrote nothing
    with commit.staging(tmp_path, NAME):  # the next writer completes (or undoes) what the kill left
        assert current_set(tmp_path) == decided
    assert strays(tmp_path) == []
    kept = sorted((tmp_path / "previous").glob("*")) if (tmp_path / "previous").exists() else []
    if point >= 0:  # the previous set is kept whole
        assert sorted(p.suffix for p in kept) == [".csv", ".json", ".md"], kept
    save(tmp_path, "rerun")
    assert current_set(tmp_path) == "rerun" and strays(tmp_path) == []


def test_the_next_writer_recovers_too(tmp_path):
    save(tmp_path, "old")
    killed_at(tmp_path, 3)  # the previous files kept, no new file in place yet
    save(tmp_path, "again")
    assert current_set(tmp_path) == "again" and strays(tmp_path) == []
    kept = [json.loads(p.read_text())["marker"] for p in (tmp_path / "previous").glob("*.json")]
    assert sorted(kept) == ["new", "old"]  # the killed invocation's set was completed, then kept in its turn


def test_an_error_while_staging_leaves_the_previous_set_and_nothing_else(tmp_path):
    save(tmp_path, "old")

    def broken(folder: Path) -> list[Path]:
        raise RuntimeError("a figure failed")

    with pytest.raises(RuntimeError):
        write_result_files(Result("table", NAME, [], {"marker": "new"}), tmp_path, "marker\nnew\n", "# new\n", broken)
    assert current_set(tmp_path) == "old" and strays(tmp_path) == []


def test_a_set_without_a_csv_drops_the_previous_csv(tmp_path):
    save(tmp_path, "old")
    paths = write_result_files(Result("table", NAME, [], {"marker": "new"}), tmp_path, None, "# new\n")
    assert [p.name for p in paths] == [f"{NAME}.json", f"{NAME}.md"]
    assert not (tmp_path / f"{NAME}.csv").exists()
    assert len(list((tmp_path / "previous").glob("*.csv"))) == 1

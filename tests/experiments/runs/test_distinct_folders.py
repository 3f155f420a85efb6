"""Runs of two corpora never share a run folder (issue 32: the store names a file's runs by its stem)."""
import pytest

from experiments.runs.one.protocol import TrainConfig
from experiments.runs.many.scheduler import RunTask, require_distinct_folders, run_tasks
from experiments.runs.one.spec import RunPlace, RunSpec
from experiments.runs.one.store import run_dir
from preprocessing.errors import IsarcasmError


def task(root, corpus, seed=0):
    spec = RunSpec(corpus, "cnn", seed, TrainConfig())
    return RunTask(spec, RunPlace(run_dir(root, "cross", corpus, "cnn", seed)), root)


def test_two_files_of_one_stem_are_refused_before_anything_is_trained(tmp_path):
    class Never:
        def run(self, tasks, datasets, finished):
            raise AssertionError("nothing may be trained")

    tasks = [task(tmp_path, "/data/a/sub.csv"), task(tmp_path, "/data/b/sub.csv")]
    with pytest.raises(IsarcasmError, match="/data/a/sub.csv and /data/b/sub.csv would train into the same run folder"):
        run_tasks(tasks, {}, Never(), "cross")


def test_a_file_named_like_a_corpus_is_refused_beside_it(tmp_path):
    with pytest.raises(IsarcasmError, match="riloff and /home/me/riloff.csv"):
        require_distinct_folders([task(tmp_path, "riloff"), task(tmp_path, "/home/me/riloff.csv")])


def test_seeds_and_one_corpus_twice_are_not_a_clash(tmp_path):
    require_distinct_folders([task(tmp_path, "/data/a/sub.csv", 0), task(tmp_path, "/data/a/sub.csv", 1),
                              task(tmp_path, "riloff")])

"""What ``--executor ray`` costs against ``--executor local`` on the same quick experiment.

Each repetition runs ``isarcasm reproduce EXPERIMENT --quick --force ...`` twice in a fresh
process, once with ``--executor local --jobs N`` and once with ``--executor ray`` (Ray started in
that process with the machine's cores, ``--cpus-per-run`` = cores/N), in alternating order, and
times the whole command (wall clock: start-up, loading, training, writing).  ``--force`` retrains
every run each time.  Prints every time and the ratio ray/local per repetition, then the median.

Then, with ``--two-nodes``, one more sweep on a two-node Ray cluster on this machine
(``ray.cluster_utils.Cluster``, one CPU a node) prints which node trained each run, from the
runs' config.json machine records.

Usage: ``python benchmarks/ray_overhead.py [--experiment table7] [--models lstm,cnn] [--corpora isarcasm]
[--seeds 2] [--jobs 2] [--repetitions 3] [--two-nodes]``; needs the data (``--data-dir``) and Ray.
Timings depend on the machine and its load: the header prints both.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from experiments.cli import main; main()"


def sweep(args, out: Path, *executor: str, env: dict | None = None) -> float:
    command = [sys.executable, "-c", CLI, *(["--data-dir", args.data_dir] if args.data_dir else []), "-q",
               "reproduce", args.experiment, "--quick", "--force", "--seeds", str(args.seeds), "--models", args.models,
               "--corpora", args.corpora, "--output-dir", str(out / "runs"), "--results-dir", str(out / "results"),
               *executor]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env={**os.environ, **(env or {})})
    seconds = time.perf_counter() - started
    if done.returncode:
        sys.exit(f"failed: {' '.join(command[3:])}\n{done.stderr[-3000:]}")
    return seconds


def nodes_of(runs: Path) -> list[tuple[str, str, str]]:
    rows = []
    for config in sorted(runs.rglob("config.json")):
        record = json.loads(config.read_text())
        node = record["machine"].get("node", {})
        rows.append((str(config.parent.relative_to(runs)), node.get("ray_node_id", "-")[:12], str(node.get("pid"))))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--experiment", default="table7")
    parser.add_argument("--models", default="lstm,cnn")
    parser.add_argument("--corpora", default="isarcasm")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--two-nodes", action="store_true")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"# {platform.processor() or platform.machine()}, {cores} cores, load {os.getloadavg()[0]:.2f}; "
          f"reproduce {args.experiment} --quick --models {args.models} --corpora {args.corpora} --seeds {args.seeds}")
    local = ["--executor", "local", "--jobs", str(args.jobs)]
    remote = ["--executor", "ray", "--cpus-per-run", str(max(1, cores // args.jobs))]
    ratios = []
    with tempfile.TemporaryDirectory(prefix="ray-overhead-") as tmp:
        for repetition in range(args.repetitions):
            order = [("local", local), ("ray", remote)]
            if repetition % 2:
                order.reverse()
            times = {name: sweep(args, Path(tmp) / name, *options) for name, options in order}
            ratios.append(times["ray"] / times["local"])
            print(f"repetition {repetition + 1}: local --jobs {args.jobs} {times['local']:.1f} s, "
                  f"ray {times['ray']:.1f} s, ratio ray/local {ratios[-1]:.2f}", flush=True)
        print(f"median ratio ray/local over {len(ratios)}: {statistics.median(ratios):.2f} "
              f"(min {min(ratios):.2f}, max {max(ratios):.2f})")
        if args.two_nodes:
            from ray.cluster_utils import Cluster  # optional extra: only for --two-nodes

            cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
            try:
                cluster.add_node(num_cpus=1)
                cluster.wait_for_nodes()
                ids = [node.node_id[:12] for node in cluster.list_all_nodes()]
                print(f"two-node cluster at {cluster.address}: nodes {', '.join(ids)}")
                seconds = sweep(args, Path(tmp) / "two-nodes", "--executor", "ray", "--address", cluster.address)
                rows = nodes_of(Path(tmp) / "two-nodes" / "runs")
                for run, node, pid in rows:
                    print(f"  {run}: node {node} (worker pid {pid})")
                print(f"  {seconds:.1f} s; runs on {len({row[1] for row in rows})} node(s)")
            finally:
                cluster.shutdown()


if __name__ == "__main__":
    main()

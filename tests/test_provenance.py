"""What results files record about where their numbers came from."""
import json

from experiments.runs import provenance

CPUINFO = """processor\t: 0
model name\t: Example CPU 9000
flags\t\t: fpu sse sse2 avx avx2 fma avx512f avx512_vnni amx_tile rdrand

processor\t: 1
model name\t: Example CPU 9000
flags\t\t: fpu sse sse2 avx avx2 fma avx512f avx512_vnni amx_tile rdrand
"""


def test_machine_names_the_cpu_and_its_vector_instructions(tmp_path):
    (tmp_path / "cpuinfo").write_text(CPUINFO)
    info = provenance.machine(tmp_path / "cpuinfo")
    assert info["cpu"] == "Example CPU 9000"
    assert info["vector_isa"] == ["amx_tile", "avx", "avx2", "avx512_vnni", "avx512f", "fma"]
    assert info["cores"] >= 1


def test_machine_without_cpuinfo_still_says_what_python_knows(tmp_path):
    info = provenance.machine(tmp_path / "absent")
    assert "vector_isa" not in info and info["cpu"] and info["platform"]


def run(path, commit=None, cpu=None):
    path.mkdir(parents=True)
    config = {"seed": 0}
    if commit:
        config["git_commit"] = commit
    if cpu:
        config["machine"] = {"cpu": cpu}
    (path / "config.json").write_text(json.dumps(config))
    return path


def test_run_origins_count_each_run_once_by_commit_and_cpu(tmp_path):
    a = run(tmp_path / "a", "c1", "Example CPU 9000")
    b = run(tmp_path / "b", "c1", "Example CPU 9000")
    c = run(tmp_path / "c", "c2", "Other CPU")
    old = run(tmp_path / "old", "c0")  # trained before the machine was recorded
    origins = provenance.run_origins([a, b, a, str(c), old, tmp_path / "gone"])  # a is listed twice
    assert origins == [{"git_commit": "c0", "cpu": "not recorded", "runs": 1},
                       {"git_commit": "c1", "cpu": "Example CPU 9000", "runs": 2},
                       {"git_commit": "c2", "cpu": "Other CPU", "runs": 1},
                       {"git_commit": "unknown", "cpu": "not recorded", "runs": 1}]

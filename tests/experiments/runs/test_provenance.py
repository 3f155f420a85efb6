"""What results files record about where their numbers came from."""
import hashlib
import json
import os
import time

import pytest
from toy_corpus import write_corpus

from experiments.runs.one import provenance
from preprocessing import checksums as checksum_cache

CPUINFO = """processor\t: 0
cpu family\t: 25
model\t\t: 17
model name\t: Example CPU 9000
stepping\t: 1
flags\t\t: fpu sse sse2 avx avx2 fma avx512f avx512_vnni amx_tile rdrand

processor\t: 1
cpu family\t: 25
model\t\t: 17
model name\t: Example CPU 9000
stepping\t: 1
flags\t\t: fpu sse sse2 avx avx2 fma avx512f avx512_vnni amx_tile rdrand
"""


def test_machine_names_the_cpu_and_its_vector_instructions(tmp_path):
    (tmp_path / "cpuinfo").write_text(CPUINFO)
    info = provenance.machine(tmp_path / "cpuinfo")
    assert info["cpu"] == "Example CPU 9000"
    assert info["cpu_id"] == "cpu family 25 model 17 stepping 1"
    assert info["vector_isa"] == ["amx_tile", "avx", "avx2", "avx512_vnni", "avx512f", "fma"]
    assert info["cores"] >= 1


def test_machine_without_cpuinfo_still_says_what_python_knows(tmp_path):
    info = provenance.machine(tmp_path / "absent")
    assert "vector_isa" not in info and info["cpu"] and info["platform"]


def run(path, commit=None, cpu=None, **machine):
    path.mkdir(parents=True)
    config = {"seed": 0}
    if commit:
        config["git_commit"] = commit
    if cpu:
        config["machine"] = {"cpu": cpu, **machine}
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


def test_run_origins_tell_apart_processors_sharing_a_name(tmp_path):
    """A virtual machine showed "AMD EPYC" for three processor generations whose digits differ."""
    zen5 = {"cpu_id": "cpu family 26 model 2 stepping 1", "vector_isa": ["avx512_vp2intersect", "avx512f"]}
    zen4 = {"cpu_id": "cpu family 25 model 17 stepping 1", "vector_isa": ["avx512f"]}
    runs = [run(tmp_path / "a", "c1", "AMD EPYC", **zen5), run(tmp_path / "b", "c1", "AMD EPYC", **zen4),
            run(tmp_path / "c", "c1", "AMD EPYC", **zen4),
            run(tmp_path / "old", "c1", "AMD EPYC", vector_isa=["avx", "avx2"])]  # before the family was recorded
    assert provenance.run_origins(runs) == [
        {"git_commit": "c1", "cpu": "AMD EPYC", "vector_isa": ["avx", "avx2"], "runs": 1},
        {"git_commit": "c1", "cpu": "AMD EPYC", **zen4, "runs": 2},
        {"git_commit": "c1", "cpu": "AMD EPYC", **zen5, "runs": 1}]


def test_cpu_difference_names_what_differs_and_nothing_when_alike():
    zen5 = {"cpu": "AMD EPYC", "vector_isa": ["avx512_vp2intersect", "avx512f", "avx_vnni"]}
    zen4 = {"cpu": "AMD EPYC", "cpu_id": "cpu family 25 model 17 stepping 1", "vector_isa": ["avx512f"]}
    assert provenance.cpu_difference(zen4, dict(zen4)) == ""
    assert provenance.cpu_difference(zen5, zen4) == "avx512_vp2intersect, avx_vnni only there"
    assert provenance.cpu_difference({**zen4, "cpu_id": "cpu family 26 model 2 stepping 0"}, zen4) == (
        "cpu family 26 model 2 stepping 0 there, cpu family 25 model 17 stepping 1 here")
    assert provenance.cpu_difference({"cpu": "Intel Xeon", "vector_isa": ["avx2"]}, zen4) == (
        "Intel Xeon there, AMD EPYC here; avx2 only there; avx512f only here")
    assert provenance.cpu_difference({}, zen4) == "not recorded there"


def flip_labels(path):
    """Every label of a toy corpus file flipped in place, with its size and mtime kept."""
    stat = path.stat()
    header, *rows = path.read_bytes().split(b"\r\n")
    flipped = []
    for row in rows:
        fields = row.split(b",")
        if len(fields) == 4:
            fields[2] = b"1" if fields[2] == b"0" else b"0"
        flipped.append(b",".join(fields))
    with open(path, "r+b") as handle:  # the same file (inode), rewritten
        handle.write(b"\r\n".join([header, *flipped]))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)


def test_a_data_file_with_flipped_labels_but_the_same_size_and_mtime_gets_another_checksum(tmp_path, monkeypatch):
    monkeypatch.setenv("ISARCASM_CACHE", str(tmp_path / "cache"))
    data = write_corpus(tmp_path / "toy.csv")
    before = checksum_cache.file_checksums([data])
    assert checksum_cache.file_checksums([data]) == before
    flip_labels(data)
    assert checksum_cache.file_checksums([data])["toy.csv"] != before["toy.csv"]


def test_the_cache_of_large_files_is_keyed_on_what_an_edit_cannot_keep(tmp_path, monkeypatch):
    """Above ALWAYS_HASHED a checksum comes from the cache; ctime (set by the kernel on every write and every
    change of mtime) is in its key, so flipped labels with the old size and mtime are hashed again."""
    monkeypatch.setenv("ISARCASM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(checksum_cache, "ALWAYS_HASHED", 0)
    monkeypatch.setattr(checksum_cache, "RACY_NS", 0)
    data = write_corpus(tmp_path / "toy.csv")
    before = checksum_cache.file_checksums([data])
    cache = json.loads((tmp_path / "cache/checksums.json").read_text())
    assert [entry["sha256"] for entry in cache.values()] == [before["toy.csv"]]
    with monkeypatch.context() as m:  # unchanged: read from the cache, not hashed
        m.setattr(checksum_cache, "content_sha256", lambda path: pytest.fail(f"{path} hashed again"))
        assert checksum_cache.file_checksums([data]) == before
    time.sleep(0.05)  # past the tick of the ctime the file was written with
    flip_labels(data)
    assert checksum_cache.file_checksums([data])["toy.csv"] != before["toy.csv"]


def test_a_file_changed_just_before_it_was_hashed_is_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("ISARCASM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(checksum_cache, "ALWAYS_HASHED", 0)
    checksum_cache.file_checksums([write_corpus(tmp_path / "toy.csv")])  # its ctime is now: a write within the tick keeps it
    assert not (tmp_path / "cache/checksums.json").exists()


@pytest.mark.parametrize("content", ["[]", '"a string"', "3", "null", '{"x": "abc"}', '{"x": [1]}', "{not json"])
def test_a_checksum_cache_that_is_no_object_of_entries_is_rebuilt(tmp_path, monkeypatch, content):
    monkeypatch.setenv("ISARCASM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(checksum_cache, "ALWAYS_HASHED", 0)
    monkeypatch.setattr(checksum_cache, "RACY_NS", 0)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache/checksums.json").write_text(content)
    data = write_corpus(tmp_path / "toy.csv")
    assert checksum_cache.file_checksums([data]) == {"toy.csv": hashlib.sha256(data.read_bytes()).hexdigest()}
    cache = json.loads((tmp_path / "cache/checksums.json").read_text())
    assert isinstance(cache, dict) and list(cache) == [str(data.resolve())]

from __future__ import annotations

import gzip
import os
import re
import stat
from collections import Counter

import numpy as np
import pytest

from embeddings.matrix import GLOVE_STD, embedding_matrix, lookup_key, uniform_oov
from embeddings.vectors import (
    default_vectors_path,
    file_sha256,
    find_cache,
    load_vectors,
    load_vectors_report,
    vectors_path,
)
from preprocessing.errors import DataError
from preprocessing.vocab import PAD_ID, UNK_ID, Vocabulary

WORDS = {
    "the": [0.1, 0.2, 0.3, 0.4],
    "cat": [1.0, -1.0, 0.5, 0.0],
    "not": [0.5, 0.5, -0.5, 2.0],
    "an": [-0.3, 0.0, 0.9, 1.1],
    "love": [2.0, 1.5, -1.0, 0.25],
}


def glove_text(words=WORDS) -> str:
    return "".join(f"{w} {' '.join(map(str, v))}\n" for w, v in words.items())


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """Keep every cache of a test in its own folder, never in the user's."""
    monkeypatch.setenv("ISARCASM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "cache" / "vectors"


@pytest.fixture
def glove_file(tmp_path, cache_dir):
    path = tmp_path / "vectors" / "tiny.txt"
    path.parent.mkdir()
    path.write_text(glove_text(), encoding="utf-8")
    return path


def test_loads_vectors_and_caches_them(glove_file, cache_dir):
    kv, report = load_vectors_report(glove_file, glove_file.parent, progress=False)
    assert report.built and report.cache.parent == cache_dir
    assert kv.index_to_key == list(WORDS) and kv.vector_size == 4
    assert np.allclose(kv["cat"], WORDS["cat"])
    again, report = load_vectors_report(glove_file, glove_file.parent, progress=False)
    assert not report.built and report.cache == find_cache(glove_file, file_sha256(glove_file))
    assert again.index_to_key == kv.index_to_key and np.array_equal(again.vectors, kv.vectors)


def test_workers_needing_the_same_cache_build_it_once(glove_file, monkeypatch):
    """Two loads at once (two --jobs workers): one parses the file, the other waits on the lock and
    reads the cache it built."""
    import threading
    import time

    from embeddings import vectors

    parse, parsed = vectors.parse_vectors, []

    def slow_parse(source, progress=True):
        parsed.append(source)
        time.sleep(0.5)  # long enough for the other load to find no cache and wait
        return parse(source, progress)

    monkeypatch.setattr(vectors, "parse_vectors", slow_parse)
    reports = []
    loads = [threading.Thread(target=lambda: reports.append(load_vectors_report(glove_file, glove_file.parent,
                                                                                  progress=False)[1]))
             for _ in range(2)]
    for load in loads:
        load.start()
    for load in loads:
        load.join()
    assert len(parsed) == 1 and sorted(report.built for report in reports) == [False, True]
    assert reports[0].cache == reports[1].cache


def test_gzipped_and_word2vec_header_files_load_the_same(tmp_path, glove_file):
    gz = tmp_path / "tiny.txt.gz"
    gz.write_bytes(gzip.compress(glove_file.read_bytes()))
    w2v = tmp_path / "tiny.w2v.txt"
    w2v.write_text(f"{len(WORDS)} 4\n" + glove_text())
    for path in (gz, w2v):
        kv = load_vectors(path, tmp_path, progress=False)
        assert kv.index_to_key == list(WORDS) and np.allclose(kv["love"], WORDS["love"])


def test_a_byte_order_mark_is_stripped_as_from_corpora(tmp_path, cache_dir):
    """A file saved with a byte-order mark (Windows editors) keeps its first word's vector, plain, gzipped
    or under a word2vec header."""
    files = {"bom.txt": glove_text(), "bom.w2v.txt": f"{len(WORDS)} 4\n" + glove_text()}
    for name, text in files.items():
        (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    (tmp_path / "bom.txt.gz").write_bytes(gzip.compress((tmp_path / "bom.txt").read_bytes()))
    for name in (*files, "bom.txt.gz"):
        kv = load_vectors(tmp_path / name, tmp_path, progress=False)
        assert kv.index_to_key == list(WORDS) and np.allclose(kv["the"], WORDS["the"]), name


def test_cache_is_rebuilt_when_the_source_changes(glove_file, cache_dir):
    load_vectors(glove_file, glove_file.parent, progress=False)
    old = find_cache(glove_file, file_sha256(glove_file))
    mtime = glove_file.stat().st_mtime_ns
    glove_file.write_text(glove_text().replace("1.0 -1.0", "9.0 -1.0"))  # same size, new content
    os.utime(glove_file, ns=(mtime, mtime))  # even with the old modification time
    kv, report = load_vectors_report(glove_file, glove_file.parent, progress=False)
    assert report.built and report.cache != old
    assert kv["cat"][0] == pytest.approx(9.0)
    assert not old.exists()  # the stale cache is removed
    assert [p.name for p in cache_dir.iterdir() if not p.name.startswith(".")] == [report.cache.name]  # and its lock


def test_damaged_cache_is_rebuilt(glove_file, capsys):
    _, report = load_vectors_report(glove_file, glove_file.parent, progress=False)
    (report.cache / "vectors.npy").write_bytes(b"not an array")
    kv, again = load_vectors_report(glove_file, glove_file.parent)
    assert again.built and np.allclose(kv["cat"], WORDS["cat"])
    assert "unreadable" in capsys.readouterr().err


def test_the_first_read_says_what_it_does_then_the_time_it_took_never_a_guessed_time(glove_file, capsys):
    """How long a parse takes depends on the machine and its load (measured figures live in the docs):
    the note before it gives no time, the note after it the measured one."""
    load_vectors_report(glove_file, glove_file.parent)
    before, after = capsys.readouterr().err.splitlines()
    assert before == f"reading word vectors from {glove_file} (once, then cached) ..."
    assert re.fullmatch(r"  5 words x 4 in \d+\.\d s", after)


def test_read_only_data_folder_falls_back_to_user_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("ISARCASM_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    data = tmp_path / "shared"
    data.mkdir()
    source = data / "tiny.txt"
    source.write_text(glove_text())
    data.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        _, report = load_vectors_report(source, data, progress=False)
        assert report.cache.parent == tmp_path / "xdg" / "isarcasm" / "vectors"
        assert sorted(p.name for p in data.iterdir()) == ["tiny.txt"]  # nothing written beside the data
    finally:
        data.chmod(stat.S_IRWXU)


def test_writable_data_folder_gets_the_cache_beside_the_source(tmp_path, monkeypatch):
    monkeypatch.delenv("ISARCASM_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    source = tmp_path / "tiny.txt"
    source.write_text(glove_text())
    _, report = load_vectors_report(source, tmp_path, progress=False)
    assert report.cache.parent == tmp_path / ".cache" / "vectors"


def test_random_means_no_vectors(tmp_path):
    assert vectors_path("random", tmp_path) is None
    assert load_vectors("random", tmp_path) is None


def test_missing_default_file_names_the_path_and_the_options(tmp_path):
    with pytest.raises(DataError) as error:
        load_vectors(None, tmp_path)
    message = str(error.value)
    assert str(default_vectors_path(tmp_path)) in message
    assert "glove.6B.100d.wink341k.txt.gz" in message
    assert "--embeddings PATH" in message and "--embeddings random" in message
    assert "isarcasm data fetch glove" in message


def test_missing_explicit_file_is_a_clear_error(tmp_path):
    with pytest.raises(DataError, match=r"nope\.txt: word vectors file not found; pass --embeddings PATH"):
        load_vectors(tmp_path / "nope.txt", tmp_path)


def _truncated_gz() -> bytes:
    data = gzip.compress(glove_text().encode() * 50, mtime=0)
    return data[: len(data) // 2]


@pytest.mark.parametrize("name, content, problem", [
    ("letters.txt", b"the 0.1 0.2\ncat x 0.3\n", "could not convert string to float"),
    ("long.txt", b"the 0.1 0.2\ncat 0.1 0.2 0.3 0.4\n", r"long.txt:2: 4 number\(s\) after the word where the vectors "
                                                          "have 2: a cut or ragged line"),
    # gensim would copy a line's one number across the vector: [0.5, 0.5, 0.5]
    ("short.txt", b"the 0.1 0.2 0.3\ncat 0.5\ndog 0.1 0.2 0.3\n", r"short.txt:2: 1 number\(s\) after the word"),
    ("short-header.txt", b"2 3\nthe 0.1 0.2 0.3\ncat 0.5\n", r"short-header.txt:3: 1 number\(s\) .* have 3"),
    ("words.txt", b"the\ncat\n", "no numbers after the first word"),
    ("empty.txt", b"", "empty first line"),
    ("latin1.txt", b"caf\xe9 0.1 0.2\n", "UnicodeDecodeError"),
    ("cut.txt.gz", _truncated_gz(), "EOFError"),
    ("plain.txt.gz", b"the 0.1 0.2\n", "cannot read the vectors file"),
])
def test_corrupt_files_are_clear_errors(tmp_path, cache_dir, name, content, problem):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DataError, match=problem) as error:
        load_vectors(path, tmp_path, progress=False)
    assert str(error.value).startswith(str(path))
    assert not cache_dir.exists() or not [p for p in cache_dir.iterdir() if not p.name.startswith(".")]  # only the lock


# --- the embedding matrix ----------------------------------------------------------------------


def vocab_of(counts: dict[str, int]) -> Vocabulary:
    return Vocabulary.build(Counter(counts))


@pytest.fixture
def kv(glove_file):
    return load_vectors(glove_file, glove_file.parent, progress=False)


def test_known_words_copy_their_vector_and_padding_is_zero(kv):
    vocab = vocab_of({"the": 5, "cat": 4, "zebra": 3, "<user>": 2})
    matrix, _ = embedding_matrix(vocab, kv, seed=1)
    assert matrix.dtype == np.float32 and matrix.shape == (len(vocab), 4)
    for word in ("the", "cat"):
        assert np.array_equal(matrix[vocab.index(word)], np.float32(WORDS[word]))
    assert not matrix[PAD_ID].any()
    assert matrix[vocab.index("zebra")].any() and matrix[UNK_ID].any()


def test_aliases_cover_tokens_the_glove_subset_lacks(kv):
    vocab = vocab_of({"n't": 3, "a": 2, "Love": 2})
    matrix, _ = embedding_matrix(vocab, kv)
    assert lookup_key("n't", kv) == "not" and lookup_key("a", kv) == "an" and lookup_key("Love", kv) == "love"
    assert np.array_equal(matrix[vocab.index("n't")], np.float32(WORDS["not"]))
    assert lookup_key("'s", kv) is None  # ambiguous: stays random


def test_random_rows_are_seeded_with_the_vectors_scale(kv):
    vocab = vocab_of({f"oov{i}": 2 for i in range(3000)} | {"cat": 2})
    a, _ = embedding_matrix(vocab, kv, seed=7)
    b, _ = embedding_matrix(vocab, kv, seed=7)
    c, _ = embedding_matrix(vocab, kv, seed=8)
    assert np.array_equal(a, b)
    assert not np.array_equal(a[UNK_ID], c[UNK_ID])
    assert np.array_equal(a[vocab.index("cat")], c[vocab.index("cat")])
    expected = np.std(kv.vectors)
    assert np.std(a[len(vocab) - 3000:]) == pytest.approx(expected, rel=0.05)


def test_coverage_counts_types_and_training_tokens(kv):
    # training tokens: the x5, cat x3, zebra x2, <unk> x4 (from four words seen once)
    counts = {"the": 5, "cat": 3, "zebra": 2, "a1": 1, "a2": 1, "a3": 1, "a4": 1}
    _, coverage = embedding_matrix(vocab_of(counts), kv, source="tiny.txt")
    assert (coverage.types_found, coverage.types_total) == (2, 3)
    assert (coverage.tokens_found, coverage.tokens_total) == (8, 14)
    assert coverage.top_missing == ("zebra",)
    assert str(coverage) == "tiny.txt: vectors for 2 of 3 vocabulary words (66.7%), 57.1% of training tokens"
    assert coverage.to_json()["token_pct"] == 57.14


def test_no_vectors_gives_a_random_matrix_of_the_requested_size():
    vocab = vocab_of({"the": 2, "cat": 2})
    matrix, coverage = embedding_matrix(vocab, None, dim=50, seed=0)
    assert matrix.shape == (len(vocab), 50) and not matrix[PAD_ID].any()
    assert np.std(matrix[1:]) == pytest.approx(GLOVE_STD, rel=0.2)
    assert coverage.types_found == 0 and coverage.source == "random"


def test_real_glove_from_its_cache(real_data_dir):
    """The shipped vectors, only when their cache exists (building it takes ~40 s:
    run `isarcasm embeddings info` once)."""
    path = default_vectors_path(real_data_dir)
    if not path.is_file() or find_cache(path, file_sha256(path)) is None:
        pytest.skip("GloVe cache not built; run `isarcasm embeddings info` once")
    kv, report = load_vectors_report(None, real_data_dir, progress=False)
    assert not report.built
    assert kv.vectors.shape == (341_479, 100)
    assert kv.index_to_key[0] == "the" and kv["the"][0] == pytest.approx(-0.038194)
    assert "a" not in kv.key_to_index and lookup_key("a", kv) == "an"
    assert np.std(kv.vectors) == pytest.approx(GLOVE_STD, abs=0.005)


def test_uniform_oov_draws_rows_without_a_vector_in_a_tenth_seeded_per_run(kv):
    """--oov-init uniform: the iSarcasm authors' U(-0.1, 0.1) for every row without a vector."""
    vocab = vocab_of({f"oov{i}": 2 for i in range(500)} | {"cat": 2, "the": 2})
    normal, _ = embedding_matrix(vocab, kv, seed=3)
    uniform = uniform_oov(normal, vocab, kv, seed=3)
    missing = [i for i, token in enumerate(vocab.tokens) if i != PAD_ID and token not in ("cat", "the")]
    assert np.abs(uniform[missing]).max() <= 0.1 and np.std(uniform[missing]) == pytest.approx(0.2 / 12 ** 0.5, rel=0.05)
    assert np.array_equal(uniform[vocab.index("cat")], normal[vocab.index("cat")]) and not uniform[PAD_ID].any()
    assert np.array_equal(uniform, uniform_oov(normal, vocab, kv, seed=3))
    assert not np.array_equal(uniform[missing], uniform_oov(normal, vocab, kv, seed=4)[missing])
    assert np.abs(uniform_oov(normal, vocab, None, seed=3)[1:]).max() <= 0.1  # no vectors: every row

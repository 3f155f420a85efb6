"""benchmarks/same_table.py: two printed reports compared number by number, wording and empty columns aside."""
from locations import benchmark_script

same_table = benchmark_script("same_table")
differences, main = same_table.differences, same_table.main

BEFORE = """isarcasm/lstm: F1(sarcastic) 0.243 ± 0.058 over 5 seed(s), 5 reused, 178 s
Commit `abc`. Wall time 0 min 04 s.

| corpus   | model   | metric       | published   | iSarcasm impl.   | ours (mean ± std)   | Δ published   | Δ impl.   |
|----------|---------|--------------|-------------|------------------|---------------------|---------------|-----------|
| isarcasm | lstm    | f1_sarcastic | —           | 0.336            | 0.243 ± 0.058       | —             | -0.093 ⚑  |
| isarcasm | 3cnn    | f1_macro     | —           | —                | 0.480 ± 0.025       | —             | —         |
"""
AFTER = """isarcasm/lstm: F1(sarcastic) 0.243 ± 0.058 over 5 seed(s), 5 reused, 3 s
Commit `def`. Wall time 0 min 06 s.

| corpus   | model   | metric       | paper   | ours (mean ± std)   | Δ paper   |
|----------|---------|--------------|---------|---------------------|-----------|
| isarcasm | lstm    | f1_sarcastic | 0.336   | 0.243 ± 0.058       | -0.093 ⚑  |
| isarcasm | 3cnn    | f1_macro     | —       | 0.480 ± 0.025       | —         |
"""


def test_renamed_headers_an_empty_column_and_times_are_no_difference(tmp_path):
    assert differences(BEFORE, AFTER) == ([], 11)  # the rows' 6 numbers and the cell line's 5
    (tmp_path / "a.txt").write_text(BEFORE), (tmp_path / "b.txt").write_text(AFTER)
    assert main([str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]) == 0


def test_a_changed_number_a_lost_row_or_a_changed_cell_line_is_a_difference(tmp_path):
    found, _ = differences(BEFORE, AFTER.replace("0.480 ± 0.025", "0.481 ± 0.025"))
    assert found == ["row corpus | model | isarcasm | 3cnn | f1_macro | 0: ['0.480', '0.025'] before, "
                     "['0.481', '0.025'] after"]
    found, _ = differences(BEFORE, AFTER.replace("| isarcasm | 3cnn    | f1_macro     | —       | 0.480 ± 0.025"
                                                 "       | —         |\n", ""))
    assert found == ["row corpus | model | isarcasm | 3cnn | f1_macro | 0: only in before"]
    found, _ = differences(BEFORE, AFTER.replace("0.243 ± 0.058 over", "0.244 ± 0.058 over"))
    assert len(found) == 1 and found[0].startswith("line isarcasm/lstm:")
    (tmp_path / "a.txt").write_text(BEFORE), (tmp_path / "b.txt").write_text(AFTER.replace("0.336", "0.337"))
    assert main([str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]) == 1

"""The shared tables (tabulate): every cell printed as the caller wrote it, numbers right-aligned in text."""
from markdown_tables import tables

from experiments.reports.format import markdown_table, table


def test_the_text_table_keeps_each_cell_as_written_and_right_aligns_columns_of_numbers():
    lines = table([["lstm", "1,234", "0.500", "17.1 / 16.8"], ["cnn", "12", "—", "4 classes"]],
                  ["model", "params", "F1", "% sarcastic"]).splitlines()
    assert lines[0].split() == ["model", "params", "F1", "%", "sarcastic"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    assert lines[2].split() == ["lstm", "1,234", "0.500", "17.1", "/", "16.8"]  # 0.500 is not reprinted as 0.5
    # numbers (and the placeholder among them) end where their column ends; text starts where its column starts
    assert lines[2].index("1,234") + 5 == lines[3].index("12") + 2
    assert lines[2].index("0.500") + 5 == lines[3].index("—") + 1
    assert lines[2].index("17.1") == lines[3].index("4 classes")
    assert all(line == line.rstrip() for line in lines)


def test_the_markdown_table_is_one_table_whose_cells_are_written_as_given():
    lines = markdown_table([["a", "0.500", "1e-05", "007", ""]], ["model", "F1", "p", "id", "note"])
    [parsed] = tables("\n".join(lines))
    assert parsed.rows == [["model", "F1", "p", "id", "note"], ["a", "0.500", "1e-05", "007", ""]]
    assert markdown_table([], ["model", "F1"])[1].count("|") == 3  # no rows: the header and separator still

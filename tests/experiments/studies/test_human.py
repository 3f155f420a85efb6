"""The manual-labelling row of Table 7, from iSarcasmEval's third-party labels."""
import pytest

from experiments.studies.human import manual_labelling_metrics
from preprocessing.errors import DataError


def test_manual_labelling_on_the_real_annotations(real_data_dir):
    m = manual_labelling_metrics(real_data_dir)
    # Counted by hand from english_task_a.csv: 161 true positives, 164 false positives, 39 false negatives.
    assert m["confusion_matrix"] == [[1036, 164], [39, 161]]
    assert m["precision_sarcastic"] == pytest.approx(161 / 325)
    assert m["recall_sarcastic"] == pytest.approx(161 / 200)


def test_bad_annotation_label_names_the_row(tmp_path):
    path = tmp_path / "isarcasmeval/third-party annotations/english_task_a.csv"
    path.parent.mkdir(parents=True)
    path.write_text("text,sarcasm_ref,human_aggregated\nhi,1,1\nyo,1,maybe\n")
    with pytest.raises(DataError, match=r"english_task_a.csv:3: label 'maybe'"):
        manual_labelling_metrics(tmp_path)

"""The one run-config schema (`run_config`) and its readers."""

from senso.core.fingerprint import file_sha256
from senso.catalog import RunOptions
from senso.core.records import config_data_files, config_option, run_config


def test_run_config_has_the_same_keys_for_every_task(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("id\n1\n")
    config = run_config(RunOptions(task="t.toml", model="hf:x", limit=3), "likert-lm", [data], task_file="t.toml")
    assert list(config)[:5] == ["task", "system", "model", "options", "data_files"]
    assert (config["task"], config["system"], config["model"], config["task_file"]) == ("t.toml", "likert-lm", "hf:x", "t.toml")
    assert config["options"]["limit"] == 3
    assert config["data_files"] == [{"path": str(data.resolve()), "sha256": file_sha256(data)}]
    assert config_option(config, "limit") == 3 and config_data_files(config) == config["data_files"]


def test_samples_parquet_keeps_every_column_even_those_arrow_cannot_store(tmp_path):
    import pandas as pd

    from senso.core.records import RunWriter

    rows = [{"id": "a", "scores": {}, "mixed": 1, "nested": [{}], "logprobs": [-1.0, -2.0]},
            {"id": "b", "scores": {}, "mixed": [1, 2], "nested": [{}], "logprobs": None, "late": "x"}]
    with RunWriter(tmp_path / "run") as writer:
        writer.write_samples(rows)
    table = pd.read_parquet(tmp_path / "run" / "samples.parquet")
    assert list(table.columns) == ["id", "scores", "mixed", "nested", "logprobs", "late"]
    assert list(table["scores"]) == ["{}", "{}"] and list(table["mixed"]) == ["1", "[1, 2]"]
    assert list(table["logprobs"][0]) == [-1.0, -2.0] and table["late"][1] == "x"


def test_a_map_of_numbers_is_a_list_of_pairs_whatever_its_names(tmp_path):
    """AdMIRe's per-image scores (image file name -> score): one schema for every split, not a struct with a
    field per image file name."""
    import pyarrow.parquet as pq

    from senso.core.records import write_parquet

    rows = [{"id": "a", "scores": {"1.png": 0.5, "2.png": -0.25}}, {"id": "b", "scores": {"x.jpg": 1, "y.jpg": None}},
            {"id": "c", "scores": {}}]
    with open(tmp_path / "s.parquet", "wb") as fh:
        write_parquet(rows, fh)
    table = pq.read_table(tmp_path / "s.parquet")
    kind = table.schema.field("scores").type
    assert str(kind.value_type) == "struct<key: string, value: double>"
    assert table.column("scores").to_pylist() == [
        [{"key": "1.png", "value": 0.5}, {"key": "2.png", "value": -0.25}],
        [{"key": "x.jpg", "value": 1.0}, {"key": "y.jpg", "value": None}], []]

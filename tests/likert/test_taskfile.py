"""Task files: parsing, every bad-file error, the gold rules, and the built-in ABRICOT files' exact prompts."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import pytest

from senso.core.errors import DataError, SensoError
from senso.likert.data import load_abricot
from senso.likert.task import TASKS, build_prompts, get_task
from senso.likert.taskfile import TaskFileError, load_task_file

GOOD = '''name = "conc"
data = "items.csv"
scale = [1, 7]
gold_range = [1, 7]
template = """Rate {word} in: {text}
"""
'''
HEADER = ["id", "text", "word", "gold", "group", "domain"]
ROWS = [["a1", "The dog sleeps.", "dog", "6.5", "dog", "x"],
        ["b1", "An idea of justice.", "idea", "1.5", "idea", "y"]]


def write_task(tmp_path: Path, text: str = GOOD, rows=ROWS, header=HEADER) -> Path:
    with (tmp_path / "items.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)
    path = tmp_path / "task.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_file_and_its_defaults(tmp_path):
    task = load_task_file(write_task(tmp_path))
    assert (task.name, task.scale, task.gold_range, task.gold_to_label) == ("conc", (1, 7), (1, 7), "round")
    assert task.choices == ("1", "2", "3", "4", "5", "6", "7")
    assert task.columns["gold"] == "gold" and task.protocols == {"zero-shot": "zero-shot", "few-shot": "few-shot"}
    items = task.load_items(task.locate_data())
    assert [(i.id, i.begin, i.end, i.gold, i.group, i.domain) for i in items] == [
        ("a1", 4, 6, 6.5, "dog", "x"), ("b1", 3, 6, 1.5, "idea", "y")]
    prompt = build_prompts(items, task)[0]
    assert prompt.context == "Rate dog in: The dog sleeps.\n"
    assert prompt.continuations == tuple(f" {k}" for k in range(1, 8))
    # "bins" is the default when the gold range differs from the scale
    other = load_task_file(write_task(tmp_path, GOOD.replace("gold_range = [1, 7]", "gold_range = [0, 100]")))
    assert other.gold_to_label == "bins"


@pytest.mark.parametrize("edit, key, message", [
    (lambda t: t.replace('name = "conc"\n', ""), "name", "missing"),
    (lambda t: t.replace('data = "items.csv"\n', ""), "data", "missing"),
    (lambda t: t.replace("scale = [1, 7]\n", ""), "scale", "missing"),
    (lambda t: t.replace("gold_range = [1, 7]\n", ""), "gold_range", "missing"),
    (lambda t: t.split("template")[0], "template", "missing"),
    (lambda t: t.replace("{word}", "WORD"), "template", "no {word}"),
    (lambda t: t.replace("{text}", "TEXT"), "template", "no {text}"),
    (lambda t: t.replace("scale = [1, 7]", "scale = [3, 3]"), "scale", "one value"),
    (lambda t: t.replace("scale = [1, 7]", "scale = [7, 1]"), "scale", "lo must be below hi"),
    (lambda t: t.replace("scale = [1, 7]", "scale = [1.5, 7]"), "scale", "two integers"),
    (lambda t: t.replace("scale = [1, 7]", "scale = [1, 4, 7]"), "scale", "two integers"),
    (lambda t: t.replace("gold_range = [1, 7]", 'gold_range = "1-7"'), "gold_range", "two numbers"),
    (lambda t: t + 'gold_to_label = "floor"\n', "gold_to_label", "choose"),
    (lambda t: t.replace("gold_range = [1, 7]", "gold_range = [0, 10]") + 'gold_to_label = "round"\n',
     "gold_to_label", "inside scale"),
    (lambda t: t + 'scael = [1, 5]\n', "scael", "unknown key"),
    (lambda t: t + '[columns]\nrating = "gold"\n', "columns.rating", "unknown field"),
    (lambda t: t.replace('name = "conc"', 'name = "a/b"'), "name", "letters, digits"),
    (lambda t: t.replace('data = "items.csv"', "data = 3"), "data", "non-empty string"),
    (lambda t: t + '[protocols]\nthree-shot = "paper"\n', "protocols", "zero-shot"),
])
def test_bad_task_files_name_the_file_and_the_key(tmp_path, edit, key, message):
    path = write_task(tmp_path, edit(GOOD))
    with pytest.raises(TaskFileError) as err:
        load_task_file(path)
    text = str(err.value)
    assert str(path) in text and f"key '{key}'" in text and message in text, text


def test_not_toml_and_no_file(tmp_path):
    path = write_task(tmp_path, GOOD.replace("scale = [1, 7]", "scale = [1, 7"))
    with pytest.raises(TaskFileError, match=r"task\.toml: not valid TOML"):
        load_task_file(path)
    with pytest.raises(TaskFileError, match="no such task file"):
        load_task_file(tmp_path / "absent.toml")


def test_missing_data_file_names_the_data_key(tmp_path):
    task = load_task_file(write_task(tmp_path, GOOD.replace("items.csv", "nowhere.csv")))
    with pytest.raises(TaskFileError, match=r"key 'data'.*nowhere\.csv does not exist"):
        task.locate_data()


@pytest.mark.parametrize("rows, header, text_in_error, row, field", [
    (ROWS, ["id", "text", "word", "rating", "group", "domain"], "missing column(s) 'gold'", None, None),
    ([ROWS[0][:3] + ["7.5"] + ROWS[0][4:]], HEADER, "outside gold_range [1, 7]", 1, "gold"),
    ([ROWS[0][:3] + ["high"] + ROWS[0][4:]], HEADER, "expected a number", 1, "gold"),
    ([["a1", "The cat sleeps.", "dog", "3", "dog", "x"]], HEADER, "does not occur", 1, "word"),
    ([["a1", "The dog saw a dog.", "dog", "3", "dog", "x"]], HEADER, "more than once", 1, "word"),
    ([ROWS[0], ROWS[0]], HEADER, "duplicate id 'a1'", 2, "id"),
    ([["a1", "  ", "dog", "3", "dog", "x"]], HEADER, "empty text", 1, "text"),
])
def test_bad_rows_name_the_csv_row_and_column(tmp_path, rows, header, text_in_error, row, field):
    task = load_task_file(write_task(tmp_path, rows=rows, header=header))
    with pytest.raises(DataError) as err:
        task.load_items(task.locate_data())
    assert str(tmp_path / "items.csv") in str(err.value) and text_in_error in str(err.value)
    assert (err.value.row, err.value.field) == (row, field)
    if row is None:  # a missing column says where to map it
        assert "columns table" in str(err.value) and str(tmp_path / "task.toml") in str(err.value)


def test_offsets_pick_one_of_several_occurrences_and_are_checked(tmp_path):
    header = ["id", "text", "word", "begin", "end", "score"]
    rows = [["a1", "The dog saw a dog.", "dog", "14", "16", "3"]]
    task = load_task_file(write_task(tmp_path, GOOD + '[columns]\ngold = "score"\n', rows=rows, header=header))
    item = task.load_items(task.locate_data())[0]
    assert (item.begin, item.end, item.group) == (14, 16, "a1")  # no group column: each item its own group
    rows[0][3] = "13"
    task = load_task_file(write_task(tmp_path, GOOD + '[columns]\ngold = "score"\n', rows=rows, header=header))
    with pytest.raises(DataError, match="field 'begin/end'.*not the word 'dog'"):
        task.load_items(task.locate_data())


def test_round_and_bins_rules(tmp_path):
    rounded = load_task_file(write_task(tmp_path))
    assert [rounded.gold_label(m) for m in (1.0, 1.5, 2.5, 3.49, 6.6, 7.0)] == [1, 2, 2, 3, 7, 7]  # half to even
    binned = load_task_file(write_task(tmp_path, GOOD.replace("gold_range = [1, 7]", "gold_range = [0, 100]")))
    # K = 7 labels over [0, 100]: min(round(7m/100), 6) + 1
    assert [binned.gold_label(m) for m in (0, 7.1, 7.2, 50, 92.8, 92.9, 100)] == [1, 1, 2, 5, 7, 7, 7]
    assert binned.gold_edges[0] == pytest.approx(100 / 14) and len(binned.gold_edges) == 6


@pytest.mark.real_data
@pytest.mark.parametrize("name, column", [("abricot-abs", "abs_mean"), ("abricot-inc", "inc_mean")])
def test_abricot_bins_equal_the_official_rule_on_all_items(data_dir, name, column):
    task = get_task(name)
    assert (task.scale, task.gold_range, task.gold_to_label) == ((1, 5), (0, 1), "bins")
    rows = load_abricot(data_dir / "abricot" / "dataset_it.csv")
    items = task.load_items(task.locate_data(data_dir))
    assert len(items) == 127 and [i.id for i in items] == [r.id for r in rows]
    for item, row in zip(items, rows):
        mean = getattr(row, column)
        assert item.gold == mean and task.gold_label(item.gold) == min(round(5 * mean), 4) + 1
        assert task.gold_score(mean) == min(5 * mean, 4.0) + 1.0


# sha256 over "id\tcontext sha256\tshared-prefix sha256\texemplar ids" of all 127 prompts, one line per item,
# computed with the code before task files (commit ac03c21: TEMPLATES with {parola}/{frase}, load_abricot).
PROMPT_DIGESTS = {
    ("abricot-abs", "calamita"): "6b5a46a651b80952c3f7d4a597a38a3c46dfed90a41c70605195c68f6b1b7fda",
    ("abricot-abs", "paper"): "c0036bff60314ca534e0667d80755e7854f0b583cee3b5fee2a68a5f25d842c8",
    ("abricot-inc", "calamita"): "05d07e8bbea3674ac113d516ed537c1cfa86a293439192a3465fc30a30561950",
    ("abricot-inc", "paper"): "9e511ca203c61e878f348b3df19cd63d3eafe2a8a0694514fb6db52d9972260c",
}


def _digest(prompts) -> str:
    sha = lambda text: hashlib.sha256(text.encode()).hexdigest()  # noqa: E731
    lines = [f"{p.item_id}\t{sha(p.context)}\t{sha(p.shared_prefix)}\t{','.join(p.exemplar_ids)}" for p in prompts]
    return sha("\n".join(lines))


@pytest.mark.real_data
@pytest.mark.parametrize("name, protocol", sorted(PROMPT_DIGESTS))
def test_builtin_task_files_give_todays_prompts_byte_for_byte(data_dir, name, protocol):
    task = get_task(name)
    items = task.load_items(task.locate_data(data_dir))
    prompts = build_prompts(items, task, protocol)
    assert len(prompts) == 127 and _digest(prompts) == PROMPT_DIGESTS[(name, protocol)]
    assert all(p.continuations == (" 1", " 2", " 3", " 4", " 5") for p in prompts)
    # the generic names of the protocols give the same prompts
    generic = {"calamita": "zero-shot", "paper": "few-shot"}[protocol]
    assert _digest(build_prompts(items, task, generic)) == PROMPT_DIGESTS[(name, protocol)]
    # rows of the authors' file read by load_abricot give the same prompts (the lm-eval parity test uses them)
    rows = load_abricot(data_dir / "abricot" / "dataset_it.csv")
    assert _digest(build_prompts(rows, task, protocol)) == PROMPT_DIGESTS[(name, protocol)]


def test_builtin_tasks_and_unknown_names():
    assert set(TASKS) == {"abricot-abs", "abricot-inc"}
    assert all(t.builtin and t.data_from == "data-dir" and t.protocols == {"zero-shot": "calamita", "few-shot": "paper"}
               for t in TASKS.values())
    with pytest.raises(SensoError, match="unknown Likert task 'abricot-xyz'"):
        get_task("abricot-xyz")
    with pytest.raises(SensoError, match="unknown protocol 'three-shot'.*calamita"):
        TASKS["abricot-abs"].protocol("three-shot")


def test_a_task_file_saved_with_a_byte_order_mark_is_read_as_it_is(tmp_path):
    """An editor that writes a byte-order mark: the Likert file, its kind and a sweep file read it as without."""
    from senso.core.taskfile import declared_kind
    from senso.sweep import load_sweep

    path = write_task(tmp_path)
    path.write_text("\ufeff" + path.read_text(encoding="utf-8"), encoding="utf-8")
    assert load_task_file(path).name == "conc"
    assert declared_kind(path) is None
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('\ufeff[options]\ntask = "abricot-abs"\n[grid]\nsystem = ["lexical-prior", "random"]\n',
                     encoding="utf-8")
    assert len(load_sweep(sweep, out=tmp_path / "out").runs) == 2

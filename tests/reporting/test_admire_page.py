import json

import pytest
from report_fixtures import A_ITEMS

from senso.admire.page import caption_preview, predicted_sense, rank_landing
from senso.reporting.placement import placement_for
from senso.reporting.run_folder import load_run
from senso.reporting.run_page import run_context, write_run_report


def test_rank_landing_counts_by_hand():
    gold = ["a", "b", "c", "d", "e"]
    samples = [
        {"compound": "x", "gold_order": gold, "predicted_order": ["a", "b", "c", "d", "e"]},  # perfect
        {"compound": "y", "gold_order": gold, "predicted_order": ["e", "d", "c", "b", "a"]},  # reversed
        {"compound": "z", "gold_order": None, "predicted_order": ["a", "b", "c", "d", "e"]},  # no gold: not counted
    ]
    assert rank_landing(samples) == [
        [1, 0, 0, 0, 1],
        [0, 1, 0, 1, 0],
        [0, 0, 2, 0, 0],
        [0, 1, 0, 1, 0],
        [1, 0, 0, 0, 1],
    ]
    with pytest.raises(Exception, match="not a permutation"):
        rank_landing([{"compound": "w", "gold_order": gold, "predicted_order": ["a", "a", "c", "d", "e"]}])



def test_caption_preview_flattens_and_cuts():
    assert caption_preview("A **bold** start.\\n\\n1. Then more") == "A bold start. 1. Then more"
    assert caption_preview("word " * 100, limit=20).endswith(" …") and len(caption_preview("word " * 100, limit=20)) <= 22


def test_admire_a_page_data(admire_runs):
    run = load_run(admire_runs["A0"])
    context = run_context(run)
    header = dict(context["header"])
    assert header["task"] == "admire-a" and header["split"] == "dev" and header["language"] == "en"
    assert header["track"] == "text-only" and header["n"] == "4"
    page = context["section"]
    assert [sum(row) for row in page["landing"]] == [4] * 5 and page["landing_scored"] == 4
    assert len(page["group_plots"]) == 2  # Top-1 and DCG, all / idiomatic / literal
    rows = page["rows"]
    assert [r.compound for r in rows] == [c for c, _, _ in A_ITEMS]
    for row, sample in zip(rows, run.samples):
        assert [cell.name for cell in row.images] == sample["predicted_order"]
        assert [cell.gold_rank for cell in row.images] == [sample["gold_order"].index(n) + 1 for n in sample["predicted_order"]]
        assert all(cell.thumbnail.startswith("data:image/jpeg;base64,") for cell in row.images)
        assert row.top1 == sample["top1"] and row.dcg == sample["dcg"]
    # the landing matrix agrees with the samples: row 0 column 0 counts the Top-1 hits
    assert page["landing"][0][0] == sum(int(s["top1"]) for s in run.samples)
    assert "<mark>devil&#39;s advocate</mark> &lt;again&gt;" in str(rows[2].sentence)
    # the run's own warnings (4 of the 15 items of the official dev split) are shown at the top
    assert context["warnings"] and "15" in context["warnings"][0]


def test_admire_a_html_has_thumbnails_and_red_warnings_first(admire_runs, run_copy):
    path = write_run_report(run_copy(admire_runs["A0"]))
    html = path.read_text()
    assert html.count('src="data:image/jpeg;base64,') == 20
    assert html.index('class="warnings"') < html.index('id="header"')
    assert "<script" not in html and "https://" not in html
    assert "&lt;b&gt;plain&lt;/b&gt;" in html  # captions are escaped


def test_admire_a_without_thumbnails_shows_captions(admire_runs, run_copy):
    run = run_copy(admire_runs["A0"])
    rows = run_context(load_run(run), thumbnails=False)["section"]["rows"]
    assert all(cell.thumbnail is None and cell.caption.startswith("Picture") for row in rows for cell in row.images)
    html = write_run_report(run, thumbnails=False).read_text()
    assert "data:image/jpeg" not in html and "Picture 1 of bad apple: a &lt;b&gt;plain&lt;/b&gt; square. Second line." in html


def test_undecodable_image_is_noted_not_fatal(admire_runs, run_copy, tmp_path):
    import shutil

    data = tmp_path / "data"
    shutil.copytree(admire_runs["data"], data)
    broken = data / "admire" / "subtask_a" / "en" / "dev" / "night owl" / "12.png"
    broken.write_bytes(b"\x89PNG not really")
    run = run_copy(admire_runs["A0"])
    config = json.loads((run / "config.json").read_text())
    config["data_files"] = [{"path": str(data / "admire" / "subtask_a" / "en" / "dev" / "subtask_a_dev.tsv"), "sha256": None}]
    (run / "config.json").write_text(json.dumps(config))
    rows = run_context(load_run(run))["section"]["rows"]
    cell = next(c for c in rows[1].images if c.name == "12.png")
    assert cell.thumbnail is None and cell.image_note == "image file 12.png could not be decoded"


def test_admire_b_page_data(admire_runs):
    run = load_run(admire_runs["B0"])
    context = run_context(run)
    rows = context["section"]["rows"]
    assert [r.compound for r in rows] == ["cold turkey", "seal of approval", "best man"]
    for row, sample in zip(rows, run.samples):
        assert row.sequence_captions == (f"first picture of {row.compound}", f"second picture of {row.compound}")
        assert [c.name for c in row.candidates] == sample["images"] and row.chosen == sample["predicted_item"]
        gold_cells = [c for c in row.candidates if c.gold_rank == 1]
        assert [c.name for c in gold_cells] == [sample["gold_item"]] == [row.candidates[1].name]
        assert row.image_correct == (sample["predicted_item"] == sample["gold_item"])
        assert row.type_correct == (sample["predicted_sentence_type"] == sample["sentence_type"])
        assert row.candidates[0].caption == f"candidate 1 of {row.compound}"
    assert len(context["section"]["group_plots"]) == 2
    assert "candidate 1 of cold turkey" in write_run_report(run.path, out=run.path.parent / "b.html").read_text()


def _results(tmp_path, split, top1, dcg, n=100, n_official=100, track="text-only", task="admire-a"):
    """A run folder as the AdMIRe runner writes it, with the given metrics (for placement only)."""
    run = tmp_path / f"{split}-{top1}"
    run.mkdir()
    results = {"task": task, "system": "my-system", "n": n, "n_official": n_official, "lang": "en", "split": split,
               "track": track, "metrics": {"top1": {"value": top1, "ci_low": 0, "ci_high": 1},
                                           "dcg": {"value": dcg, "ci_low": 0, "ci_high": 4}},
               "metrics_by_group": {}, "warnings": []}
    (run / "results.json").write_text(json.dumps(results))
    (run / "samples.jsonl").write_text("")
    return run


def test_placement_xeval_beside_published_and_humans(tmp_path):
    # EN text-only xeval: CTYUN-AI 0.64, PoliTo 0.59, Transformer25 0.54, JNLP 0.51, daalft 0.33, ChuenSumi 0.29
    placement = placement_for(load_run(_results(tmp_path, "xeval", 0.55, 3.0)))
    board = placement.boards[0]
    assert "text-only" in board.title and "extended evaluation" in board.title
    ranked = [row for row in board.rows if not row.is_reference]
    run_row = next(row for row in ranked if row.is_run)
    assert ranked.index(run_row) == 2 and run_row.cells[0] == "3" and run_row.cells[2] == "0.55 (0.5500)"
    humans = [row.cells[1] for row in board.rows if row.is_reference]
    assert humans == ["human: annotator average", "human: best individual annotator", "human: pool of experts (mean rank)"]
    # ties: equal rounded Top-1 and DCG as PoliTo -> "=2"
    tied = placement_for(load_run(_results(tmp_path, "xeval", 0.591, 3.04)))
    assert next(r for r in tied.boards[0].rows if r.is_run).cells[0] == "=2"


def test_placement_test_split_has_no_human_rows(tmp_path):
    placement = placement_for(load_run(_results(tmp_path, "test", 0.9, 3.5, n=15, n_official=15, track="text+images")))
    board = placement.boards[0]
    assert "text+images" in board.title and not any(row.is_reference for row in board.rows)
    assert next(r for r in board.rows if r.is_run).cells[0] == "4"  # behind the three 0.93 entries


def test_no_placement_for_dev_or_partial_runs(admire_runs, tmp_path):
    placement = placement_for(load_run(_results(tmp_path, "dev", 0.5, 3.0, n=15, n_official=15)))
    assert not placement.boards and "test and xeval splits only" in placement.notes[0]
    assert "4 of the 15 items" in placement_for(load_run(admire_runs["A0"])).notes[0]
    partial = placement_for(load_run(_results(tmp_path, "xeval", 0.5, 3.0, n=40)))
    assert not partial.boards and "partial" in partial.notes[0]


def test_portuguese_run_shows_the_captions_it_used(tmp_path, monkeypatch):
    from report_fixtures import A_COLUMNS, write_tsv

    from senso.api import run as run_admire
    from senso.catalog import RunOptions

    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    split_dir = tmp_path / "data" / "admire" / "subtask_a" / "pt" / "dev"
    rows = []
    for k, compound in enumerate(("pé de meia", "olho gordo")):
        names = [f"{k}{n}.png" for n in range(5)]
        row = {"compound": compound, "subset": "Dev", "sentence_type": "literal", "sentence": f"Um {compound} aqui.",
               "expected_order": repr(names)}
        for n, name in enumerate(names, 1):
            row |= {f"image{n}_name": name, f"image{n}_caption": f"English caption {n}",
                    f"image{n}_caption_pt": f"Legenda {n} de {compound}"}
        rows.append(row)
    write_tsv(split_dir / "subtask_a_dev.tsv", A_COLUMNS + [f"image{n}_caption_pt" for n in range(1, 6)], rows)
    runs = {}
    for caption_lang in ("pt", "en"):
        runs[caption_lang] = run_admire(RunOptions(task="admire-a", data_dir=tmp_path / "data", out=tmp_path / caption_lang,
                                                   lang="pt", split="dev", system="random", caption_lang=caption_lang,
                                                   no_cache=True))
    pt_rows = run_context(load_run(runs["pt"]))["section"]["rows"]
    assert {c.caption for c in pt_rows[0].images} == {f"Legenda {n} de pé de meia" for n in range(1, 6)}
    assert all(c.thumbnail is None for c in pt_rows[0].images)  # no image files: captions instead
    en_rows = run_context(load_run(runs["en"]))["section"]["rows"]
    assert {c.caption for c in en_rows[1].images} == {f"English caption {n}" for n in range(1, 6)}
    assert "<mark>pé de meia</mark>" in str(pt_rows[0].sentence)


def test_predicted_sense_of_pipeline_systems():
    assert predicted_sense({"extra": {"sense": "idiomatic", "p_idiomatic": 0.8312}}) == "idiomatic (p_idiomatic 0.83)"
    assert predicted_sense({"extra": {"sense": "literal"}}) == "literal"
    assert predicted_sense({"extra": {"ties": []}}) is None and predicted_sense({}) is None

from typer.testing import CliRunner

from senso.cli import app
from senso.admire.items import AdmireAItem, AdmireBItem, ImageOption
from senso.admire.card import (
    caption_stats, caption_words, collect_admire, plot_admire_card, summarise_a, summarise_b,
)


def test_caption_words_counts_literal_newlines_as_spaces():
    assert caption_words("A dog.\\n\\nIt runs   fast") == 5
    assert caption_words("") == 0


def test_summaries_count_senses_images_and_caption_lengths(tmp_path):
    image = tmp_path / "1.png"
    image.write_bytes(b"x")
    options = tuple(ImageOption(f"{k}.png", "one two three" if k else "one", path=image if k == 1 else None)
                    for k in range(5))
    items = [AdmireAItem("a b", "Dev", "s", options, sentence_type="idiomatic"),
             AdmireAItem("c d", "Dev", "s", options, sentence_type=None),
             AdmireAItem("e f", "Dev", "s", options, sentence_type="literal")]
    summary = summarise_a(items, "en", "dev", "file.tsv")
    assert (summary.n, summary.idiomatic, summary.literal, summary.no_gold) == (3, 1, 1, 1)
    assert summary.images_on_disk == 3 and summary.caption_words == (1, 3, 3, 3, 3) * 3
    assert caption_stats(summary.caption_words) == {"n": 15, "mean": 2.6, "median": 3.0, "min": 1.0, "max": 3.0}
    b = AdmireBItem("g h", "Train", ("x y", "z"), tuple(ImageOption(f"{k}.png", "w") for k in range(4)),
                    sentence_type="literal")
    summary_b = summarise_b([b], "en", "train", "b.tsv")
    assert summary_b.caption_words == (2, 1, 1, 1, 1, 1) and summary_b.literal == 1 and summary_b.images_on_disk == 0
    assert caption_stats(()) is None


def test_collect_reads_every_split_found(admire_runs, tmp_path):
    summaries, absent = collect_admire(admire_runs["data"])
    by_name = {s.name: s for s in summaries}
    assert set(by_name) == {"A en dev", "B en train"}
    dev = by_name["A en dev"]
    assert (dev.n, dev.idiomatic, dev.literal, dev.no_gold, dev.images_on_disk) == (4, 2, 2, 0, 20)
    assert len(dev.caption_words) == 20 and set(dev.caption_words) == {len("Picture 1 of bad apple: a <b>plain</b> square. Second line.".split())} | {
        len(f"Picture 1 of {c}: a <b>plain</b> square. Second line.".split()) for c in ("night owl", "devil's advocate", "green fingers")}
    assert "A en train" in absent and "A pt dev" in absent and "B en dev" in absent
    path = plot_admire_card(summaries, tmp_path / "figs" / "card.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_data_stats_admire(admire_runs, tmp_path):
    result = CliRunner().invoke(app, ["data", "stats", "admire", "--data-dir", str(admire_runs["data"]),
                                      "--out", str(tmp_path / "figs")])
    assert result.exit_code == 0, result.output
    dev_file = admire_runs["data"] / "admire" / "subtask_a" / "en" / "dev" / "subtask_a_dev.tsv"
    assert f"A en dev: {dev_file}" in result.output and "absent from this copy: A en train" in result.output
    assert (tmp_path / "figs" / "admire_card.png").exists()

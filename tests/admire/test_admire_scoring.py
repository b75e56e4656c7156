"""Scoring submission files against the organisers' real targets (../shared/data) and small fixtures, as
`senso score` does: the `submission` system through the one evaluation loop."""

from __future__ import annotations

import math

import pytest

import senso
from admire_fixtures import a_row, write_a_split, write_submission_a, write_submission_b
from senso.admire.data import read_targets
from senso.admire.task import parse_targets_name
from senso.core.errors import DataError
from senso.core.evaluation import EvalResult
from senso.admire.systems.baselines import item_rng


def _hand_dcg(predicted, gold):
    # independent of senso.core.stats: walk the prediction, add 3 / log2(j+2) for the gold first, 1 / log2(j+2) for the gold second
    total = 0.0
    for j, name in enumerate(predicted):
        if name == gold[0]:
            total += 3 / math.log2(j + 2)
        elif name == gold[1]:
            total += 1 / math.log2(j + 2)
    return total


def score_submission(task, submission, gold, data_dir, out, allow_partial=False):
    """The run of the `submission` system on the targets file's split (its language and split from its name)."""
    _, lang, split = parse_targets_name(gold.name)
    return senso.evaluate(task, system="submission", submission=submission, allow_partial=allow_partial, gold=gold,
                          lang=lang, split=split, data_dir=data_dir, out=out)


def n_expected(result):
    return result.record.extra["n_official"]


def partial(result):
    return any(w.startswith("PARTIAL") for w in result.warnings)


PERMUTATIONS = {
    "gold": lambda g, c: list(g),
    "reversed": lambda g, c: list(g)[::-1],
    "rotate": lambda g, c: list(g)[1:] + list(g)[:1],  # a fixed permutation
    "random": lambda g, c: list(item_rng(7, c).permutation(list(g))),  # seeded random
}


@pytest.mark.real_data
@pytest.mark.parametrize("split, n", [("train", 70), ("dev", 15)])
@pytest.mark.parametrize("kind", list(PERMUTATIONS))
def test_real_gold_and_permutations_score_what_hand_computation_gives(data_dir, tmp_path, split, n, kind):
    gold_path = data_dir / "admire" / "reference" / f"a_en_{split}_targets.tsv"
    targets = read_targets(gold_path)
    predictions = [(t.compound, PERMUTATIONS[kind](t.expected_order, t.compound)) for t in targets]
    sub = write_submission_a(tmp_path / "submission_EN.tsv", predictions)
    report = score_submission("admire-a", sub, gold_path, data_dir, tmp_path / "run")
    assert isinstance(report, EvalResult) and report.n == n_expected(report) == n and not partial(report)
    top1 = [float(p[0] == t.expected_order[0]) for (_, p), t in zip(predictions, targets)]
    dcg = [_hand_dcg(p, t.expected_order) for (_, p), t in zip(predictions, targets)]
    assert report.metrics["top1"].value == pytest.approx(sum(top1) / n, abs=1e-12)
    assert report.metrics["dcg"].value == pytest.approx(sum(dcg) / n, abs=1e-12)
    if kind == "gold":
        assert report.metrics["top1"].value == 1.0 and round(report.metrics["dcg"].value, 4) == 3.6309
    if kind == "reversed":
        assert report.metrics["top1"].value == 0.0 and round(report.metrics["dcg"].value, 4) == 1.5912
    if kind == "rotate":  # gold first goes last (3/log2 6), gold second comes first (1/log2 2)
        assert report.metrics["dcg"].value == pytest.approx(3 / math.log2(6) + 1)
    for group in ("idiomatic", "literal"):
        rows = [d for d, t in zip(dcg, targets) if t.sentence_type == group]
        assert report.metrics_by_group[group]["dcg"].value == pytest.approx(sum(rows) / len(rows), abs=1e-12)
    est = report.metrics["dcg"]
    assert est.ci_low <= est.value <= est.ci_high


@pytest.mark.real_data
def test_official_row_count_is_enforced_on_real_targets(data_dir, tmp_path):
    gold_path = data_dir / "admire" / "reference" / "a_en_dev_targets.tsv"
    targets = read_targets(gold_path)
    sub = write_submission_a(tmp_path / "submission_EN.tsv", [(t.compound, t.expected_order) for t in targets[:10]])
    with pytest.raises(DataError, match=r"10 rows, but the official split has 15 \(en dev, from the gold file name"):
        score_submission("admire-a", sub, gold_path, data_dir, tmp_path / "refused")
    report = score_submission("admire-a", sub, gold_path, data_dir, tmp_path / "run", allow_partial=True)
    assert partial(report) and report.n == 10 and report.metrics["top1"].value == 1.0
    assert any("PARTIAL: 10 of the 15 items of the official en dev split (submission_EN.tsv holds 10 rows, "
               "--allow-partial)" in warning for warning in report.warnings)
    assert [s.compound for s in report.samples] == [t.compound for t in targets[:10]]


@pytest.mark.real_data
def test_subtask_b_scoring_on_real_targets(data_dir, tmp_path):
    gold_path = data_dir / "admire" / "reference" / "b_en_train_targets.tsv"
    targets = read_targets(gold_path)
    flipped = {"idiomatic": "literal", "literal": "idiomatic"}
    rows = [(t.compound, flipped[t.sentence_type] if i % 2 else t.sentence_type, t.expected_item) for i, t in enumerate(targets)]
    report = score_submission("admire-b", write_submission_b(tmp_path / "submission_EN.tsv", rows), gold_path,
                              data_dir, tmp_path / "run")
    assert report.metrics["image_accuracy"].value == 1.0
    assert report.metrics["sentence_type_accuracy"].value == pytest.approx(10 / 20)


def test_unknown_compound_and_wrong_subtask_are_refused(tmp_path):
    data = write_a_split(tmp_path / "data", "en", "dev", [a_row(f"c{i}", first=10 * i) for i in range(15)], images=False)
    gold = tmp_path / "a_en_dev_targets.tsv"
    gold.write_text((data / "admire/subtask_a/en/dev/subtask_a_dev.tsv").read_text(encoding="utf-8"), encoding="utf-8")
    rows = [(f"c{i}", [f"{10 * i + k}.png" for k in range(5)]) for i in range(14)] + [("c99", [f"{k}.png" for k in range(5)])]
    sub = write_submission_a(tmp_path / "submission_EN.tsv", rows)
    with pytest.raises(DataError, match=r"row 15, field 'compound': unknown compound 'c99'"):
        score_submission("admire-a", sub, gold, data, tmp_path / "a")
    with pytest.raises(DataError, match="Subtask A submission, not admire-b"):
        score_submission("admire-b", sub, gold, data, tmp_path / "b")
    order = [(f"c{i}", [f"{10 * i + k}.png" for k in (0, 2, 1, 3, 4)]) for i in range(15)]  # not c3's images
    order[3] = ("c3", [f"{k}.png" for k in range(5)])
    with pytest.raises(DataError, match=r"row 4, field 'expected_order'"):
        score_submission("admire-a", write_submission_a(tmp_path / "other" / "submission_EN.tsv", order), gold, data,
                         tmp_path / "c")


def test_a_sample_line_keeps_its_fields_in_order_and_leaves_out_the_unknown():
    from dataclasses import dataclass, field

    from senso.admire.scoring import Sample

    @dataclass
    class Line(Sample):
        compound: str
        metrics: dict[str, float]
        extra: dict[str, str] = field(default_factory=dict)
        overlap: dict[str, bool] | None = None

    assert Line("x", {"top1": 1.0}).to_json() == {"compound": "x", "top1": 1.0}
    line = Line("x", {}, {"sense": "literal"}, {"compound": True})
    assert list(line.to_json().items()) == [("compound", "x"), ("extra", {"sense": "literal"}),
                                            ("overlap", {"compound": True})]


def test_a_subtask_b_item_scores_its_image_and_its_sentence_type_apart():
    from senso.admire.scoring import score_item_b

    assert score_item_b("1.png", "literal", "1.png", "idiomatic") == {"image_accuracy": 1.0, "sentence_type_accuracy": 0.0}
    assert score_item_b("2.png", "idiomatic", "1.png", "idiomatic") == {"image_accuracy": 0.0, "sentence_type_accuracy": 1.0}

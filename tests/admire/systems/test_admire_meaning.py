from pathlib import Path

import pytest

from senso.core.errors import DataError, SensoError
from senso.admire.systems.meaning import (FallbackMeaning, GlossaryMeaning, WordNetMeaning, lemma_variants,
                                          literal_reading, read_glossary)
from senso.admire.systems.wordnet import WordNet

from admire_parts_fixtures import write_wordnet


@pytest.fixture()
def wordnet(tmp_path: Path) -> WordNet:
    return WordNet(write_wordnet(tmp_path / "dict"))


def test_wordnet_meaning_skips_the_literal_sense(wordnet):
    meaning = WordNetMeaning(wordnet).meaning("black sheep")
    assert meaning.text == "a reckless and unprincipled reprobate"
    assert meaning.source.startswith("wordnet:") and meaning.source.endswith("-n")


def test_wordnet_meaning_closed_up_spelling(wordnet):
    assert lemma_variants("copy cat") == ["copy_cat", "copy-cat", "copycat"]
    assert WordNetMeaning(wordnet).meaning("copy cat").text.startswith("someone who copies")


def test_compound_missing_from_wordnet_falls_back_to_glossary(wordnet, tmp_path):
    assert WordNetMeaning(wordnet).meaning("bad apple") is None
    glossary = tmp_path / "glossary.tsv"
    glossary.write_text("compound\tmeaning\n# comment\nbad apple\ta person who spoils a group\n", encoding="utf-8")
    chain = FallbackMeaning([WordNetMeaning(wordnet), GlossaryMeaning(glossary)])
    found = chain.meaning("Bad Apple")
    assert found.text == "a person who spoils a group" and found.source == "glossary:glossary.tsv"
    assert chain.meaning("night owl").source.startswith("wordnet:")
    assert chain.meaning("thin ice") is None


def test_glossary_matches_hyphenation_and_portuguese(tmp_path):
    glossary = tmp_path / "pt.tsv"
    glossary.write_text("pé-de-meia\tdinheiro guardado para o futuro\n", encoding="utf-8")
    source = GlossaryMeaning(glossary)
    assert source.meaning("pé de meia").text == "dinheiro guardado para o futuro"
    assert source.describe()["entries"] == 1


def test_glossary_errors_name_file_and_row(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("night owl\tsomeone up late\nnight owl\tagain\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad.tsv, row 2, field 'compound'.*twice"):
        read_glossary(bad)
    bad.write_text("night owl\n", encoding="utf-8")
    with pytest.raises(DataError, match="row 1"):
        read_glossary(bad)
    with pytest.raises(SensoError, match="not found"):
        read_glossary(tmp_path / "missing.tsv")


def test_literal_reading_uses_each_word(wordnet):
    text = literal_reading("night owl", wordnet)
    assert text.startswith("night owl: night (the time after sunset")
    assert "owl (nocturnal bird of prey" in text
    assert literal_reading("bad apple", wordnet) == ("bad apple: bad (having undesirable or negative qualities); "
                                                      "apple (fruit with red or yellow or green skin and crisp flesh)")
    assert literal_reading("night owl", None) == "night owl"


def test_english_wordnet_is_not_used_for_portuguese(wordnet, tmp_path):
    assert WordNetMeaning(wordnet).meaning("night owl", lang="pt") is None
    assert literal_reading("night owl", wordnet, lang="pt") == "night owl"
    glossary = tmp_path / "pt.tsv"
    glossary.write_text("night owl\tnotívago\n", encoding="utf-8")
    chain = FallbackMeaning([WordNetMeaning(wordnet), GlossaryMeaning(glossary)])
    assert chain.meaning("night owl", lang="pt").text == "notívago"

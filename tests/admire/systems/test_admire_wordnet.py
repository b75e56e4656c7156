from pathlib import Path

import pytest

from senso.core.errors import SensoError
from senso.admire.systems.wordnet import WordNet

from admire_parts_fixtures import write_wordnet


@pytest.fixture()
def wordnet(tmp_path: Path) -> WordNet:
    return WordNet(write_wordnet(tmp_path / "dict"))


def test_synsets_definitions_examples_and_order(wordnet):
    found = wordnet.synsets("black sheep")
    assert [s.definition for s in found] == ["a reckless and unprincipled reprobate", "sheep with a black coat"]
    child = wordnet.synsets("child")[0]
    assert child.lemmas == ("child", "kid") and child.examples == ("she writes books for children",)
    assert wordnet.synsets("night_owl")[0].definition == "a person who likes to be active late at night"


def test_morphology_plural_and_exceptions(wordnet):
    assert wordnet.synsets("owls")[0].lemmas == ("owl",)
    assert wordnet.synsets("children")[0].lemmas == ("child", "kid")
    assert wordnet.synsets("flower_children")[0].lemmas == ("flower_child",)
    assert wordnet.synsets("thin", "a")[0].definition.startswith("of relatively small extent")


def test_absent_lemma(wordnet):
    assert wordnet.synsets("bad_apple") == []
    assert wordnet.synsets("thin_ice") == []


def test_zip_like_nltk(tmp_path):
    archive = write_wordnet(tmp_path / "wordnet", zipped=True)
    assert WordNet(archive).synsets("owl")[0].definition.startswith("nocturnal bird")


def test_locate_explicit_path_without_database_is_an_error(tmp_path):
    with pytest.raises(SensoError, match="index.noun missing"):
        WordNet.locate(tmp_path)


def test_real_wordnet_when_installed(wordnet_installed):
    wordnet = WordNet(wordnet_installed)
    assert wordnet.synsets("night_owl")[0].definition == "a person who likes to be active late at night"
    assert wordnet.synsets("bad_apple") == [] and wordnet.synsets("thin_ice") == []
    assert wordnet.synsets("copycat")[0].definition == "someone who copies the words or behavior of another"

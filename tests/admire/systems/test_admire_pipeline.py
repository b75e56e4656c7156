import pytest

from senso.core.errors import SensoError
from senso.core.options import RunOptions
from senso.admire.systems.evidence import EvidenceBuilder
from senso.admire.systems.meaning import FallbackMeaning, GlossaryMeaning, WordNetMeaning
from senso.admire.systems.pipeline import Ensemble, SensePipeline, build_meanings, build_ranker, build_sense
from senso.admire.systems.registry import system_catalog
from senso.admire.systems.rankers import CaptionRanker, StructureRanker
from senso.admire.systems.sense import EmbeddingSense, FittedSense, GoldSense
from senso.admire.systems.sequence import SequenceContinuation
from senso.admire.systems.wordnet import WordNet
from senso.admire.systems.registry import ADMIRE_A_SYSTEMS, ADMIRE_B_SYSTEMS

from admire_parts_fixtures import (IDIOMATIC_SENTENCE, LITERAL_SENTENCE, BagOfWordsEmbedder, night_owl_item,
                                   sequence_item, write_wordnet)


@pytest.fixture()
def wordnet(tmp_path):
    return WordNet(write_wordnet(tmp_path / "dict"))


@pytest.fixture()
def builder(wordnet):
    return EvidenceBuilder(BagOfWordsEmbedder(), WordNetMeaning(wordnet), wordnet)


def items():
    return [night_owl_item(IDIOMATIC_SENTENCE, "idiomatic"), night_owl_item(LITERAL_SENTENCE, "literal")]


def test_sense_pipeline_end_to_end_on_fixture(builder):
    pipeline = SensePipeline(EmbeddingSense([builder]), StructureRanker(builder), builder)
    rankings = pipeline.rank(items())
    assert rankings[0].order[0] == "strong_idiom.png" and rankings[0].extra["sense"] == "idiomatic"
    assert rankings[1].order[0] == "strong_literal.png" and rankings[1].extra["sense"] == "literal"
    assert rankings[0].extra["meaning"]["text"] == "a person who likes to be active late at night"
    assert pipeline.fitted_compounds == frozenset()
    assert pipeline.describe()["training_free"] is True


def test_fitted_sense_makes_the_pipeline_report_its_compounds(builder):
    fitted = FittedSense(builder, word_centre=-0.5, folds=2).fit(items() * 2)
    pipeline = SensePipeline(fitted, StructureRanker(builder), builder)
    assert pipeline.fitted_compounds == frozenset({"night owl"})
    assert pipeline.describe()["training_free"] is False


def test_ensemble_fuses_members_and_records_them(builder):
    structure = SensePipeline(GoldSense(), StructureRanker(builder), builder, name="structure")
    caption = SensePipeline(GoldSense(), CaptionRanker(builder), builder, name="caption")
    fused = Ensemble([structure, caption], "borda").rank(items())
    assert set(fused[0].extra["members"]) == {"structure", "caption"}
    assert fused[0].extra["aggregator"] == "borda"
    assert sorted(fused[0].order) == sorted(i.name for i in items()[0].images)
    # Borda of identical members is that member's order
    same = Ensemble([structure, structure], "rrf").rank(items())
    assert same[1].order == structure.rank(items())[1].order


def test_sequence_continuation_on_fixture(wordnet):
    chooser = SequenceContinuation(BagOfWordsEmbedder(), WordNetMeaning(wordnet), wordnet)
    choice = chooser.choose([sequence_item()])[0]
    assert choice.expected_item == "b.png"
    assert choice.sentence_type == "literal"  # the captions name the owl
    assert choice.extra["sense_evidence"]["mentioned"] == ["night", "owl"]


def test_options_build_the_named_parts(tmp_path, wordnet):
    glossary = tmp_path / "g.tsv"
    glossary.write_text("bad apple\ta person who spoils a group\n", encoding="utf-8")
    options = RunOptions(task="admire-a", system_options={"glossary": str(glossary)})
    chain = build_meanings(options, wordnet, cache=None)
    assert isinstance(chain, FallbackMeaning) and isinstance(chain.sources[0], GlossaryMeaning)
    assert isinstance(chain.sources[1], WordNetMeaning)
    assert build_meanings(RunOptions(task="admire-a", system_options={"meaning": "none"}), wordnet, None) is None
    with pytest.raises(SensoError, match="needs --glossary"):
        build_meanings(RunOptions(task="admire-a", system_options={"meaning": "glossary"}), wordnet, None)
    with pytest.raises(SensoError, match="no WordNet database"):
        build_meanings(RunOptions(task="admire-a", system_options={"meaning": "wordnet"}), None, None)
    with pytest.raises(SensoError, match="unknown meaning source"):
        build_meanings(RunOptions(task="admire-a", system_options={"meaning": "oracle"}), wordnet, None)


def test_options_sense_and_ranker(builder):
    opts = lambda **kw: RunOptions(task="admire-a", embedder="bow", system_options=kw)
    sense = build_sense(opts(sense="gloss-similarity"), None, builder)
    assert sense.signals == ("gloss",) and [b.embedder.spec for b in sense.builders] == ["bow"]
    assert isinstance(build_sense(opts(sense="gold"), None, builder), GoldSense)
    with pytest.raises(SensoError, match="unknown sense classifier"):
        build_sense(opts(sense="tea-leaves"), None, builder)
    assert build_ranker(opts(ranker="structure", hedge="false"), builder).hedge is False
    with pytest.raises(SensoError, match="unknown ranker"):
        build_ranker(opts(ranker="vibes"), builder)


def test_registry_and_catalog():
    assert {"random", "caption-similarity", "sense-pipeline", "ensemble"} <= set(ADMIRE_A_SYSTEMS)
    assert {"random", "sequence-continuation"} <= set(ADMIRE_B_SYSTEMS)
    rows = system_catalog()
    names = {(kind, name) for kind, name, _ in rows}
    assert ("admire-a", "sense-pipeline") in names and ("sense (--sense)", "prompt-literal-first") in names
    assert all(summary and summary != "-" for _, _, summary in rows)

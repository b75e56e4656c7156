import pytest

from senso.catalog import RunOptions
from senso.core.params import OptionError, Text, declared
from senso.admire.systems.aggregate import AGGREGATORS
from senso.admire.systems.context import SystemContext
from senso.admire.systems.evidence import EvidenceBuilder
from senso.admire.systems.meaning import FallbackMeaning, GlossaryMeaning, WordNetMeaning
from senso.admire.systems.parts import AGGREGATOR_SUMMARIES, SENSES
from senso.admire.systems.pipeline import (SENSE_BUILDERS, Ensemble, SensePipeline, build_meanings, build_ranker,
                                           build_sense, check_builder)
from senso.admire.systems.parts import SensePipelineOptions
from senso.admire.systems.registry import SYSTEMS, system_catalog
from senso.admire.systems.rankers import CaptionRanker, StructureRanker
from senso.admire.systems.sense import EmbeddingSense, FittedSense, GoldSense
from senso.admire.systems.sequence import SequenceContinuation
from senso.admire.systems.wordnet import WordNet

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


def context(embedder: str | None = "bow", **given) -> SystemContext:
    """The context a factory of sense-pipeline is given: the run's options and the parts' typed values."""
    values = declared(SensePipelineOptions).resolve(given, "test")
    return SystemContext(RunOptions(task="admire-a", embedder=embedder), SensePipelineOptions.from_values(values),
                         settings=values)


def test_options_build_the_named_parts(tmp_path, wordnet):
    glossary = tmp_path / "g.tsv"
    glossary.write_text("bad apple\ta person who spoils a group\n", encoding="utf-8")
    chain = build_meanings(context(glossary=str(glossary)), wordnet)
    assert isinstance(chain, FallbackMeaning) and isinstance(chain.sources[0], GlossaryMeaning)
    assert isinstance(chain.sources[1], WordNetMeaning)
    assert build_meanings(context(meaning="none"), wordnet) is None
    with pytest.raises(OptionError, match="needs --glossary"):
        check_builder(context(meaning="glossary").params.evidence)
    with pytest.raises(OptionError, match="--meaning: unknown value 'oracle'; choose from auto, wordnet"):
        context(meaning="oracle")


def test_options_sense_and_ranker(builder):
    sense = build_sense(context(sense="gloss-similarity"), builder)
    assert sense.signals == ("gloss",) and [b.embedder.spec for b in sense.builders] == ["bow"]
    assert isinstance(build_sense(context(sense="gold"), builder), GoldSense)
    with pytest.raises(OptionError, match="--sense: unknown value 'tea-leaves'"):
        context(sense="tea-leaves")
    assert build_ranker(context(ranker="structure", hedge=Text("false")), builder).hedge is False
    assert build_ranker(context(hedge=Text("off")), builder).hedge is False
    assert build_ranker(context(hedge=False), builder).hedge is False
    with pytest.raises(OptionError, match="--set hedge expects True or False, got the string 'off'"):
        context(hedge="off")  # a Python string is never taken for a bool
    assert build_ranker(context(), builder).hedge is True
    with pytest.raises(OptionError, match="--ranker: unknown value 'vibes'"):
        context(ranker="vibes")


def test_every_declared_part_has_a_builder():
    assert set(SENSE_BUILDERS) == set(SENSES)
    assert set(AGGREGATORS) == set(AGGREGATOR_SUMMARIES)


def test_registry_and_catalog():
    assert {"random", "caption-similarity", "sense-pipeline", "ensemble"} <= set(SYSTEMS["a"])
    assert {"random", "sequence-continuation"} <= set(SYSTEMS["b"]) and set(SYSTEMS["sense"]) == {"sense-classifier"}
    assert all(row.subtask == subtask and row.name == name for subtask, table in SYSTEMS.items()
               for name, row in table.items())
    rows = system_catalog()
    names = {(kind, name) for kind, name, _ in rows}
    assert ("admire-a", "sense-pipeline") in names and ("sense (--sense)", "prompt-literal-first") in names
    assert ("admire-sense", "sense-classifier") in names
    assert all(summary and summary != "-" for _, _, summary in rows)

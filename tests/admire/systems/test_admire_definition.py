import pytest

from senso.admire.systems.definition import DEFINITION_CONTEXT, PRIOR_CONTEXT, DefinitionSense, definition_pmi
from senso.admire.systems.evidence import EvidenceBuilder
from senso.admire.systems.meaning import WordNetMeaning
from senso.admire.systems.sense import EmbeddingSense
from senso.admire.systems.wordnet import WordNet

from admire_parts_fixtures import IDIOMATIC_SENTENCE, LITERAL_SENTENCE, BagOfWordsEmbedder, night_owl_item, write_wordnet

IDIOM = "a person who likes to be active late at night"


class ScriptedLM:
    """Scores each continuation by a table keyed on (context kind, continuation); records every prompt."""

    def __init__(self, table: dict[tuple[str, str], float]):
        self.table = table
        self.prompts = []

    def loglikelihood_choices(self, prompts, batch_size=8):
        self.prompts += list(prompts)
        out = []
        for prompt in prompts:
            kind = "prior" if prompt.context == PRIOR_CONTEXT.format(compound="night owl") else "sentence"
            out.append([self.table[(kind, "idiom" if c == " " + IDIOM else "literal")] for c in prompt.continuations])
        return out


@pytest.fixture()
def wordnet(tmp_path):
    return WordNet(write_wordnet(tmp_path / "dict"))


def test_pmi_subtracts_each_definitions_prior():
    # the literal reading is likelier in both contexts; only the change from its prior counts
    assert definition_pmi([-10.0, -6.0], [-14.0, -5.0]) == pytest.approx((-10 + 14) - (-6 + 5))


def test_prompts_scores_and_undecided_items(wordnet):
    lm = ScriptedLM({("sentence", "idiom"): -10.0, ("sentence", "literal"): -20.0,
                     ("prior", "idiom"): -12.0, ("prior", "literal"): -15.0})
    sense = DefinitionSense(lm, WordNetMeaning(wordnet), wordnet, centre=1.0, scale=2.0)
    bad_apple = night_owl_item(IDIOMATIC_SENTENCE, "idiomatic")
    bad_apple = type(bad_apple)(**{**bad_apple.__dict__, "compound": "bad apple"})  # not a WordNet lemma here
    decisions = sense.classify([night_owl_item(IDIOMATIC_SENTENCE, "idiomatic"), bad_apple])

    contexts = [p.context for p in lm.prompts]
    assert contexts == [DEFINITION_CONTEXT.format(sentence=IDIOMATIC_SENTENCE, compound="night owl"),
                        PRIOR_CONTEXT.format(compound="night owl")]  # nothing asked for the undecided item
    assert lm.prompts[0].continuations[0] == " " + IDIOM
    assert lm.prompts[0].continuations[1].startswith(" night (the time after sunset")
    signal = decisions[0].evidence["definition"]
    assert signal["pmi"] == pytest.approx((-10 + 12) - (-20 + 15))  # 7
    assert decisions[0].p_idiomatic > 0.99  # (7 - 1) / 2 = 3 spreads
    assert decisions[1].p_idiomatic == 0.5 and "undecided" in decisions[1].evidence["note"]


def test_definition_joins_the_embedding_mean_as_one_signal(wordnet):
    builder = EvidenceBuilder(BagOfWordsEmbedder(), WordNetMeaning(wordnet), wordnet)
    lm = ScriptedLM({("sentence", "idiom"): -30.0, ("sentence", "literal"): -5.0,
                     ("prior", "idiom"): -12.0, ("prior", "literal"): -15.0})
    items = [night_owl_item(IDIOMATIC_SENTENCE, "idiomatic")]
    plain = EmbeddingSense([builder]).classify(items)[0]
    combined = EmbeddingSense([builder], definition=DefinitionSense(lm, builder.meanings, wordnet, scale=10.0)).classify(items)[0]
    assert set(combined.evidence["signals"]) == set(plain.evidence["signals"]) | {"lm.definition"}
    assert combined.evidence["signals"]["lm.definition"] == pytest.approx(-28.0)
    assert combined.p_idiomatic < plain.p_idiomatic  # a strongly literal LM vote pulls the mean down


def test_default_model_prefers_the_fitting_definition(default_lm, wordnet):
    """The real default model (Gemma-3-270M) on sentences that spell their sense out."""
    items = [night_owl_item(IDIOMATIC_SENTENCE, "idiomatic"), night_owl_item(LITERAL_SENTENCE, "literal")]
    one = DefinitionSense(default_lm, WordNetMeaning(wordnet), wordnet, batch_size=1).signals(items)
    many = DefinitionSense(default_lm, WordNetMeaning(wordnet), wordnet, batch_size=8).signals(items)
    assert one[0]["pmi"] > one[1]["pmi"]
    for a, b in zip(one, many):
        assert a["pmi"] == pytest.approx(b["pmi"], abs=1e-3)  # batch size does not change the numbers

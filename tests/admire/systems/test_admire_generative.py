"""The generative backend on a tiny random model built here (no download): log-probabilities match a
hand computation from the logits, answers are cached, and the prompt/likelihood sense parts run."""

import math

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from senso.backends.cached import with_cache
from senso.core.cache import ResponseCache  # noqa: E402
from senso.admire.systems.generative import Generator, LikelihoodSense, PromptSense  # noqa: E402
from senso.admire.systems.meaning import Meaning  # noqa: E402

from admire_parts_fixtures import IDIOMATIC_SENTENCE, LITERAL_SENTENCE, night_owl_item  # noqa: E402

CHAT_TEMPLATE = ("{% for m in messages %}<s> {{ m['role'] }} : {{ m['content'] }} </s> {% endfor %}"
                 "{% if add_generation_prompt %}<s> assistant : {% endif %}")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny-chat-model")
    words = ("<unk> <s> </s> user assistant : idiomatic literal a the night owl person who likes to be active late "
             "at bird of prey sentence is expression used in this or answer with one word").split()
    vocab = {w: i for i, w in enumerate(dict.fromkeys(words))}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>", eos_token="</s>")
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(folder)
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=256,
                                      bos_token_id=1, eos_token_id=2)
    transformers.LlamaForCausalLM(config).save_pretrained(folder)
    return folder


def test_choice_logprobs_match_the_logits_and_are_cached(tiny_model, tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    generator = with_cache(Generator(str(tiny_model)), cache)
    messages = [{"role": "user", "content": "night owl"}]
    idiomatic, literal = generator.choice_logprobs(messages, ["idiomatic", "literal"])
    _, tokenizer = generator._load()
    ids = generator._chat_ids(messages)
    with torch.no_grad():
        logits = generator._model(torch.tensor([ids])).logits[0, -1]
    expected = torch.log_softmax(logits.float(), -1)[tokenizer.convert_tokens_to_ids("idiomatic")].item()
    assert idiomatic == pytest.approx(expected, abs=1e-5)
    assert literal < 0 and idiomatic < 0
    again = with_cache(Generator(str(tiny_model)), cache)  # a fresh generator answers from the cache without loading
    assert again.choice_logprobs(messages, ["idiomatic", "literal"]) == [idiomatic, literal]
    assert again._model is None


def test_text_logprob_is_the_chain_rule_sum(tiny_model):
    generator = Generator(str(tiny_model))
    total, n = generator.text_logprob("the night owl")
    assert n == 3
    _, tokenizer = generator._load()
    ids = [tokenizer.bos_token_id] + tokenizer("the night owl", add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logprobs = torch.log_softmax(generator._model(torch.tensor([ids])).logits[0].float(), -1)
    assert total == pytest.approx(sum(logprobs[i, ids[i + 1]].item() for i in range(3)), abs=1e-5)


def test_prompt_and_likelihood_sense_run(tiny_model):
    generator = Generator(str(tiny_model))
    items = [night_owl_item(IDIOMATIC_SENTENCE, "idiomatic"), night_owl_item(LITERAL_SENTENCE, "literal")]
    decisions = PromptSense(generator).classify(items)
    for d in decisions:
        lp = d.evidence["logprobs"]
        assert d.p_idiomatic == pytest.approx(1 / (1 + math.exp(lp["literal"] - lp["idiomatic"])))
    literal_first = PromptSense(generator, literal_first=True).classify(items[:1])[0]
    assert "literal_example" in literal_first.evidence

    class OneMeaning:
        def meaning(self, compound, sentence=None, lang="en"):
            return Meaning(compound, "a person who likes to be active late", "test")

    likelihood = LikelihoodSense(generator, OneMeaning()).classify(items)
    assert all(0 < d.p_idiomatic < 1 and "per_token_difference" in d.evidence for d in likelihood)
    assert LikelihoodSense(generator, None).classify(items[:1])[0].p_idiomatic == 0.5

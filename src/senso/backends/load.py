"""`load_model(spec, role, ...)`: the one way the wings get a model, for every role.

It parses the spec once (`senso.backends.specs.parse_spec`), honours `--backend`, `--base-url`,
dtype, device and batch size for the role's backends, and puts the response cache around the model
once (`senso.backends.cached.with_cache`; `cache=None` or a disabled cache: no wrapper, no sqlite file).
Served models (openai) are wrapped the same way by their loader (`load_openai_lm`), per HTTP request.
"""

from __future__ import annotations

import importlib
from typing import Any

from senso.backends.cached import with_cache
from senso.backends.specs import ROLE_FLAGS, ModelSpec, parse_spec
from senso.core.cache import ResponseCache
from senso.core.errors import SensoError
from senso.core.options import DEFAULT_BATCH_SIZE, check_batch_size

VLM_SETTINGS = ("judge_scoring", "image_detail")


def served_settings(options: dict[str, Any]) -> dict[str, Any]:
    """The `--set` options that configure a served (openai) model, out of all of a run's."""
    from senso.backends.openai import SETTINGS

    return {k: v for k, v in options.items() if k in SETTINGS or k in VLM_SETTINGS}


def load_model(spec: str | ModelSpec | None, role: str, *, backend: str | None = None, base_url: str | None = None,
               dtype: str = "float32", device: str = "cpu", batch_size: int = DEFAULT_BATCH_SIZE,
               cache: ResponseCache | None = None, settings: dict[str, Any] | None = None,
               chat_template: bool = False) -> Any:
    """The model `spec` names for `role` ("lm", "embedder", "generator", "image", "vlm").

    `backend` is the default backend of a bare name (`--backend`); `base_url` is the server of an
    openai model and an error for any other; `settings` are an openai model's `--set` options.
    """
    parsed = spec if isinstance(spec, ModelSpec) else parse_spec(spec, role, default_backend=backend)
    check_batch_size(batch_size)
    if base_url and parsed.backend != "openai":
        raise SensoError(f"--base-url is for the openai backend, but the {ROLE_FLAGS[role]} model is {parsed}; "
                         f"use {ROLE_FLAGS[role]} openai:SERVED_NAME or drop --base-url")
    cache = cache if cache is not None and cache.enabled else None
    settings = dict(settings or {})
    if parsed.backend == "openai":
        return _served(parsed, role, base_url, cache, settings, chat_template)
    if role == "lm":
        return with_cache(_hf_lm(parsed, dtype, device, chat_template), cache)
    if role == "embedder":
        from senso.backends.embedders import Embedder

        return with_cache(Embedder(str(parsed)), cache)
    if role == "generator":
        from senso.backends.generator import Generator, converted_default_generator

        path = str(converted_default_generator()) if parsed.is_default else parsed.name
        return with_cache(Generator(path, device, dtype), cache)
    if role == "image":
        from senso.backends.image_text import ImageTextModel

        return with_cache(ImageTextModel(str(parsed), batch_size=batch_size, device=device, dtype=dtype), cache)
    if role == "vlm":
        from senso.backends.vlm import TransformersVLM

        return with_cache(TransformersVLM(str(parsed), device=device, dtype=dtype), cache)
    raise SensoError(f"unknown model role {role!r}")


# The last transformers LM loaded in this process, kept so that several tasks of one `senso run` (or one
# Python session) share one load; its token counters are reset for each run that gets it.
_LAST_LM: dict[tuple, Any] = {}


def _hf_lm(parsed: ModelSpec, dtype: str, device: str, chat_template: bool):
    from senso.backends.hf import HFCausalLM

    key = (str(parsed), dtype, device, chat_template)
    model = _LAST_LM.get(key)
    if model is None:
        _LAST_LM.clear()
        if parsed.is_default:
            from senso.backends.default_model import check_tokenizer, default_model_path

            model = HFCausalLM(default_model_path(), dtype=dtype, device=device, chat_template=chat_template,
                               spec=str(parsed))
            check_tokenizer(model.tokenizer)
        else:
            model = HFCausalLM(parsed.name, dtype=dtype, device=device, chat_template=chat_template, spec=str(parsed))
        _LAST_LM[key] = model
    model.reset_counters()
    return model


def _served(parsed: ModelSpec, role: str, base_url: str | None, cache: ResponseCache | None,
            settings: dict[str, Any], chat_template: bool):
    try:
        openai = importlib.import_module("senso.backends.openai")
    except ModuleNotFoundError as exc:
        if exc.name != "senso.backends.openai":
            raise
        raise SensoError(f"the openai backend is not available in this version of senso (spec {parsed})") from None
    if role == "lm":
        return openai.load_loglikelihood_model(parsed.name, cache=cache, chat_template=chat_template,
                                               base_url=base_url, **settings)
    if role == "vlm":
        from senso.backends.vlm import vision_lm

        return vision_lm(str(parsed), base_url, cache, settings=settings)
    raise SensoError(f"{ROLE_FLAGS[role]} {parsed}: AdMIRe generative parts run on transformers models "
                     "(hf:NAME_OR_PATH); served models are not wired for them yet")

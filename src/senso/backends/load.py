"""`load_model(spec, role, ...)`: the one way the wings get a model, for every role.

It parses the spec once (`senso.backends.specs.parse_spec`), honours `--backend`, `--base-url`,
dtype, device and batch size for the role's backends, and puts the response cache around the model
once (`senso.backends.cached.with_cache`; `cache=None` or a disabled cache: no wrapper, no sqlite file).
Served models (openai) are wrapped the same way by their loader (`load_openai_lm`), per HTTP request.
With a `pool` (`senso.backends.pool.ModelPool`) a local model is built once per pool and shared by the
runs that use it, and a model the caller provided for the role (an object in memory) is used as it is.
"""

from __future__ import annotations

import importlib
from dataclasses import replace
from typing import Any, Callable, Mapping

from senso.backends.cached import with_cache
from senso.backends.pool import ModelPool
from senso.backends.specs import ROLE_FLAGS, ModelSpec, parse_spec
from senso.core.cache import ResponseCache
from senso.core.errors import SensoError
from senso.core.options import DEFAULT_BATCH_SIZE, check_batch_size
from senso.core.params import OptionError, Params

MODEL_ARGS_FLAG = "--model-args"


def model_args_params(vlm: bool = False) -> Params:
    """The settings a served model takes (`--model-args KEY=VALUE`): the openai backend's, and a served VLM's too."""
    from senso.backends.openai import OPENAI_PARAMS
    from senso.backends.vlm import VLM_PARAMS

    params = OPENAI_PARAMS + VLM_PARAMS if vlm else OPENAI_PARAMS
    return Params(*(replace(p, flag=f"{MODEL_ARGS_FLAG} {p.name}") for p in params))


def refuse_model_args_among(system_options: Mapping[str, Any]) -> None:
    """A served model's setting given as a system option (`--set scoring=echo`) is an error saying where it goes."""
    misplaced = [name for name in system_options if name in model_args_params(vlm=True)]
    if misplaced:
        raise OptionError(f"--set {', '.join(misplaced)}: a setting of the served model, not an option of the system; "
                          f"give it as {MODEL_ARGS_FLAG} {misplaced[0]}=VALUE (in Python: model_args={{...}})")


def resolve_model_args(given: Mapping[str, Any], served: bool, owner: str, vlm: bool = False) -> dict[str, Any]:
    """The typed settings of a run's served model from `--model-args` (`given`); none when it reads no served
    model, where any given is an error saying so."""
    if not served:
        if given:
            raise SensoError(f"{MODEL_ARGS_FLAG} {', '.join(given)}: {owner} reads no served (openai) model here, so "
                             f"it takes no model settings; give --model openai:NAME (or --generator openai:NAME) or "
                             f"leave {MODEL_ARGS_FLAG} out")
        return {}
    params = model_args_params(vlm)
    try:
        params.check_names(given, owner, flags={name: f"{MODEL_ARGS_FLAG} {name}" for name in given})
    except OptionError as exc:
        raise OptionError(str(exc)) from None  # a setting of the model, not an option of the system
    return params.resolve(given, owner)


def load_model(spec: str | ModelSpec | None, role: str, *, backend: str | None = None, base_url: str | None = None,
               dtype: str = "float32", device: str = "cpu", batch_size: int = DEFAULT_BATCH_SIZE,
               cache: ResponseCache | None = None, settings: dict[str, Any] | None = None,
               chat_template: bool = False, pool: ModelPool | None = None) -> Any:
    """The model `spec` names for `role` ("lm", "embedder", "generator", "image", "vlm").

    `backend` is the default backend of a bare name (`--backend`); `base_url` is the server of an
    openai model and an error for any other; `settings` are a served model's typed settings (`--model-args`,
    `resolve_model_args`); `pool` shares local models between runs (and holds
    models the caller provided: with no spec, the role's provided model is the one used).
    """
    cache = cache if cache is not None and cache.enabled else None
    if pool is not None and not spec and pool.provided(role) is not None:
        return with_cache(pool.provided(role), cache)
    parsed = spec if isinstance(spec, ModelSpec) else parse_spec(spec, role, default_backend=backend)
    check_batch_size(batch_size)
    if base_url and parsed.backend != "openai":
        raise SensoError(f"--base-url is for the openai backend, but the {ROLE_FLAGS[role]} model is {parsed}; "
                         f"use {ROLE_FLAGS[role]} openai:SERVED_NAME or drop --base-url")
    if parsed.backend == "openai":
        return _served(parsed, role, base_url, cache, dict(settings or {}), chat_template)
    if role not in _BUILDERS:
        raise SensoError(f"unknown model role {role!r}")
    key = (role, str(parsed), dtype, device, chat_template, batch_size if role == "image" else None)
    build = lambda: _BUILDERS[role](parsed, dtype=dtype, device=device, chat_template=chat_template,  # noqa: E731
                                    batch_size=batch_size)
    model = pool.get(key, build) if pool is not None else build()
    return with_cache(model, cache)


def _is_default_folder(name: str) -> bool:
    """`hf:PATH` naming the converted default model's own folder (as lm-eval comparisons give it)."""
    from pathlib import Path

    from senso.backends.default_model import default_model_dir

    try:
        return Path(name).expanduser().resolve() == default_model_dir().resolve()
    except OSError:
        return False


def _hf_lm(parsed: ModelSpec, *, dtype: str, device: str, chat_template: bool, **_: Any):
    from senso.backends.hf import HFCausalLM

    if parsed.is_default or _is_default_folder(parsed.name):  # the same folder loads the same way, checks included
        from senso.backends.default_model import check_tokenizer, default_model_path

        model = HFCausalLM(default_model_path(), dtype=dtype, device=device, chat_template=chat_template,
                           spec=str(parsed), fast_tokenizer=True)
        check_tokenizer(model.tokenizer)
        return model
    return HFCausalLM(parsed.name, dtype=dtype, device=device, chat_template=chat_template, spec=str(parsed))


def _embedder(parsed: ModelSpec, **_: Any):
    from senso.backends.embedders import Embedder

    return Embedder(str(parsed))


def _generator(parsed: ModelSpec, *, dtype: str, device: str, **_: Any):
    from senso.backends.generator import Generator, converted_default_generator

    path = str(converted_default_generator()) if parsed.is_default else parsed.name
    return Generator(path, device, dtype)


def _image(parsed: ModelSpec, *, dtype: str, device: str, batch_size: int, **_: Any):
    from senso.backends.image_text import ImageTextModel

    return ImageTextModel(str(parsed), batch_size=batch_size, device=device, dtype=dtype)


def _vlm(parsed: ModelSpec, *, dtype: str, device: str, **_: Any):
    from senso.backends.vlm import TransformersVLM

    return TransformersVLM(str(parsed), device=device, dtype=dtype)


# role -> how its local models are built (served ones: `_served`)
_BUILDERS: dict[str, Callable[..., Any]] = {"lm": _hf_lm, "embedder": _embedder, "generator": _generator,
                                            "image": _image, "vlm": _vlm}


def _served(parsed: ModelSpec, role: str, base_url: str | None, cache: ResponseCache | None,
            settings: dict[str, Any], chat_template: bool):
    try:
        openai = importlib.import_module("senso.backends.openai")
    except ModuleNotFoundError as exc:
        if exc.name != "senso.backends.openai":
            raise
        raise SensoError(f"the openai backend is not available in this version of senso (spec {parsed})") from None
    if role == "lm":
        own = {k: v for k, v in settings.items() if k in openai.OPENAI_PARAMS}
        return openai.load_loglikelihood_model(parsed.name, cache=cache, chat_template=chat_template,
                                               base_url=base_url, **own)
    if role == "vlm":
        from senso.backends.vlm import vision_lm

        return vision_lm(str(parsed), base_url, cache, settings=settings)
    raise SensoError(f"{ROLE_FLAGS[role]} {parsed}: AdMIRe generative parts run on transformers models "
                     "(hf:NAME_OR_PATH); served models are not wired for them yet")

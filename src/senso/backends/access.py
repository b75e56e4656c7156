"""`ModelAccess`: how every family's system context reaches its models (the run's model flags, its response cache
and its `ModelPool`), written once.

A context that mixes it in holds `options` (the run's options), `cache` (the response cache, or None), `models`
(the call's `ModelPool`, or None) and `settings` (the served model's typed settings, `--model-args`). Every model
comes through `load`, so a model is built once per evaluation session and one the caller provided is used as it is.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from senso.backends.load import load_model
from senso.backends.pool import ModelPool
from senso.core.cache import ResponseCache


class ModelAccess:
    """The models a system reads, from the run's flags: --model (and --backend, --base-url, --model-args),
    --embedder, --generator, --image-model; a vision-language model a system names."""

    options: Any  # the run's options
    cache: ResponseCache | None
    models: ModelPool | None
    settings: Mapping[str, Any]  # the served model's typed settings (--model-args)
    default_embedder: ClassVar[str | None] = None  # the embedder when neither --embedder nor a provided one is

    def provided(self, role: str) -> Any:
        """The model the caller provided for `role` (an object in memory), if any."""
        return self.models.provided(role) if self.models is not None else None

    def load(self, spec: Any, role: str, **kwargs: Any) -> Any:
        """The model `spec` names for `role`, through `senso.backends.load.load_model` (cache, pool)."""
        return load_model(spec, role, cache=self.cache, pool=self.models, **kwargs)

    def served_model(self, spec: Any, role: str, **kwargs: Any) -> Any:
        """A model that may be served (--backend, --base-url; a served one reads its settings from `settings`)."""
        options = self.options
        return self.load(spec, role, backend=options.backend, base_url=options.base_url, dtype=options.dtype,
                         device=options.device, batch_size=options.batch_size,
                         settings=dict(self.settings), **kwargs)

    def scored_lm(self, chat_template: bool = False) -> Any:
        """The causal LM of --model/--backend/--base-url (default: the built-in Gemma-3-270M, or the model the
        caller provided); `chat_template` wraps its prompts in the model's chat template."""
        return self.served_model(self.options.model, "lm", chat_template=chat_template)

    @property
    def embedder_given(self) -> bool:
        """Whether the run names its embedder (--embedder, or an embedder object the caller provided)."""
        return bool(self.options.embedder) or self.provided("embedder") is not None

    def embedder(self, spec: str | None = None) -> Any:
        """The sentence embedder `spec` names (default: --embedder, else the one the caller provided, else the
        context's `default_embedder`)."""
        if not spec and not self.embedder_given:
            spec = self.default_embedder
        return self.load(spec or self.options.embedder, "embedder")

    def generator(self) -> Any:
        """The generative model of --generator (default: the converted SmolLM2-135M-Instruct)."""
        return self.served_model(self.options.generator, "generator")

    def vision_lm(self, spec: str) -> Any:
        """The vision-language model `spec` names."""
        return self.served_model(spec, "vlm")

    def image_model(self) -> Any:
        """The image-text model of --image-model (default: CLIP ViT-B/32)."""
        options = self.options
        return self.load(options.image_model, "image", dtype=options.dtype, device=options.device,
                         batch_size=options.batch_size)

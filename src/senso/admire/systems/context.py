"""What every AdMIRe system factory is given: `SystemContext` (the registry's contract).

A factory (`build` of a row of `senso.admire.systems.registry`) reads the run's options (`options`) and the
system's options as typed attributes of `params`, an object of the options class its row names (parsed once, by
`senso.core.params.Params.resolve`). Every model comes through `load` (with the run's response cache and its
`ModelPool`, so a model is built once per evaluation session and a model the caller provided is used as it is).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from senso.admire.systems.parts import ADMIRE_EMBEDDER
from senso.backends.load import load_model
from senso.backends.pool import ModelPool
from senso.core.cache import ResponseCache
from senso.core.errors import SensoError
from senso.core.options import RunOptions
from senso.core.params import NoOptions


@dataclass(frozen=True)
class SystemContext:
    options: RunOptions
    params: Any = field(default_factory=NoOptions)  # the system's options class, its typed values
    cache: ResponseCache | None = None
    models: ModelPool | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)  # the served model's typed settings (--model-args)
    training: Callable[[], Any] | None = None  # the rows fitted parts learn from (`fitting.TrainingRows`), memoised

    def training_rows(self) -> Any:
        """What fitted parts learn from (`fitting.TrainingRows`): the rows the run gave (its task file's training
        rows; AdMIRe 1's EN train+dev for a task without its own), read when a fitted part first asks."""
        if self.training is None:
            raise SensoError("this system has fitted parts, and its run gave it no training rows to fit them on")
        return self.training()

    def provided(self, role: str) -> Any:
        """The model the caller provided for `role` (an object in memory), if any."""
        return self.models.provided(role) if self.models is not None else None

    def load(self, spec: Any, role: str, **kwargs: Any) -> Any:
        """The model `spec` names for `role`, loaded once per pool, with the run's response cache."""
        return load_model(spec, role, cache=self.cache, pool=self.models, **kwargs)

    def _served_model(self, spec: Any, role: str) -> Any:
        """A model that may be served (--backend, --base-url; a served one reads its settings from `settings`)."""
        options = self.options
        return self.load(spec, role, backend=options.backend, base_url=options.base_url, dtype=options.dtype,
                         device=options.device, batch_size=options.batch_size, settings=dict(self.settings))

    @property
    def embedder_given(self) -> bool:
        """Whether the run names its embedder (--embedder, or an embedder object the caller provided)."""
        return bool(self.options.embedder) or self.provided("embedder") is not None

    def embedder(self, spec: str | None = None) -> Any:
        """The sentence embedder `spec` names (default: --embedder, else the one the caller provided, else
        AdMIRe's default, ADMIRE_EMBEDDER)."""
        if not spec and not self.embedder_given:
            spec = ADMIRE_EMBEDDER
        return self.load(spec or self.options.embedder, "embedder")

    def scored_lm(self) -> Any:
        """The causal LM of --model/--backend/--base-url (default: the built-in Gemma-3-270M)."""
        return self._served_model(self.options.model, "lm")

    def generator(self) -> Any:
        """The generative model of --generator (default: the converted SmolLM2-135M-Instruct)."""
        return self._served_model(self.options.generator, "generator")

    def vision_lm(self, spec: str) -> Any:
        """The vision-language model `spec` names."""
        return self._served_model(spec, "vlm")

    def image_model(self) -> Any:
        """The image-text model of --image-model (default: CLIP ViT-B/32)."""
        options = self.options
        return self.load(options.image_model, "image", dtype=options.dtype, device=options.device,
                         batch_size=options.batch_size)

"""What a word-in-context system is given by a run (`bind`), and the checks every system makes of what it is asked.

A system works without a run: made with its options alone it loads what it needs itself (the encoder, the built-in
LM) and caches nothing beyond its own life. A run binds it to its `WicContext`: the call's response cache and
ModelPool and the run's model options (--model, --backend, ...), through which the LM of `pair-lm` is loaded as
the Likert systems load theirs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from senso.core.errors import SensoError
from senso.wic.items import WicPair


@dataclass
class WicContext:
    """A run's shared resources: `cache` (a ResponseCache or None), `models` (the call's ModelPool or None),
    `options` (the RunOptions whose model fields name the LM; None: the built-in model) and `task` (the run's
    `senso.wic.taskfile.PairsTask`; None outside a run). `encoders` holds the run's usage encoders by their
    settings, so the systems of one run (a copy per leave-lemma-out fold) encode each usage once; `tuned` the
    encoder blocks tuned in the run by what they were tuned on, so its copies tune them once."""

    cache: Any = None
    models: Any = None
    options: Any = None
    task: Any = None
    encoders: dict = field(default_factory=dict, repr=False)
    tuned: dict = field(default_factory=dict, repr=False)

    @property
    def open_cache(self) -> Any:
        """The cache when it is on, else None."""
        return self.cache if self.cache is not None and getattr(self.cache, "enabled", True) else None

    def language_model(self) -> Any:
        """The scored LM named by --model/--backend (default: the built-in Gemma-3-270M, or the caller's model)."""
        from senso.backends.load import load_model

        options = self.options
        if options is None:
            return load_model(None, "lm", cache=self.open_cache, pool=self.models)
        return load_model(options.model, "lm", backend=options.backend, base_url=options.base_url,
                          dtype=options.dtype, device=options.device, batch_size=options.batch_size,
                          chat_template=options.chat_template, cache=self.open_cache, pool=self.models)


def check_pairs(pairs: Any, owner: str) -> list[WicPair]:
    """`pairs` as a list of WicPair; anything else is a SensoError naming `owner` and what was given."""
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Sequence):
        raise SensoError(f"{owner} takes a list of WicPair, got {type(pairs).__name__}")
    for index, pair in enumerate(pairs):
        if not isinstance(pair, WicPair):
            raise SensoError(f"{owner} takes a list of WicPair; item {index} is a {type(pair).__name__}")
    return list(pairs)


def require(pairs: Sequence[WicPair], field_name: str, owner: str) -> None:
    """Every training pair has gold `field_name` ("label" or "score"); else a SensoError naming the first without."""
    for pair in pairs:
        if getattr(pair, field_name) is None:
            where = pair.source or pair.pair_id
            raise SensoError(f"{owner} is fit on pairs with a gold {field_name}; {where} has none")


def not_fitted(owner: str, what: str) -> SensoError:
    return SensoError(f"{owner} must be fit on training pairs before {what} (call fit(pairs) first)")

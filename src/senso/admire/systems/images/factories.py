"""Constructors `(context) -> system` of the image systems, the `build` of rows of the AdMIRe registry.

- `clip-rank`: `--image-model SPEC` (default `senso.backends.specs.DEFAULT_IMAGE_MODEL`), `--batch-size`, `--device`, `--dtype`;
- `vlm-judge`: `--generator openai:SERVED_NAME --base-url URL` or `--generator hf:NAME_OR_PATH`;
  `--set mode=pointwise|list`, `--set orders=N` (list mode, 1-5, default 5); with a server also
  `--set judge_scoring=logprobs|text`, `--set image_detail=auto|low|high` and the openai backend's
  settings (`top_logprobs`, `concurrency`, `timeout`, `max_retries`, `backoff`, `api_key_env`);
- `fusion`: `--members A,B` (default caption-similarity,clip-rank), `--set weights=1,1`;
- `sequence-continuation --modality images` (Subtask B): `--set text_weight=1`.
Their options are declared in `senso.admire.systems.parts` (VlmJudgeOptions, FusionOptions,
SequenceContinuationOptions); a factory reads them as `context.params`' typed attributes and hands them on.
"""

from __future__ import annotations

from typing import Sequence

from senso.admire.data import N_IMAGES_A
from senso.core.errors import SensoError
from senso.core.options import RunOptions
from senso.core.params import OptionError
from senso.admire.systems.base import Ranker, SequenceChooser
from senso.admire.systems.context import SystemContext
from senso.admire.systems.parts import FusionOptions, SequenceContinuationOptions, VlmJudgeOptions
from senso.admire.systems.images.sequence import ImageSequenceChooser
from senso.admire.systems.images.similarity import ClipRanker, FusionRanker
from senso.admire.systems.images.vlm_judge import VlmJudgeRanker


def clip_rank(context: SystemContext) -> ClipRanker:
    return ClipRanker(context.image_model())


def check_vlm_judge(options: RunOptions, params: VlmJudgeOptions | None = None) -> str:
    """The VLM spec of `vlm-judge`: `--generator`, which has no default (a judge is chosen, never guessed) and is
    never taken from `--model` (the flag of the scored LM of other systems); and its list mode's orders (one
    per rotation of the 5 images at most). SensoError saying what to write."""
    if params is not None and params.orders > N_IMAGES_A:
        raise OptionError(f"--set orders must be between 1 and {N_IMAGES_A} (the rotations of an item's "
                          f"{N_IMAGES_A} images), got {params.orders}")
    if options.generator:
        return options.generator
    if options.model:
        raise SensoError(f"vlm-judge reads its vision-language model from --generator, not --model (the flag of "
                         f"the scored LM): write --generator {options.model} instead of --model {options.model}")
    raise SensoError("vlm-judge needs a vision-language model: --generator openai:SERVED_NAME --base-url URL, "
                     "or --generator hf:NAME_OR_PATH")


def vlm_judge(context: SystemContext) -> VlmJudgeRanker:
    vlm = context.vision_lm(check_vlm_judge(context.options))
    params: VlmJudgeOptions = context.params
    return VlmJudgeRanker(vlm, mode=params.mode, orders=params.orders)


def check_fusion(params: FusionOptions) -> None:
    """One weight per member, when weights are given."""
    weights, members = params.weights, params.members
    if weights is not None and len(weights) != len(members):
        raise OptionError(f"--set weights gives {len(weights)} weights for {len(members)} --members "
                          f"({', '.join(members)}): give one per member")


def fusion(context: SystemContext, members: Sequence[Ranker]) -> FusionRanker:
    """Fuse the systems named by --members (built by the registry), weighted by --set weights=..."""
    weights = context.params.weights
    return FusionRanker(list(members), weights=None if weights is None else list(weights))


def image_sequence_chooser(context: SystemContext, text_chooser: SequenceChooser) -> ImageSequenceChooser:
    params: SequenceContinuationOptions = context.params
    return ImageSequenceChooser(context.image_model(), text_chooser, text_weight=params.text_weight)

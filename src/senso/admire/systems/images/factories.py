"""Constructors `(options, cache) -> system` for the image systems, for the AdMIRe systems registry.

- `clip-rank`: `--image-model SPEC` (default `senso.backends.specs.DEFAULT_IMAGE_MODEL`), `--batch-size`, `--device`, `--dtype`;
- `vlm-judge`: `--generator openai:SERVED_NAME --base-url URL` or `--generator hf:NAME_OR_PATH`;
  `--set mode=pointwise|list`, `--set orders=N` (list mode, 1-5, default 5); with a server also
  `--set judge_scoring=logprobs|text`, `--set image_detail=auto|low|high` and the openai backend's
  settings (`top_logprobs`, `concurrency`, `timeout`, `max_retries`, `backoff`, `api_key_env`);
- `fusion`: `--members A,B` (default caption-similarity,clip-rank), `--set weights=1,1`;
- `sequence-continuation --modality images` (Subtask B): `--set text_weight=1`.
"""

from __future__ import annotations

from typing import Any

from senso.backends.image_text import ImageTextModel
from senso.backends.load import load_model, served_settings
from senso.core.errors import SensoError
from senso.core.cache import ResponseCache
from senso.core.options import RunOptions
from senso.admire.systems.images.sequence import ImageSequenceChooser
from senso.admire.systems.images.similarity import ClipRanker, FusionRanker
from senso.admire.systems.images.vlm_judge import VlmJudgeRanker

DEFAULT_FUSION_MEMBERS = "caption-similarity,clip-rank"
# --set keys each image system reads (beside its members' for fusion); see senso.admire.systems.registry.
VLM_JUDGE_KEYS = ("mode", "orders", "judge_scoring", "image_detail")
FUSION_KEYS = ("members", "weights")
IMAGE_SEQUENCE_KEYS = ("text_weight",)


def image_model(options: RunOptions, cache: ResponseCache | None) -> ImageTextModel:
    return load_model(options.image_model, "image", dtype=options.dtype, device=options.device,
                      batch_size=options.batch_size, cache=cache if options.use_cache else None)


def clip_rank(options: RunOptions, cache: ResponseCache | None) -> ClipRanker:
    return ClipRanker(image_model(options, cache))


def check_vlm_judge(options: RunOptions) -> str:
    """The VLM spec of `vlm-judge`: `--generator`, which has no default (a judge is chosen, never guessed) and is
    never taken from `--model` (the flag of the scored LM of other systems). SensoError saying what to write."""
    if options.generator:
        return options.generator
    if options.model:
        raise SensoError(f"vlm-judge reads its vision-language model from --generator, not --model (the flag of "
                         f"the scored LM): write --generator {options.model} instead of --model {options.model}")
    raise SensoError("vlm-judge needs a vision-language model: --generator openai:SERVED_NAME --base-url URL, "
                     "or --generator hf:NAME_OR_PATH")


def vlm_judge(options: RunOptions, cache: ResponseCache | None) -> VlmJudgeRanker:
    vlm = load_model(check_vlm_judge(options), "vlm", backend=options.backend, base_url=options.base_url, dtype=options.dtype,
                     device=options.device, batch_size=options.batch_size,
                     cache=cache if options.use_cache else None, settings=served_settings(options.system_options))
    mode = str(options.system_options.get("mode", "pointwise"))
    try:
        orders = int(options.system_options.get("orders", 5))
    except ValueError:
        raise SensoError(f"--set orders expects a whole number, got {options.system_options['orders']!r}") from None
    return VlmJudgeRanker(vlm, mode=mode, orders=orders)


def fusion(options: RunOptions, cache: ResponseCache | None, registry: dict[str, Any]) -> FusionRanker:
    """Fuse the systems named by --members (looked up in `registry`), weighted by --set weights=..."""
    names = [n.strip() for n in str(options.system_options.get("members") or DEFAULT_FUSION_MEMBERS).split(",") if n.strip()]
    unknown = [n for n in names if n not in registry or n == "fusion"]
    if unknown:
        raise SensoError(f"fusion: unknown member system(s) {', '.join(unknown)}; choose from "
                         + ", ".join(sorted(n for n in registry if n != "fusion")))
    weights = None
    if "weights" in options.system_options:
        try:
            weights = [float(w) for w in str(options.system_options["weights"]).split(",")]
        except ValueError:
            raise SensoError(f"--set weights expects numbers separated by commas, got {options.system_options['weights']!r}") from None
    return FusionRanker([registry[n](options, cache) for n in names], weights=weights)


def image_sequence_chooser(options: RunOptions, cache: ResponseCache | None, text_chooser) -> ImageSequenceChooser:
    try:
        weight = float(options.system_options.get("text_weight", 1.0))
    except ValueError:
        raise SensoError(f"--set text_weight expects a number, got {options.system_options['text_weight']!r}") from None
    return ImageSequenceChooser(image_model(options, cache), text_chooser, text_weight=weight)

"""`vlm-judge`: a vision-language model judges the pictures.

Two modes:
- `pointwise` (default): each image alone, "does this picture show the meaning of X as used in S?";
  the score is P(yes) over {yes, no}. Judging images one at a time has no position bias.
- `list`: all five images in one prompt, "rank them, best first"; small VLMs favour early positions,
  so the prompt is run over `orders` presentation orders (cyclic rotations of the item's image order:
  with 5 orders every image appears once at every position) and the parsed rankings are aggregated
  by Borda count. A partial answer ranks the images it names; the others share the remaining points.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from senso.backends.vlm import VisionLM
from senso.admire.items import N_IMAGES_A, AdmireAItem
from senso.core.errors import SensoError
from senso.core.options import RunOptions
from senso.core.records import text_hash
from senso.admire.task import TEXT_AND_IMAGES
from senso.admire.systems.images.similarity import image_path
from senso.admire.systems.aggregate import ballot_points
from senso.admire.systems.parts import VLM_MODES, VlmJudgeOptions
from senso.core.params import Configurable, OptionError
from senso.admire.systems.base import Ranking, ranking_by_scores

JUDGE_PROMPT = (
    'Sentence: "{sentence}"\n'
    'Does this picture show the meaning of "{compound}" as it is used in the sentence? Answer yes or no.'
)
LIST_PROMPT = (
    'Sentence: "{sentence}"\n'
    "The {n} pictures above are numbered 1 to {n} in the order shown. Rank them by how well they show the "
    'meaning of "{compound}" as it is used in the sentence, best first. Answer only with the {n} numbers '
    "separated by commas, for example: {example}."
)


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


def rotations(n: int, count: int) -> list[list[int]]:
    """The first `count` cyclic rotations of range(n): [0..n-1], [1..n-1, 0], ..."""
    if not 1 <= count <= n:
        raise SensoError(f"orders must be between 1 and {n}, got {count}")
    return [[(start + i) % n for i in range(n)] for start in range(count)]


def parse_ranking(text: str, n: int) -> list[int]:
    """The distinct picture numbers 1..n in the order the answer first names them, as 0-based positions."""
    return list(dict.fromkeys(int(m) - 1 for m in re.findall(r"\d+", text) if 1 <= int(m) <= n))


def borda(ballots: Sequence[Sequence[int]], n: int) -> list[float]:
    """Borda points of candidates 0..n-1 summed over the ballots (`aggregate.ballot_points` each)."""
    return [sum(column) for column in zip(*(ballot_points(b, n) for b in ballots))] if ballots else [0.0] * n


@dataclass
class VlmJudgeRanker(Configurable):
    vlm: VisionLM
    mode: str = VlmJudgeOptions.mode
    orders: int = VlmJudgeOptions.orders
    name: str = "vlm-judge"
    uses_images: bool = True
    fitted_compounds: frozenset[str] = frozenset()

    def __post_init__(self):
        if self.mode not in VLM_MODES:
            raise SensoError(f"vlm-judge mode must be one of {', '.join(VLM_MODES)}, got {self.mode!r}")

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {"system": self.name, "track": TEXT_AND_IMAGES, "mode": self.mode,
                                "vlm": self.vlm.describe()}
        if self.mode == "pointwise":
            info["prompt_template_sha256"] = text_hash(JUDGE_PROMPT)
        else:
            info.update(orders=self.orders, aggregation="borda", prompt_template_sha256=text_hash(LIST_PROMPT))
        return info

    def rank(self, items: Sequence[AdmireAItem]) -> list[Ranking]:
        return self._pointwise(items) if self.mode == "pointwise" else self._list(items)

    def _pointwise(self, items: Sequence[AdmireAItem]) -> list[Ranking]:
        requests = [(JUDGE_PROMPT.format(sentence=item.sentence, compound=item.compound), image_path(item.compound, image))
                    for item in items for image in item.images]
        answers = iter(self.vlm.yes_probabilities(requests))
        rankings = []
        for item in items:
            got = [next(answers) for _ in item.images]
            extra = {"sources": {image.name: a.source for image, a in zip(item.images, got)}}
            unscored = [image.name for image, a in zip(item.images, got) if a.p_yes is None]
            if unscored:
                extra["unscored"] = unscored  # neither yes nor no came back: placed last, in image order
                extra["answers"] = {image.name: a.text for image, a in zip(item.images, got) if a.p_yes is None}
            rankings.append(ranking_by_scores(item.image_names, [a.p_yes for a in got], extra))
        return rankings

    def _list(self, items: Sequence[AdmireAItem]) -> list[Ranking]:
        requests, layouts = [], []
        for item in items:
            n = len(item.images)
            example = ", ".join(str(i) for i in range(n, 0, -1))
            prompt = LIST_PROMPT.format(sentence=item.sentence, compound=item.compound, n=n, example=example)
            paths = [image_path(item.compound, image) for image in item.images]
            for order in rotations(n, self.orders):
                requests.append((prompt, [paths[i] for i in order]))
                layouts.append(order)
        answers = iter(zip(layouts, self.vlm.generate(requests, max_tokens=24)))
        rankings = []
        for item in items:
            n = len(item.images)
            ballots, record = [], []
            for _ in range(self.orders):
                order, text = next(answers)
                shown = parse_ranking(text, n)  # positions in the order shown
                ballot = [order[p] for p in shown]  # back to the item's own image indices
                ballots.append(ballot)
                record.append({"shown": [item.images[i].name for i in order], "answer": text,
                               "parsed": [item.images[i].name for i in ballot]})
            extra: dict[str, Any] = {"orders": record}
            if unparsed := sum(1 for b in ballots if not b):
                extra["unparsed_answers"] = unparsed
            if partial := sum(1 for b in ballots if 0 < len(b) < n):
                extra["partial_answers"] = partial
            if unparsed == len(ballots):
                extra["unscored"] = [image.name for image in item.images]
                rankings.append(ranking_by_scores(item.image_names, [None] * n, extra))
            else:
                rankings.append(ranking_by_scores(item.image_names, borda(ballots, n), extra))
        return rankings


"""The prompted-choice protocol, written once for every family that asks a language model to choose among a task's
answers (lm-eval's `output_type: multiple_choice`, inspect_ai's `multiple_choice()`): each choice's continuation is
scored after the prompt and the most likely is the answer.

A family reads its options (`--protocol`, `--shots`, `--chat-template`, declared once in `core.options`) by naming
them in its `Family.reads` (`PROTOCOL_OPTIONS`); a task maps the two protocols, zero-shot and few-shot, onto the
names it records (ABRICOT: calamita and paper). The few-shot protocol prepends solved exemplars (`few_shot`), each
joined by lm-eval's delimiters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from senso.core.errors import SensoError

ZERO_SHOT, FEW_SHOT = "zero-shot", "few-shot"
DEFAULT_SHOTS = 3  # the exemplars of the few-shot protocol when --shots is not given
TARGET_DELIMITER = " "  # lm-eval: between context and continuation
FEWSHOT_DELIMITER = "\n\n"  # lm-eval: between exemplars, and before the item
PROTOCOL_OPTIONS = ("protocol", "shots", "chat_template")  # the run options a family reads by naming them


@dataclass(frozen=True)
class ChoicePrompt:
    """What a scorer sees for one item: `context` + `TARGET_DELIMITER` + choice is each scored text (lm-eval
    semantics); `shared_prefix` is the leading part of `context` common to other items (few-shot exemplars), whose
    computation a backend may reuse; `choices` are the task's answers as text."""

    item_id: str
    context: str
    shared_prefix: str = ""
    exemplar_ids: tuple[str, ...] = field(default_factory=tuple)
    choices: tuple[str, ...] = ()

    @property
    def continuations(self) -> tuple[str, ...]:
        return tuple(TARGET_DELIMITER + c for c in self.choices)


def protocol_of(name: str | None, protocols: Mapping[str, str], task: str) -> tuple[str, str]:
    """(zero-shot | few-shot, the name the task records) for --protocol NAME (None: zero-shot); `protocols` maps
    each kind onto the task's own name for it."""
    if name is None:
        return ZERO_SHOT, protocols[ZERO_SHOT]
    for kind, own in protocols.items():
        if name in (kind, own):
            return kind, own
    names = sorted(set(protocols.values()) | set(protocols))
    raise SensoError(f"unknown protocol {name!r} for task {task}; choose from {', '.join(names)}")


def check_shots(shots: int | None) -> None:
    """SensoError unless --shots is 0 or more (or not given)."""
    if shots is not None and shots < 0:
        raise SensoError(f"--shots must be 0 or more, got {shots}")


def check_protocol(protocol: str | None, shots: int | None, protocols: Mapping[str, str], task: str) -> str:
    """The protocol's kind, after checking --protocol and that --shots goes with the few-shot one."""
    kind, own = protocol_of(protocol, protocols, task)
    if shots is not None and kind != FEW_SHOT:
        raise SensoError(f"--shots {shots} sets the exemplars of the few-shot protocol, but the protocol of this "
                         f"{task} run is {own} (zero-shot): add --protocol {protocols[FEW_SHOT]}")
    return kind


def shots_of(kind: str, shots: int | None) -> int:
    """The exemplars a prompt has: --shots, else none (zero-shot) or `DEFAULT_SHOTS` (few-shot)."""
    if shots is not None:
        return shots
    return 0 if kind == ZERO_SHOT else DEFAULT_SHOTS


def exemplar_positions(n: int, shots: int) -> list[int]:
    """Positions in a sorted pool of n: for 3 shots 0, n//2 and n-1 (the paper's rule); spread evenly otherwise."""
    if shots <= 0:
        return []
    if shots > n:
        raise SensoError(f"asked for {shots} exemplars but only {n} items of other groups exist")
    if shots == 1:
        return [n // 2]
    return [i * n // (shots - 1) for i in range(shots - 1)] + [n - 1]


def solved(prompt: str, answer: str) -> str:
    """An exemplar as the few-shot protocol shows it: its prompt, then its answer."""
    return prompt + TARGET_DELIMITER + answer


def few_shot(exemplars: Sequence[str]) -> str:
    """The shared prefix of a few-shot prompt: the solved exemplars, each followed by `FEWSHOT_DELIMITER`."""
    return FEWSHOT_DELIMITER.join(exemplars) + FEWSHOT_DELIMITER


def argmax_choice(logprobs: Sequence[float]) -> int:
    """1-based index of the highest log-prob; ties go to the lower choice."""
    best = 0
    for i, value in enumerate(logprobs):
        if value > logprobs[best]:
            best = i
    return best + 1


"""ABRICOT tasks: the CALAMITA prompts, gold labels and few-shot exemplars, exactly as published.

`abricot-abs` asks for abstractness, `abricot-inc` for inclusiveness, on a 1-5 scale. The
official harness (CALAMITA, lm-evaluation-harness multiple choice) scores the continuations
`" 1"` ... `" 5"` after the prompt; the `paper` protocol prepends 3 solved exemplars.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from senso.likert.data import AbricotItem
from senso.core.errors import SensoError

CHOICES = ("1", "2", "3", "4", "5")
TARGET_DELIMITER = " "  # lm-eval: between context and continuation
FEWSHOT_DELIMITER = "\n\n"  # lm-eval: between exemplars, and before the item

_TEMPLATE = (
    "Assegna un valore di {quality} da 1 a 5 alla parola {{parola}} nel contesto della frase seguente:\n"
    "{{frase}}\n"
    "Descrizione dei valori:\n"
    "1 - La parola è {d1} (e.g. un cane specifico)\n"
    "2 - La parola è {d2} (e.g. un cane di una certa razza)\n"
    "3 - La parola è {d3} (e.g. un cane tra tanti)\n"
    "4 - La parola è {d4} (e.g. un cane è un animale da compagnia)\n"
    "5 - La parola è {d5} (e.g. il cane è un mammifero)\n"
    "\n"
    "Rispondi esclusivamente con il numero scelto senza aggiungere nessuna spiegazione\n"
)

TEMPLATES = {
    "abs": _TEMPLATE.format(
        quality="astrazione",
        d1="estremamente concreta", d2="lievemente concreta", d3="neutra",
        d4="lievemente astratta", d5="estremamente astratta",
    ),
    "inc": _TEMPLATE.format(
        quality="inclusività",
        d1="estremamente specifica", d2="lievemente specifica", d3="neutra",
        d4="lievemente inclusiva", d5="estremamente inclusiva",
    ),
}

PROTOCOLS = ("calamita", "paper")


@dataclass(frozen=True)
class AbricotTask:
    """A task name and the dimension it scores ("abs" or "inc")."""

    name: str
    dimension: str

    @property
    def template(self) -> str:
        return TEMPLATES[self.dimension]

    @property
    def pred_column(self) -> str:
        return self.name.replace("-", "_") + "_pred"


TASKS = {
    "abricot-abs": AbricotTask("abricot-abs", "abs"),
    "abricot-inc": AbricotTask("abricot-inc", "inc"),
}


def get_task(name: str) -> AbricotTask:
    try:
        return TASKS[name]
    except KeyError:
        raise SensoError(f"unknown ABRICOT task {name!r}; choose from {', '.join(TASKS)}") from None


def gold_label(mean: float) -> int:
    """Discretise a human mean in [0, 1] to 1-5 exactly as the official harness: min(round(5*m), 4) + 1.

    Python's round (half to even) is part of the definition: 0.5 -> round(2.5) = 2 -> label 3.
    """
    return min(round(5 * mean), 4) + 1


def render_prompt(item: AbricotItem, task: AbricotTask) -> str:
    """The CALAMITA prompt for one item, byte for byte (ends with a newline)."""
    return task.template.replace("{parola}", item.target_token).replace("{frase}", item.text)


def exemplar_positions(n: int, shots: int) -> list[int]:
    """Positions in a sorted pool of n: for 3 shots 0, n//2 and n-1 (the paper's rule); spread evenly otherwise."""
    if shots <= 0:
        return []
    if shots > n:
        raise SensoError(f"asked for {shots} exemplars but only {n} items of other lemmas exist")
    if shots == 1:
        return [n // 2]
    return [i * n // (shots - 1) for i in range(shots - 1)] + [n - 1]


def select_exemplars(items: list[AbricotItem], item: AbricotItem, task: AbricotTask, shots: int = 3) -> list[AbricotItem]:
    """Exemplars for `item`: items of other lemmas, stably sorted by the task's raw mean, at `exemplar_positions`."""
    pool = [other for other in items if other.target_lemma != item.target_lemma]
    pool.sort(key=lambda other: other.score(task.dimension))
    return [pool[i] for i in exemplar_positions(len(pool), shots)]


def render_exemplar(item: AbricotItem, task: AbricotTask) -> str:
    return render_prompt(item, task) + TARGET_DELIMITER + str(gold_label(item.score(task.dimension)))


@dataclass(frozen=True)
class LikertPrompt:
    """What a Likert scorer sees for one item.

    `context` + `TARGET_DELIMITER` + choice is the full scored text (lm-eval semantics);
    `shared_prefix` is the leading part of `context` common to other items (few-shot exemplars),
    whose computation a backend may reuse.
    """

    item_id: str
    context: str
    shared_prefix: str = ""
    exemplar_ids: tuple[str, ...] = field(default_factory=tuple)

    @property
    def continuations(self) -> tuple[str, ...]:
        return tuple(TARGET_DELIMITER + c for c in CHOICES)


def build_prompts(items: list[AbricotItem], task: AbricotTask, protocol: str = "calamita", shots: int | None = None,
                  pool: list[AbricotItem] | None = None) -> list[LikertPrompt]:
    """One LikertPrompt per item under `protocol` ("calamita": 0-shot; "paper": `shots` exemplars, default 3).

    Exemplars come from `pool` (default: `items`), always from lemmas other than the item's.
    """
    if protocol not in PROTOCOLS:
        raise SensoError(f"unknown protocol {protocol!r}; choose from {', '.join(PROTOCOLS)}")
    if shots is None:
        shots = 0 if protocol == "calamita" else 3
    pool = items if pool is None else pool
    prompts = []
    for item in items:
        prompt = render_prompt(item, task)
        if shots == 0:
            prompts.append(LikertPrompt(item.id, prompt))
            continue
        exemplars = select_exemplars(pool, item, task, shots)
        prefix = FEWSHOT_DELIMITER.join(render_exemplar(ex, task) for ex in exemplars) + FEWSHOT_DELIMITER
        prompts.append(LikertPrompt(item.id, prefix + prompt, shared_prefix=prefix,
                                    exemplar_ids=tuple(ex.id for ex in exemplars)))
    return prompts


@dataclass
class LikertPrediction:
    """One ABRICOT answer: label 1-5, continuous score, and the five log-probs when an LM produced it.
    `label` and `expected` are None only for an unparseable generated answer (`likert-generate`)."""

    item_id: str
    label: int | None
    expected: float | None
    logprobs: list[float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

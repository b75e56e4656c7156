"""Rankers: order an item's images given the sense decision.

- `CaptionRanker` ("caption"): cosine between the sentence and each caption (sense ignored).
- `SubstitutionRanker` ("substitution"): cosine between each caption and the sentence with the
  meaning substituted for the compound when the sense is idiomatic (the sentence itself when literal).
- `StructureRanker` ("structure"): uses AdMIRe's known layout. Each item has a strongly and a mildly
  idiomatic image, a mildly and a strongly literal one, and a distractor; gold is
  [strong idiom, mild idiom, mild literal, strong literal, distractor] for an idiomatic sentence and
  [strong literal, mild literal, mild idiom, strong idiom, distractor] for a literal one. The ranker
  assigns the roles from caption similarities — the literal pair = the two captions closest to the
  literal reading (strong = closest); among the other three, the one closest to the idiomatic meaning is
  the strong idiom, the next the mild idiom, the last the distractor — then returns the order with the
  highest *expected* official DCG under P(idiomatic) (all 120 orders tried). With a confident sense
  that starts with the sense's strong then mild image (and puts the other sense's strong image third);
  with an unsure one it puts the other sense's strong image second (only gold positions 1 and 2 carry
  DCG weight, 3 and 1), which costs little when the sense is right and gains much when it is wrong.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from senso.admire.items import AdmireAItem
from senso.core.errors import SensoError
from senso.admire.systems.evidence import EvidenceBuilder, ItemEvidence
from senso.admire.systems.sense import SenseDecision, literal_pair
from senso.admire.metrics import admire_dcg as dcg
from senso.admire.systems.base import Ranking, ranking_by_scores


def _need_captions(e: ItemEvidence, ranker: str) -> np.ndarray:
    if e.captions is None:
        raise SensoError(f"the {ranker} ranker needs captions; item {e.item.compound!r} has none")
    return e.captions


@dataclass
class CaptionRanker:
    builder: EvidenceBuilder
    name: str = "caption"

    def rank(self, items: Sequence[AdmireAItem], decisions: Sequence[SenseDecision]) -> list[Ranking]:
        out = []
        for e in self.builder.build(list(items)):
            sims = _need_captions(e, self.name) @ e.sentence
            out.append(ranking_by_scores(e.item.image_names, sims.tolist(), {"ranker": self.name}))
        return out

    def describe(self) -> dict:
        return {"name": self.name}


@dataclass
class SubstitutionRanker:
    builder: EvidenceBuilder
    name: str = "substitution"

    def rank(self, items: Sequence[AdmireAItem], decisions: Sequence[SenseDecision]) -> list[Ranking]:
        out = []
        for e, d in zip(self.builder.build(list(items)), decisions):
            use_meaning = d.label == "idiomatic" and e.substituted is not None
            query = e.substituted if use_meaning else e.sentence
            sims = _need_captions(e, self.name) @ query
            out.append(ranking_by_scores(e.item.image_names, sims.tolist(),
                                  {"ranker": self.name, "query": "meaning substituted" if use_meaning else "sentence"}))
        return out

    def describe(self) -> dict:
        return {"name": self.name}


ROLES = ("strong idiomatic", "mild idiomatic", "mild literal", "strong literal", "distractor")


IDIOM_QUERIES = ("meaning", "substituted", "context")


def idiom_vector(e: ItemEvidence, query: str = "meaning") -> np.ndarray:
    """What idiomatic images are compared to: the meaning (default), the meaning-substituted sentence,
    or the sentence's context; each falls back to the context when the meaning is unknown."""
    if query == "substituted" and e.substituted is not None:
        return e.substituted
    if query in ("meaning", "substituted"):
        return e.meaning_or_context
    if query == "context":
        return e.context
    raise SensoError(f"unknown idiom query {query!r}; choose from {', '.join(IDIOM_QUERIES)}")


def assign_roles(e: ItemEvidence, query: str = "meaning") -> dict[str, int]:
    """Caption index of each role, from similarities to the literal reading and to the idiomatic meaning."""
    captions = _need_captions(e, "structure")
    if len(captions) != 5:
        raise SensoError(f"the structure ranker needs exactly 5 images; {e.item.compound!r} has {len(captions)}")
    (strong_lit, mild_lit), rest = literal_pair(e)
    sims = captions @ idiom_vector(e, query)
    strong_idiom, mild_idiom, distractor = sorted(rest, key=lambda j: (-sims[j], j))
    return dict(zip(ROLES, (strong_idiom, mild_idiom, mild_lit, strong_lit, distractor)))


def best_expected_order(names: Sequence[str], gold_idiomatic: Sequence[str], gold_literal: Sequence[str],
                        p_idiomatic: float) -> tuple[tuple[str, ...], float]:
    """The permutation of `names` with the highest expected DCG; ties go to the first permutation found
    in the order itertools yields from `gold_idiomatic` (p >= 0.5) or `gold_literal` (p < 0.5)."""
    start = gold_idiomatic if p_idiomatic >= 0.5 else gold_literal
    best, best_value = None, -1.0
    for order in itertools.permutations(start):
        value = p_idiomatic * dcg(order, gold_idiomatic) + (1 - p_idiomatic) * dcg(order, gold_literal)
        if value > best_value + 1e-12:
            best, best_value = order, value
    return tuple(best), best_value


@dataclass
class StructureRanker:
    builder: EvidenceBuilder
    hedge: bool = True
    idiom_query: str = "meaning"
    name: str = "structure"

    def rank(self, items: Sequence[AdmireAItem], decisions: Sequence[SenseDecision]) -> list[Ranking]:
        out = []
        for e, d in zip(self.builder.build(list(items)), decisions):
            names = [i.name for i in e.item.images]
            roles = {role: names[j] for role, j in assign_roles(e, self.idiom_query).items()}
            gold_idiomatic = tuple(roles[r] for r in ROLES)
            gold_literal = tuple(roles[r] for r in ("strong literal", "mild literal", "mild idiomatic",
                                                     "strong idiomatic", "distractor"))
            if self.hedge:
                order, expected = best_expected_order(names, gold_idiomatic, gold_literal, d.p_idiomatic)
            else:
                order = gold_idiomatic if d.label == "idiomatic" else gold_literal
                expected = d.p_idiomatic * dcg(order, gold_idiomatic) + (1 - d.p_idiomatic) * dcg(order, gold_literal)
            scores = {n: float(len(order) - k) for k, n in enumerate(order)}
            out.append(Ranking(order=order, scores=scores, extra={
                "ranker": self.name, "roles": roles, "expected_dcg": expected, "p_idiomatic": d.p_idiomatic}))
        return out

    def describe(self) -> dict:
        return {"name": self.name, "hedge": self.hedge, "idiom_query": self.idiom_query}

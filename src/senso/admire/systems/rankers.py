"""Rankers: order an item's images given the sense decision.

- `CaptionRanker` ("caption"): cosine between the sentence and each caption (sense ignored).
- `SubstitutionRanker` ("substitution"): cosine between each caption and the sentence with the
  meaning substituted for the compound when the sense is idiomatic (the sentence itself when literal).
- `StructureRanker` ("structure"): assigns AdMIRe's five roles (strong/mild idiom, mild/strong literal,
  distractor) from caption similarities (`roles.assign_roles`; docs/admire_systems.md), then returns the order
  with the highest *expected* official DCG under P(idiomatic) (all 120 orders tried). An unsure sense puts the
  other sense's strong image second (only gold positions 1 and 2 carry DCG weight, 3 and 1), which costs little
  when the sense is right and gains much when it is wrong. With `roles` (a `roles.LearnedRoles`), the roles are
  probabilities instead: the learned marginals, or (`mix="learned+rules"`) their mean with the rules' one-hot
  assignment; the images are then sorted by their expected gain (`roles.expected_gains`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from senso.admire.items import AdmireAItem
from senso.core.errors import SensoError
from senso.admire.systems.evidence import EvidenceBuilder, ItemEvidence
from senso.admire.metrics import admire_dcg as dcg
from senso.admire.systems.sense import SenseDecision
from senso.admire.systems.base import Ranking, ranking_by_scores
from senso.admire.systems.parts import ROLE_MIXES, RankerOptions
from senso.core.params import Configurable
from senso.admire.systems.roles import LITERAL_ORDER, ROLES, LearnedRoles, assign_roles, expected_gains, rule_marginals


@dataclass
class CaptionRanker:
    builder: EvidenceBuilder
    name: str = "caption"

    def query(self, e: ItemEvidence, decision: SenseDecision) -> tuple[np.ndarray, dict[str, str]]:
        """What the captions are compared with, and what the ranking records about it."""
        return e.sentence, {}

    def rank(self, items: Sequence[AdmireAItem], decisions: Sequence[SenseDecision]) -> list[Ranking]:
        out = []
        for e, d in zip(self.builder.build(list(items)), decisions):
            if e.captions is None:
                raise SensoError(f"the {self.name} ranker needs captions; item {e.item.compound!r} has none")
            query, extra = self.query(e, d)
            sims = e.captions @ query
            out.append(ranking_by_scores(e.item.image_names, sims.tolist(), {"ranker": self.name, **extra}))
        return out

    def describe(self) -> dict:
        return {"name": self.name}


@dataclass
class SubstitutionRanker(CaptionRanker):
    name: str = "substitution"

    def query(self, e: ItemEvidence, decision: SenseDecision) -> tuple[np.ndarray, dict[str, str]]:
        use_meaning = decision.label == "idiomatic" and e.substituted is not None
        return ((e.substituted, {"query": "meaning substituted"}) if use_meaning
                else (e.sentence, {"query": "sentence"}))


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
class StructureRanker(Configurable):
    builder: EvidenceBuilder
    hedge: bool = RankerOptions.hedge
    idiom_query: str = RankerOptions.idiom_query
    roles: LearnedRoles | None = None  # None: today's hard rules
    mix: str = "rules"
    name: str = "structure"

    def __post_init__(self):
        if self.mix not in ROLE_MIXES:
            raise SensoError(f"unknown role source {self.mix!r} (--set roles=); choose from {', '.join(ROLE_MIXES)}")
        if (self.mix == "rules") != (self.roles is None):
            raise SensoError(f"--set roles={self.mix} needs {'no' if self.mix == 'rules' else 'a'} learned role part")

    @property
    def fitted_compounds(self) -> frozenset[str]:
        return self.roles.fitted_compounds if self.roles is not None else frozenset()

    def _rank_probabilistic(self, items: Sequence[AdmireAItem], decisions: Sequence[SenseDecision]) -> list[Ranking]:
        out = []
        for e, d, learned in zip(self.builder.build(list(items)), decisions, self.roles.marginals(items)):
            names = [i.name for i in e.item.images]
            marginals = learned if self.mix == "learned" else (learned + rule_marginals(assign_roles(e, self.idiom_query))) / 2
            p = d.p_idiomatic if self.hedge else float(d.label == "idiomatic")
            gains = expected_gains(marginals, p)
            order = tuple(names[j] for j in np.argsort(-gains, kind="stable"))
            discounts = 1 / np.log2(2 + np.arange(len(names)))
            expected = float(np.sort(gains)[::-1] @ discounts)
            likely = {role: names[int(np.argmax(marginals[:, k]))] for k, role in enumerate(ROLES)}
            out.append(Ranking(order=order, scores={n: float(g) for n, g in zip(names, gains)}, extra={
                "ranker": self.name, "roles": likely, "expected_dcg": expected, "p_idiomatic": d.p_idiomatic,
                "role_probabilities": {n: [round(float(v), 4) for v in row] for n, row in zip(names, marginals)}}))
        return out

    def rank(self, items: Sequence[AdmireAItem], decisions: Sequence[SenseDecision]) -> list[Ranking]:
        if self.roles is not None:
            return self._rank_probabilistic(items, decisions)
        out = []
        for e, d in zip(self.builder.build(list(items)), decisions):
            names = [i.name for i in e.item.images]
            roles = {role: names[j] for role, j in assign_roles(e, self.idiom_query).items()}
            gold_idiomatic = tuple(roles[r] for r in ROLES)
            gold_literal = tuple(roles[r] for r in LITERAL_ORDER)
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
        return {"name": self.name, "hedge": self.hedge, "idiom_query": self.idiom_query, "roles": self.mix,
                "role_model": self.roles.describe() if self.roles is not None else None}

"""`--sense learned`: a logistic regression over the embedding sense signals, fit on gold items.

Features of an item: the standardised signals of `EmbeddingSense` (`gloss`, `captions`, `words` per
embedder, each value / the embedder's scale; a missing signal is 0, the undecided centre) and, with
`use_roles`, one role-evidence signal per embedder:
    roles = Σ_j (P(j = strong idiom) − P(j = strong literal)) · cos(context, caption j) / scale,
where P comes from the learned role part: does the sentence's context sit closer to the likely strong
idiomatic caption or to the likely strong literal one? On training items those role probabilities are
cross-fitted (each inner fold's from a role model fit on the other compounds, with the C and features the
role part chose on all training items), so the weight of the signal is learned from probabilities as good
as those it will meet on new items. The role part must be fit first (`SensePipeline.fit` does so).

P(idiomatic) = sigmoid(w · standardise(x) + b); the inverse regularisation C is chosen from `roles.C_GRID`
by an inner cross-validation grouped by compound (`roles.INNER_FOLDS` folds), by mean log-loss.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

import numpy as np

from senso.admire.items import SENTENCE_TYPES, AdmireAItem
from senso.core.errors import SensoError
from senso.core.grouped_cv import grouped_folds
from senso.admire.systems.roles import ROLES, LearnedRoles, RoleModel, one_thread
from senso.admire.systems.sense import SIGNALS, EmbeddingSense, SenseDecision, sigmoid


@dataclass
class LearnedSense:
    """Logistic regression over the embedding signals (+ the role evidence); see the module docstring."""

    base: EmbeddingSense
    roles: LearnedRoles | None = None  # the role part whose probabilities give the `roles` signal
    model: RoleModel = field(default_factory=RoleModel)  # over two classes: literal, idiomatic
    name: str = "learned"
    fitted_compounds: frozenset[str] = frozenset()

    def _names(self) -> list[str]:
        names = [f"{b.embedder.spec}.{k}" for b in self.base.builders for k in SIGNALS]
        return names + ([f"{b.embedder.spec}.roles" for b in self.base.builders] if self.roles is not None else [])

    def _features(self, items: Sequence[AdmireAItem], role_marginals: Sequence[np.ndarray] | None) -> np.ndarray:
        per_builder = [b.build(list(items)) for b in self.base.builders]
        rows = []
        for k in range(len(items)):
            row = [raw.get(s, 0.0) / scale
                   for _, raw, scale in self.base.centred_signals([evidences[k] for evidences in per_builder])
                   for s in SIGNALS]
            if role_marginals is not None:
                m = role_marginals[k]
                contrast = m[:, ROLES.index("strong idiomatic")] - m[:, ROLES.index("strong literal")]
                for (_, scale, _), evidences in zip(self.base.calibrations, per_builder):
                    e = evidences[k]
                    row.append(float(contrast @ e.caption_sims(e.context)) / scale if e.captions is not None else 0.0)
            rows.append(row)
        return np.asarray(rows, dtype=np.float64)

    def _cross_fitted_marginals(self, items: Sequence[AdmireAItem]) -> list[np.ndarray]:
        out: list[np.ndarray | None] = [None] * len(items)
        for test in grouped_folds([i.compound for i in items], self.model.inner_folds, self.model.seed,
                                  "compounds"):
            train = [items[i] for i in range(len(items)) if i not in set(test)]
            # the role part's own choice (C, features) from its fit, so this adds one fit per inner fold; fitted on a
            # copy of the part (its fit makes new models)
            chosen = self.roles.model.c
            part = replace(self.roles).fit(train, c_grid=(chosen,) if chosen else None,
                                           feature_set=self.roles.chosen_features)
            for i, m in zip(test, part.marginals([items[i] for i in test])):
                out[i] = m
        return out

    @one_thread
    def fit(self, items: Sequence[AdmireAItem]) -> "LearnedSense":
        items = [i for i in items if i.sentence_type in SENTENCE_TYPES]
        y = [int(i.sentence_type == "idiomatic") for i in items]
        if len(items) < 4 or min(y) == max(y):
            raise SensoError("--sense learned needs at least 4 gold items of both sentence types to fit on")
        x = self._features(items, self._cross_fitted_marginals(items) if self.roles is not None else None)
        self.model.fit(list(x[:, None, :]), [[label] for label in y], [i.compound for i in items])
        self.fitted_compounds = frozenset(i.compound for i in items)
        return self

    def classify(self, items: Sequence[AdmireAItem]) -> list[SenseDecision]:
        if self.model.coef is None:
            raise SensoError("--sense learned must be fit (or loaded with --set model_file=FILE) before it classifies")
        marginals = self.roles.marginals(items) if self.roles is not None else None
        x = self.model.standardise(self._features(items, marginals))
        return [SenseDecision(sigmoid(float(row @ self.model.coef[0] + self.model.intercept[0])),
                              {"features": {n: round(float(v), 4) for n, v in zip(self._names(), row)}})
                for row in x]

    def describe(self) -> dict:
        return {"name": self.name, "features": self._names(), "c": self.model.c, "c_grid": list(self.model.c_grid),
                "inner_folds": self.model.inner_folds, "seed": self.model.seed, "role_evidence": self.roles is not None,
                "weights": None if self.model.coef is None else [round(float(w), 6) for w in self.model.coef[0]],
                "n_fitted_compounds": len(self.fitted_compounds)}

    def state(self) -> dict:
        return {"features": self._names(), "c": self.model.c, "mean": self.model.mean.tolist(),
                "scale": self.model.scale.tolist(), "coef": self.model.coef[0].tolist(),
                "intercept": float(self.model.intercept[0]), "fitted_compounds": sorted(self.fitted_compounds)}

    def load_state(self, state: dict, source: str | Path = "model") -> None:
        if state.get("features") != self._names():
            raise SensoError(f"{source}: its sense model uses features {state.get('features')}, this run "
                             f"{self._names()}; fit again with the same options")
        try:
            mean, scale, coef = (np.asarray(state[k], dtype=np.float64) for k in ("mean", "scale", "coef"))
            self.model = replace(self.model, c=float(state["c"]), mean=mean, scale=scale, coef=coef[None, :],
                                 intercept=np.array([float(state["intercept"])]))
        except (KeyError, TypeError, ValueError) as err:
            raise SensoError(f"{source}: not a sense model written by `senso fit admire-a` ({err}); refit it") from None
        self.fitted_compounds = frozenset(state.get("fitted_compounds", ()))

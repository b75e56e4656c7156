"""Image roles as probabilities: from today's similarity rules (one-hot) or from a learned model.

Every AdMIRe A item has five images in five roles (`ROLES`): strong and mild idiomatic, mild and strong
literal, and a distractor. The gold order of a training item says which image has which role (an
idiomatic item's gold is the roles in `ROLES` order; a literal item's is `LITERAL_ORDER`).

Role probabilities feed the structure ranker (`rankers.StructureRanker`): for an order π,
    E[DCG(π)] = Σ_j d(pos_π(j)) · g_j,  d(k) = 1 / log2(2 + k),
    g_j = p · (3·P(j = strong idiom) + P(j = mild idiom)) + (1 − p) · (3·P(j = strong literal) + P(j = mild literal)),
with p = P(idiomatic) (the official DCG has gains 3, 1, 0, 0, 0 for gold positions 1..5). E[DCG] is linear in
the role marginals, so the order with the highest expected DCG sorts the images by g_j (rearrangement
inequality); no enumeration of the 120 orders is needed.

The learned model (`RoleModel`): a multinomial logistic regression over the 5 roles, one row per caption,
on `caption_features`: relation features (`relation_features`: for each caption, its cosine to the
sentence, the context, the literal reading, the meaning (or the context when there is none), the
meaning-substituted sentence, the compound's words and the mean to its 4 sibling captions; each raw,
centred within the item and as a rank within the item), the rules' one-hot role (`assign_roles`), and with
feature set "relations+embedding" the caption's embedding itself; the feature set is chosen by inner CV. The 5 per-caption distributions are made one consistent
assignment: P(σ) ∝ Π_j P(role σ(j) | caption j) over the 120 one-to-one assignments σ, whose marginals are
the role probabilities. The inverse regularisation C (from `C_GRID`) and the feature set are chosen by an inner
cross-validation grouped by compound (`INNER_FOLDS` folds) on the training items only: by the mean official
DCG of the expected-gain orders told the gold sense (`gold_sense_dcg`), ties by log-loss of the gold role.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from senso.admire.items import AdmireAItem
from senso.admire.metrics import admire_dcg
from senso.core.errors import SensoError
from senso.core.grouped_cv import Fold, grouped_folds, out_of_fold
from senso.admire.systems.evidence import ItemEvidence
from senso.admire.systems.parts import IDIOM_QUERIES, ROLE_FEATURE_SETS
from senso.admire.systems.sense import literal_pair

ROLES = ("strong idiomatic", "mild idiomatic", "mild literal", "strong literal", "distractor")
LITERAL_ORDER = ("strong literal", "mild literal", "mild idiomatic", "strong idiomatic", "distractor")
C_GRID = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0)
INNER_FOLDS = 5
RELATIONS = ("sentence", "context", "literal", "meaning", "substituted", "components", "siblings")


# Dozens of small fits (~340 rows), where a multi-threaded BLAS (or OpenMP) only adds synchronisation cost on a
# busy machine (a fit measured 8x slower): each fit runs on one thread.
one_thread = threadpool_limits.wrap(limits=1)


_PERMUTATIONS = np.array(list(itertools.permutations(range(5))))  # (120, 5): σ[j] = role of caption j


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
    captions = e.captions
    if captions is None:
        raise SensoError(f"the structure ranker needs captions; item {e.item.compound!r} has none")
    if len(captions) != 5:
        raise SensoError(f"the structure ranker needs exactly 5 images; {e.item.compound!r} has {len(captions)}")
    (strong_lit, mild_lit), rest = literal_pair(e)
    sims = captions @ idiom_vector(e, query)
    strong_idiom, mild_idiom, distractor = sorted(rest, key=lambda j: (-sims[j], j))
    return dict(zip(ROLES, (strong_idiom, mild_idiom, mild_lit, strong_lit, distractor)))


def gold_roles(item: AdmireAItem) -> list[int]:
    """Role index (into `ROLES`) of each image of a gold item, in the item's image order."""
    if item.expected_order is None or item.sentence_type not in ("idiomatic", "literal"):
        raise SensoError(f"item {item.compound!r} has no gold order and sentence type: its roles are unknown")
    keys = ROLES if item.sentence_type == "idiomatic" else LITERAL_ORDER
    role_of = {name: ROLES.index(key) for name, key in zip(item.expected_order, keys)}
    try:
        return [role_of[image.name] for image in item.images]
    except KeyError as missing:
        raise SensoError(f"item {item.compound!r}: image {missing} is not in its gold order") from None


def _within(values: np.ndarray) -> list[np.ndarray]:
    """raw, centred within the item, and rank within the item (0 = lowest, 1 = highest)."""
    ranks = np.argsort(np.argsort(values, kind="stable"), kind="stable") / (len(values) - 1)
    return [values, values - values.mean(), ranks]


def relation_features(e: ItemEvidence) -> np.ndarray:
    """(5, 3·len(RELATIONS) + 1) features of each caption of one item with one embedder (module docstring)."""
    captions = e.captions
    if captions is None or len(captions) != 5:
        raise SensoError(f"learned roles need 5 captions; item {e.item.compound!r} has "
                         f"{0 if captions is None else len(captions)}")
    idiom = e.meaning_or_context
    substituted = e.substituted if e.substituted is not None else idiom
    gram = captions @ captions.T
    siblings = (gram.sum(axis=1) - np.diag(gram)) / 4
    columns = {"sentence": captions @ e.sentence, "context": captions @ e.context, "literal": captions @ e.literal,
               "meaning": captions @ idiom, "substituted": captions @ substituted,
               "components": (captions @ e.component_vecs.T).max(axis=1), "siblings": siblings}
    feats = [f for name in RELATIONS for f in _within(np.asarray(columns[name], dtype=np.float64))]
    feats.append(np.full(5, float(e.meaning_vec is not None)))
    return np.stack(feats, axis=1)


def assignment_marginals(per_caption: np.ndarray) -> np.ndarray:
    """(5, 5) marginals of P(σ) ∝ Π_j per_caption[j, σ(j)] over the 120 one-to-one role assignments."""
    logp = np.log(np.clip(per_caption, 1e-12, None))
    scores = logp[np.arange(5)[None, :], _PERMUTATIONS].sum(axis=1)  # (120,)
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    marginals = np.zeros((5, 5))
    np.add.at(marginals, (np.arange(5)[None, :], _PERMUTATIONS), weights[:, None])  # [j, σ(j)] += P(σ)
    return marginals


def expected_gains(marginals: np.ndarray, p_idiomatic: float) -> np.ndarray:
    """g_j of the module docstring: each image's expected gain at a position (sort descending)."""
    m = {r: marginals[:, ROLES.index(r)] for r in ROLES}
    return (p_idiomatic * (3 * m["strong idiomatic"] + m["mild idiomatic"])
            + (1 - p_idiomatic) * (3 * m["strong literal"] + m["mild literal"]))


def fit_logistic(x: np.ndarray, y: np.ndarray, c: float):
    """scikit-learn's logistic regression with inverse regularisation `c`, fit to convergence."""
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=c, max_iter=5000, tol=1e-6).fit(x, y)


@dataclass
class RoleModel:
    """Multinomial logistic regression on standardised features, C chosen by a grouped inner cross-validation
    (module docstring): over the roles of an item's captions, and `--sense learned`'s two sentence types."""

    c_grid: tuple[float, ...] = C_GRID
    inner_folds: int = INNER_FOLDS
    seed: int = 0
    c: float | None = None
    mean: np.ndarray | None = None
    scale: np.ndarray | None = None
    coef: np.ndarray | None = None  # (5 roles, n_features)
    intercept: np.ndarray | None = None
    inner_log_loss: dict[float, float] = field(default_factory=dict)
    inner_score: dict[float, float] = field(default_factory=dict)

    def standardise(self, x: np.ndarray) -> np.ndarray:
        return (x - self.mean) / self.scale

    @one_thread
    def fit(self, features: Sequence[np.ndarray], labels: Sequence[Sequence[int]], groups: Sequence[str],
            score: Callable[[list[np.ndarray]], float] | None = None) -> "RoleModel":
        """features: one (rows, F) array per item (its 5 captions; the sense's: 1); labels: each row's gold class
        (every item of the roles has all five; the sense's items both types); groups: each item's compound.
        C: the highest inner-CV `score` of the items' out-of-fold P(class | row) when given (ties: lower
        log-loss), else the lowest inner-CV mean log-loss of the gold class (ties: smaller C); a fold whose
        training side lacks a class is left out."""
        x = np.concatenate(features)
        y = np.concatenate([np.asarray(r) for r in labels])
        sizes = [len(f) for f in features]
        rows = np.repeat(np.arange(len(features)), sizes)
        sd = x.std(axis=0)
        self.mean, self.scale = x.mean(axis=0), np.where(sd > 1e-12, sd, 1.0)  # a constant column: scale 1
        xs = self.standardise(x)
        if len(self.c_grid) == 1:  # nothing to choose: skip the inner CV (e.g. the sense's cross-fitting)
            self.c, self.inner_log_loss, self.inner_score = self.c_grid[0], {}, {}
            return self._final(xs, y)
        n_classes = len(set(y))

        def predict(fold: Fold) -> np.ndarray | None:  # a fold whose training side lacks a class is left out
            if len(set(y[fold.train])) < n_classes:
                return None
            return np.stack([fit_logistic(xs[fold.train], y[fold.train], c).predict_proba(xs[fold.test])
                             for c in self.c_grid])

        folds = [Fold.holding_out(k, np.isin(rows, test_items))
                 for k, test_items in enumerate(grouped_folds(list(groups), self.inner_folds, self.seed, "compounds"))]
        pooled = out_of_fold(folds, (len(self.c_grid), len(y), n_classes), predict)  # out-of-fold P(class | row)
        oof = dict(zip(self.c_grid, pooled))
        scored = ~np.isnan(oof[self.c_grid[0]][:, 0])
        self.inner_log_loss = {c: float(-np.log(np.clip(oof[c][scored, y[scored]], 1e-12, None)).mean())
                               for c in self.c_grid}
        if score is not None:
            self.inner_score = {c: float(score(np.split(oof[c], np.cumsum(sizes)[:-1]))) for c in self.c_grid}
            self.c = max(self.c_grid, key=lambda c: (round(self.inner_score[c], 9), -self.inner_log_loss[c]))
        else:
            self.c = min(self.c_grid, key=lambda c: (round(self.inner_log_loss[c], 9), c))  # ties: smaller C
        return self._final(xs, y)

    def _final(self, xs: np.ndarray, y: np.ndarray) -> "RoleModel":
        model = fit_logistic(xs, y, self.c)
        self.coef, self.intercept = model.coef_, model.intercept_
        return self

    def per_caption(self, features: np.ndarray) -> np.ndarray:
        """(5, 5) P(role | caption), each row on its own (before the one-to-one assignment)."""
        if self.coef is None:
            raise SensoError("the learned role model must be fit (or loaded with --set model_file=FILE) before it ranks")
        z = self.standardise(features) @ self.coef.T + self.intercept
        z = np.exp(z - z.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)

    def marginals(self, features: np.ndarray) -> np.ndarray:
        return assignment_marginals(self.per_caption(features))

    def to_json(self) -> dict:
        return {"c": self.c, "c_grid": list(self.c_grid), "inner_folds": self.inner_folds, "seed": self.seed,
                "inner_log_loss": {str(k): v for k, v in self.inner_log_loss.items()},
                "mean": self.mean.tolist(), "scale": self.scale.tolist(), "coef": self.coef.tolist(),
                "intercept": self.intercept.tolist()}

    @classmethod
    def from_json(cls, data: dict, source: str | Path = "model") -> "RoleModel":
        try:
            return cls(c_grid=tuple(data["c_grid"]), inner_folds=int(data["inner_folds"]), seed=int(data["seed"]),
                       c=float(data["c"]), mean=np.asarray(data["mean"]), scale=np.asarray(data["scale"]),
                       coef=np.asarray(data["coef"]), intercept=np.asarray(data["intercept"]),
                       inner_log_loss={float(k): v for k, v in data.get("inner_log_loss", {}).items()})
        except (KeyError, TypeError, ValueError) as err:
            raise SensoError(f"{source}: not a role model written by `senso fit admire-a` ({err}); refit it") from None


def rule_marginals(assigned: dict[str, int]) -> np.ndarray:
    """One-hot (5, 5) marginals of a hard role assignment (caption index of each role)."""
    marginals = np.zeros((5, 5))
    for role, j in assigned.items():
        marginals[j, ROLES.index(role)] = 1.0
    return marginals


def gold_sense_dcg(items: Sequence[AdmireAItem], marginals: Sequence[np.ndarray]) -> float:
    """Mean official DCG of the expected-gain orders told each item's gold sense: the role model's criterion."""
    total = 0.0
    for item, m in zip(items, marginals):
        gains = expected_gains(m, 1.0 if item.sentence_type == "idiomatic" else 0.0)
        total += admire_dcg([item.images[j].name for j in np.argsort(-gains, kind="stable")], item.expected_order)
    return total / len(items)


def caption_features(e: ItemEvidence, feature_set: str) -> np.ndarray:
    """(5, F) features of one item: `relation_features`, the rules' one-hot role assignment
    (`assign_roles`), and for "relations+embedding" the caption embeddings themselves."""
    parts = [relation_features(e), rule_marginals(assign_roles(e))]
    if feature_set == "relations+embedding":
        parts.append(np.asarray(e.captions, dtype=np.float64))
    return np.concatenate(parts, axis=1)


@dataclass
class LearnedRoles:
    """The learned role part: `RoleModel` over `caption_features` of `builders`' embedders.

    C and (with `feature_set` "auto", the default) the feature set of `ROLE_FEATURE_SETS` are chosen together by
    the inner-CV DCG the ranker reaches told the gold sense (`gold_sense_dcg`), inside the training items. `fit(items)` fits on
    gold items (their compounds are recorded in `fitted_compounds`); `marginals(items)` gives each item's
    (5 captions, 5 roles) probabilities.
    """

    builders: list
    model: RoleModel = field(default_factory=RoleModel)
    feature_set: str = "auto"
    chosen_features: str | None = None
    fitted_compounds: frozenset[str] = frozenset()
    name: str = "learned"

    def features(self, items: Sequence[AdmireAItem], feature_set: str | None = None) -> list[np.ndarray]:
        feature_set = feature_set or self.chosen_features
        per_builder = [builder.build(list(items)) for builder in self.builders]
        return [np.concatenate([caption_features(e, feature_set) for e in evidences], axis=1)
                for evidences in zip(*per_builder)]

    def fit(self, items: Sequence[AdmireAItem], c_grid: tuple[float, ...] | None = None,
            feature_set: str | None = None) -> "LearnedRoles":
        """Fit on gold `items`; `c_grid`/`feature_set` narrow the choices (e.g. to an earlier fit's)."""
        roles, groups = [gold_roles(i) for i in items], [i.compound for i in items]
        candidates = [feature_set] if feature_set else (ROLE_FEATURE_SETS if self.feature_set == "auto" else [self.feature_set])

        def score(per_caption: list[np.ndarray]) -> float:
            return gold_sense_dcg(items, [assignment_marginals(p) for p in per_caption])

        fits = {}
        for candidate in candidates:
            model = RoleModel(c_grid=c_grid or self.model.c_grid, inner_folds=self.model.inner_folds, seed=self.model.seed)
            fits[candidate] = model.fit(self.features(items, candidate), roles, groups, score)
        self.inner_choice = {f: m.inner_score.get(m.c) for f, m in fits.items()}  # None: C given, not chosen
        self.chosen_features = max(candidates, key=lambda f: (round(self.inner_choice[f] or 0.0, 9), f))
        self.model = fits[self.chosen_features]
        self.fitted_compounds = frozenset(groups)
        return self

    def marginals(self, items: Sequence[AdmireAItem]) -> list[np.ndarray]:
        if self.chosen_features is None:
            raise SensoError("the learned role model must be fit (or loaded with --set model_file=FILE) before it ranks")
        return [self.model.marginals(f) for f in self.features(items)]

    def describe(self) -> dict:
        return {"name": self.name, "embedders": [b.embedder.spec for b in self.builders], "relations": list(RELATIONS),
                "feature_set": self.feature_set, "chosen_features": self.chosen_features,
                "inner_gold_sense_dcg_by_features": getattr(self, "inner_choice", None),
                "c": self.model.c, "c_grid": list(self.model.c_grid), "inner_folds": self.model.inner_folds,
                "seed": self.model.seed, "n_fitted_compounds": len(self.fitted_compounds)}

    def state(self) -> dict:
        return {"model": self.model.to_json(), "embedders": [b.embedder.spec for b in self.builders],
                "features": self.chosen_features, "fitted_compounds": sorted(self.fitted_compounds)}

    def load_state(self, state: dict, source: str | Path = "model") -> None:
        specs = [b.embedder.spec for b in self.builders]
        if state.get("embedders") != specs:
            raise SensoError(f"{source}: its role model was fit with embedders {state.get('embedders')}, this run "
                             f"uses {specs}; fit again with the same --embedder")
        if state.get("features") not in ROLE_FEATURE_SETS:
            raise SensoError(f"{source}: unknown role features {state.get('features')!r}; refit it")
        self.model = RoleModel.from_json(state["model"], source)
        self.chosen_features = state["features"]
        self.fitted_compounds = frozenset(state.get("fitted_compounds", ()))

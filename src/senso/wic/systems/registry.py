"""The one table of word-in-context systems: name -> its row (`row.WicSystem`). `senso run TASK --system NAME`
looks NAME up here (an unknown name is an error listing the valid ones); `senso systems` prints the table.

Every system has `fit(pairs)`, `judge(pairs)` (P(same meaning) per pair), `relate(pairs)` (a graded score per
pair) and `describe()`; `decide(p)` where its binary answer is not p >= 0.5. The run (`wic/run.py`) fits a system
on the task's training rows, or leave-lemma-out where it is scored on them or the task has none.
"""

from __future__ import annotations

from senso.wic.systems.baseline import LemmaPrior, WordOverlap
from senso.wic.systems.context_similarity import NAME as CONTEXT_SIMILARITY, ContextSimilarity
from senso.wic.systems.pair_fitted import NAME as PAIR_FITTED, PairFitted
from senso.wic.systems.pair_lm import NAME as PAIR_LM, PairLM
from senso.wic.systems.row import WicSystem
from senso.wic.systems.tuned_similarity import NAME as TUNED_SIMILARITY, TunedSimilarity

WIC_SYSTEMS: dict[str, WicSystem] = {s.name: s for s in (
    WicSystem(PAIR_FITTED, "logistic (binary) and ridge (graded) regression on the pair's per-layer target and "
                           "sentence cosines (multilingual-e5-small); fit on the training rows", PairFitted),
    WicSystem(CONTEXT_SIMILARITY, "the cosine of the target's contextual vectors (multilingual-e5-small, mean of its "
                                  "sub-word states at declared layers) in the two sentences; a threshold fit on the "
                                  "training rows", ContextSimilarity),
    WicSystem(TUNED_SIMILARITY, "the target's cosine through the encoder's last blocks fine-tuned on other data "
                                "sets' pairs (tune_on; WiC-ITA's and English WiC's training pairs), as XL-LEXEME is; "
                                "a threshold fit on the training rows; dwug-en's default", TunedSimilarity),
    WicSystem(PAIR_LM, "the likelihood protocol: P(yes) to 'is the word used in the same way?' under a language "
                       "model (--model; lm-eval's wic prompt for English, an Italian one for WiC-ITA)", PairLM,
              flags=("model", "backend", "base_url"), learns_lemmas=False),
    WicSystem("word-overlap", "baseline: the two sentences' shared words (Jaccard) as relatedness, a threshold "
                              "fitted on the training rows for same/different", WordOverlap),
    WicSystem("lemma-prior", "baseline: the share of same-meaning pairs (or mean score) of the lemma in the "
                             "training rows; nothing of the sentences", LemmaPrior),
)}
# Measured best on WiC-ITA and English WiC dev (docs/benchmarks.md, "Word in context: the systems"); it is fit on
# the training rows or, where a task has none (DWUG), leave-lemma-out on the scored split.
DEFAULT_SYSTEM = PAIR_FITTED

"""The one table of word-in-context systems: name -> its row (`row.WicSystem`). `senso run TASK --system NAME`
looks NAME up here (an unknown name is an error listing the valid ones); `senso systems` prints the table."""

from __future__ import annotations

from senso.wic.systems.baseline import LemmaPrior, WordOverlap
from senso.wic.systems.row import WicSystem

WIC_SYSTEMS: dict[str, WicSystem] = {s.name: s for s in (
    WicSystem("word-overlap", "baseline: the two sentences' shared words (Jaccard) as relatedness, a threshold "
                              "fitted on the training rows for same/different", WordOverlap),
    WicSystem("lemma-prior", "baseline: the share of same-meaning pairs (or mean score) of the lemma in the "
                             "training rows; nothing of the sentences", LemmaPrior),
)}
DEFAULT_SYSTEM = "word-overlap"

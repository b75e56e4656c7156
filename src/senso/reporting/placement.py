"""Where a run stands beside published results, as its family says (`Family.placement`: ABRICOT's published figures,
AdMIRe's leaderboards, or a note that none are published), and how it was evaluated in a few words."""

from __future__ import annotations

from senso.core.placement import Placement
from senso.core.run_folder import RunFolder


def placement_for(run: RunFolder) -> Placement:
    return run.task_def.family.placement(run)


def evaluation_label(run: RunFolder) -> str:
    """How a run was evaluated, in a few words (`0-shot`, `leave-one-lemma-out`, `training-free`, ...)."""
    return run.task_def.family.evaluation(run)

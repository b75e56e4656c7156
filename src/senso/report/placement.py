"""Where a run would have ranked among published results (placeholder until the leaderboard lands)."""

from __future__ import annotations

from senso.report.run_folder import RunFolder


def placement_for(run: RunFolder):
    return None

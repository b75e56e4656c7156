"""The flags of `senso score` for a Likert task (lm-eval's logged answers). A Likert run's prompting options
(--protocol, --shots, --chat-template) are the prompted-choice protocol's, declared once in `senso.core.options`
and read by naming them in `Family.reads`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from senso.core.task import score_flag

@dataclass
class LoggedAnswers:
    """`senso score TASK --lmeval-samples FILE`: lm-evaluation-harness's logged answers of a Likert task."""

    lmeval_samples: Path | None = score_flag(None, "--lmeval-samples", "lm-evaluation-harness's per-sample log of "
                                             "a task it logs (lm_eval --log_samples: samples_<task>_<date>.jsonl): "
                                             "senso scores its choices' log-likelihoods.")
    lmeval_results: Path | None = score_flag(None, "--lmeval-results", "lm-eval's results file of the same run "
                                             "(results_<date>.json): version, model and model args recorded.")
    limit: int | None = score_flag(None, "--limit", "With --lmeval-samples: score the first N items (a log of "
                                   "lm_eval --limit N).")


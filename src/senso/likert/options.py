"""The options of a Likert task's run besides the generic ones (`senso.core.options`): how a language model is
prompted. Declared once, with the same helper as every option; the table of tasks joins them into RunOptions."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from senso.core.errors import SensoError
from senso.core.options import option
from senso.core.task import score_flag

FAMILY = "likert"
NOTE = "is an ABRICOT prompting option; {task} does not use it (leave it out)"


@dataclass
class LikertOptions:
    protocol: str | None = option(None, "--protocol", "Likert: zero-shot (default) or few-shot; ABRICOT calls them "
                                  "calamita and paper.", "protocol", FAMILY, NOTE, shown=True)
    shots: int | None = option(None, "--shots", "Number of exemplars of the few-shot protocol (default 3).",
                               "protocol", FAMILY, NOTE)
    chat_template: bool = option(False, "--chat-template", "Wrap prompts in the model's chat template.", "protocol",
                                 FAMILY, NOTE)


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


def check_likert_options(options: LikertOptions) -> None:
    if options.shots is not None and options.shots < 0:
        raise SensoError(f"--shots must be 0 or more, got {options.shots}")

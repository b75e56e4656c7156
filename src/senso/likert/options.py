"""The options of a Likert task's run besides the generic ones (`senso.core.options`): how a language model is
prompted. Declared once, with the same helper as every option; the table of tasks joins them into RunOptions."""

from __future__ import annotations

from dataclasses import dataclass

from senso.core.errors import SensoError
from senso.core.options import option

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


def check_likert_options(options: LikertOptions) -> None:
    if options.shots is not None and options.shots < 0:
        raise SensoError(f"--shots must be 0 or more, got {options.shots}")

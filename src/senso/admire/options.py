"""The options of an AdMIRe run besides the common ones (`senso.core.options`: it reads the offered language,
split and gold file): the caption language. Declared once, with the same helper as every option; the table of
tasks joins them into RunOptions."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from senso.core.errors import SensoError
from senso.core.options import option
from senso.core.task import score_flag

FAMILY = "admire"
NOTE = "is an AdMIRe option; {task} does not use it (leave it out)"


@dataclass
class AdmireOptions:
    caption_lang: str | None = option(None, "--caption-lang", "AdMIRe: en or pt captions (default: the item's "
                                      "language).", "data", FAMILY, NOTE)


@dataclass
class SubmissionFlags:
    """`senso score TASK FILE --gold TARGETS`: a submission file scored as the organisers' scorer does."""

    gold: Path | None = score_flag(None, "--gold", "The organisers' targets file, e.g. a_en_dev_targets.tsv.")
    allow_partial: bool = score_flag(False, "--allow-partial", "Score a submission with fewer rows than the "
                                     "official split.")


def check_gold_file(options: Any) -> None:
    if options.gold is not None and not Path(options.gold).is_file():
        raise SensoError(f"--gold {options.gold}: no such file; give the organisers' targets file "
                         "(e.g. a_en_dev_targets.tsv)")


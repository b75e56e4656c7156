"""The word-in-context family's own `senso score` flags: the split whose gold a file of answers is scored
against (the family reads the common --split of `senso run`)."""

from __future__ import annotations

from dataclasses import dataclass

from senso.core.task import score_flag


@dataclass
class AnswerFlags:
    """`senso score TASK FILE [--wic-split SPLIT]`: a file of answers scored as a run of the `submission` system."""

    wic_split: str | None = score_flag(None, "--wic-split", "word in context: the split whose gold FILE is scored "
                                                            "against (default: dev, else the task's first).")

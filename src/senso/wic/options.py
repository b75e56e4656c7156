"""The word-in-context family's own `senso score` flags: the split whose gold a file of answers is scored
against, and that gold when it is given apart (a run reads the common --split and --gold)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from senso.core.task import score_flag


@dataclass
class AnswerFlags:
    """`senso score TASK FILE [--wic-split SPLIT]`: a file of answers scored as a run of the `submission` system."""

    wic_split: str | None = score_flag(None, "--wic-split", "word in context: the split whose gold FILE is scored "
                                                            "against (default: dev, else the task's first).")
    wic_gold: Path | None = score_flag(None, "--wic-gold", "word in context: the organisers' gold of that split, "
                                                           "given apart (WiC-ITA's gold_truth/binary/ folder, WiC's "
                                                           "test.gold.txt).")

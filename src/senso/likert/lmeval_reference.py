"""Reading lm-evaluation-harness reference log-likelihoods for ABRICOT (parity checks and features).

The files (`task,ID,choice,loglikelihood`, one row per item and choice) are those in the project's
shared reference folder: what lm-eval computed for each choice 1..5 under each protocol.
"""

from __future__ import annotations

from pathlib import Path

from senso.core.csvfile import read_records
from senso.core.errors import DataError
from senso.likert.task import TASKS

CHOICES = TASKS["abricot-abs"].choices  # the reference files hold ABRICOT's choices 1..5

LMEVAL_REFERENCE_FILES = {
    "calamita": "abricot_lmeval_gemma270m_0shot.csv",
    "paper": "abricot_lmeval_gemma270m_3shot.csv",
}


def read_lmeval_loglikelihoods(path: str | Path) -> dict[tuple[str, str], list[float]]:
    """(task, item ID) -> log-likelihoods of choices 1..5, in choice order; an item lacking a choice is an error."""
    path = Path(path)
    header, records = read_records(path)
    missing = [c for c in ("task", "ID", "choice", "loglikelihood") if c not in header]
    if missing:
        raise DataError(path, f"missing column(s) {', '.join(missing)}; found {', '.join(header) or 'none'}")
    rows: dict[tuple[str, str], dict[str, float]] = {}
    for row_no, row in enumerate(records, start=1):
        try:
            value = float(row["loglikelihood"])
        except (TypeError, ValueError):
            raise DataError(path, f"expected a number, got {row.get('loglikelihood')!r}", row=row_no,
                            field="loglikelihood") from None
        rows.setdefault((row["task"], row["ID"]), {})[row["choice"]] = value
    result = {}
    for key, by_choice in rows.items():
        missing = [c for c in CHOICES if c not in by_choice]
        if missing:
            raise DataError(path, f"{key[0]} item {key[1]} lacks choice(s) {', '.join(missing)}", field="choice")
        result[key] = [by_choice[c] for c in CHOICES]
    return result

"""`submission`: an official AdMIRe submission file scored by the one evaluation loop (what `senso score` runs).

The system predicts nothing itself: each item's ranking (Subtask A) or choice (B) is the submission file's row
(`--set submission=PATH`), so the run's samples, metrics and record are those of any run. `select_items` gives the
loop the items the file answers, in its row order, after refusing what the official scorer refuses (an unknown
compound, an order that is not a permutation of the item's images, a B item that is not a candidate, a row
count other than the official split's unless `allow_partial`: the run is then marked PARTIAL).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, Sequence

from senso.admire.submission import Submission, check_submission, official_size, read_submission
from senso.admire.systems.base import Ranking, SequenceChoice
from senso.admire.task import parse_targets_name
from senso.core.errors import DataError, SensoError
from senso.core.fingerprint import file_sha256
from senso.core.options import RunOptions
from senso.admire.languages import ANY
from senso.admire.systems.parts import SystemOptions
from senso.core.params import param

SYSTEM_NAME = "submission"


@dataclass
class SubmissionOptions(SystemOptions):
    """`submission`'s options: the file and whether a part of the split may be scored (any language: the file's)."""

    languages = ANY

    submission: Path | None = param(None, "the official submission file to score (submission_EN.tsv ...)")
    allow_partial: bool = param(False, "score a submission with fewer rows than the official split (the run is "
                                       "marked PARTIAL)")


def check_file(options: RunOptions, params: SubmissionOptions) -> None:
    """The file is given, and no --limit (checked before anything loads, so `SubmittedAnswers` has a file)."""
    if options.limit is not None:
        raise SensoError(f"--system {SYSTEM_NAME} scores the rows of a submission file, not the first --limit items: "
                         "give a file of those rows with --set allow_partial=true (senso score --allow-partial)")
    if params.submission is None:
        raise SensoError(f"--system {SYSTEM_NAME} scores a submission file: give it with --set submission=PATH "
                         "(senso score TASK FILE --gold TARGETS; Python: submission=PATH)")


class SubmittedAnswers:
    """The answers of a submission file: its rows, read and checked once, returned per item."""

    uses_images = False
    reads_data = False  # the rows answer the items: scored against the targets file alone, as the official scorer is
    fitted_compounds: frozenset[str] = frozenset()

    def __init__(self, subtask: str, context: Any):
        options, params = context.options, context.params
        self.name, self.params, self.lang, self.split = SYSTEM_NAME, params, options.lang, options.split
        self.gold = Path(options.gold) if options.gold else None
        self.submission: Submission = read_submission(params.submission)
        if self.submission.subtask != subtask:
            raise DataError(params.submission,
                            f"this is a Subtask {self.submission.subtask.upper()} submission, not admire-{subtask}")
        self.rows = self.submission.by_compound()
        self.partial_reason = f"{params.submission.name} holds {len(self.rows)} rows, --allow-partial"

    def describe(self) -> dict[str, Any]:
        path = Path(self.params.submission)
        return {"name": SYSTEM_NAME, "source": "a submission file",
                "submission_file": {"path": str(path.resolve()), "sha256": file_sha256(path)}}

    def select_items(self, items: Sequence[Any]) -> list[Any]:
        """The items the file answers, in its row order; what the official scorer refuses is a DataError."""
        by_compound = {item.compound: item for item in items}
        images = {c: (list(i.image_names) if self.submission.subtask == "a" else [cand.name for cand in i.candidates])
                  for c, i in by_compound.items()}
        named = self.gold is not None and parse_targets_name(self.gold.name) is not None
        where = f", from the gold file name {self.gold.name}" if named else ""
        size = sum(official_size(self.submission.subtask, self.lang, split) for split in self.split.split("+"))
        check_submission(self.submission, images, size, allow_partial=self.params.allow_partial,
                         size_note=f" ({self.lang} {self.split}{where})")
        return [by_compound[row.compound] for row in self.submission.rows]

    def rank(self, items: Sequence[Any]) -> list[Ranking]:
        return [Ranking(tuple(self.rows[item.compound].expected_order)) for item in items]

    def choose(self, items: Sequence[Any]) -> list[SequenceChoice]:
        return [SequenceChoice(self.rows[item.compound].expected_item, self.rows[item.compound].sentence_type)
                for item in items]


def submitted(subtask: str) -> Callable[[Any], SubmittedAnswers]:
    """The build of the `submission` row of `subtask`."""
    return partial(SubmittedAnswers, subtask)

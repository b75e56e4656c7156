"""What the scored items of a fitted system share with its training data, summarised the same way for every
family (AdMIRe: compound, sentence, captions; Likert: group, text). Each wing computes an item's overlap, a
dict field -> bool or a count (None: not known); these functions only count and say it, and
re-score the items that share nothing (`unseen`: the headline of a fitted system's run)."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence


def is_seen(overlap: Mapping[str, Any]) -> bool:
    """Whether an item shares anything known with the training data (a true field or a non-zero count)."""
    return any(bool(value) for value in overlap.values())


def overlap_summary(overlaps: Sequence[Mapping[str, Any]], compared: Sequence[str], source: str,
                    words: Mapping[str, str], scored: bool = True) -> dict[str, Any]:
    """results.json's `overlap`: the training data (`source`), the fields compared, how many items share each
    (`words` names a field in the sentence), how many are seen and unseen, and the sentence saying why the
    unseen items are the headline."""
    seen = sum(is_seen(o) for o in overlaps)
    shared = {f: sum(bool(o.get(f)) for o in overlaps) for f in compared}
    return {"training": source, "compared": list(compared), "n": len(overlaps), "n_seen": seen,
            "n_unseen": len(overlaps) - seen, "shared": shared,
            "why": overlap_sentence(len(overlaps), seen, shared, words, scored)}


def overlap_sentence(n: int, seen: int, shared: Mapping[str, int], words: Mapping[str, str],
                     scored: bool = True) -> str:
    """The one sentence the terminal, results.json and the report page give (`scored`: the run has gold)."""
    if not seen:
        return (f"None of the {n} items shares {' or '.join(words[f] for f in shared)} with the system's "
                "training data, so every item is unseen.")
    parts = ", ".join(f"{words[f]}: {k}" for f, k in shared.items() if k)
    if not scored:
        return (f"The system was fitted on data sharing material with {seen} of these {n} items ({parts}); scored "
                f"with gold, its headline would be the {n - seen} unseen items.")
    return (f"The system was fitted on data sharing material with {seen} of these {n} items ({parts}), so the "
            f"headline is the {n - seen} unseen items; the all-items figure is beside it, inflated by what it saw.")


def overlap_record(overlaps: Sequence[Mapping[str, Any]], compared: Sequence[str], source: str,
                   words: Mapping[str, str], metrics_of: Callable[[list[int]], Mapping[str, Any]] | None = None,
                   among: Sequence[int] | None = None) -> dict[str, Any]:
    """results.json's `overlap` (`overlap_summary`) and, for a run with gold (`metrics_of` given), `unseen`: the
    metrics (each an Estimate, with its CI) that `metrics_of` computes on the indices of the items sharing nothing
    with the training data (of `among`, the scored items; default: all), and their number `n`."""
    record: dict[str, Any] = {"overlap": overlap_summary(overlaps, compared, source, words,
                                                         scored=metrics_of is not None)}
    if metrics_of is not None:
        indices = range(len(overlaps)) if among is None else among
        unseen = [i for i in indices if not is_seen(overlaps[i])]
        record["unseen"] = {"n": len(unseen), **{k: v.to_json() for k, v in metrics_of(unseen).items()}}
    return record

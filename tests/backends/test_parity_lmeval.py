"""Parity with lm-evaluation-harness on the real default model and the real ABRICOT data.

`abricot_lmeval_gemma270m_{0,3}shot.csv` hold the five log-likelihoods lm-eval 0.4.x (HF backend,
CPU, float32) computed for every item of both tasks. The tests score a spread subset of items to
stay fast; `benchmarks/abricot_speed.py` checks all 127 (its "MAD vs lm-eval" and "same argmax").
"""

from __future__ import annotations


import pytest

from senso.likert.data import load_abricot
from senso.likert.systems.likert_lm import argmax_choice
from senso.likert.lmeval_reference import LMEVAL_REFERENCE_FILES, read_lmeval_loglikelihoods
from senso.likert.task import build_prompts, get_task

pytestmark = [pytest.mark.real_model, pytest.mark.real_data]

# Small subsets: a 270M model runs ~100 tokens/s on two busy CPU cores. A 0-shot item is ~170 tokens;
# a 3-shot item adds its exemplars (~550 tokens), computed once per distinct exemplar set.
ZERO_SHOT_ITEMS = 6
PREFIX_GROUPS, ITEMS_PER_GROUP = 2, 2






def pick_subset(prompts):
    """0-shot: items spread over the data set. 3-shot: the first and last item of the largest exemplar groups."""
    if not prompts[0].exemplar_ids:
        return prompts[:: len(prompts) // ZERO_SHOT_ITEMS][:ZERO_SHOT_ITEMS]
    groups: dict = {}
    for prompt in prompts:
        groups.setdefault(prompt.exemplar_ids, []).append(prompt)
    largest = sorted(groups.values(), key=len, reverse=True)[:PREFIX_GROUPS]
    return [group[i] for group in largest for i in (0, -1)][: PREFIX_GROUPS * ITEMS_PER_GROUP]


@pytest.mark.parametrize("protocol", ["calamita", "paper"])
@pytest.mark.parametrize("task_name", ["abricot-abs", "abricot-inc"])
def test_loglikelihoods_match_lmeval(data_dir, reference_dir, default_lm, task_name, protocol):
    items = load_abricot(data_dir / "abricot" / "dataset_it.csv")
    reference = read_lmeval_loglikelihoods(reference_dir / LMEVAL_REFERENCE_FILES[protocol])
    prompts = build_prompts(items, get_task(task_name), protocol)  # exemplars drawn from all 127 items
    subset = pick_subset(prompts)

    default_lm.reset_counters()
    scores = default_lm.loglikelihood_choices(subset, batch_size=4)

    diffs = []
    for prompt, got in zip(subset, scores):
        expected = reference[(task_name, prompt.item_id)]
        assert argmax_choice(got) == argmax_choice(expected), (prompt.item_id, got, expected)
        diffs += [abs(a - b) for a, b in zip(got, expected)]
    mad = sum(diffs) / len(diffs)
    print(f"{task_name} {protocol}: n={len(subset)} MAD={mad:.2e} max={max(diffs):.2e}")
    assert mad < 0.005 and max(diffs) < 0.05

    # one pass per item: every row holds the five continuations ("\n", " ", digit share all but the digit)
    if protocol == "calamita":
        assert default_lm.tokens_computed * 5 == default_lm.tokens_in_prompts
    else:
        assert default_lm.tokens_computed * 5 < default_lm.tokens_in_prompts

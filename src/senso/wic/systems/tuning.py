"""The encoder's last blocks fine-tuned on a system's training pairs: `pair-fitted`'s `tune_layers`.

Each usage's token states below the tuned blocks are computed once (`UsageEncoder.token_states`, a window around
the target); the top blocks, copies of the encoder's, are trained so that the cosine of the two targets' vectors
(the mean of its sub-word states, averaged over the tuned blocks' outputs) predicts the pair's gold through a
learned scale and offset: binary cross-entropy against the label, or against the score scaled to 0-1 by the
training scores' range where a pair has a score only. AdamW, a linearly decaying rate, pairs in a seeded order:
the same blocks on the same host and thread count (float32, as e5-f32: another CPU moves their last bits). What the
tuned blocks give pair-fitted is one cosine per tuned block, read beside its own features where a held-out check on
the training lemmas says they pay (`PairFitted._tune_if_it_pays`).
Measured in docs/benchmarks.md ("Word in context: fine-tuning the last blocks").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from senso.core.errors import SensoError
from senso.wic.items import WicPair
from senso.wic.systems.context_similarity import fit_sample
from senso.wic.systems.encoder import TokenStates, UsageEncoder, engine
from senso.wic.systems.features import pair_usages, rowwise_cosine

TUNE_SEED = 0
BATCH_PAIRS = 32
CHUNK_ROWS = 16  # usages of about one length per forward pass: a batch's short sentences are not padded to its longest
BUCKET = 16  # scoring pads a usage's states to a multiple of this many tokens (its pass's shape follows its length)
SCALE_INIT = 10.0  # the cosine's initial scale in the logit (the offset starts where the first batch's mean sits)
SCALAR_RATE = 100.0  # the scale and offset learn this many times faster than the blocks' weights
WEIGHT_DECAY = 0.01
# The recipe, chosen on a leave-lemma-out fifth of WiC-ITA's training rows (docs/benchmarks.md, "fine-tuning the
# last blocks"); the systems that tune declare their options with these defaults.
TUNE_LAYERS = 4
TUNE_EPOCHS = 2
TUNE_RATE = 1e-4
TUNE_PAIRS = 3000
TUNE_WINDOW = 64


@dataclass
class TunedBlocks:
    """The tuned copies of the encoder's blocks above layer `below` (float32 torch tensors, one dict per block)."""

    below: int
    weights: list[dict]

    def vectors(self, model: Any, usages: Sequence[TokenStates]) -> np.ndarray:
        """(n, blocks, hidden) float32: each usage's target vector after each tuned block. Each runs in a pass of a
        fixed shape that its own length sets (`CHUNK_ROWS` rows of its bucket's width, empty rows filling a pass),
        so its floats are a function of the usage alone, not of what else was asked with it."""
        from threadpoolctl import threadpool_limits

        torch = model.torch
        out = np.zeros((len(usages), len(self.weights), model.header.hidden), np.float32)
        filler = TokenStates(np.zeros((1, model.header.hidden), np.float32), np.array([0]))  # a pass's empty rows
        buckets: dict[int, list[int]] = {}
        for index, usage in enumerate(usages):
            buckets.setdefault(-(-len(usage.states) // BUCKET) * BUCKET, []).append(index)
        with threadpool_limits(limits=model.threads), torch.inference_mode():
            for width, indices in sorted(buckets.items()):
                for start in range(0, len(indices), CHUNK_ROWS):
                    chunk = indices[start:start + CHUNK_ROWS]
                    rows = [usages[i] for i in chunk] + [filler] * (CHUNK_ROWS - len(chunk))
                    out[chunk] = _chunk_vectors(model, self.weights, rows, width)[: len(chunk)].numpy()
        return out


def target_vectors(model: Any, weights: list[dict], usages: Sequence[TokenStates]) -> Any:
    """(n, blocks, hidden) torch, for training: the blocks run on the usages in groups of about one length, each
    group padded to its longest; at each block's output the mean of the target's states."""
    torch = model.torch
    order = sorted(range(len(usages)), key=lambda i: len(usages[i].states))
    rows: list[Any] = [None] * len(usages)
    for start in range(0, len(order), CHUNK_ROWS):
        chunk = [usages[i] for i in order[start:start + CHUNK_ROWS]]
        width = max(len(u.states) for u in chunk)
        for i, vector in zip(order[start:start + CHUNK_ROWS], _chunk_vectors(model, weights, chunk, width)):
            rows[i] = vector
    return torch.stack(rows)


def _chunk_vectors(model: Any, weights: list[dict], usages: Sequence[TokenStates], width: int) -> Any:
    torch = model.torch
    x = torch.zeros(len(usages), width, model.header.hidden)
    valid = torch.zeros(len(usages), width, dtype=torch.bool)
    pick = torch.zeros(len(usages), width)
    for row, usage in enumerate(usages):
        x[row, : len(usage.states)] = torch.from_numpy(usage.states)
        valid[row, : len(usage.states)] = True
        pick[row, usage.target] = 1.0 / len(usage.target)
    mask = valid[:, None, None, :]
    means = []
    for layer in weights:
        x = model.block(x, layer, mask)
        means.append((pick[..., None] * x).sum(1))
    return torch.stack(means, 1)


def training_targets(labels: Sequence[int | None], scores: Sequence[float | None]) -> np.ndarray:
    """Each pair's target in 0-1: its label, else its score scaled by the scores' range (NaN: neither)."""
    known = [s for s in scores if s is not None]
    low, high = (min(known), max(known)) if known else (0.0, 1.0)
    out = np.full(len(labels), np.nan)
    for i, (label, score) in enumerate(zip(labels, scores)):
        if label is not None:
            out[i] = float(label)
        elif score is not None:
            out[i] = (score - low) / (high - low) if high > low else 0.5
    return out


def tune_blocks(model: Any, first: Sequence[TokenStates], second: Sequence[TokenStates], targets: np.ndarray,
                below: int, epochs: int, rate: float) -> TunedBlocks:
    """The encoder's blocks above `below`, trained on the pairs (first[i], second[i]) toward targets[i] in 0-1."""
    from threadpoolctl import threadpool_limits

    torch = model.torch
    if len(first) < 2:
        raise SensoError(f"fine-tuning the encoder needs at least two training pairs with gold, got {len(first)}")
    weights = model.block_weights(below)
    for layer in weights:
        for tensor in (t for pair in layer.values() for t in pair):
            tensor.requires_grad_(True)
    scale, offset = torch.tensor(SCALE_INIT, requires_grad=True), torch.zeros((), requires_grad=True)
    tensors = [t for layer in weights for pair in layer.values() for t in pair]
    optimiser = torch.optim.AdamW([{"params": tensors, "lr": rate},
                                   {"params": [scale, offset], "lr": rate * SCALAR_RATE}],
                                  weight_decay=WEIGHT_DECAY)
    bases = [group["lr"] for group in optimiser.param_groups]
    batches = _batches(len(first), epochs)
    with threadpool_limits(limits=model.threads):
        for step, rows in enumerate(batches):
            vectors = target_vectors(model, weights, [first[i] for i in rows] + [second[i] for i in rows])
            cosine = torch.nn.functional.cosine_similarity(vectors[: len(rows)], vectors[len(rows):], dim=-1).mean(1)
            if step == 0:
                offset.data = -scale.detach() * cosine.detach().mean()
            gold = torch.from_numpy(targets[rows].astype(np.float32))
            loss = torch.nn.functional.binary_cross_entropy_with_logits(scale * cosine + offset, gold)
            for group, base in zip(optimiser.param_groups, bases):
                group["lr"] = base * (1 - step / len(batches))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    return TunedBlocks(below, [{name: tuple(t.detach() for t in pair) for name, pair in layer.items()}
                               for layer in weights])


def _batches(n: int, epochs: int) -> list[np.ndarray]:
    """Every epoch's pairs in a seeded order, BATCH_PAIRS at a time."""
    rng = np.random.default_rng(TUNE_SEED)
    out = []
    for _ in range(epochs):
        order = rng.permutation(n)
        out += [order[start:start + BATCH_PAIRS] for start in range(0, n, BATCH_PAIRS)]
    return out


def pair_states(encoder: UsageEncoder, pairs: Sequence[WicPair], layers: int,
                window: int) -> tuple[list[TokenStates], list[TokenStates]]:
    """Each pair's two usages' token states below the last `layers` blocks (a `window` around the target)."""
    states = encoder.token_states(*pair_usages(pairs), engine(encoder.engine_name).header.layers - layers, window)
    return states[: len(pairs)], states[len(pairs):]


def tuned_cosines(encoder: UsageEncoder, tuned: TunedBlocks, pairs: Sequence[WicPair], window: int) -> np.ndarray:
    """(n, tuned blocks): the targets' cosine after each tuned block, each distinct usage run once (a WUG's usage is
    in many pairs)."""
    first, second = pair_states(encoder, pairs, len(tuned.weights), window)
    distinct = {id(states): states for states in first + second}  # the encoder's memo: one object a usage
    vectors = dict(zip(distinct, tuned.vectors(engine(encoder.engine_name), list(distinct.values()))))
    return rowwise_cosine(np.stack([vectors[id(s)] for s in first]), np.stack([vectors[id(s)] for s in second]))


def tune_on_pairs(encoder: UsageEncoder, pairs: Sequence[WicPair], targets: np.ndarray, layers: int, epochs: int,
                  rate: float, window: int) -> TunedBlocks:
    """The encoder's last `layers` blocks tuned on `pairs` toward `targets` (0-1, `training_targets`)."""
    first, second = pair_states(encoder, pairs, layers, window)
    model = engine(encoder.engine_name)
    return tune_blocks(model, first, second, targets, model.header.layers - layers, epochs, rate)


def tuning_sample(pairs: Sequence[WicPair], most: int | None) -> tuple[list[WicPair], np.ndarray]:
    """(pairs, targets): a seeded sample of at most `most` of the pairs with gold, and their targets in 0-1."""
    gold = training_targets([p.label for p in pairs], [p.score for p in pairs])
    kept = fit_sample([i for i in range(len(pairs)) if not np.isnan(gold[i])], most)
    return [pairs[i] for i in kept], gold[kept]

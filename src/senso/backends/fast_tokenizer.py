"""A checkpoint's `tokenizer.json` run by `tokenizers` itself: what `HFCausalLM` needs of a tokenizer, fast to load.

`AutoTokenizer.from_pretrained` on the default model's folder takes about 3 s: transformers parses the 33 MB
`tokenizer.json` in Python and rebuilds the tokenizer from its vocabulary and merges. `tokenizers.Tokenizer.from_file`
reads the same file in Rust (about 1 s) into the same tokenizer: the normaliser, pre-tokeniser, BPE model and the
post-processor that adds `<bos>` are all in the file that `save_pretrained` wrote. Used for senso's own converted
default model, whose ids `check_tokenizer` verifies at every load (and the lm-eval parity tests on every prompt);
any other checkpoint keeps transformers' own tokenizer class, whose Python-side behaviour may differ.

Reading the file still takes about a second of CPU (the 514,906 BPE merges are rebuilt each time), so the ids of
texts already encoded are remembered: `cache_dir()/token_ids/<hash>.json`, keyed by the sha256 of the folder's
tokenizer.json and tokenizer_config.json (a different file is a different memo), holds the special tokens' ids and
the ids of up to MEMO_IDS token ids' worth of the most recently used texts. A start whose texts are all there
(the same prompts as a previous run, and the load check's text) never reads tokenizer.json; any other text reads
it once, on first use. The memo is a memo only: unreadable, it is ignored; unwritable, it is skipped.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
from pathlib import Path
from types import SimpleNamespace

_SPECIAL = ("bos", "eos", "pad", "unk")
_UNLIMITED = int(1e30)  # transformers' "no limit" model_max_length
MEMO_IDS = 200_000  # token ids kept in a memo file (about 1 MB of JSON: reading it stays far cheaper than the tokenizer)
MEMO_FORMAT = "senso-token-ids-1"


class FastTokenizer:
    """`encode`, `decode`, `__call__(text).input_ids` and the special tokens (`bos_token`, `bos_token_id`, ...)
    of the tokenizer saved in `folder`, with the special tokens its `tokenizer_config.json` names."""

    def __init__(self, folder: str | Path, memo: bool = True):
        folder = Path(folder)
        self._folder, self._rust = folder, None
        config_path = folder / "tokenizer_config.json"
        config = json.loads(config_path.read_text(encoding="utf-8")) if config_path.is_file() else {}
        self._memo_path = _memo_path(folder, config_path) if memo else None
        self._memo = _read_memo(self._memo_path)
        self._memo_total = sum(len(ids) for ids in self._memo["ids"].values())
        self._changed = False
        for name in _SPECIAL:
            token = config.get(f"{name}_token")
            token = token.get("content") if isinstance(token, dict) else token
            setattr(self, f"{name}_token", token)
            setattr(self, f"{name}_token_id", self._token_id(token) if token else None)
        self.model_max_length = config.get("model_max_length", _UNLIMITED)
        self.chat_template = config.get("chat_template")
        self.name_or_path = str(folder)

    def _token_id(self, token: str) -> int | None:
        special = self._memo["special"]
        if token not in special:
            special[token] = self._tokenizer.token_to_id(token)
            self._note_change()
        return special[token]

    @property
    def _tokenizer(self):
        """The tokenizer itself, read from tokenizer.json on first use."""
        if self._rust is None:
            from tokenizers import Tokenizer

            self._rust = Tokenizer.from_file(str(self._folder / "tokenizer.json"))
        return self._rust

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        ids_of = self._memo["ids"]
        key = f"{int(add_special_tokens)}{text}"
        ids = ids_of.pop(key, None)  # re-inserted below: the most recently used come last
        if ids is None:
            ids = self._tokenizer.encode(text, add_special_tokens=add_special_tokens).ids
            self._note_change()
            self._memo_total += len(ids)
            while self._memo_total > MEMO_IDS and ids_of:  # the least recently used go first
                self._memo_total -= len(ids_of.pop(next(iter(ids_of))))
        if len(ids) <= MEMO_IDS:
            ids_of[key] = ids
        else:
            self._memo_total -= len(ids)
        return list(ids)

    def _note_change(self) -> None:
        if self._memo_path is not None and not self._changed:
            self._changed = True
            atexit.register(self.save_memo)

    def save_memo(self) -> None:
        """Write the memo (at most MEMO_IDS ids: the most recently used texts) if this tokenizer added to it."""
        if self._memo_path is None or not self._changed:
            return
        data = {"format": MEMO_FORMAT, "special": self._memo["special"], "ids": self._memo["ids"]}
        try:
            self._memo_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self._memo_path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            tmp.replace(self._memo_path)
            self._changed = False
        except OSError:
            pass

    def decode(self, ids, skip_special_tokens: bool = False) -> str:
        return self._tokenizer.decode(list(ids), skip_special_tokens=skip_special_tokens)

    def __call__(self, text: str, add_special_tokens: bool = True) -> SimpleNamespace:
        return SimpleNamespace(input_ids=self.encode(text, add_special_tokens))

    def __len__(self) -> int:
        return self._tokenizer.get_vocab_size(with_added_tokens=True)


def _memo_path(folder: Path, config_path: Path) -> Path | None:
    from senso.core.fingerprint import path_fingerprint
    from senso.core.paths import cache_dir

    try:
        parts = [path_fingerprint(folder / "tokenizer.json")]
        parts += [path_fingerprint(config_path)] if config_path.is_file() else []
    except OSError:
        return None
    key = hashlib.sha256("|".join(parts).encode()).hexdigest()[:24]
    return cache_dir(create=False) / "token_ids" / f"{key}.json"


def _read_memo(path: Path | None) -> dict:
    """The memo at `path`, or an empty one when there is none, or it cannot be read, or it is of another format."""
    empty = {"special": {}, "ids": {}}
    if path is None:
        return empty
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return empty
    if not isinstance(data, dict) or data.get("format") != MEMO_FORMAT:
        return empty
    return {"special": dict(data.get("special") or {}), "ids": dict(data.get("ids") or {})}

"""A checkpoint's `tokenizer.json` run by `tokenizers` itself: what `HFCausalLM` needs of a tokenizer, fast to load.

`AutoTokenizer.from_pretrained` on the default model's folder takes about 3 s: transformers parses the 33 MB
`tokenizer.json` in Python and rebuilds the tokenizer from its vocabulary and merges. `tokenizers.Tokenizer.from_file`
reads the same file in Rust (about 1 s) into the same tokenizer: the normaliser, pre-tokeniser, BPE model and the
post-processor that adds `<bos>` are all in the file that `save_pretrained` wrote. Used for senso's own converted
default model, whose ids `check_tokenizer` verifies at every load (and the lm-eval parity tests on every prompt);
any other checkpoint keeps transformers' own tokenizer class, whose Python-side behaviour may differ.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

_SPECIAL = ("bos", "eos", "pad", "unk")
_UNLIMITED = int(1e30)  # transformers' "no limit" model_max_length


class FastTokenizer:
    """`encode`, `decode`, `__call__(text).input_ids` and the special tokens (`bos_token`, `bos_token_id`, ...)
    of the tokenizer saved in `folder`, with the special tokens its `tokenizer_config.json` names."""

    def __init__(self, folder: str | Path):
        from tokenizers import Tokenizer

        folder = Path(folder)
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        config_path = folder / "tokenizer_config.json"
        config = json.loads(config_path.read_text(encoding="utf-8")) if config_path.is_file() else {}
        for name in _SPECIAL:
            token = config.get(f"{name}_token")
            token = token.get("content") if isinstance(token, dict) else token
            setattr(self, f"{name}_token", token)
            setattr(self, f"{name}_token_id", self._tokenizer.token_to_id(token) if token else None)
        self.model_max_length = config.get("model_max_length", _UNLIMITED)
        self.chat_template = config.get("chat_template")
        self.name_or_path = str(folder)

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        return self._tokenizer.encode(text, add_special_tokens=add_special_tokens).ids

    def decode(self, ids, skip_special_tokens: bool = False) -> str:
        return self._tokenizer.decode(list(ids), skip_special_tokens=skip_special_tokens)

    def __call__(self, text: str, add_special_tokens: bool = True) -> SimpleNamespace:
        return SimpleNamespace(input_ids=self.encode(text, add_special_tokens))

    def __len__(self) -> int:
        return self._tokenizer.get_vocab_size(with_added_tokens=True)

"""What a warm start no longer redoes: the tokenizer read by `tokenizers` itself (FastTokenizer), the LM-head check
recorded per exact checkpoint (core.fingerprint.remembered), and the same scores either way."""

from __future__ import annotations

import json

import pytest
from transformers import AutoTokenizer

from senso.backends import fast_tokenizer, hf
from senso.backends.fast_tokenizer import FastTokenizer
from senso.backends.hf import HFCausalLM
from senso.core.fingerprint import remembered
from senso.core.paths import cache_dir
from senso.likert.task import LikertPrompt

TEXTS = ["Assegna un valore da 1 a 5 alla parola cane: Il cane dorme.\n", " 1", "\n 5", "", "cane è  un\tanimale"]
PROMPTS = [LikertPrompt("x", "Assegna un valore da 1 a 5 alla parola cane: Il cane dorme.\n"),
           LikertPrompt("y", "Il cane è un animale da compagnia. Voto:\n")]


def test_fast_tokenizer_gives_transformers_ids_and_special_tokens(tiny_model):
    fast, reference = FastTokenizer(tiny_model), AutoTokenizer.from_pretrained(tiny_model)
    for text in TEXTS:
        for special in (True, False):
            assert fast.encode(text, add_special_tokens=special) == reference.encode(text, add_special_tokens=special)
        assert fast(text).input_ids == reference(text).input_ids
    for name in ("bos", "eos", "pad"):
        assert getattr(fast, f"{name}_token") == getattr(reference, f"{name}_token")
        assert getattr(fast, f"{name}_token_id") == getattr(reference, f"{name}_token_id")
    assert fast.decode(fast.encode("cane", False)) == reference.decode(reference.encode("cane", add_special_tokens=False))


def test_fast_tokenizer_scores_as_transformers_tokenizer(tiny_model):
    fast = HFCausalLM(tiny_model, fast_tokenizer=True)
    plain = HFCausalLM(tiny_model)
    assert isinstance(fast.tokenizer, FastTokenizer) and not isinstance(plain.tokenizer, FastTokenizer)
    assert fast.loglikelihood_choices(PROMPTS) == plain.loglikelihood_choices(PROMPTS)
    with_template = HFCausalLM(tiny_model, fast_tokenizer=True, chat_template=True)  # needs transformers' tokenizer
    assert not isinstance(with_template.tokenizer, FastTokenizer)


def test_remembered_token_ids_are_the_tokenizers_and_spare_reading_it(tiny_model, monkeypatch, tmp_path):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    first = FastTokenizer(tiny_model)
    ids = {(text, special): first.encode(text, add_special_tokens=special) for text in TEXTS for special in (True, False)}
    first.save_memo()
    again = FastTokenizer(tiny_model)
    assert {key: again.encode(*key) for key in ids} == ids
    assert again._rust is None  # every text and special token came from the memo: tokenizer.json never read
    assert [getattr(again, f"{n}_token_id") for n in ("bos", "eos", "pad")] == \
           [getattr(first, f"{n}_token_id") for n in ("bos", "eos", "pad")]
    assert again.encode("a text never seen", False) == first._tokenizer.encode("a text never seen", add_special_tokens=False).ids
    assert again._rust is not None
    unmemoised = FastTokenizer(tiny_model, memo=False)
    assert {key: unmemoised.encode(*key) for key in ids} == ids


def test_the_token_memo_is_bounded_and_follows_the_tokenizer_file(tiny_model, monkeypatch, tmp_path):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(fast_tokenizer, "MEMO_IDS", 40)
    tok = FastTokenizer(tiny_model)
    for k in range(30):
        tok.encode(f"testo numero {k} con qualche parola")
    assert 0 < sum(len(ids) for ids in tok._memo["ids"].values()) <= 40
    assert "1testo numero 29 con qualche parola" in tok._memo["ids"]  # the most recent are kept
    tok.save_memo()
    [memo_file] = (tmp_path / "cache" / "token_ids").glob("*.json")
    other = tmp_path / "other"
    other.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (other / name).write_bytes((tiny_model / name).read_bytes())
    config = json.loads((other / "tokenizer_config.json").read_text())
    (other / "tokenizer_config.json").write_text(json.dumps({**config, "model_max_length": 7}))
    elsewhere = FastTokenizer(other)
    elsewhere.encode("x")
    elsewhere.save_memo()
    assert len(list(memo_file.parent.glob("*.json"))) == 2  # another config: its own memo


def test_the_lm_head_check_runs_once_per_checkpoint(tiny_model, monkeypatch, tmp_path):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    calls = []
    check = HFCausalLM._check_manual_head
    monkeypatch.setattr(HFCausalLM, "_check_manual_head", lambda self: calls.append(self.dtype) or check(self))
    first = HFCausalLM(tiny_model)
    again = HFCausalLM(tiny_model)
    assert calls == ["float32"] and first._manual_head == again._manual_head
    HFCausalLM(tiny_model, dtype="bfloat16")  # another dtype: another record
    assert calls == ["float32", "bfloat16"]
    records = json.loads((cache_dir() / hf.CHECKS_MEMO).read_text())
    assert len(records) == 2 and all(key.startswith(hf.HEAD_CHECK_VERSION + "|sha256:") for key in records)


def test_remembered_computes_once_per_key_and_never_needs_the_file(monkeypatch, tmp_path):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    calls = []
    compute = lambda: calls.append(1) or {"x": len(calls)}  # noqa: E731
    assert remembered("memo.json", "a", compute) == {"x": 1}
    assert remembered("memo.json", "a", compute) == {"x": 1} and len(calls) == 1
    assert remembered("memo.json", "b", compute) == {"x": 2}
    assert remembered("memo.json", "a", compute, memo=False) == {"x": 3}
    (tmp_path / "cache" / "memo.json").write_text("not json")
    assert remembered("memo.json", "a", compute) == {"x": 4}


@pytest.mark.real_model
def test_default_model_loads_the_fast_tokenizer(default_lm):
    assert isinstance(default_lm.tokenizer, FastTokenizer)


def test_the_default_models_folder_named_as_hf_path_loads_as_the_default_does(tiny_model, monkeypatch):
    from senso.backends import default_model
    from senso.backends.load import load_model

    checked = []
    monkeypatch.setattr(default_model, "default_model_dir", lambda: tiny_model)
    monkeypatch.setattr(default_model, "default_model_path", lambda: tiny_model)
    monkeypatch.setattr(default_model, "check_tokenizer", checked.append)
    same = load_model(f"hf:{tiny_model}/../{tiny_model.name}", "lm")
    assert isinstance(same.tokenizer, FastTokenizer) and checked == [same.tokenizer]
    monkeypatch.setattr(default_model, "default_model_dir", lambda: tiny_model.parent / "elsewhere")
    plain = load_model(f"hf:{tiny_model}", "lm")
    assert not isinstance(plain.tokenizer, FastTokenizer) and len(checked) == 1

"""The built-in default model: conversion into the cache (atomic, once) and the tokenizer check."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from senso.backends import default_model as dm
from senso.core.errors import SensoError


class FakeTokenizer:
    def __init__(self, ids):
        self.ids = ids

    def __call__(self, text):
        class Encoding:
            input_ids = self.ids
        return Encoding()


def test_tokenizer_check_accepts_gemma_ids_and_names_the_transformers_version_otherwise():
    import transformers

    dm.check_tokenizer(FakeTokenizer([2, 12834, 44354, 4478, 723]))
    with pytest.raises(SensoError, match=f"transformers {transformers.__version__}"):
        dm.check_tokenizer(FakeTokenizer([2, 12834, 44354, 4478]))


def fake_writer(calls: list, delay: float = 0.0, fail: bool = False):
    def write(out: Path) -> None:
        calls.append(out)
        (out / "weights.bin").write_bytes(b"w" * 10)
        time.sleep(delay)
        if fail:
            raise RuntimeError("killed midway")
        (out / dm.MARKER_FILE).write_text(json.dumps({"writer": len(calls)}))
    return write


def test_default_model_path_converts_once_into_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path))
    calls: list = []
    monkeypatch.setattr(dm.convert_atomically, "__defaults__", (fake_writer(calls, delay=0.3),))
    paths = []
    threads = [threading.Thread(target=lambda: paths.append(dm.default_model_path())) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1  # the others waited for the lock, then found the finished copy
    expected = tmp_path / "models" / f"gemma-3-270m-{dm.gguf_sha256()[:12]}-f32"
    assert paths == [expected] * 3
    assert (expected / "weights.bin").exists() and (expected / dm.MARKER_FILE).exists()
    assert sorted(p.name for p in (tmp_path / "models").iterdir() if not p.name.endswith(".lock")) == [expected.name]
    assert dm.default_model_path() == expected and len(calls) == 1


def test_two_conversions_racing_without_the_lock_leave_one_complete_copy(tmp_path):
    target = tmp_path / "models" / "m"
    calls: list = []
    threads = [threading.Thread(target=dm.convert_atomically, args=(target, fake_writer(calls, delay=0.3)))
               for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 2
    assert sorted(p.name for p in target.iterdir()) == sorted(["weights.bin", dm.MARKER_FILE])
    assert [p.name for p in target.parent.iterdir()] == ["m"]  # no temporary folder left


def test_a_failed_conversion_leaves_nothing(tmp_path):
    target = tmp_path / "models" / "m"
    with pytest.raises(RuntimeError, match="killed midway"):
        dm.convert_atomically(target, fake_writer([], fail=True))
    assert list(target.parent.iterdir()) == []


def test_an_incomplete_folder_is_never_trusted(tmp_path, monkeypatch):
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path))
    stale = dm.default_model_dir()
    stale.mkdir(parents=True)
    (stale / "half-written.bin").write_bytes(b"x")
    calls: list = []
    monkeypatch.setattr(dm.convert_atomically, "__defaults__", (fake_writer(calls),))
    assert dm.default_model_path() == stale
    assert len(calls) == 1 and not (stale / "half-written.bin").exists()


@pytest.mark.real_model
def test_converted_default_model(default_model_dir, default_lm):
    from transformers import AutoConfig

    assert default_model_dir.name == f"gemma-3-270m-{dm.gguf_sha256()[:12]}-f32"
    tok = default_lm.tokenizer  # AutoTokenizer.from_pretrained(default_model_dir)
    assert tok("Il cane è un").input_ids == [2, 12834, 44354, 4478, 723]
    dm.check_tokenizer(tok)
    assert AutoConfig.from_pretrained(default_model_dir).dtype in ("float32", __import__("torch").float32)
    marker = json.loads((default_model_dir / dm.MARKER_FILE).read_text())
    assert marker["gguf_sha256"] == dm.gguf_sha256() and marker["saved_dtype"] == "float32"
    assert marker["rounded_to"] == "bfloat16"  # the weights the lm-eval reference was computed with


@pytest.mark.real_model
def test_default_spec_loads_the_converted_model(default_lm, default_model_dir):
    info = default_lm.describe()
    assert info["spec"] == "gemma3-270m"
    assert info["path"] == str(default_model_dir.resolve())
    assert info["dtype"] == "float32" and info["chat_template"] is None
    assert default_lm.add_bos_token  # lm-eval forces BOS for Gemma
    # Gemma's tokens for the CALAMITA continuations: "\n", " ", digit — all shared but the last
    context = default_lm.tokenizer.encode("ciao", add_special_tokens=False)
    encs = [default_lm.tokenizer.encode(f"ciao\n {k}", add_special_tokens=False)[len(context):] for k in range(1, 6)]
    assert all(e[:-1] == [107, 236743] for e in encs) and len({e[-1] for e in encs}) == 5

"""Tiny randomly initialised causal LMs with their own tiny tokenizer, for the tests and the benchmarks' smoke modes.

A byte-level BPE trained on a few Italian sentences (digits single tokens, as in Gemma's tokenizer) and a
Llama or Gemma 3 of a few thousand parameters: the scores mean nothing, the code that computes them is real.
Importable from any test (pytest puts tests/ on sys.path through tests/conftest.py) and, with tests/ on
sys.path, from benchmarks/ (benchmarks/_smoke.py). Imports no pytest.
"""

from __future__ import annotations

from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import PreTrainedTokenizerFast

CORPUS = [
    "Assegna un valore di astrazione da 1 a 5 alla parola cane nel contesto della frase seguente:",
    "Il cane è un animale da compagnia. La parola è estremamente concreta (e.g. un cane specifico)",
    "Rispondi esclusivamente con il numero scelto senza aggiungere nessuna spiegazione",
    "1 2 3 4 5 12 345 \n\n uno due tre quattro cinque",
]
CHAT_TEMPLATE = "{{ bos_token }}{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}</{{ m['role'] }}>\n{% endfor %}{% if add_generation_prompt %}<model>{% endif %}"


def build_tokenizer() -> PreTrainedTokenizerFast:
    """A small byte-level BPE trained on a few sentences, with a BOS-adding post-processor."""
    tok = Tokenizer(models.BPE())
    # digits stay single tokens, never merged with the space before them (as in Gemma's tokenizer)
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<pad>", "<eos>", "<bos>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(CORPUS, trainer)
    bos = tok.token_to_id("<bos>")
    tok.post_processor = processors.TemplateProcessing(single="<bos> $A", pair="<bos> $A <bos> $B",
                                                       special_tokens=[("<bos>", bos)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<bos>", eos_token="<eos>", pad_token="<pad>")
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_model(kind: str, vocab_size: int, max_positions: int = 4096):
    """A tiny random `kind` ("llama" or "gemma3") causal LM; a prompt longer than `max_positions` tokens is refused
    by the scoring engine, naming the item (its character-level tokenizer makes ABRICOT's 3-shot prompts ~1,600
    tokens long)."""
    torch.manual_seed(0)
    if kind == "gemma3":
        from transformers import Gemma3ForCausalLM, Gemma3TextConfig

        # a sliding window far shorter than the prompts, mixed with global layers, and logit softcapping
        config = Gemma3TextConfig(
            vocab_size=vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=4,
            num_attention_heads=2, num_key_value_heads=1, head_dim=16, sliding_window=12,
            layer_types=["sliding_attention", "full_attention", "sliding_attention", "full_attention"],
            max_position_embeddings=max_positions, final_logit_softcapping=30.0, initializer_range=0.3,
            pad_token_id=0, bos_token_id=2, eos_token_id=1,
        )
        return Gemma3ForCausalLM(config)
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(vocab_size=vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=max_positions,
                         initializer_range=0.3, pad_token_id=0, bos_token_id=2, eos_token_id=1)
    return LlamaForCausalLM(config)


def save_tiny_lm(folder: Path, kind: str = "llama", max_positions: int = 4096) -> Path:
    """A tiny random `kind` checkpoint with its tokenizer, saved into `folder` (a transformers model folder)."""
    tokenizer = build_tokenizer()
    build_model(kind, len(tokenizer), max_positions).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder

"""Test helpers for the image modality: tiny randomly initialised models (CLIP, SigLIP, open_clip, LLaVA),
PNG files, and a fake OpenAI-compatible server on 127.0.0.1, all made by the tests themselves.

No CLIP or VLM weights can be downloaded here, so the image tests check the real loading and
embedding code on models a few kilobytes large: the numbers mean nothing, the plumbing is real.
Importable from any test (pytest puts tests/ on sys.path through tests/conftest.py).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from senso.backends.torchvision_compat import ensure_torchvision_importable

# Where a torchvision that cannot load its C++ operators is installed, transformers' vision classes
# fail to import until this runs (see senso.backends.torchvision_compat).
ensure_torchvision_importable()

WORDS = ("a the of in is man woman dog cat picture shows money dirty clean red blue green house big fish small "
         "water sea office people meaning does this show yes no").split()
SPECIAL = ["[PAD]", "[UNK]", "[BOS]", "[EOS]"]

TINY_OPEN_CLIP_CFG = {
    "embed_dim": 16,
    "vision_cfg": {"image_size": 32, "layers": 1, "width": 32, "patch_size": 16, "head_width": 16},
    "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 1},
}


def write_png(path: Path, color: tuple[int, int, int], size: tuple[int, int] = (40, 48), stripe: int = 0) -> Path:
    """A solid-colour PNG, with a white vertical stripe at column `stripe` (0: none) to vary pictures."""
    from PIL import Image

    image = Image.new("RGB", size, color)
    if stripe:
        for y in range(size[1]):
            for x in range(stripe, min(stripe + 4, size[0])):
                image.putpixel((x, y), (255, 255, 255))
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="PNG")
    return path


def open_clip_module():
    """open_clip, importable through senso's torchvision workaround, or skip the test."""
    from senso.backends.torchvision_compat import ensure_torchvision_importable

    try:
        ensure_torchvision_importable()
        import open_clip
    except ImportError as err:
        pytest.skip(f"open_clip_torch not installed ({err}); pip install 'senso[open-clip]'")
    return open_clip


def tiny_open_clip_dir(folder: Path, seed: int = 0) -> Path:
    """An open_clip `local-dir:` folder (config + safetensors) holding a tiny random CLIP."""
    import torch
    from safetensors.torch import save_file

    open_clip_module()
    from open_clip.model import CLIP

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "open_clip_config.json").write_text(json.dumps({"model_cfg": TINY_OPEN_CLIP_CFG, "preprocess_cfg": {}}))
    torch.manual_seed(seed)
    model = CLIP(**TINY_OPEN_CLIP_CFG)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(folder / "open_clip_model.safetensors"))
    return folder


def tiny_tokenizer():
    """A word-level fast tokenizer that adds [BOS] ... [EOS] (what CLIP's pooling needs)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(SPECIAL + list(dict.fromkeys(WORDS)))}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(single="[BOS] $A [EOS]", special_tokens=[("[BOS]", 2), ("[EOS]", 3)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", bos_token="[BOS]",
                                   eos_token="[EOS]")


def tiny_hf_dir(folder: Path, kind: str = "clip", seed: int = 0) -> Path:
    """A transformers folder (model, tokenizer, image processor) with a tiny random CLIP or SigLIP."""
    import torch
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel, SiglipConfig, SiglipImageProcessorPil, SiglipModel

    tokenizer = tiny_tokenizer()
    text = dict(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                num_attention_heads=2, max_position_embeddings=16, pad_token_id=0, bos_token_id=2, eos_token_id=3)
    vision = dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2, image_size=32,
                  patch_size=16)
    torch.manual_seed(seed)
    if kind == "clip":
        model = CLIPModel(CLIPConfig(text_config=text, vision_config=vision, projection_dim=8))
        processor = CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    elif kind == "siglip":
        model = SiglipModel(SiglipConfig(text_config=text, vision_config=vision))
        processor = SiglipImageProcessorPil(size={"height": 32, "width": 32})
    else:
        raise ValueError(kind)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


LLAVA_WORDS = "a the of in is picture pictures does this show yes no meaning sentence answer rank them numbered".split()
LLAVA_TEMPLATE = (
    "{% for m in messages %}{% for c in m['content'] %}{% if c['type'] == 'image' %}<image> "
    "{% else %}{{ c['text'] }}{% endif %}{% endfor %}{% endfor %}{% if add_generation_prompt %} answer{% endif %}"
)


def tiny_llava_dir(folder: Path, seed: int = 0) -> Path:
    """A transformers folder with a tiny random LLaVA (CLIP vision tower + Llama) and its processor."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import CLIPImageProcessorPil, LlavaConfig, LlavaForConditionalGeneration, LlavaProcessor, PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(SPECIAL + ["<image>"] + list(dict.fromkeys(LLAVA_WORDS)) + [str(d) for d in range(10)])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", bos_token="[BOS]",
                                        eos_token="[EOS]", extra_special_tokens={"image_token": "<image>"})
    processor = LlavaProcessor(image_processor=CLIPImageProcessorPil(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}),
                               tokenizer=tokenizer, patch_size=16, vision_feature_select_strategy="default",
                               chat_template=LLAVA_TEMPLATE, num_additional_image_tokens=1)
    config = LlavaConfig(
        vision_config=dict(model_type="clip_vision_model", hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                           num_attention_heads=2, image_size=32, patch_size=16),
        text_config=dict(model_type="llama", vocab_size=len(vocab), hidden_size=16, intermediate_size=32,
                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=256),
        image_token_index=vocab["<image>"], vision_feature_select_strategy="default")
    torch.manual_seed(seed)
    folder.mkdir(parents=True, exist_ok=True)
    LlavaForConditionalGeneration(config).save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


class FakeServer:
    """An OpenAI-compatible server on 127.0.0.1 that answers with canned responses and records each request."""

    def __init__(self, responses: list[tuple[int, dict]] | None = None, model: str = "m", responder=None):
        self.model = model
        self.responses = list(responses or [])
        self.responder = responder  # body -> (status, payload), instead of the canned responses
        self.bodies: list[dict] = []
        self.paths: list[str] = []
        self.headers: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # the backend reads the model card once (its fingerprint)
                data = json.dumps({"object": "list", "data": [{"id": server.model, "object": "model"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.bodies.append(body)
                server.paths.append(self.path)
                server.headers.append(dict(self.headers))
                if server.responder is not None:
                    status, payload = server.responder(body)
                else:
                    status, payload = server.responses.pop(0) if len(server.responses) > 1 else server.responses[0]
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def chat_response(text: str, top: list[tuple[str, float]] | None) -> dict:
    choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"}
    if top is not None:
        choice["logprobs"] = {"content": [{"token": top[0][0], "logprob": top[0][1], "bytes": None,
                                           "top_logprobs": [{"token": t, "logprob": lp, "bytes": None} for t, lp in top]}]}
    return {"id": "x", "object": "chat.completion", "model": "vlm", "choices": [choice]}

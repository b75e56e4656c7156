"""Speed of image and text embedding with the CLIP ViT-B/32 architecture on this machine.

The weights are random (no CLIP weights can be downloaded here), which does not change the compute:
the numbers are the cost of `clip-rank` with the real ViT-B/32 (openai/clip-vit-base-patch32) on the
real AdMIRe images. No cache is used. Wall time depends on what else runs on the machine, so the
process CPU time (all threads) is printed beside it. Usage:

    PYTHONPATH=src python benchmarks/image_embed_speed.py --data-dir ../shared/data --split dev --batch-size 16
    PYTHONPATH=src python benchmarks/image_embed_speed.py --smoke   # seconds: a CLIP of a few thousand weights, 2 images

`--arch tiny` (what smoke mode uses) builds a CLIP of the same kind with one narrow layer per tower instead;
`--images N` embeds the first N images (and N sentences) only.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from _smoke import add_smoke_option, smoke

# CLIPConfig() is the architecture of openai/clip-vit-base-patch32; "tiny" keeps its image size and text length
ARCHS = {
    "vit-b-32": {},
    "tiny": {"projection_dim": 8,
             "text_config": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
                             "num_attention_heads": 2},
             "vision_config": {"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
                               "num_attention_heads": 2}},
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--split", default="dev")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--arch", choices=sorted(ARCHS), default="vit-b-32")
    parser.add_argument("--images", type=int, default=None, help="embed only the first N images and sentences")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), arch="tiny", images=2, threads=1)
    torch.set_num_threads(args.threads)

    from senso.backends.torchvision_compat import ensure_torchvision_importable

    ensure_torchvision_importable()
    from transformers import CLIPConfig, CLIPImageProcessorPil, CLIPModel

    from senso.admire.rankdata import admire_a_items
    from senso.backends.image_text import HFClipEncoder, ImageTextModel, weights_fingerprint

    folder = args.data_dir / "admire" / "subtask_a" / "en" / args.split
    images = sorted(folder.glob("*/*.png"))[: args.images]
    sentences = [item.sentence for item in admire_a_items("en", args.split, args.data_dir)[0]][: args.images]

    class PadTokenizer:  # ViT-B/32 pads every text to 77 tokens, so the cost does not depend on the words
        def __call__(self, texts, **kwargs):
            return {"input_ids": torch.full((len(texts), 77), 5), "attention_mask": torch.ones(len(texts), 77, dtype=torch.long)}

    torch.manual_seed(0)
    started = time.perf_counter()
    net = CLIPModel(CLIPConfig(**ARCHS[args.arch]))
    encoder = HFClipEncoder(net, PadTokenizer(), CLIPImageProcessorPil())
    encoder.truncated = lambda text: False
    model = ImageTextModel("benchmark", encoder=encoder, fingerprint_value=weights_fingerprint(net), batch_size=args.batch_size)
    build_s = time.perf_counter() - started
    started, cpu = time.perf_counter(), time.process_time()
    model.embed_images(images)
    image_s, image_cpu = time.perf_counter() - started, time.process_time() - cpu
    started, cpu = time.perf_counter(), time.process_time()
    model.embed_texts(sentences)
    text_s, text_cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"{args.arch} CLIP (random weights), {args.threads} threads, batch {args.batch_size}, {torch.__version__}")
    print(f"build {build_s:.1f} s; {len(images)} images: {image_s:.1f} s wall, {image_cpu / len(images):.2f} CPU-s each; "
          f"{len(sentences)} texts: {text_s:.2f} s wall, {text_cpu / len(sentences):.2f} CPU-s each")


if __name__ == "__main__":
    main()

"""Image-text embedding models (CLIP, SigLIP) behind one interface (cached by `senso.backends.cached`).

Specs (`--image-model`):
- `open_clip:ARCH:PRETRAINED` or the short `ARCH:PRETRAINED` (`ViT-B-32:openai`): an open_clip
  architecture with a pretrained tag open_clip knows, or a checkpoint file;
- `open_clip:local-dir:PATH` (a folder with `open_clip_config.json` and weights) and
  `open_clip:hf-hub:ORG/REPO`: open_clip's own schemas;
- `hf:NAME_OR_PATH`: a transformers CLIP or SigLIP model (`AutoModel` + tokenizer + image processor,
  the image processor on its PIL backend so that preprocessing does not depend on torchvision).

Embeddings are L2-normalised float32 rows (a dot product is the cosine). They are cached (behind the
`Cached` wrapper) by model
fingerprint and image *content* hash (sha256 of the file) or exact text, so a renamed copy of an
image (AdMIRe's extended evaluation reuses the pictures under new names) is embedded once. Images
are read only when their embedding is not cached. Texts are padded to the model's fixed context
length, so an embedding does not depend on which other texts share its batch.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Sequence

import numpy as np

from senso.backends.dtypes import weights_fingerprint, torch_dtype
from senso.backends.embedders import normalise_rows as _normalise
from senso.core.errors import DataError, SensoError
from senso.core.options import DEFAULT_BATCH_SIZE, check_batch_size
from senso.backends.cached import CachedMethod
from senso.core.cache import cache_key
from senso.core.fingerprint import file_sha256, hub_fingerprint, path_fingerprint
from senso.backends.quiet import quietly

IMAGE_MODELS = {
    "open_clip:ARCH:PRETRAINED": "an open_clip model: architecture and pretrained tag or checkpoint file (needs open_clip_torch)",
    "ARCH:PRETRAINED": "short form of the above, e.g. ViT-B-32:openai",
    "open_clip:local-dir:PATH": "an open_clip folder with open_clip_config.json and weights",
    "open_clip:hf-hub:ORG/REPO": "an open_clip model on the Hugging Face hub",
    "hf:NAME_OR_PATH": "a transformers CLIP or SigLIP model (hub name or local folder)",
}
CACHE_NAMESPACE = "image_text"


@dataclass(frozen=True)
class ImageModelSpec:
    """A parsed `--image-model`: which library, the model name it takes, and open_clip's `pretrained`."""

    library: str  # "open_clip" or "hf"
    name: str
    pretrained: str | None = None

    def __str__(self) -> str:
        if self.library == "hf":
            return f"hf:{self.name}"
        return f"open_clip:{self.name}" + (f":{self.pretrained}" if self.pretrained else "")


def parse_image_model(spec: str) -> ImageModelSpec:
    """An image-model spec (forms in IMAGE_MODELS), parsed by `parse_spec`, with open_clip's name split
    into architecture and pretrained tag; SensoError when it fits none."""
    from senso.backends.specs import parse_spec

    parsed = parse_spec(spec, "image")
    if parsed.backend == "hf":
        return ImageModelSpec("hf", parsed.name)
    rest = parsed.name
    for schema in ("local-dir:", "hf-hub:"):
        if rest.startswith(schema):
            if not rest[len(schema):]:
                raise SensoError(f"image model {spec!r}: nothing after {schema!r}")
            return ImageModelSpec("open_clip", rest)
    arch, sep, pretrained = rest.partition(":")
    if not sep or not arch or not pretrained:
        raise SensoError(
            f"unknown image model {spec!r}; forms: " + ", ".join(IMAGE_MODELS) + " (e.g. ViT-B-32:openai)"
        )
    return ImageModelSpec("open_clip", arch, pretrained)


def load_image(path: Path):
    """The image at `path` as an RGB PIL image; DataError naming the file when missing or not an image."""
    from PIL import Image, UnidentifiedImageError

    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise DataError(path, "image file not found") from None
    except OSError as err:
        raise DataError(path, f"cannot read image file: {err}") from None
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            return image.convert("RGB")
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as err:
        raise DataError(path, f"not a readable image: {err}") from None


class Encoder(Protocol):
    """What a loaded model does: embed decoded images and texts (rows not yet normalised)."""

    def encode_images(self, images: list) -> np.ndarray: ...

    def encode_texts(self, texts: list[str]) -> np.ndarray: ...

    def truncated(self, text: str) -> bool: ...

    def describe(self) -> dict[str, Any]: ...


def _features(output) -> Any:
    """transformers 5 returns a model output whose pooler_output holds the projected features."""
    return output if hasattr(output, "shape") else output.pooler_output


class OpenClipEncoder:
    """An open_clip model with its eval preprocessing and tokenizer."""

    def __init__(self, model, preprocess, tokenizer, device: str = "cpu"):
        self.model = model.eval()
        self.preprocess = preprocess
        self.tokenizer = tokenizer
        self.device = device
        self.context_length = int(getattr(tokenizer, "context_length", 77))

    def encode_images(self, images: list) -> np.ndarray:
        import torch

        batch = torch.stack([self.preprocess(image) for image in images]).to(self.device)
        dtype = next(self.model.parameters()).dtype
        with torch.inference_mode():
            return self.model.encode_image(batch.to(dtype)).float().cpu().numpy()

    def encode_texts(self, texts: list[str]) -> np.ndarray:
        import torch

        tokens = self.tokenizer(texts).to(self.device)
        with torch.inference_mode():
            return self.model.encode_text(tokens).float().cpu().numpy()

    def truncated(self, text: str) -> bool:
        encode = getattr(self.tokenizer, "encode", None)
        if encode is None:
            return False
        return len(encode(text)) + 2 > self.context_length  # + start and end tokens

    def describe(self) -> dict[str, Any]:
        return {"library": "open_clip", "context_length": self.context_length, "preprocess": repr(self.preprocess),
                "truncation_counted": hasattr(self.tokenizer, "encode")}


class HFClipEncoder:
    """A transformers CLIP/SigLIP model with its tokenizer and (PIL-backend) image processor."""

    def __init__(self, model, tokenizer, image_processor, device: str = "cpu"):
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.image_processor = image_processor
        self.device = device
        text_config = getattr(model.config, "text_config", model.config)
        self.max_length = int(text_config.max_position_embeddings)

    def encode_images(self, images: list) -> np.ndarray:
        import torch

        pixels = self.image_processor(images=images, return_tensors="pt")["pixel_values"].to(self.device)
        dtype = next(self.model.parameters()).dtype
        with torch.inference_mode():
            return _features(self.model.get_image_features(pixel_values=pixels.to(dtype))).float().cpu().numpy()

    def encode_texts(self, texts: list[str]) -> np.ndarray:
        import torch

        # Padding to the fixed length: SigLIP was trained that way (it pools the last position),
        # and it makes every text's embedding independent of the others in its batch.
        enc = self.tokenizer(texts, padding="max_length", truncation=True, max_length=self.max_length,
                             return_tensors="pt")
        kwargs = {"input_ids": enc["input_ids"].to(self.device)}
        if "attention_mask" in enc and self.model.config.model_type != "siglip":
            kwargs["attention_mask"] = enc["attention_mask"].to(self.device)
        with torch.inference_mode():
            return _features(self.model.get_text_features(**kwargs)).float().cpu().numpy()

    def truncated(self, text: str) -> bool:
        return len(self.tokenizer(text, truncation=False)["input_ids"]) > self.max_length

    def describe(self) -> dict[str, Any]:
        return {
            "library": "transformers",
            "model_class": type(self.model).__name__,
            "image_processor": type(self.image_processor).__name__,
            "max_text_tokens": self.max_length,
        }


def _import_open_clip():
    from senso.backends.torchvision_compat import ensure_torchvision_importable

    try:
        ensure_torchvision_importable()
        import open_clip
    except ImportError as err:
        raise SensoError(
            f"open_clip models need open_clip_torch ({err}): pip install open_clip_torch torchvision==0.28.0 (senso's open-clip extra)"
        ) from None
    return open_clip


def _open_clip_checkpoint(spec: ImageModelSpec) -> Path | None:
    """The local checkpoint file an ARCH:PRETRAINED spec resolves to (downloads a known tag if needed)."""
    if spec.pretrained is None:
        return None
    if Path(spec.pretrained).expanduser().is_file():
        return Path(spec.pretrained).expanduser()
    open_clip = _import_open_clip()
    cfg = open_clip.get_pretrained_cfg(spec.name, spec.pretrained)
    if not cfg:
        tags = [tag for arch, tag in open_clip.list_pretrained() if arch == spec.name]
        raise SensoError(
            f"open_clip has no pretrained tag {spec.pretrained!r} for {spec.name!r} and no such file exists"
            + (f"; its tags: {', '.join(tags)}" if tags else f"; architectures: {', '.join(open_clip.list_models())}")
        )
    try:
        return Path(open_clip.download_pretrained(cfg))
    except Exception as err:
        raise SensoError(f"cannot get the weights of open_clip {spec.name}:{spec.pretrained} ({err})") from None


def spec_fingerprint(spec: ImageModelSpec) -> str:
    """A content fingerprint of the weights a spec names, computed without building the model."""
    if spec.library == "hf":
        local = Path(spec.name).expanduser()
        return "hf:" + (path_fingerprint(local) if local.exists() else hub_fingerprint(spec.name))
    if spec.name.startswith("local-dir:"):
        folder = Path(spec.name[len("local-dir:"):]).expanduser()
        if not folder.is_dir():
            raise SensoError(f"open_clip folder not found: {folder}")
        return "open_clip:" + path_fingerprint(folder)
    if spec.name.startswith("hf-hub:"):
        return "open_clip:" + hub_fingerprint(spec.name[len("hf-hub:"):])
    return f"open_clip:{spec.name}:" + path_fingerprint(_open_clip_checkpoint(spec))


@quietly
def load_encoder(spec: ImageModelSpec, device: str = "cpu", dtype: str = "float32") -> Encoder:
    """Build the model a spec names (weights must be local or downloadable)."""
    dtype_ = torch_dtype(dtype)
    if spec.library == "open_clip":
        if dtype_ == "auto":
            raise SensoError(f"open_clip model {spec}: --dtype auto is for transformers models; "
                             "choose float32, float16 or bfloat16")
        open_clip = _import_open_clip()
        pretrained = str(_open_clip_checkpoint(spec)) if spec.pretrained else None
        try:
            model, _, preprocess = open_clip.create_model_and_transforms(spec.name, pretrained=pretrained, device=device)
        except (RuntimeError, FileNotFoundError, ValueError) as err:
            raise SensoError(f"cannot load open_clip model {spec}: {err}") from None
        tokenizer = open_clip.get_tokenizer(spec.name)
        return OpenClipEncoder(model.to(dtype_), preprocess, tokenizer, device=device)
    from senso.backends.torchvision_compat import ensure_torchvision_importable

    ensure_torchvision_importable()
    from transformers import AutoImageProcessor, AutoModel, AutoTokenizer

    from senso.backends.hub_access import check_hub_model

    check_hub_model(spec.name)  # in seconds, saying how to give a local path, rather than a network traceback
    try:
        model = AutoModel.from_pretrained(spec.name, dtype=dtype_).to(device)
        tokenizer = AutoTokenizer.from_pretrained(spec.name)
        image_processor = AutoImageProcessor.from_pretrained(spec.name, backend="pil")
    except OSError as err:
        raise SensoError(f"cannot load image model {spec}: {err}") from None
    if not (hasattr(model, "get_image_features") and hasattr(model, "get_text_features")):
        raise SensoError(f"{spec} is a {type(model).__name__}, not an image-text model like CLIP or SigLIP")
    return HFClipEncoder(model, tokenizer, image_processor, device=device)


def image_package_versions() -> dict[str, str]:
    """Versions of the packages that decode and preprocess images (they can change embeddings)."""
    import importlib.metadata as md

    from senso.backends.torchvision_compat import NOTE, _library

    versions = {}
    for name in ("pillow", "torchvision", "open_clip_torch", "timm"):
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            pass
    if _library is not None:
        versions["torchvision_note"] = NOTE
    return versions


def _rows(matrix: np.ndarray) -> list[list[float]]:
    return [row.tolist() for row in _normalise(matrix)]


def _embeddings(rows: list[list[float]]) -> np.ndarray:
    return _normalise(np.asarray(rows, dtype=np.float32))  # the same for computed and cached rows


@dataclass
class ImageTextModel:
    """Embeds images and texts in one space; the model is built only when something is to be computed.

    Build it from a spec (`ImageTextModel("ViT-B-32:openai")`) or, for a model already in memory, pass
    `encoder` and a `fingerprint` (e.g. `weights_fingerprint(model)`). It only computes (each distinct
    image or text once, in batches of `batch_size` sorted by key); behind `senso.backends.cached.Cached`
    (what `load_model` gives unless `--no-cache`) embeddings and truncation flags are cached per batch,
    keyed by `image_keys` / `text_keys`, and only the misses are computed.
    """

    CACHED = {
        "embed_images": CachedMethod(CACHE_NAMESPACE, keys="image_keys", compute="_image_rows", join=_embeddings,
                                     chunk="batch_size", in_key_order=True),
        "embed_texts": CachedMethod(CACHE_NAMESPACE, keys="text_keys", compute="_text_values",
                                    finish="_texts_result", chunk="batch_size",
                                    in_key_order=True, parts=2),
    }
    CACHED_INNER = True  # `similarity` embeds through the cache too

    spec: str
    batch_size: int = DEFAULT_BATCH_SIZE
    device: str = "cpu"
    dtype: str = "float32"
    encoder: Encoder | None = field(default=None, repr=False)
    fingerprint_value: str | None = None
    computed: int = 0  # embeddings computed by the model (not read from the cache) by this object
    truncated_texts: set[str] = field(default_factory=set, repr=False)  # of the texts embedded, those cut

    def __post_init__(self):
        check_batch_size(self.batch_size)
        self.parsed = None if self.encoder is not None else parse_image_model(self.spec)

    @property
    def fingerprint(self) -> str:
        if self.fingerprint_value is None:
            if self.parsed is None:
                raise SensoError("an ImageTextModel built from an encoder needs fingerprint_value")
            self.fingerprint_value = f"{spec_fingerprint(self.parsed)}|{self.dtype}"
        return self.fingerprint_value

    def _encoder(self) -> Encoder:
        if self.encoder is None:
            self.encoder = load_encoder(self.parsed, device=self.device, dtype=self.dtype)
        return self.encoder

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {"spec": self.spec, "fingerprint": self.fingerprint, "dtype": self.dtype,
                                "batch_size": self.batch_size, "texts_truncated": len(self.truncated_texts),
                                "versions": image_package_versions()}
        if self.encoder is not None:
            info.update(self.encoder.describe())
        return info

    def _by_key(self, keys: list, inputs: list, compute) -> list:
        """compute's value for each input: each distinct key once, in batches of `batch_size` sorted by key."""
        todo: dict[Any, Any] = {}
        for key, value in zip(keys, inputs):
            todo.setdefault(key, value)
        order = sorted(todo)
        found: dict[Any, Any] = {}
        for start in range(0, len(order), self.batch_size):
            chunk = order[start:start + self.batch_size]
            found.update(zip(chunk, compute([todo[k] for k in chunk])))
        return [found[k] for k in keys]

    def image_keys(self, paths: Sequence[str | Path]) -> list[str]:
        """The cache key of each image's embedding: model fingerprint and the file's content hash."""
        if not paths:
            raise SensoError("no images to embed")
        return [cache_key("image", self.fingerprint, file_sha256(Path(p), "image")) for p in paths]

    def text_keys(self, texts: Sequence[str]) -> list[tuple[str, str]]:
        """The cache keys of each text's embedding and of its truncated flag: model fingerprint and text."""
        if not texts:
            raise SensoError("no texts to embed")
        return [(cache_key("text", self.fingerprint, t), cache_key("text-truncated", self.fingerprint, t))
                for t in texts]

    def _image_rows(self, paths: list[str | Path]) -> list[list[float]]:
        """Normalised embeddings of one batch of images, read only now."""
        rows = _rows(self._encoder().encode_images([load_image(Path(p)) for p in paths]))
        self.computed += len(rows)
        return rows

    def _text_values(self, texts: list[str]) -> list[list[Any]]:
        """[normalised embedding, truncated?] of each text of one batch."""
        encoder = self._encoder()
        flags = [encoder.truncated(t) for t in texts]
        rows = _rows(encoder.encode_texts(texts))
        self.computed += len(rows)
        return [[row, flag] for row, flag in zip(rows, flags)]

    def _texts_result(self, texts: list[str], values: list[list[Any]]) -> np.ndarray:
        self.truncated_texts.update(t for t, (_, flag) in zip(texts, values) if flag)
        return _embeddings([row for row, _ in values])

    def embed_images(self, paths: Sequence[str | Path]) -> np.ndarray:
        """(len(paths), dim) normalised image embeddings; each distinct image (by content) computed once."""
        paths = [Path(p) for p in paths]
        return _embeddings(self._by_key(self.image_keys(paths), paths, self._image_rows))

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) normalised text embeddings (texts past the context length are truncated)."""
        texts = list(texts)
        return self._texts_result(texts, self._by_key(self.text_keys(texts), texts, self._text_values))

    def similarity(self, texts: Sequence[str], paths: Sequence[str | Path]) -> np.ndarray:
        """(len(texts), len(paths)) cosine similarities."""
        return self.embed_texts(texts) @ self.embed_images(paths).T

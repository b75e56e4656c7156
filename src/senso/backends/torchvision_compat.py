"""Import torchvision where only its C++ operators cannot load.

PyPI's torchvision wheels for Linux x86_64 are CUDA builds: their `_C.so` links `libtorch_cuda.so`,
which a CPU build of torch (the `+cpu` wheel) does not have. torchvision then skips its C++ operators,
as designed, but 0.28's `_meta_registrations.py` still registers a fake kernel for `torchvision::nms`
and `torchvision::qnms` without checking, and `import torchvision` fails with
"operator torchvision::nms does not exist". Everything that imports torchvision fails with it:
open_clip, timm, and transformers' vision classes (even `Gemma3ForCausalLM`, through its module).

`ensure_torchvision_importable()` declares those two operator schemas (no kernels) before retrying the
import, so torchvision's Python part (transforms on PIL images and tensors, all CLIP preprocessing needs)
works. Calling `torchvision.ops.nms` then fails with torch's "could not run ... with arguments from the
CPU backend", never silently.
"""

from __future__ import annotations

import importlib.util
import sys

_SCHEMAS = {
    "nms": "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms": "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
}
_library = None  # kept alive: a torch.library.Library removes its definitions when collected
NOTE = "torchvision C++ operators unavailable (CUDA torchvision wheel beside a CPU torch); Python transforms only"


def ensure_torchvision_importable() -> str | None:
    """Import torchvision if installed; returns NOTE when the workaround was needed, else None."""
    global _library
    if _library is not None:
        return NOTE
    if "torchvision" in sys.modules or importlib.util.find_spec("torchvision") is None:
        return None
    try:
        import torchvision  # noqa: F401

        return None
    except RuntimeError as err:
        if "torchvision::" not in str(err) or "does not exist" not in str(err):
            raise
    for name in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
        del sys.modules[name]
    import torch

    _library = torch.library.Library("torchvision", "FRAGMENT")
    for schema in _SCHEMAS.values():
        _library.define(schema)
    import torchvision  # noqa: F401,F811

    return NOTE

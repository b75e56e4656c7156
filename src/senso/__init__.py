"""senso: graded, context-dependent meaning benchmarks (ABRICOT, AdMIRe).

```python
import senso
result = senso.evaluate("abricot-abs", limit=16)   # typed result: result.metrics["pearson"], result.samples
pipeline = senso.system("fitted-pipeline", hedge=False)   # a registered system as an object (get/set_params, clone)
```
`senso.evaluate` (one task or a list), `senso.system`, `senso.clone`, `senso.compare`, `senso.results_table`,
`senso.report`, `senso.export`, `senso.model_index`, `senso.placement`, `senso.tasks`, `senso.systems` and
`senso.default_model_path` are `senso.api`'s; they are imported on first use, so `import senso` (and the command
line's `--help`) stays fast. `dir(senso)` lists them.
"""

from senso.core.version import __version__

_API = ("evaluate", "system", "clone", "tasks", "systems", "default_model_path", "compare", "report", "export",
        "model_index", "placement", "results_table")
_CLASSES = {"EvalResult": "senso.core.evaluation", "Comparison": "senso.core.comparison",
            "ModelPool": "senso.backends.pool", "SensoError": "senso.core.errors", "System": "senso.system_objects"}
__all__ = [*_API, *_CLASSES, "__version__"]


def __getattr__(name: str):
    if name in _API:
        from senso import api

        return getattr(api, name)
    if name in _CLASSES:
        import importlib

        return getattr(importlib.import_module(_CLASSES[name]), name)
    raise AttributeError(f"module 'senso' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public API (what tab completion offers) and the module's own dunder names."""
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})

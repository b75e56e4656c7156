"""senso: graded, context-dependent meaning benchmarks (ABRICOT, AdMIRe).

```python
import senso
result = senso.evaluate("abricot-abs", limit=16)   # typed result: result.metrics["pearson"], result.samples
```
`senso.evaluate` (one task or a list), `senso.compare`, `senso.results_table`, `senso.report`, `senso.export`,
`senso.model_index`, `senso.placement`, `senso.tasks`, `senso.systems` and `senso.default_model_path` are
`senso.api`'s; they are imported on first use, so `import senso` (and the command line's `--help`) stays fast.
"""

from senso.core.version import __version__

_API = ("evaluate", "tasks", "systems", "default_model_path", "compare", "report", "export", "model_index",
        "placement", "results_table")
__all__ = [*_API, "EvalResult", "Comparison", "ModelPool", "SensoError", "__version__"]


def __getattr__(name: str):
    if name in _API:
        from senso import api

        return getattr(api, name)
    if name == "EvalResult":
        from senso.core.evaluation import EvalResult

        return EvalResult
    if name == "Comparison":
        from senso.core.comparison import Comparison

        return Comparison
    if name == "ModelPool":
        from senso.backends.pool import ModelPool

        return ModelPool
    if name == "SensoError":
        from senso.core.errors import SensoError

        return SensoError
    raise AttributeError(f"module 'senso' has no attribute {name!r}")


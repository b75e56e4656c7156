"""senso: graded, context-dependent meaning benchmarks (ABRICOT, AdMIRe)."""

__version__ = "0.1.0"

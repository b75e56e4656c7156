"""senso's version, defined once (the package root re-exports it as `senso.__version__`)."""

__version__ = "0.1.0"

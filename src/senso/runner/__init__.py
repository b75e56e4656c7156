"""Execution, caching and run records."""

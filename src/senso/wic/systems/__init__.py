"""The word-in-context systems: each a class configured by its constructor's parameters (`core.params`), with
`fit(pairs)`, `judge(pairs) -> P(same meaning)`, `relate(pairs) -> relatedness` and `describe()`: two baselines
that need no model, the encoder's contextual cosine, a fitted pair model and an LM likelihood protocol."""

"""The word-in-context systems: each a class configured by its constructor's parameters (`core.params`), with
`fit(pairs)`, `judge(pairs) -> P(same meaning)`, `relate(pairs) -> relatedness` and `describe()`."""

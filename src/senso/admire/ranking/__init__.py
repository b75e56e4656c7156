"""The ranking engine that runs a ranking task file (`rankfile.py`, read by `rankdata.py`; admire-a is its shipped
files `tasks/admire1-a-*.toml`): `run` (the plan), `select` and `default` (the default system and the languages it
serves), `fit` (fitted systems scored honestly), `tally` (the numbers of a run)."""

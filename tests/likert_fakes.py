"""Fake Likert scorers with known log-probs, importable from any test (tests/ is on sys.path)."""

from __future__ import annotations


class ConstantModel:
    """The same log-probs (-1, -3, -3, -3, -3) for every item: P(1) = 1 / (1 + 4 e^-2), the others equal."""

    spec = "fake:constant"
    fingerprint = "fake-constant"

    def describe(self):
        return {"spec": self.spec, "fingerprint": self.fingerprint}

    def loglikelihood_choices(self, prompts, batch_size=8, progress=None):
        return [[-1.0, -3.0, -3.0, -3.0, -3.0] for _ in prompts]

"""Word-in-context pairs for the systems' tests: a few real ones (the benchmarks' small readers) and hand-made ones."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from senso.wic.items import Usage, WicPair

REPO_ROOT = Path(__file__).resolve().parents[3]
BENCHMARKS = REPO_ROOT / "benchmarks"
if str(Path(__file__).resolve().parents[1]) not in sys.path:  # tests/wic's wic_fixtures, whichever runs first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def wic_data():
    """benchmarks/_wic_data.py, imported once."""
    if "_wic_data" not in sys.modules:
        spec = importlib.util.spec_from_file_location("_wic_data", BENCHMARKS / "_wic_data.py")
        sys.modules["_wic_data"] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules["_wic_data"]


def usage(text: str, word: str, lang: str = "en") -> Usage:
    start = text.index(word)
    return Usage(text, start, start + len(word), lang)


# Two senses of each of four lemmas, three sentences a sense: pairs within a sense are "same", across "different".
SENSES = {
    "bank": (["She sat on the bank of the river.", "The river bank was muddy.", "Fish swam near the grassy bank."],
             ["He deposited money at the bank.", "The bank raised its interest rates.", "She works at a bank in town."]),
    "bat": (["The bat flew out of the cave.", "A bat hunts insects at night.", "The vampire bat drinks blood."],
            ["He swung the bat at the ball.", "A wooden bat is used in cricket.", "She bought a new baseball bat."]),
    "plant": (["Water the plant every day.", "This plant has green leaves.", "The plant grew towards the light."],
              ["The power plant closed last year.", "He works at a chemical plant.", "The plant makes steel pipes."]),
    "spring": (["Flowers bloom in spring.", "We travel every spring.", "The spring weather was mild."],
               ["The spring in the mattress broke.", "A metal spring holds the door.", "He compressed the spring."]),
}


def toy_pairs() -> list[WicPair]:
    pairs = []
    for lemma, (one, two) in SENSES.items():
        sentences = [(s, 0) for s in one] + [(s, 1) for s in two]
        for i in range(len(sentences)):
            for j in range(i + 1, len(sentences)):
                (a, sa), (b, sb) = sentences[i], sentences[j]
                same = int(sa == sb)
                pairs.append(WicPair(f"{lemma}.{i}.{j}", lemma, usage(a, lemma), usage(b, lemma), same,
                                     1.0 + 3.0 * same, source=f"toy row {len(pairs) + 1}"))
    return pairs


@pytest.fixture(scope="session")
def toy() -> list[WicPair]:
    return toy_pairs()


@pytest.fixture(scope="session")
def wic_context(tmp_path_factory):
    """One response cache for the session's systems: each toy usage is encoded once, whichever test asks first."""
    from senso.core.cache import ResponseCache
    from senso.wic.systems.context import WicContext

    return WicContext(cache=ResponseCache(tmp_path_factory.mktemp("wic-cache") / "responses.sqlite"))

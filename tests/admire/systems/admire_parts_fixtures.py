"""Tiny fixtures for the AdMIRe parts: a WordNet database in the real file format, a bag-of-words
embedder (deterministic, no model), and hand-made items whose captions follow AdMIRe's structure."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np

from senso.admire.items import AdmireAItem, AdmireBItem, ImageOption

LICENCE = "  1 This software and database is being provided to you, the LICENSEE, by\n  2 Princeton University\n"

# (lemmas, definition, examples); every synset gets an offset computed when the file is written.
NOUN_SYNSETS = [
    (["night_owl", "nighthawk"], "a person who likes to be active late at night", []),
    (["owl"], "nocturnal bird of prey with hawk-like beak and claws and large head", []),
    (["night", "nighttime"], "the time after sunset and before sunrise while it is dark outside", []),
    (["black_sheep"], "a reckless and unprincipled reprobate", []),
    (["black_sheep"], "sheep with a black coat", []),
    (["sheep"], "woolly usually horned ruminant mammal", ["the sheep grazed"]),
    (["child", "kid"], "a young person of either sex", ["she writes books for children"]),
    (["flower_child"], "someone who rejects the established culture", []),
    (["copycat", "imitator"], "someone who copies the words or behavior of another", []),
    (["apple"], "fruit with red or yellow or green skin and crisp flesh", []),
    (["ice"], "water frozen in the solid state", []),
]
ADJ_SYNSETS = [(["bad"], "having undesirable or negative qualities", []), (["thin"], "of relatively small extent from one surface to the opposite", [])]


def write_wordnet(folder: Path, zipped: bool = False) -> Path:
    """Write index.noun/data.noun/index.adj/data.adj/noun.exc in WordNet 3.0's format; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for pos, ss_type, synsets, name in (("n", "n", NOUN_SYNSETS, "noun"), ("a", "s", ADJ_SYNSETS, "adj")):
        data = LICENCE.encode()
        index: dict[str, list[int]] = {}
        for lemmas, definition, examples in synsets:
            offset = len(data)
            words = " ".join(f"{lemma} 0" for lemma in lemmas)
            gloss = "; ".join([definition] + [f'"{e}"' for e in examples])
            line = f"{offset:08d} 05 {ss_type} {len(lemmas):02x} {words} 000 | {gloss}  \n"
            data += line.encode()
            for lemma in lemmas:
                index.setdefault(lemma.lower(), []).append(offset)
        (folder / f"data.{name}").write_bytes(data)
        rows = [LICENCE.rstrip("\n")]
        for lemma in sorted(index):
            offsets = index[lemma]
            rows.append(f"{lemma} {pos} {len(offsets)} 1 @ {len(offsets)} 0 " + " ".join(f"{o:08d}" for o in offsets) + "  ")
        (folder / f"index.{name}").write_text("\n".join(rows) + "\n")
    (folder / "noun.exc").write_text("children child\nmice mouse\n")
    if zipped:
        import zipfile

        archive = folder.parent / "wordnet.zip"
        with zipfile.ZipFile(archive, "w") as z:
            for path in folder.iterdir():
                z.write(path, f"wordnet/{path.name}")
        return archive
    return folder


class BagOfWordsEmbedder:
    """Each word (lower-cased, plural -s dropped) is a fixed random unit vector; a text is their sum."""

    spec = "bow"
    fingerprint = "bow"
    cache = None

    def __init__(self, dim: int = 256):
        self.dim = dim
        self.calls = 0

    def _word(self, word: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
        vector = np.random.default_rng(seed).standard_normal(self.dim)
        return vector / np.linalg.norm(vector)

    def embed(self, texts, kind="passage"):
        self.calls += 1
        rows = []
        for text in texts:
            words = [w[:-1] if len(w) > 3 and w.endswith("s") else w for w in re.findall(r"[a-z]+", text.lower())]
            vector = sum((self._word(w) for w in words), np.zeros(self.dim)) if words else np.ones(self.dim)
            rows.append(vector / (np.linalg.norm(vector) or 1.0))
        return np.asarray(rows, dtype=np.float32)


# Night owl: strong idiom shows the meaning (a person active late at night), mild idiom a person awake,
# mild literal an owl, strong literal an owl at night, distractor unrelated.
NIGHT_OWL_CAPTIONS = {
    "strong_idiom.png": "a person who likes to be active late, working at a desk",
    "mild_idiom.png": "a person awake reading a book",
    "mild_literal.png": "an owl, a bird of prey with a large head",
    "strong_literal.png": "an owl, a nocturnal bird of prey, in the dark time after sunset",
    "distractor.png": "a red bicycle leaning on a fence",
}


def night_owl_item(sentence: str, sentence_type: str | None) -> AdmireAItem:
    images = tuple(ImageOption(name, caption) for name, caption in sorted(NIGHT_OWL_CAPTIONS.items()))
    order = None
    if sentence_type == "idiomatic":
        order = ("strong_idiom.png", "mild_idiom.png", "mild_literal.png", "strong_literal.png", "distractor.png")
    elif sentence_type == "literal":
        order = ("strong_literal.png", "mild_literal.png", "mild_idiom.png", "strong_idiom.png", "distractor.png")
    return AdmireAItem("night owl", "Train", sentence, images, "en", sentence_type, order)


IDIOMATIC_SENTENCE = "I am a night owl, a person who likes to stay active and working late."
LITERAL_SENTENCE = "The night owl, a bird of prey, hunted mice in the dark after sunset."


def sequence_item() -> AdmireBItem:
    candidates = (ImageOption("a.png", "a bicycle on a road"), ImageOption("b.png", "an owl bird of prey catches a mouse in the dark"),
                  ImageOption("c.png", "a person at a desk"), ImageOption("d.png", "a cake on a plate"))
    return AdmireBItem("night owl", "Train", ("an owl sits on a branch in the dark night", "the owl spots a mouse in the dark"),
                       candidates, "en", "literal", "b.png")

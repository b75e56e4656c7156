"""A small reader of the Princeton WordNet 3.0 database files (index.POS / data.POS / POS.exc).

Reads the files wherever the user has them: a folder named by `--set wordnet=PATH` / $SENSO_WORDNET_DIR, the copy
`python -m senso.admire.wordnet_install` puts in $SENSO_CACHE_DIR/wordnet-3.0 (`make run` does), Debian's
`wordnet-base` (/usr/share/wordnet), an NLTK `wordnet` corpus folder or its zip.
Only what meanings need: synsets of a lemma (multiword lemmas use underscores), their definitions
and examples, and WordNet's own noun/verb/adjective morphology (exception lists + suffix rules).
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

from senso.core.errors import SensoError

POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
# WordNet's morphy detachment rules (wn(7WN) morphy), per part of speech.
_RULES = {
    "n": [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
          ("men", "man"), ("ies", "y")],
    "v": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")],
    "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "r": [],
}


@dataclass(frozen=True)
class Synset:
    """One WordNet synset: its lemmas (underscored), definition and example sentences."""

    pos: str
    offset: int
    lemmas: tuple[str, ...]
    definition: str
    examples: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.offset:08d}-{self.pos}"


def installed_folder() -> Path:
    """Where `senso.admire.wordnet_install` puts its copy: $SENSO_CACHE_DIR/wordnet-3.0."""
    from senso.core.paths import cache_dir

    return cache_dir(create=False) / "wordnet-3.0"


def wordnet_candidates() -> list[Path]:
    """Folders (or zips) searched for the database, in order (an explicit folder is `WordNet.locate`'s)."""
    found: list[Path] = []
    if os.environ.get("SENSO_WORDNET_DIR"):
        found.append(Path(os.environ["SENSO_WORDNET_DIR"]).expanduser())
    found += [installed_folder(), Path("/usr/share/wordnet"), Path("/usr/local/share/wordnet"), Path("/opt/homebrew/share/wordnet"),
              Path("/usr/local/WordNet-3.0/dict")]
    nltk_roots = [Path(p) for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    nltk_roots += [Path.home() / "nltk_data", Path("/usr/share/nltk_data"), Path("/usr/local/share/nltk_data"),
                   Path("/usr/lib/nltk_data"), Path("/usr/local/lib/nltk_data")]
    for root in nltk_roots:
        found += [root / "corpora" / "wordnet", root / "corpora" / "wordnet.zip"]
    return found


class WordNet:
    """The database in `source`: a folder holding index.noun, data.noun, ... or an NLTK wordnet.zip."""

    def __init__(self, source: str | Path):
        self.source = Path(source)
        self._zip: zipfile.ZipFile | None = None
        self._zip_prefix = ""
        if self.source.is_file() and zipfile.is_zipfile(self.source):
            self._zip = zipfile.ZipFile(self.source)
            names = [n for n in self._zip.namelist() if n.endswith("index.noun")]
            if not names:
                raise SensoError(f"{self.source}: zip holds no WordNet index.noun")
            self._zip_prefix = names[0][: -len("index.noun")]
        elif not (self.source / "index.noun").exists():
            raise SensoError(f"{self.source}: no WordNet database here (index.noun missing)")
        self._index: dict[str, dict[str, tuple[int, ...]]] = {}
        self._exceptions: dict[str, dict[str, tuple[str, ...]]] = {}
        self._data: dict[str, bytes] = {}

    @classmethod
    def locate(cls, explicit: str | Path | None = None) -> "WordNet | None":
        """The first database found among `wordnet_candidates`; None when there is none.

        An explicit path that holds no database is an error rather than a silent fallback.
        """
        if explicit:
            return cls(explicit)
        for path in wordnet_candidates():
            if (path / "index.noun").exists() or (path.is_file() and zipfile.is_zipfile(path)):
                return cls(path)
        return None

    def _read(self, name: str) -> bytes:
        if self._zip is not None:
            full = self._zip_prefix + name
            return self._zip.read(full) if full in self._zip.namelist() else b""
        path = self.source / name
        return path.read_bytes() if path.exists() else b""

    def _load_index(self, pos: str) -> dict[str, tuple[int, ...]]:
        if pos not in self._index:
            table: dict[str, tuple[int, ...]] = {}
            for line in self._read(f"index.{POS_FILES[pos]}").decode("utf-8").splitlines():
                if not line or line.startswith(" "):
                    continue  # licence header lines start with two spaces
                fields = line.split()
                n_synsets, n_pointers = int(fields[2]), int(fields[3])
                offsets = fields[4 + n_pointers + 2:]
                table[fields[0]] = tuple(int(o) for o in offsets[:n_synsets])
            self._index[pos] = table
        return self._index[pos]

    def _load_exceptions(self, pos: str) -> dict[str, tuple[str, ...]]:
        if pos not in self._exceptions:
            lines = self._read(f"{POS_FILES[pos]}.exc").decode("utf-8").splitlines()
            self._exceptions[pos] = {fields[0]: tuple(fields[1:]) for fields in map(str.split, lines) if len(fields) >= 2}
        return self._exceptions[pos]

    def _synset_at(self, pos: str, offset: int) -> Synset:
        if pos not in self._data:
            self._data[pos] = self._read(f"data.{POS_FILES[pos]}")
        data = self._data[pos]
        end = data.index(b"\n", offset)
        line = data[offset:end].decode("utf-8")
        head, _, gloss = line.partition(" | ")
        fields = head.split()
        n_words = int(fields[3], 16)
        lemmas = tuple(fields[4 + 2 * i] for i in range(n_words))
        # The gloss is `definition; "example"; "example"`.
        parts = [p.strip() for p in gloss.strip().split(";")]
        definition = "; ".join(p for p in parts if not p.startswith('"'))
        examples = tuple(p.strip('"') for p in parts if p.startswith('"'))
        return Synset(pos=pos, offset=offset, lemmas=lemmas, definition=definition, examples=examples)

    def base_forms(self, word: str, pos: str = "n") -> list[str]:
        """Lemmas WordNet would reduce `word` to (morphy): the word itself, exceptions, suffix rules."""
        word = word.lower().replace(" ", "_")
        index = self._load_index(pos)
        forms = [word] + list(self._load_exceptions(pos).get(word, ()))
        head, sep, last = word.rpartition("_")
        forms += [head + sep + last[: len(last) - len(suffix)] + ending for suffix, ending in _RULES[pos]
                  if last.endswith(suffix)]
        if sep:  # multiword: irregular plural of the last word (child_children)
            forms += [head + sep + e for e in self._load_exceptions(pos).get(last, ())]
        return list(dict.fromkeys(form for form in forms if form in index))

    def synsets(self, lemma: str, pos: str = "n") -> list[Synset]:
        """Synsets of `lemma` (spaces or underscores) in sense-frequency order; [] when absent."""
        index = self._load_index(pos)
        return list(dict.fromkeys(self._synset_at(pos, offset) for form in self.base_forms(lemma, pos)
                                  for offset in index[form]))

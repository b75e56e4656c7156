"""senso against lm-evaluation-harness on the same ABRICOT work, whole process, in turn (A B A B).

    PYTHONPATH=src python benchmarks/vs_lmeval.py --lmeval-python /tmp/lmeval/bin/python \\
        --data-dir ../shared/data --shots 3 --limit 16 --pairs 2

Both score ABRICOT abs and inc with the same converted default model (float32, CPU, batch 8), no
response cache. senso: one `senso run abricot-abs abricot-inc` process (the tasks share one model load, as
lm-eval's one process does); protocol `calamita` for `--shots 0`, `paper` for 3.
lm-eval: one `lm_eval` process with both tasks, from the task files in
`../shared/yardsticks/lmeval_abricot/` (`SHOTS` set from `--shots`). For each pair it prints wall,
CPU (user + system) and peak RSS of each side and the ratios lm-eval / senso; at the end, the argmax
agreement per item (senso's `samples.jsonl` against lm-eval's `--log_samples`) and the largest
log-likelihood difference. It installs nothing: `--lmeval-python` must already have lm-eval
(the yardstick's README says how that environment was made).

    PYTHONPATH=src python benchmarks/vs_lmeval.py --smoke [--lmeval-python PY]   # a tiny random LM, abs, 2 items

`--tasks abs` (or `inc`) compares one task only. Smoke mode runs both sides on a tiny random checkpoint,
task abs, 2 items, 1 pair. Without `--lmeval-python` it runs the senso side (its `senso run` process,
the samples read back) and writes lm-eval's task folder from the yardstick, but runs neither lm-eval
nor, therefore, the ratios and the agreement: it says so and stops.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _process_stats import ProcessStats, run_measured, senso_env  # noqa: E402
from _smoke import add_smoke_option, smoke, tiny_lm_spec  # noqa: E402

PROTOCOL_FOR_SHOTS = {0: "calamita", 3: "paper"}


def senso_side(args, model_dir: Path, out: Path) -> tuple[list[ProcessStats], dict[tuple[str, str], list[float]]]:
    command = [sys.executable, "-m", "senso.cli", "run", *(f"abricot-{task}" for task in args.tasks),
               "--model", f"hf:{model_dir}", "--protocol", PROTOCOL_FOR_SHOTS[args.shots],
               "--batch-size", str(args.batch_size), "--no-cache", "--out", str(out / "senso"),
               "--data-dir", str(args.data_dir)]
    if args.limit:
        command += ["--limit", str(args.limit)]
    result = run_measured(command, env=senso_env())
    if result.returncode:
        raise SystemExit(f"senso failed:\n{result.stderr[-3000:]}")
    logprobs = {}
    for task in args.tasks:
        run_dir = out / "senso" / f"abricot-{task}" if len(args.tasks) > 1 else out / "senso"
        for line in (run_dir / "samples.jsonl").read_text(encoding="utf-8").splitlines():
            sample = json.loads(line)
            logprobs[(task, sample["id"])] = sample["logprobs"]
    return [result], logprobs


def lmeval_tasks(args, out: Path) -> Path:
    """lm-eval's include folder: the yardstick's task files, reading this run's ABRICOT CSV."""
    include = out / "lmeval-tasks"
    include.mkdir()
    yardstick = Path(args.yardstick)
    shutil.copy(yardstick / "utils.py", include / "utils.py")
    csv = (Path(args.data_dir) / "abricot" / "dataset_it.csv").resolve()
    for task in args.tasks:
        text = (yardstick / f"abricot_{task}.yaml").read_text().replace("${ABRICOT_CSV}", str(csv))
        if str(csv) not in text:
            raise SystemExit(f"{yardstick / f'abricot_{task}.yaml'} no longer reads its CSV from ${{ABRICOT_CSV}}")
        (include / f"abricot_{task}.yaml").write_text(text)
    return include


def lmeval_side(args, model_dir: Path, out: Path) -> tuple[list[ProcessStats], dict[tuple[str, str], list[float]]]:
    include = lmeval_tasks(args, out)
    results = out / "lmeval-out"
    command = [args.lmeval_python, "-m", "lm_eval", "--model", "hf",
               "--model_args", f"pretrained={model_dir},dtype=float32", "--tasks", ",".join(f"abricot_{task}" for task in args.tasks),
               "--include_path", str(include), "--device", "cpu", "--batch_size", str(args.batch_size),
               "--output_path", str(results), "--log_samples"]
    if args.limit:
        command += ["--limit", str(args.limit)]
    result = run_measured(command, env={**os.environ, "SHOTS": str(args.shots)})
    if result.returncode:
        raise SystemExit(f"lm-eval failed:\n{result.stderr[-3000:]}")
    logprobs = {}
    for task in args.tasks:
        for path in results.rglob(f"samples_abricot_{task}_*.jsonl"):
            for line in path.read_text(encoding="utf-8").splitlines():
                sample = json.loads(line)
                doc = sample["doc"]
                item_id = doc.get("ID", doc.get("\ufeffID"))
                logprobs[(task, item_id)] = [float(resp[0]) for resp in sample["filtered_resps"]]
    shutil.rmtree(include)
    return [result], logprobs


def combine(stats: list[ProcessStats]) -> tuple[float, float, float]:
    return sum(s.wall_s for s in stats), sum(s.cpu_s for s in stats), max(s.peak_rss_mb for s in stats)


def argmax(values: list[float]) -> int:
    return max(range(len(values)), key=values.__getitem__)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lmeval-python", default=None, help="a Python that has lm-eval installed (required)")
    parser.add_argument("--data-dir", default="../shared/data")
    parser.add_argument("--yardstick", default="../shared/yardsticks/lmeval_abricot")
    parser.add_argument("--model-dir", default=None, help="default: senso's converted default model")
    parser.add_argument("--shots", type=int, choices=sorted(PROTOCOL_FOR_SHOTS), default=0)
    parser.add_argument("--limit", type=int, default=None, help="first N items of each task (default: all 127)")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--tasks", type=lambda text: text.split(","), default=["abs", "inc"], help="abs,inc")
    add_smoke_option(parser)
    args = smoke(parser.parse_args(), model_dir=lambda: tiny_lm_spec().removeprefix("hf:"), tasks=["abs"], limit=2,
                 pairs=1)
    if not args.lmeval_python and not args.smoke:
        parser.error("--lmeval-python is required (a Python with lm-eval; see the yardstick's README)")
    return args


def senso_only(args, model_dir: Path) -> None:
    """Smoke mode without lm-eval: the senso side, and lm-eval's task folder written but not run."""
    with tempfile.TemporaryDirectory(prefix="vs-lmeval-") as tmp:
        stats, logprobs = senso_side(args, model_dir, Path(tmp))
        include = lmeval_tasks(args, Path(tmp))
        written = sorted(p.name for p in include.iterdir())
    wall, cpu, rss = combine(stats)
    print(f"{0:>4} {'senso':7} {wall:>8.1f} {cpu:>8.1f} {rss:>7.0f}")
    print(f"senso scored {len(logprobs)} items; lm-eval task folder written ({', '.join(written)}); "
          "lm-eval side not run: no --lmeval-python")


def agreement_line(senso_lp: dict, lmeval_lp: dict) -> str:
    keys = sorted(senso_lp)
    if keys != sorted(lmeval_lp):
        raise SystemExit(f"the two sides scored different items: {sorted(set(keys) ^ set(lmeval_lp))[:5]}")
    same = sum(argmax(senso_lp[k]) == argmax(lmeval_lp[k]) for k in keys)
    worst = max(abs(a - b) for k in keys for a, b in zip(senso_lp[k], lmeval_lp[k]))
    return f"same argmax {same}/{len(keys)}; max |log-prob difference| {worst:.1e}"


def main() -> None:
    args = parse_args()
    if args.model_dir:
        model_dir = Path(args.model_dir).resolve()
    else:
        from senso.backends.default_model import default_model_path

        model_dir = default_model_path()
    print(f"model {model_dir}; shots {args.shots}; limit {args.limit or 'all'}; batch {args.batch_size}; "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    print(f"{'pair':>4} {'side':7} {'wall s':>8} {'CPU s':>8} {'RSS MB':>7}")
    if not args.lmeval_python:
        return senso_only(args, model_dir)
    ratios, agreement = [], None
    for pair in range(args.pairs):
        with tempfile.TemporaryDirectory(prefix="vs-lmeval-") as tmp:
            out = Path(tmp)
            senso_stats, senso_lp = senso_side(args, model_dir, out)
            lmeval_stats, lmeval_lp = lmeval_side(args, model_dir, out)
        s, l = combine(senso_stats), combine(lmeval_stats)
        for side, (wall, cpu, rss) in (("senso", s), ("lm-eval", l)):
            print(f"{pair:>4} {side:7} {wall:>8.1f} {cpu:>8.1f} {rss:>7.0f}", flush=True)
        ratios.append((l[0] / s[0], l[1] / s[1], l[2] / s[2]))
        print(f"{pair:>4} ratio   lm-eval/senso: wall x{ratios[-1][0]:.2f}, CPU x{ratios[-1][1]:.2f}, "
              f"RSS x{ratios[-1][2]:.2f}   (load average {os.getloadavg()[0]:.1f})", flush=True)
        agreement = agreement or agreement_line(senso_lp, lmeval_lp)
    print(agreement)
    if len(ratios) > 1:
        print("ratios per pair (wall, CPU, RSS): " + "; ".join(f"x{w:.2f} x{c:.2f} x{r:.2f}" for w, c, r in ratios))


if __name__ == "__main__":
    main()

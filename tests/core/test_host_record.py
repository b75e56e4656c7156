"""config.json records the host's CPU and the instruction-set flags that choose numeric kernels."""

from senso.core.records import HOST_CPU_FLAGS, host_record


def test_host_record_reads_cpu_model_and_flags(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Test CPU @ 2.0GHz\nflags\t\t: fpu sse4_2 avx avx2 fma avx512f "
                       "amx_tile amx_int8 amx_bf16 lm\n")
    record = host_record(cpuinfo)
    assert record["cpu_model"] == "Test CPU @ 2.0GHz"
    assert record["cpu_flags"] == ["sse4_2", "avx", "avx2", "fma", "avx512f", "amx_tile", "amx_int8", "amx_bf16"]
    assert set(record["cpu_flags"]) <= set(HOST_CPU_FLAGS) and record["machine"]


def test_host_record_without_cpuinfo(tmp_path):
    record = host_record(tmp_path / "absent")
    assert record["cpu_flags"] is None and "machine" in record

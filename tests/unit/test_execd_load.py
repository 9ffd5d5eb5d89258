from pathlib import Path

from gridd.execd.load import (
    load_values,
    parse_cpuinfo,
    parse_loadavg,
    parse_meminfo,
    read_load,
)

LOADAVG = "0.52 1.04 2.10 3/456 7890\n"

MEMINFO = """\
MemTotal:       25165824 kB
MemFree:         1048576 kB
MemAvailable:   16777216 kB
Buffers:          102400 kB
Cached:          4194304 kB
SwapTotal:       2097152 kB
SwapFree:        1048576 kB
HugePages_Total:       0
"""


def _x86_cpuinfo(sockets: int, cores: int, threads: int) -> str:
    """Processors numbered like Linux does, siblings of a core sharing its core id."""
    blocks = []
    number = 0
    for socket in range(sockets):
        for core in range(cores):
            for _ in range(threads):
                blocks.append(
                    f"processor\t: {number}\nvendor_id\t: AuthenticAMD\n"
                    f"physical id\t: {socket}\ncore id\t\t: {core}\nflags\t\t: fpu vme\n"
                )
                number += 1
    return "\n".join(blocks) + "\n"


ARM_CPUINFO = """\
processor\t: 0
BogoMIPS\t: 50.00
CPU implementer\t: 0x41

processor\t: 1
BogoMIPS\t: 50.00
CPU implementer\t: 0x41

processor\t: 2
BogoMIPS\t: 50.00

processor\t: 3
BogoMIPS\t: 50.00
"""


def test_loadavg_fields() -> None:
    assert parse_loadavg(LOADAVG) == (0.52, 1.04, 2.10)


def test_meminfo_in_bytes() -> None:
    info = parse_meminfo(MEMINFO)
    assert info["MemTotal"] == 25165824 * 1024
    assert info["HugePages_Total"] == 0


def test_cpuinfo_topology_counts_sockets_cores_threads() -> None:
    assert parse_cpuinfo(_x86_cpuinfo(2, 4, 2)) == (16, 2, 8, 16)
    assert parse_cpuinfo(_x86_cpuinfo(1, 2, 1)) == (2, 1, 2, 2)


def test_cpuinfo_without_topology_counts_processors_as_cores() -> None:
    assert parse_cpuinfo(ARM_CPUINFO) == (4, 1, 4, 4)


def test_cpuinfo_empty_still_one_processor() -> None:
    assert parse_cpuinfo("") == (1, 1, 1, 1)


def test_load_values_format_and_arithmetic() -> None:
    values = load_values(LOADAVG, MEMINFO, _x86_cpuinfo(1, 2, 1), machine="x86_64")
    assert values["arch"] == "lx-amd64"
    assert (values["num_proc"], values["m_socket"], values["m_core"], values["m_thread"]) == (
        "2", "1", "2", "2")
    # load_avg is Grid Engine's 5-minute average.
    assert values["load_avg"] == "1.040000"
    assert values["load_short"] == "0.520000"
    assert values["load_medium"] == "1.040000"
    assert values["load_long"] == "2.100000"
    assert values["np_load_avg"] == "0.520000"
    assert values["np_load_short"] == "0.260000"
    assert values["np_load_long"] == "1.050000"
    assert values["mem_total"] == str(24 * 1024**3)
    assert values["mem_free"] == str(16 * 1024**3)
    assert values["mem_used"] == str(8 * 1024**3)
    assert values["swap_total"] == str(2 * 1024**3)
    assert values["swap_free"] == str(1024**3)
    assert values["swap_used"] == str(1024**3)
    assert values["virtual_total"] == str(26 * 1024**3)
    assert values["virtual_free"] == str(17 * 1024**3)
    assert values["virtual_used"] == str(9 * 1024**3)


def test_mem_free_without_memavailable_counts_cache() -> None:
    old_kernel = "\n".join(
        line for line in MEMINFO.splitlines() if not line.startswith("MemAvailable"))
    values = load_values(LOADAVG, old_kernel, ARM_CPUINFO, machine="aarch64")
    assert values["mem_free"] == str((1048576 + 102400 + 4194304) * 1024)


def test_read_load_from_a_proc_tree(tmp_path: Path) -> None:
    (tmp_path / "loadavg").write_text(LOADAVG)
    (tmp_path / "meminfo").write_text(MEMINFO)
    (tmp_path / "cpuinfo").write_text(ARM_CPUINFO)
    values = read_load(tmp_path)
    assert values["num_proc"] == "4"
    assert values["np_load_avg"] == "0.260000"


def test_read_load_from_this_machine() -> None:
    values = read_load()
    assert int(values["num_proc"]) >= 1
    assert int(values["mem_total"]) > 0

"""The standard load values an execd reports, read from Linux's /proc.

Parsing is kept apart from reading so the arithmetic can be tested with canned
/proc texts. Values follow Grid Engine's names; their formatting follows gridd's
convention: memory as whole bytes, loads with six decimals.
"""

from __future__ import annotations

from pathlib import Path

from gridd.sge_root import arch_name


def parse_loadavg(text: str) -> tuple[float, float, float]:
    """The 1, 5 and 15 minute averages from /proc/loadavg."""
    short, medium, long_, *_ = text.split()
    return float(short), float(medium), float(long_)


def parse_meminfo(text: str) -> dict[str, int]:
    """/proc/meminfo as byte counts; the kernel writes kB, which means KiB."""
    values: dict[str, int] = {}
    for line in text.splitlines():
        key, sep, rest = line.partition(":")
        fields = rest.split()
        if not sep or not fields:
            continue
        scale = 1024 if len(fields) > 1 and fields[1] == "kB" else 1
        values[key.strip()] = int(fields[0]) * scale
    return values


def parse_cpuinfo(text: str) -> tuple[int, int, int, int]:
    """(num_proc, sockets, cores, threads) from /proc/cpuinfo.

    Kernels on ARM and in some VMs leave out "physical id" and "core id"; each
    processor then counts as a core of a single socket, which is what the scheduler
    can use anyway.
    """
    processors = 0
    sockets: set[str] = set()
    cores: set[tuple[str, str]] = set()
    physical = core = ""
    for line in text.splitlines() + [""]:
        key, _, value = (part.strip() for part in line.partition(":"))
        if key == "processor":
            processors += 1
        elif key == "physical id":
            physical = value
        elif key == "core id":
            core = value
        elif not key and (physical or core):
            sockets.add(physical)
            cores.add((physical, core))
            physical = core = ""
    processors = max(processors, 1)
    if not cores:
        return processors, 1, processors, processors
    return processors, len(sockets), len(cores), processors


def load_values(
    loadavg: str, meminfo: str, cpuinfo: str, machine: str | None = None
) -> dict[str, str]:
    """The load report of one host, from the texts of the three /proc files."""
    num_proc, sockets, cores, threads = parse_cpuinfo(cpuinfo)
    short, medium, long_ = parse_loadavg(loadavg)
    # Grid Engine's load_avg is the 5-minute value (load_medium), not the 1-minute one.
    loads = {"load_avg": medium, "load_short": short, "load_medium": medium, "load_long": long_}
    memory = {name: str(amount) for name, amount in _memory(parse_meminfo(meminfo)).items()}
    # The order Grid Engine's execd reports in, which `qhost -F` and `qstat -F` keep.
    values = {"arch": arch_name(machine), "num_proc": str(num_proc)}
    values |= {name: memory[name] for name in ("mem_total", "swap_total", "virtual_total")}
    values |= {"m_topology": topology(sockets, cores, threads), "m_socket": str(sockets),
               "m_core": str(cores), "m_thread": str(threads)}
    values |= {name: f"{value:.6f}" for name, value in loads.items()}
    values |= {name: memory[name] for name in ("mem_free", "swap_free", "virtual_free",
                                                "mem_used", "swap_used", "virtual_used")}
    values["m_topology_inuse"] = values["m_topology"]
    values |= {f"np_{name}": f"{value / num_proc:.6f}" for name, value in loads.items()}
    return values


def topology(sockets: int, cores: int, threads: int) -> str:
    """Grid Engine's topology string: S per socket, C per core, T per hardware thread when
    cores run more than one ("SCC" is one socket of two cores, "SCTTCTT" with SMT)."""
    per_socket = max(cores // max(sockets, 1), 1)
    per_core = threads // cores if cores and threads > cores else 1
    core = "C" + ("T" * per_core if per_core > 1 else "")
    return ("S" + core * per_socket) * max(sockets, 1)


def _memory(info: dict[str, int]) -> dict[str, int]:
    """Free memory counts reclaimable page cache, as MemAvailable does where the kernel has it."""
    mem_total = info.get("MemTotal", 0)
    mem_free = info.get(
        "MemAvailable",
        info.get("MemFree", 0) + info.get("Buffers", 0) + info.get("Cached", 0),
    )
    swap_total = info.get("SwapTotal", 0)
    swap_free = info.get("SwapFree", 0)
    return {
        "mem_total": mem_total,
        "mem_free": mem_free,
        "mem_used": mem_total - mem_free,
        "swap_total": swap_total,
        "swap_free": swap_free,
        "swap_used": swap_total - swap_free,
        "virtual_total": mem_total + swap_total,
        "virtual_free": mem_free + swap_free,
        "virtual_used": mem_total + swap_total - mem_free - swap_free,
    }


def read_load(proc: Path = Path("/proc")) -> dict[str, str]:
    """This host's load values now; proc is a parameter so tests can point at a fake tree."""
    return load_values(
        (proc / "loadavg").read_text(),
        (proc / "meminfo").read_text(),
        (proc / "cpuinfo").read_text(),
    )

"""One full dispatch decision: 10,000 pending jobs (20 request categories) against 1,000
queue instances on 250 hosts with a global consumable, with and without category caching.

In-process, no daemons: the cell is built with `gridd.sched.match.Matcher` directly. One
decision walks the jobs in priority order; for each it tries the queue instances in a
fixed order (global -> host -> queue level), takes the first where the job fits, debits it
and moves on. It stops once no queue instance has a free slot. Every `fits` call counts as
one check. Three ways of deciding, each best of RUNS on freshly built levels:

  none      `Matcher.fits` for every job x queue instance tried;
  cache     `CategoryCache.fits` (fresh per decision): a failure of a category on a level
            is remembered and answers every later job of the category there;
  cache+rej the same, and what the cache implies used by the loop, as a planner would:
            a category none of whose jobs found a place is skipped for the rest of the
            decision (Grid Engine's rejected categories), and a category's next job
            resumes the scan at the queue instance its previous job took, since every
            instance before it refused the category and resources only shrink within a
            decision (spec section 5: the list of queues to test gets shorter and shorter).

All three must place exactly the same jobs; the benchmark checks that.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr, ComplexTable
from gridd.sched.match import GLOBAL, HOST, QUEUE, CategoryCache, JobRequest, Level, Matcher

HOSTS = 250
JOBS = 10_000
RUNS = 3
LICENSES = "500"
SEED = 8119

TABLE = ComplexTable((
    *DEFAULT_COMPLEXES,
    ComplexAttr("license", "lic", "INT", "<=", "YES", "YES", "0", "0"),
    ComplexAttr("rack", "rack", "RESTRING", "==", "YES", "NO", "NONE", "0"),
))

# (queue, slots by host index, h_rt limit or None): four queue instances per host.
QUEUES = (
    ("all.q", lambda i: 4 + 4 * (i % 2), None),
    ("short.q", lambda i: 16, "1:0:0"),
    ("long.q", lambda i: 8, "72:0:0"),
    ("big.q", lambda i: 4 + 2 * (i % 7), "24:0:0"),
)

# ~20 categories, 2-3 hard requests each, and the slots a job takes in one queue instance.
CATEGORIES: tuple[tuple[dict[str, str], int], ...] = (
    ({"arch": "lx-amd64", "mem_free": "2G"}, 1),
    ({"arch": "lx-arm64", "h_rt": "0:30:0"}, 1),
    ({"mem_free": "8G", "h_rt": "2:0:0"}, 1),
    ({"license": "1", "h_rt": "0:10:0"}, 1),
    ({"license": "2", "arch": "lx-amd64", "mem_free": "1G"}, 1),
    ({"h_rt": "48:0:0", "mem_free": "32G"}, 1),
    ({"hostname": "node017", "h_rt": "0:5:0"}, 1),
    ({"rack": "r0[0-3]", "arch": "lx-amd64"}, 1),
    ({"num_proc": "64", "mem_free": "100G"}, 1),
    ({"arch": "lx-amd64", "h_rt": "100:0:0"}, 1),
    ({"arch": "sol-amd64", "h_rt": "1:0:0"}, 1),  # no such host: never fits
    ({"mem_free": "200G", "h_rt": "1:0:0"}, 1),  # too big everywhere: never fits
    ({"license": "4", "h_rt": "4:0:0"}, 4),
    ({"arch": "lx-amd64", "mem_free": "4G", "h_rt": "12:0:0"}, 8),
    ({"rack": "r1*|r05", "h_rt": "0:20:0"}, 2),
    ({"num_proc": "16", "h_rt": "8:0:0", "license": "1"}, 1),
    ({"arch": "lx-arm64", "mem_free": "16G"}, 2),
    ({"h_vmem": "6G", "h_rt": "3:0:0"}, 1),
    ({"mem_free": "512M", "h_rt": "0:1:0"}, 1),
    ({"arch": "lx-amd64", "num_proc": "32", "h_rt": "20:0:0"}, 4),
)


@dataclass(slots=True)
class Cell:
    glob: Level
    instances: list[tuple[Level, Level]]  # (host level, queue level) in the fixed order
    queue_levels: list[Level]


def build_cell(m: Matcher) -> Cell:
    glob = m.level(GLOBAL, "global", {"license": LICENSES})
    instances, queue_levels = [], []
    for i in range(HOSTS):
        name = f"node{i:03d}"
        values = {"hostname": name, "rack": f"r{i // 20:02d}"}
        if i % 10 == 0:
            values["h_vmem"] = "8G"  # a fixed complex_values entry
        if i % 4 == 0:
            values["slots"] = "24"  # host-wide slot limit below the queues' sum
        gib = (16, 32, 64, 128)[i % 4]
        load = {
            "arch": "lx-arm64" if i % 5 == 4 else "lx-amd64",
            "mem_free": f"{gib - 1.5 - (i % 3) * 0.25}G",
            "num_proc": str((8, 16, 32, 64)[i % 4]),
            "load_avg": f"{(i % 13) / 10:.2f}",
        }
        host = m.level(HOST, name, values, load)
        for qname, slots, h_rt in QUEUES:
            qvalues = {"qname": qname, "slots": str(slots(i))}
            if h_rt:
                qvalues["h_rt"] = h_rt
            queue = m.level(QUEUE, f"{qname}@{name}", qvalues)
            instances.append((host, queue))
            queue_levels.append(queue)
    return Cell(glob, instances, queue_levels)


def pending_jobs(m: Matcher) -> list[tuple[JobRequest, int]]:
    """JOBS jobs in priority order: (compiled request, slots)."""
    rng = random.Random(SEED)
    jobs = []
    for number in range(JOBS):
        hard, slots = CATEGORIES[rng.randrange(len(CATEGORIES))]
        jobs.append((rng.choice((0, 0, 0, 10, -100)), number, m.request(hard), slots))
    jobs.sort(key=lambda j: (-j[0], j[1]))
    return [(req, slots) for _, _, req, slots in jobs]


def decide(m: Matcher, cell: Cell, jobs: list[tuple[JobRequest, int]], mode: str,
           ) -> tuple[int, list[int]]:
    """One dispatch decision; returns (checks, queue instance index per job, -1 unplaced)."""
    glob, instances = cell.glob, cell.instances
    free_slots = sum(q.free["slots"] for q in cell.queue_levels)
    cache = CategoryCache() if mode != "none" else None
    rejected: set[tuple] = set()
    resume: dict[tuple, int] = {}  # (category, slots) -> first instance not known to refuse
    checks = 0
    placement = [-1] * len(jobs)
    for j, (req, slots) in enumerate(jobs):
        if free_slots < 1:
            break  # nothing can fit any more
        category = (req.key, slots)
        start = 0
        if mode == "cache+rej":
            if category in rejected:
                continue
            start = resume.get(category, 0)
        for i in range(start, len(instances)):
            host, queue = instances[i]
            checks += 1
            if cache is None:
                ok = m.fits(req, slots, glob, host, queue).ok
            else:
                ok = cache.fits(m, req, slots, glob, host, queue).ok
            if ok:
                m.debit(req, slots, glob, host, queue)
                free_slots -= slots
                placement[j] = resume[category] = i
                break
        else:
            rejected.add(category)
    return checks, placement


def main() -> dict[str, float]:
    m = Matcher(TABLE)
    jobs = pending_jobs(m)
    print(f"{HOSTS} hosts, {HOSTS * len(QUEUES)} queue instances, {len(jobs)} pending jobs in "
          f"{len({(r.key, s) for r, s in jobs})} categories, global license={LICENSES}")
    figures: dict[str, float] = {}
    placements = {}
    for mode in ("none", "cache", "cache+rej"):
        best = float("inf")
        for _ in range(RUNS):
            cell = build_cell(m)  # fresh free amounts for every decision
            t0 = time.perf_counter()
            checks, placement = decide(m, cell, jobs, mode)
            best = min(best, time.perf_counter() - t0)
        placements[mode] = placement
        placed = sum(1 for p in placement if p >= 0)
        print(f"{mode:<10} {best:6.3f} s  {checks:>10,} checks  {checks / best / 1e6:5.2f} M "
              f"checks/s  {placed:,} jobs placed")
        figures[f"{mode}_s"] = best
        figures[f"{mode}_checks"] = float(checks)
        figures["placed"] = float(placed)
    same = placements["none"] == placements["cache"] == placements["cache+rej"]
    print(f"placements identical across modes: {'yes' if same else 'NO (BUG)'}")
    figures["agree"] = float(same)
    return figures


if __name__ == "__main__":
    main()

"""Run every benchmark in turn, then print the figures against the targets."""

from __future__ import annotations

import traceback
from collections.abc import Callable

import api_submit
import ar_grant
import cli_latency
import cluster_drain
import dispatch
import drain
import drmaa
import ingest
import job_cost
import load_adjust_dispatch
import master_rss
import qacct
import qrsh_latency
import qstat_big
import qsub_latency
import quota_dispatch
import reservation_dispatch
import sim_throughput
import submit_to_running
import web_ui

Figures = dict[str, float | None]


def run(name: str, main: Callable[[], Figures]) -> Figures:
    print(f"\n== {name} ==", flush=True)
    try:
        return main()
    except Exception:  # one broken benchmark must not hide the others' figures
        traceback.print_exc()
        return {}


def row(what: str, figure: float | None, unit: str, target: str, met: bool | None) -> str:
    shown = "-" if figure is None else f"{figure:,.1f} {unit}"
    verdict = {True: "yes", False: "NO", None: "n/a"}[met]
    return f"{what:<34} {shown:>16}   {target:<26} {verdict}"


def qacct_rows(qa: Figures) -> list[str]:
    """gridd's qacct through the master against the targets and real GE's time."""
    rows = []
    for what, key, under in (("-o", "o", 0.5), ("summary", "summary", 0.5), ("-j N", "j", None)):
        ours, ge = qa.get(f"{key}_s"), qa.get(f"ge_{key}_s")
        target = (f"< {under * 1000:.0f} ms, " if under else "") + (
            f"<= real GE ({ge * 1000:,.0f} ms)" if ge else "<= real GE (n/a)")
        met = None if ours is None else (under is None or ours < under) and (
            ge is None or ours <= ge)
        rows.append(row(f"qacct {what}, 1M jobs", None if ours is None else ours * 1000, "ms",
                        target, met))
    return rows


def cli_rows(cl: Figures) -> list[str]:
    """Each q* command's median against three times Grid Engine's C binary's."""
    rows = []
    for what, key in (("qsub -h -b y true", "qsub"), ("qstat, empty", "qstat_empty"),
                      ("qstat, 6 jobs", "qstat"), ("qdel N", "qdel"), ("qacct -j N", "qacct")):
        ours, ge = cl.get(f"{key}_ms"), cl.get(f"ge_{key}_ms")
        rows.append(row(f"{what} median (gridd)", ours, "ms",
                        f"<= 3x C GE ({ge:.1f} ms)" if ge else "<= 3x C GE (n/a)",
                        ours <= 3 * ge if ours is not None and ge else None))
    return rows


def qstat_rows(qb: Figures) -> list[str]:
    """qstat and qstat -xml over 5,000 waiting jobs against twice Grid Engine's C qstat."""
    rows = []
    for what, key in (("qstat, 5,000 waiting", "qstat"), ("qstat -xml, 5,000 waiting",
                                                          "qstat_xml")):
        ours, ge = qb.get(f"{key}_ms"), qb.get(f"ge_{key}_ms")
        rows.append(row(f"{what} (gridd)", ours, "ms",
                        f"<= 2x C GE ({ge:.1f} ms)" if ge else "<= 2x C GE (n/a)",
                        ours <= 2 * ge if ours is not None and ge else None))
    return rows


def main() -> None:
    q = run("qsub latency", qsub_latency.main)
    cl = run("q* commands beside Grid Engine's C binaries", cli_latency.main)
    qb = run("qstat over 5,000 waiting jobs", qstat_big.main)
    a = run("API submit", api_submit.main)
    s = run("submit to running", submit_to_running.main)
    d = run("drain", drain.main)
    jc = run("CPU per trivial job", job_cost.main)
    x = run("dispatch decision", dispatch.main)
    r = run("master RSS", master_rss.main)
    rq = run("dispatch decision with resource quotas", quota_dispatch.main)
    rr = run("dispatch decision with resource reservation", reservation_dispatch.main)
    la = run("dispatch decision with load adjustments", load_adjust_dispatch.main)
    sm = run("gridd sim throughput", sim_throughput.main)
    ag = run("advance reservation grant", ar_grant.main)
    ig = run("ingest into the reporting database", ingest.main)
    qa = run("qacct on 1,000,000 jobs", qacct.main)
    cd = run("drain through namespaced nodes", cluster_drain.main)
    qr = run("qrsh latency", qrsh_latency.main)
    wu = run("web interface in Chromium", web_ui.main)
    dr = run("DRMAA run_job + wait", drmaa.main)

    ge = q.get("sge_ms")
    rows = [
        row("CLI qsub median (gridd)", q.get("gridd_ms"), "ms",
            f"<= real GE ({ge:.1f} ms)" if ge else "<= real GE (n/a)",
            q["gridd_ms"] <= ge if ge and "gridd_ms" in q else None),
        *cli_rows(cl),
        *qstat_rows(qb),
        row("qrsh -now y true median (gridd)", qr.get("gridd_ms"), "ms",
            f"<= real GE ({qr['sge_ms']:.1f} ms)" if qr.get("sge_ms") else "<= real GE (n/a)",
            qr["gridd_ms"] <= qr["sge_ms"] if qr.get("sge_ms") and qr.get("gridd_ms")
            else None),
        row("API submit_many", a.get("many_per_s"), "jobs/s", ">= 2,000 jobs/s",
            a["many_per_s"] >= 2000 if a else None),
        row("API sequential submit", a.get("sequential_per_s"), "jobs/s", "(no target)", None),
        row("submit -> 'r' seen (median)", s.get("seen_ms"), "ms", "< 50 ms",
            s["seen_ms"] < 50 if s else None),
        row("submit -> start_time (median)", s.get("recorded_ms"), "ms", "< 50 ms",
            s["recorded_ms"] < 50 if s else None),
        row("drain from first submission", d.get("from_first_per_s"), "jobs/s",
            ">= 200 jobs/s", d["from_first_per_s"] >= 200 if d else None),
        row("drain from end of submission", d.get("from_end_per_s"), "jobs/s",
            ">= 200 jobs/s", d["from_end_per_s"] >= 200 if d else None),
        row("drain accounting records", d.get("records"), "", "exactly 2,000",
            d["records"] == 2000 if d else None),
        row("CPU per trivial job, end to end", jc.get("total (no job)_ms"), "ms", "<= 20 ms",
            jc["total (no job)_ms"] <= 20 if jc else None),
        row("trivial jobs drained, 4 slots", jc.get("per_s"), "jobs/s", ">= 100 jobs/s",
            jc["per_s"] >= 100 if jc else None),
        row("drain, 3 local execds", cd.get("local_per_s"), "jobs/s", "(no target)", None),
        row("drain, 3 nodes over a network", cd.get("nodes_per_s"), "jobs/s",
            "as local, within noise",
            None if "nodes_per_s" not in cd else cd["nodes_per_s"] >= 0.8 * cd["local_per_s"]),
        row("dispatch 10k x 1k, no categories", x.get("none_s"), "s", "(no target)", None),
        row("dispatch 10k x 1k, planner", x.get("cache_s"), "s", "< 0.5 s, same placements",
            x["cache_s"] < 0.5 and x["agree"] == 1 if x else None),
        row("master RSS at rest (gridd up)", r.get("real_rest_mib"), "MiB", "< 60 MiB",
            r["real_rest_mib"] < 60 if r else None),
        row("master RSS, 100k pending (in-process)", r.get("rss_mib"), "MiB", "< 1 GiB",
            max(r["rss_mib"], r["peak_mib"]) < 1024 if r else None),
        row("master RSS, 100k pending (gridd up)", r.get("real_pending_mib"), "MiB", "< 1 GiB",
            max(r["real_pending_mib"], r["real_pending_peak_mib"]) < 1024 if r else None),
        row("dispatch with 50x10 quota rules", rq.get("rqs_s"), "s",
            f"<= {quota_dispatch.TARGET}x without ({rq['base_s']:.2f} s)" if rq
            else f"<= {quota_dispatch.TARGET}x without",
            rq["ratio"] <= quota_dispatch.TARGET and rq["over"] == 0 and rq["agree"] == 1
            if rq else None),
        row("dispatch, max_reservation=100", rr.get("reserve_s"), "s", "< 2 s",
            rr["reserve_s"] < 2 if rr else None),
        row("dispatch by load, adjustments", la.get("adjusted_s"), "s",
            f"same placements ({la['ratio']:.1f}x NONE)" if la else "same placements",
            la["agree"] == 1 if la else None),
        row("gridd sim, 100k jobs, EASY", sm.get("sim_jobs_per_s"), "jobs/s",
            ">= 10,000 jobs/s", sm["sim_jobs_per_s"] >= 10_000 if sm else None),
        row("gridd sim, as above, one process", sm.get("one_process_per_s"), "jobs/s",
            "(no target)", None),
        row("AR grant, 1k inst, 5k jobs, 500 ARs", ag.get("ar_grant_ms"), "ms", "< 100 ms",
            ag["ar_grant_ms"] < 100 if ag else None),
        row("qrsub round trip (median)", ag.get("qrsub_ms"), "ms", "(no target)", None),
        row("DuckDB ingest, stream (1k batches)", ig.get("stream_per_s"), "records/s",
            ">= 50,000 records/s", ig["stream_per_s"] >= 50_000 if ig else None),
        row("DuckDB ingest, accounting file", ig.get("file_per_s"), "records/s",
            ">= 50,000 records/s", ig["file_per_s"] >= 50_000 if ig else None),
        *qacct_rows(qa),
        row("qacct -help start-up", qa.get("help_ms"), "ms", "(no target)", None),
        row("/jobs render, 1,000 jobs, Chromium", wu.get("render_ms"), "ms", "(no target)",
            None),
        row("job start -> row, /jobs of 1,000", wu.get("start_to_row_ms"), "ms",
            "(no target)", None),
        row("job start -> row, /jobs -s r", wu.get("start_to_row_running_ms"), "ms",
            "(no target)", None),
        row("DRMAA run_job + wait, one at a time", dr.get("drmaa_per_s"), "jobs/s",
            "(no target)", None),
        row("qsub -sync y, beside it", dr.get("qsub_sync_per_s"), "jobs/s", "(no target)",
            None),
        row("DRMAA run_bulk_jobs + synchronize", dr.get("bulk_per_s"), "tasks/s",
            "(no target)", None),
    ]
    print(f"\n== summary ==\n{'figure':<34} {'measured':>16}   {'target':<26} met")
    print("\n".join(rows))


if __name__ == "__main__":
    main()

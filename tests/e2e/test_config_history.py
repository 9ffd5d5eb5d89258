"""The configuration's history on a real cell: a new cell records every configuration
object once, each qconf change after that is another version with its time, and
`gridd report --sql` asked through the running master answers what an object looked like
at any moment, deletions included; the reporting file never gets a line for them."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from tests.e2e.conftest import Cell, wait_for
from tests.e2e.test_advance_reservation import set_global_conf
from tests.e2e.test_reporting import REPORTING

PE = """pe_name            hist_pe
slots              4
user_lists         NONE
xuser_lists        NONE
start_proc_args    NONE
stop_proc_args     NONE
allocation_rule    $round_robin
control_slaves     FALSE
job_is_first_task  TRUE
urgency_slots      min
accounting_summary FALSE
"""


def sql(cell: Cell, query: str, **params: str) -> list[dict[str, str]]:
    """A read-only query's rows, asked as an analyst would while the cell runs."""
    args = [arg for name, value in params.items() for arg in ("--param", f"{name}={value}")]
    out = cell.ok("gridd", "report", "--sql", query, *args, "--format", "csv")
    return list(csv.DictReader(io.StringIO(out)))


def versions(cell: Cell, kind: str, name: str) -> list[dict[str, str]]:
    return sql(cell, "SELECT id, time, deleted, body, valid_until FROM view_config_history "
                     "WHERE kind = $kind AND name = $name ORDER BY id", kind=kind, name=name)


def slots_as_of(cell: Cell, moment: str) -> list[str]:
    rows = sql(cell, "SELECT json_extract_string(body, '$.slots') AS slots "
                     "FROM config_as_of($moment) WHERE kind = 'queue' AND name = 'all.q'",
               moment=moment)
    return [row["slots"] for row in rows]


def test_configuration_changes_are_history_in_the_reporting_database(cell: Cell,
                                                                    tmp_path: Path):
    # a new cell's history starts complete: every object once
    first = wait_for(lambda: sql(cell, "SELECT kind, name FROM view_config_history"),
                     timeout=30, what="the new cell's configuration in the history")
    recorded = {(row["kind"], row["name"]) for row in first}
    assert {("queue", "all.q"), ("global_conf", "cell"), ("sched_conf", "cell"),
            ("managers", "cell"), ("complexes", "cell")} <= recorded
    assert ("pe", "mpi") in recorded and ("exechost", "node1") in recorded
    assert len({row["name"] for row in first if row["kind"] == "queue"}) == 1

    set_global_conf(cell, tmp_path, REPORTING)  # the reporting file, to see nothing in it
    before = re.search(r"^slots\s+(\S+)", cell.ok("qconf", "-sq", "all.q"), re.M).group(1)
    assert before != "3"
    cell.ok("qconf", "-mattr", "queue", "slots", "3", "all.q")
    pe_file = tmp_path / "hist_pe"
    pe_file.write_text(PE)
    cell.ok("qconf", "-Ap", str(pe_file))
    cell.ok("qconf", "-dp", "hist_pe")

    queue = versions(cell, "queue", "all.q")
    assert [json.loads(v["body"])["slots"] for v in queue] == [before, "3"]
    assert [v["deleted"] for v in queue] == ["False", "False"]
    assert queue[0]["valid_until"] == queue[1]["time"] and queue[1]["valid_until"] == ""
    # the moment before the change, the queue had its old slots; from it on, 3
    assert slots_as_of(cell, queue[0]["time"]) == [before]
    changed = queue[1]["time"]
    earlier = sql(cell, "SELECT ($t::TIMESTAMP - INTERVAL 1 MICROSECOND)::VARCHAR AS t",
                  t=changed)[0]["t"]
    assert slots_as_of(cell, earlier) == [before]
    assert slots_as_of(cell, changed) == ["3"]

    pe = versions(cell, "pe", "hist_pe")
    assert [v["deleted"] for v in pe] == ["False", "True"]
    assert json.loads(pe[0]["body"])["slots"] == "4" and pe[1]["body"] == ""
    inside = sql(cell, "SELECT name FROM config_as_of($t) WHERE kind = 'pe'", t=pe[0]["time"])
    assert "hist_pe" in {row["name"] for row in inside}
    after = sql(cell, "SELECT name FROM config_as_of($t) WHERE kind = 'pe'", t=pe[1]["time"])
    assert "hist_pe" not in {row["name"] for row in after} and after

    assert "reporting=true" in versions(cell, "global_conf", "cell")[-1]["body"]

    out = cell.ok("gridd", "report", "config_history", "--param", "kind=pe",
                  "--param", "name=hist_pe", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["kind"], r["name"], r["change"]) for r in rows] == [
        ("pe", "hist_pe", "added"), ("pe", "hist_pe", "deleted")]
    out = cell.ok("gridd", "report", "config_history", "--param", "kind=queue",
                  "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["change"], r["changed"]) for r in rows] == [("added", ""), ("modified", "slots")]

    path = cell.root / "common" / "reporting"

    def types() -> set[str]:
        lines = path.read_text().splitlines() if path.exists() else []
        return {line.split(":")[1] for line in lines if line and not line.startswith("#")}

    cell.ok("qsub", "-b", "y", "true")  # with joblog on, its new_job line comes at once
    wait_for(lambda: "new_job" in types(), timeout=30, what="a job in the reporting file")
    assert "config" not in types()

"""AR records of the reporting file, against the lines Grid Engine 8.1.9 wrote.

The reference lines come from the raw reporting file in
reference/sge-8.1.9/transcripts/accounting_reporting.txt: AR 12 was made with
`qrsub -N small -d 0:00:40 -pe smp 2` and ran to its end; ARs 1 and 2 were qrdel'd.
"""

from __future__ import annotations

import pytest

from gridd.accounting.ar_report import line
from gridd.model.ar import AdvanceReservation, ArRecord, ArSpec
from gridd.model.ar_lifecycle import DELETED, RUNNING


def small_ar(**changes) -> AdvanceReservation:
    spec = ArSpec(name="small", account="sge", owner="root", group="root", duration=40,
                  pe_name="smp", pe_min=2, pe_max=2)
    ar = AdvanceReservation(ar_id=12, spec=spec, submission_time=1795327215.4,
                            start=1795327215, end=1795327255, granted=[("all.q@vm", 2)],
                            granted_pe="smp")
    for name, value in changes.items():
        setattr(ar, name, value)
    return ar


def deleted_ar(ar_id: int) -> AdvanceReservation:
    spec = ArSpec(owner="root", group="root", duration=60)
    return AdvanceReservation(ar_id=ar_id, spec=spec, submission_time=1795327142,
                              start=1795327142, end=1795327202, state=DELETED,
                              granted=[("all.q@vm", 1)])


def test_reference_lines_of_a_reservation_that_ran_to_its_end():
    ar = small_ar()
    records = [
        ArRecord(kind="new_ar", time=1795327215, ar=ar),
        ArRecord(kind="ar_attr", time=1795327215, ar=ar),
        ArRecord(kind="ar_log", time=1795327215.9, ar=small_ar(state=RUNNING), state="r",
                 event="START TIME REACHED", message="start time of AR reached"),
        ArRecord(kind="ar_log", time=1795327255, ar=ar, state="x", event="TERMINATED",
                 message="end time of AR reached"),
        ArRecord(kind="ar_acct", time=1795327255, ar=ar, queue="all.q", host="vm", slots=2),
    ]
    assert [line(r) for r in records] == [
        "1795327215:new_ar:1795327215:12:root",
        "1795327215:ar_attr:1795327215:1795327215:12:small:sge:1795327215:1795327255:smp:NONE",
        "1795327215:ar_log:1795327215:1795327215:12:r:START TIME REACHED:start time of AR reached",
        "1795327255:ar_log:1795327255:1795327215:12:x:TERMINATED:end time of AR reached",
        "1795327255:ar_acct:1795327255:1795327215:12:all.q:vm:2",
    ]


@pytest.mark.parametrize("ar_id", [1, 2])
def test_reference_lines_of_a_deleted_reservation(ar_id):
    ar = deleted_ar(ar_id)
    log = ArRecord(kind="ar_log", time=1795327178, ar=ar, state="d", event="DELETED",
                   message="AR deleted")
    acct = ArRecord(kind="ar_acct", time=1795327178, ar=ar, queue="all.q", host="vm", slots=1)
    assert line(log) == f"1795327178:ar_log:1795327178:1795327142:{ar_id}:d:DELETED:AR deleted"
    assert line(acct) == f"1795327178:ar_acct:1795327178:1795327142:{ar_id}:all.q:vm:1"


def test_ar_log_state_defaults_to_the_snapshot_state():
    rec = ArRecord(kind="ar_log", time=1795327178, ar=deleted_ar(2), event="DELETED",
                   message="AR deleted")
    assert line(rec).split(":")[5] == "d"


def test_attributes_without_pe_and_with_resources():
    spec = ArSpec(name="futr2", account="proj", owner="roland",
                  resources={"license": "2", "h_rt": "0:10:0"})
    ar = AdvanceReservation(ar_id=7, spec=spec, submission_time=100, start=200, end=800)
    assert line(ArRecord(kind="ar_attr", time=150, ar=ar)) == (
        "150:ar_attr:150:100:7:futr2:proj:200:800:NONE:license=2,h_rt=600")


def test_unnamed_reservation_keeps_an_empty_name_field():
    ar = deleted_ar(3)
    fields = line(ArRecord(kind="ar_attr", time=1795327142, ar=ar)).split(":")
    assert fields == ["1795327142", "ar_attr", "1795327142", "1795327142", "3", "", "sge",
                      "1795327142", "1795327202", "NONE", "NONE"]


def test_colons_and_line_breaks_in_text_cannot_break_the_line():
    spec = ArSpec(name="a:b\nc", account="x:y", owner="root", resources={"arch": "lx:amd64"})
    ar = AdvanceReservation(ar_id=5, spec=spec, submission_time=10, start=20, end=30,
                            granted_pe="p:e")
    attr = line(ArRecord(kind="ar_attr", time=10, ar=ar))
    assert attr == "10:ar_attr:10:10:5:a;b c:x;y:20:30:p;e:arch=lx;amd64"
    log = line(ArRecord(kind="ar_log", time=25, ar=ar, state="E", event="RESOURCES UNSATISFIED",
                        message="host vm: went down\r\nat 25\t"))
    assert log == "25:ar_log:25:10:5:E:RESOURCES UNSATISFIED:host vm; went down  at 25 "
    acct = line(ArRecord(kind="ar_acct", time=30, ar=ar, queue="q:1", host="h\n", slots=3))
    assert acct == "30:ar_acct:30:10:5:q;1:h :3"
    for text in (attr, log, acct):
        assert "\n" not in text and "\r" not in text
    assert len(attr.split(":")) == 11 and len(log.split(":")) == 8
    assert len(acct.split(":")) == 8


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown AR record kind"):
        line(ArRecord(kind="ar_attribute", time=1, ar=deleted_ar(1)))

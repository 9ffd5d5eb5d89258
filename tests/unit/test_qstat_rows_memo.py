"""A plain listing printed with the master's memo of earlier lines (formats.qstat_rows.Memo)
is the listing printed afresh, whatever changed between two listings."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridd.formats.qstat_rows import Memo, qstat_rows, qstat_rows_xml
from gridd.model.job_rows import JobRows, ShownRow

pytestmark = pytest.mark.usefixtures("utc")

ROWS = st.builds(ShownRow, job_id=st.integers(1, 30), prior=st.sampled_from([0.0, 0.5, 0.25]),
                 name=st.sampled_from(["a", "b&c", "long_name_of_a_job"]),
                 owner=st.sampled_from(["ann", "bob"]), state=st.sampled_from(["qw", "r", "hqw"]),
                 stamp=st.sampled_from([1.8e9, 1.8e9 + 3600.5]),
                 queue=st.sampled_from(["", "all.q@node1"]), slots=st.integers(1, 3),
                 tasks=st.sampled_from(["", "1-3:1"]), array=st.booleans())
LISTINGS = st.builds(JobRows, running=st.lists(ROWS, max_size=6),
                     pending=st.lists(ROWS, max_size=6))


ZONES = st.sampled_from([None, ZoneInfo("UTC"), ZoneInfo("Asia/Tokyo")])


@given(st.lists(st.tuples(LISTINGS, ZONES), max_size=8))
def test_listings_print_alike_with_and_without_the_memo(listings) -> None:
    text, xml = Memo(), Memo()
    for rows, zone in listings:
        assert qstat_rows(rows, zone, text) == qstat_rows(rows, zone)
        assert qstat_rows_xml(rows, zone, xml) == qstat_rows_xml(rows, zone)


def test_the_memo_keeps_the_lines_of_the_rows_shown_and_drops_the_others() -> None:
    memo = Memo()
    rows = [ShownRow(i, 0.5, "j", "ann", "qw", 1.8e9, "", 1, "", False) for i in range(3000)]
    qstat_rows(JobRows(pending=rows), None, memo)
    assert set(memo.known) == set(rows)
    calls = []
    assert memo.lines(rows, None, lambda row: calls.append(row) or "x") == [
        qstat_rows(JobRows(pending=[r])).splitlines()[2] + "\n" for r in rows]
    assert calls == []  # nothing printed again
    qstat_rows(JobRows(pending=rows[:10]), None, memo)  # most are gone: their lines too
    assert set(memo.known) == set(rows[:10])

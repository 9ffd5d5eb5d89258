"""Why jobs wait, kept as prefixes of growing sets (gridd.sched.reasons), reads as the
lists taken at the time would, and the scheduler tells the master a job's reasons again
exactly when that list changed (gridd.sched.info.Told)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gridd.sched.info import Told
from gridd.sched.plan import Plan
from gridd.sched.reasons import NO_REASONS, Why, as_lists

WORDS = st.sampled_from(["full", "no slots", "exceeds u1", "exceeds host", "wrong arch"])


@st.composite
def cycle(draw: st.DrawFn) -> tuple[dict[int, Why], dict[int, list[str]]]:
    """A cycle's jobs looked at one after another while two categories' reasons and
    their askers' quota refusals grow: what each job keeps, and the list it had then."""
    sets: list[dict[str, None]] = [{}, {}]
    quotas: list[dict[str, None]] = [{}, {}, {}]
    whys: dict[int, Why] = {}
    lists: dict[int, list[str]] = {}
    for job in range(draw(st.integers(0, 12))):
        for grown in draw(st.lists(st.tuples(st.integers(0, 4), WORDS), max_size=3)):
            where, word = grown
            (sets + quotas)[where][word] = None
        reasons = sets[draw(st.integers(0, 1))]
        quota = draw(st.sampled_from([*quotas, NO_REASONS]))
        whys[job] = Why(reasons, len(reasons), quota, len(quota))
        lists[job] = list(reasons) + list(quota)
    return whys, lists


@given(cycle())
def test_kept_reasons_read_as_the_lists_taken_then(made: tuple[dict[int, Why],
                                                               dict[int, list[str]]]) -> None:
    whys, lists = made
    read = as_lists(whys)
    assert read == lists
    for a in whys:  # jobs that read alike from the same sets share one list
        for b in whys:
            if whys[a].key() == whys[b].key():
                assert read[a] is read[b]


@given(st.lists(cycle(), min_size=1, max_size=4))
def test_told_again_exactly_where_the_list_changed(
        cycles: list[tuple[dict[int, Why], dict[int, list[str]]]]) -> None:
    told = Told()
    before: dict[int, list[str]] = {}
    for whys, lists in cycles:
        sent = told.dispatch(Plan(why=whys))
        changed = {job for job, why in lists.items() if before.get(job) != why}
        gone = {job for job in before if job not in lists}
        assert {job for job, number in sent.info.items() if number} == changed
        assert {job for job, number in sent.info.items() if not number} == gone
        for job in changed:
            assert sent.reasons[sent.info[job]] == lists[job]
        assert len(sent.reasons) == len({tuple(lists[job]) for job in changed})
        before = lists

"""Resource matching: typed comparison, hierarchical overriding, consumables, caching.

Examples are those of spec/complex-attributes.txt (sections 1, 3 and 5) and the
scheduling-info lines of reference/sge-8.1.9/transcripts (jobs.txt, queues_pe.txt).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridd.model.complexes import DEFAULT_COMPLEXES, ComplexAttr, ComplexTable
from gridd.sched.match import (
    GLOBAL,
    HOST,
    QUEUE,
    CategoryCache,
    Level,
    Matcher,
    available,
    category_key,
)
from gridd.sched.wildcard import compile_expression

GiB = 1024.0**3


def _user(
    name: str,
    type_: str,
    relop: str,
    consumable: str = "NO",
    default: str = "0",
    requestable: str = "YES",
) -> ComplexAttr:
    return ComplexAttr(name, name, type_, relop, requestable, consumable, default, "0")


USER_ATTRS = (
    _user("license", "INT", "<=", "YES"),
    _user("t01", "INT", "<="),
    _user("t02", "INT", "<=", "YES"),
    _user("tjob", "INT", "<=", "JOB"),
    _user("scratch", "MEMORY", "<=", "YES"),
    _user("walltime", "TIME", "<=", "YES"),
    _user("os", "CSTRING", "=="),
    _user("osre", "RESTRING", "=="),
    _user("notre", "RESTRING", "!="),
    _user("fast", "BOOL", "=="),
    _user("lic_forced", "INT", "<=", "YES", requestable="FORCED"),
)
TABLE = ComplexTable((*DEFAULT_COMPLEXES, *USER_ATTRS))


@pytest.fixture
def m() -> Matcher:
    return Matcher(TABLE)


def _glob(m: Matcher, values: dict[str, str] | None = None) -> Level:
    return m.level(GLOBAL, "global", values)


# ---- typed comparison: every type x relop ---------------------------------------------------

# (type, relop, request, offered, fits): the request is compared as "request relop offered".
_COMPARISONS = [
    ("INT", "==", "4", "4", True),
    ("INT", "==", "4", "5", False),
    ("INT", "!=", "4", "5", True),
    ("INT", "!=", "4", "4", False),
    ("INT", "<=", "4", "4", True),
    ("INT", "<=", "5", "4", False),
    ("INT", "<", "3", "4", True),
    ("INT", "<", "4", "4", False),
    ("INT", ">=", "4", "4", True),
    ("INT", ">=", "3", "4", False),
    ("INT", ">", "5", "4", True),
    ("INT", ">", "4", "4", False),
    ("INT", "<=", "1k", "1000", True),
    ("DOUBLE", "==", "0.5", "0.50", True),
    ("DOUBLE", "!=", "0.5", "0.5", False),
    ("DOUBLE", "<=", "1.5", "1.25", False),
    ("DOUBLE", "<", "1.2", "1.25", True),
    ("DOUBLE", ">=", "2", "1.75", True),
    ("DOUBLE", ">", "1.75", "1.75", False),
    ("MEMORY", "==", "1G", "1024M", True),
    ("MEMORY", "!=", "1g", "1G", True),
    ("MEMORY", "<=", "1G", "1073741824", True),
    ("MEMORY", "<=", "1.5G", "1G", False),
    ("MEMORY", "<", "1023M", "1G", True),
    ("MEMORY", ">=", "512M", "1G", False),
    ("MEMORY", ">", "2G", "1G", True),
    ("TIME", "==", "0:10:0", "600", True),
    ("TIME", "!=", "0:10:0", "0:10:1", True),
    ("TIME", "<=", "1:0:0", "3600", True),
    ("TIME", "<=", "1:0:1", "1:0:0", False),
    ("TIME", "<=", "99:0:0", "INFINITY", True),
    ("TIME", "<", "59", "0:1:0", True),
    ("TIME", ">=", "0:1:0", "61", False),
    ("TIME", ">", "0:1:1", "61", False),
    ("BOOL", "==", "TRUE", "true", True),
    ("BOOL", "==", "true", "1", True),
    ("BOOL", "==", "TRUE", "FALSE", False),
    ("BOOL", "!=", "TRUE", "0", True),
    ("STRING", "==", "lx-amd64", "lx-amd64", True),
    ("STRING", "==", "LX-AMD64", "lx-amd64", False),
    ("STRING", "==", "lx-*", "lx-amd64", True),  # 8.1.9 reads every string as an expression
    ("STRING", "==", "lx-amd64|foo", "lx-amd64", True),
    ("STRING", "!=", "sol", "lx-amd64", True),
    ("STRING", "!=", "sol", "sol", False),
    ("CSTRING", "==", "LX-AMD64", "lx-amd64", True),
    ("CSTRING", "==", "lx", "lx-amd64", False),
    ("CSTRING", "==", "LX2*", "lx24-amd64", True),
    ("CSTRING", "!=", "LX-AMD64", "lx-amd64", False),
    ("HOST", "==", "Node1", "node1", True),
    ("HOST", "==", "node2", "node1", False),
    ("HOST", "!=", "NODE1", "node1", False),
    ("HOST", "==", "VM|foo", "vm", True),
    ("HOST", "==", "!vm", "vm", False),
    ("RESTRING", "==", "lx-*", "lx-amd64", True),
    ("RESTRING", "==", "sol*", "lx-amd64", False),
    ("RESTRING", "!=", "sol*", "lx-amd64", True),
    ("RESTRING", "!=", "lx*", "lx-amd64", False),
    ("STRING", "!=", "lx*", "lx-amd64", False),
    ("STRING", "!=", "!lx*", "lx-amd64", True),
    # Ordering on strings is lexical (the table refuses such definitions; the matcher copes).
    ("STRING", "<=", "abc", "abd", True),
    ("CSTRING", ">", "B", "a", True),
    ("RESTRING", "<", "b", "a", False),
]


@pytest.mark.parametrize(("type_", "relop", "wanted", "offered", "ok"), _COMPARISONS)
def test_type_and_relop(type_: str, relop: str, wanted: str, offered: str, ok: bool) -> None:
    matcher = Matcher(ComplexTable((*DEFAULT_COMPLEXES, _user("x", type_, relop))))
    queue = matcher.level(QUEUE, "q@h", {"x": offered})
    assert matcher.fits(matcher.request({"x": wanted}), 1, queue).ok is ok


def test_every_type_and_relop_is_covered() -> None:
    covered = {(t, r) for t, r, *_ in _COMPARISONS}
    numeric = {
        (t, r)
        for t in ("INT", "DOUBLE", "MEMORY", "TIME")
        for r in ("==", "!=", "<=", "<", ">=", ">")
    }
    strings = {
        (t, r) for t in ("STRING", "CSTRING", "HOST", "RESTRING", "BOOL") for r in ("==", "!=")
    }
    assert numeric | strings <= covered


# ---- string expressions (section 5, and what 8.1.9 did with them) --------------------------


@pytest.mark.parametrize(
    ("pattern", "text", "ok"),
    [
        ("linux|solaris", "linux", True),
        ("linux|solaris", "solaris", True),
        ("linux|solaris", "linux|solaris", False),
        ("[linux|solaris]", "[linux", True),
        ("[linux|solaris]", "solaris]", True),
        ("[linux|solaris]", "linux", False),
        ("[linux|solaris]", "l", False),
        ("lx*", "lx", True),
        ("lx*", "lx-amd64", True),
        ("l?", "lx", True),
        ("l?", "l", False),
        ("a.c", "a.c", True),
        ("a.c", "abc", False),
        ("a\\*", "a*", True),
        ("a\\*", "ab", False),
        ("a\\?", "a?", True),
        ("a\\\\", "a\\", True),
        ("x+", "xx", False),
        ("x+", "x+", True),
        ("[abc]x", "bx", True),
        ("[a-c]x", "cx", True),
        ("[a-c]x", "dx", False),
        ("[^a-c]x", "dx", True),
        ("[^a-c]x", "bx", False),
        ("node[0-9][0-9]", "node07", True),
        ("sol*|lx-*", "lx-amd64", True),
        ("a\\|b", "a\\", True),
        # 8.1.9 on this machine, a host offering lx24-amd64:
        ("lx2[4|6]-amd64", "lx24-amd64", False),  # `|` splits the brackets
        ("lx2[46]-amd64", "lx24-amd64", True),
        ("lx2[4-6]-amd64", "lx24-amd64", True),
        ("lx2[6-4]-amd64", "lx24-amd64", False),
        ("[!l]x24-amd64", "lx24-amd64", False),  # `!` is an operator even there
        ("[^x]x24-amd64", "lx24-amd64", True),
        ("(lx*|sol*)&*64*", "lx24-amd64", True),
        ("!lx*", "lx24-amd64", False),
        ("!sol*", "lx24-amd64", True),
        ("lx*&!lx24*", "lx24-amd64", False),
        ("!(sol*|foo)", "lx24-amd64", True),
        ("!!lx*", "lx24-amd64", True),
        ("((lx*))", "lx24-amd64", True),
        ("lx24?amd64", "lx24-amd64", True),
        ("lx24.amd64", "lx24-amd64", False),
        ("*", "lx24-amd64", True),
        ("lx*|sol*&foo", "lx24-amd64", True),  # & binds tighter than |
        ("sol*&foo|lx*", "lx24-amd64", True),
        ("foo|lx*&sol*", "lx24-amd64", False),
        # Malformed: matches nothing.
        ("lx24-amd64|", "lx24-amd64", False),
        ("|lx24-amd64", "lx24-amd64", False),
        ("(lx24-amd64", "lx24-amd64", False),
        ("lx24-amd64)", "lx24-amd64", False),
        ("a&", "a", False),
        ("!", "!", False),
        ("lx2[", "lx2[", True),  # an unclosed bracket is literal
    ],
)
def test_string_expressions(pattern: str, text: str, ok: bool) -> None:
    assert (compile_expression(pattern).match(text) is not None) is ok


def test_restring_request_against_an_arch(m: Matcher) -> None:
    host = m.level(HOST, "node1", load={"osre": "solaris"})
    assert m.fits(m.request({"osre": "linux|solaris"}), 1, host).ok
    result = m.fits(m.request({"osre": "[linux|solaris]"}), 1, host)
    assert result.reason == (
        '(-l osre=[linux|solaris]) cannot run at host "node1" '
        "because it offers only hl:osre=solaris"
    )
    assert m.fits(m.request({"notre": "sol*"}), 1, m.level(HOST, "h", {"notre": "lx"})).ok


# ---- Grid Engine's scheduling-info texts -----------------------------------------------------


def test_cannot_run_globally(m: Matcher) -> None:
    result = m.fits(m.request({"license": "10"}), 1, _glob(m, {"license": "5"}))
    assert not result.ok
    assert result.reason == (
        "(-l license=10) cannot run globally because it offers only gc:license=5.000000"
    )
    assert (result.kind, result.where) == (GLOBAL, "global")


def test_host_slots_exhausted_names_the_host_as_queue(m: Matcher) -> None:
    host = m.level(HOST, "vm", {"slots": "4"})
    queue = m.level(QUEUE, "all.q@vm", {"slots": "4", "qname": "all.q"})
    req = m.request({})
    m.debit(req, 4, None, host, queue)
    result = m.fits(req, 1, _glob(m), host, queue)
    assert result.reason == (
        '(-l slots=1) cannot run in queue "vm" because it offers only hc:slots=0.000000'
    )


def test_queue_consumable_and_unknown_resource(m: Matcher) -> None:
    req = m.request({"t02": "1"})
    all_q = m.level(QUEUE, "all.q@vm", {"t02": "2"})
    m.debit(req, 1, all_q)
    m.debit(req, 1, all_q)
    assert m.fits(req, 1, all_q).reason == (
        '(-l t02=1) cannot run in queue "all.q@vm" because it offers only qc:t02=0.000000'
    )
    short_q = m.level(QUEUE, "short.q@vm", {"qname": "short.q"})
    assert m.fits(req, 1, _glob(m), m.level(HOST, "vm"), short_q).reason == (
        '(-l t02=1) cannot run in queue "short.q@vm" because job requests unknown resource (t02)'
    )


def test_fixed_and_load_values_are_shown_by_type(m: Matcher) -> None:
    host = m.level(HOST, "vm", {"num_proc": "2"}, {"mem_free": "23.303G", "arch": "lx-amd64"})
    assert m.fits(m.request({"num_proc": "4"}), 1, host).reason.endswith(
        "offers only hf:num_proc=2.000000"
    )
    assert m.fits(m.request({"mf": "30G"}), 1, host).reason.endswith(
        "offers only hl:mem_free=23.303G"
    )
    assert m.fits(m.request({"a": "sol"}), 1, host).reason.endswith("offers only hl:arch=lx-amd64")
    queue = m.level(QUEUE, "q@vm", {"h_rt": "0:10:0"})
    assert m.fits(m.request({"h_rt": "1:0:0"}), 1, queue).reason == (
        '(-l h_rt=1:0:0) cannot run in queue "q@vm" because it offers only qf:h_rt=0:10:0'
    )


# ---- overriding and strict hierarchy (section 3) ---------------------------------------------


def test_example_1_equality_overridden_on_the_same_level_only(m: Matcher) -> None:
    host = m.level(HOST, "node1", {"arch": "sol-sparc64"}, {"arch": "lx-amd64"})
    queue = m.level(QUEUE, "q@node1", {"arch": "lx-amd64"})
    # On the host the configured value replaces the reported one ...
    assert m.fits(m.request({"arch": "sol-sparc64"}), 1, host).ok
    assert m.fits(m.request({"arch": "lx-amd64"}), 1, host).reason.endswith(
        "offers only hf:arch=sol-sparc64"
    )
    # ... but a queue cannot override the host: both are checked, and the host fails first.
    # (8.1.9 says "at host" of a value a host offers, "in queue" of a consumable's rest.)
    assert m.fits(m.request({"arch": "lx-amd64"}), 1, None, host, queue).reason == (
        '(-l arch=lx-amd64) cannot run at host "node1" because it offers only hf:arch=sol-sparc64'
    )
    assert m.fits(m.request({"arch": "sol-sparc64"}), 1, None, host, queue).reason.endswith(
        "offers only qf:arch=lx-amd64"
    )


@pytest.mark.parametrize(
    ("custom", "load", "result"),
    [("1G", "4G", 1 * GiB), ("1G", "0.9G", 0.9 * GiB)],
)
def test_example_2_mem_free_table(m: Matcher, custom: str, load: str, result: float) -> None:
    """mem_free custom / load report / result: 1G/4G/1G and 1G/0.9G/0.9G."""
    for where in ("host", "queue"):
        host = m.level(
            HOST, "node1", {"mem_free": custom} if where == "host" else {}, {"mem_free": load}
        )
        queue = m.level(QUEUE, "q@node1", {"mem_free": custom} if where == "queue" else {})

        def fits(request: float, host: Level = host, queue: Level = queue) -> bool:
            return m.fits(m.request({"mem_free": str(int(request))}), 1, None, host, queue).ok

        assert fits(result)
        assert not fits(result + 1)


def test_example_2_dominant_value_is_reported(m: Matcher) -> None:
    host = m.level(HOST, "node1", {"mem_free": "1G"}, {"mem_free": "0.9G"})
    assert m.fits(m.request({"mem_free": "1G"}), 1, host).reason.endswith(
        "offers only hl:mem_free=921.600M"
    )
    host = m.level(HOST, "node1", {"mem_free": "1G"}, {"mem_free": "4G"})
    assert m.fits(m.request({"mem_free": "2G"}), 1, host).reason.endswith(
        "offers only hf:mem_free=1.000G"
    )


def test_lower_levels_only_restrict_ordering_values(m: Matcher) -> None:
    glob = _glob(m, {"h_vmem": "2G"})
    queue = m.level(QUEUE, "q@h", {"h_vmem": "8G"})
    assert m.fits(m.request({"h_vmem": "2G"}), 1, glob, None, queue).ok
    assert m.fits(m.request({"h_vmem": "4G"}), 1, glob, None, queue).reason.endswith(
        "cannot run globally because it offers only gf:h_vmem=2.000G"
    )


def test_hierarchical_abort_at_the_first_existing_mismatch(m: Matcher) -> None:
    glob = _glob(m, {"os": "linux"})
    host = m.level(HOST, "h1", {"os": "solaris"})
    queue = m.level(QUEUE, "q@h1", {"os": "solaris"})
    result = m.fits(m.request({"os": "SOLARIS"}), 1, glob, host, queue)
    assert (result.kind, result.where) == (GLOBAL, "global")
    # A level without the attribute is skipped, the next one decides.
    result = m.fits(m.request({"os": "SOLARIS"}), 1, _glob(m), host, queue)
    assert result.ok


def test_forced_attribute_must_be_requested(m: Matcher) -> None:
    queue = m.level(QUEUE, "lic.q@h", {"lic_forced": "2"})
    assert m.fits(m.request({"lic_forced": "1"}), 1, queue).ok
    assert m.fits(m.request({}), 1, queue).reason == (
        '(-l slots=1) cannot run in queue "lic.q@h" '
        "because job does not request forced resource (lic_forced)"
    )


# ---- per-slot and per-job (section 1) ---------------------------------------------------------


def test_e1_fixed_values_are_per_slot(m: Matcher) -> None:
    q1 = m.level(QUEUE, "q1@h", {"slots": "5", "t01": "20"})
    req = m.request({"t01": "10"})
    assert m.fits(req, 4, q1).ok
    m.debit(req, 4, q1)
    assert available(q1, "slots") == 1
    assert q1.offers["t01"].key == 20
    assert not m.fits(req, 2, q1).ok


def test_e2_consumables_are_per_slot_debits(m: Matcher) -> None:
    """4 slots of t02=20 over q2 (5 slots, 40), q3 (1, 40) and q4 (3, 40): 2 + 1 + 1."""
    queues = [
        m.level(QUEUE, f"{q}@h", {"slots": s, "t02": "40"})
        for q, s in (("q2", "5"), ("q3", "1"), ("q4", "3"))
    ]
    req = m.request({"t02": "20"})
    remaining, placed = 4, {}
    for queue in queues:
        n = max((n for n in range(remaining + 1) if n and m.fits(req, n, queue).ok), default=0)
        if n:
            m.debit(req, n, queue)
            placed[queue.name] = n
            remaining -= n
    assert remaining == 0
    assert placed == {"q2@h": 2, "q3@h": 1, "q4@h": 1}
    state = {q.name: (available(q, "slots"), available(q, "t02")) for q in queues}
    assert state == {"q2@h": (3, 0), "q3@h": (0, 20), "q4@h": (2, 20)}


def test_job_consumable_is_taken_once_per_job(m: Matcher) -> None:
    glob = _glob(m, {"tjob": "20"})
    req = m.request({"tjob": "20"})
    assert m.fits(req, 4, glob).ok
    m.debit(req, 4, glob)
    assert available(glob, "tjob") == 0
    # Slave placements neither need nor take it.
    assert m.fits(req, 2, glob, master=False).ok
    m.debit(req, 2, glob, master=False)
    assert available(glob, "tjob") == 0
    assert not m.fits(req, 1, glob).ok


def test_memory_and_time_consumables(m: Matcher) -> None:
    host = m.level(HOST, "h", {"scratch": "10G", "walltime": "10:0:0"})
    req = m.request({"scratch": "3G", "walltime": "1:0:0"})
    assert m.fits(req, 3, host).ok
    assert m.fits(req, 4, host).reason.endswith("offers only hc:scratch=10.000G")
    m.debit(req, 3, host)
    assert available(host, "scratch") == GiB
    assert available(host, "walltime") == 7 * 3600


def test_consumable_with_a_lower_load_value(m: Matcher) -> None:
    table = ComplexTable((*DEFAULT_COMPLEXES, _user("vfree", "MEMORY", "<=", "YES")))
    matcher = Matcher(table)
    host = matcher.level(HOST, "h", {"vfree": "8G"}, {"vfree": "2G"})
    assert matcher.fits(matcher.request({"vfree": "1G"}), 2, host).ok
    assert matcher.fits(matcher.request({"vfree": "1G"}), 3, host).reason.endswith(
        "offers only hl:vfree=2.000G"
    )


# ---- soft requests and caching (section 5) -----------------------------------------------------


def test_soft_violations(m: Matcher) -> None:
    req = m.request({}, {"arch": "lx-amd64", "os": "linux", "license": "2", "nosuch": "1"})
    host = m.level(HOST, "h", load={"arch": "lx-amd64"})
    queue = m.level(QUEUE, "q@h", {"os": "LINUX"})
    assert m.soft_violations(req, _glob(m, {"license": "5"}), host, queue) == 1  # nosuch
    assert m.soft_violations(req, _glob(m, {"license": "1"}), host, queue) == 2
    other = m.level(QUEUE, "q@h", {"os": "solaris"})
    assert m.soft_violations(req, _glob(m, {"license": "1"}), host, other) == 3
    # Soft requests never stop a job.
    assert m.fits(req, 1, _glob(m, {"license": "1"}), host, other).ok


def test_category_key_and_request_sharing(m: Matcher) -> None:
    assert category_key({"h_rt": "60"}) == category_key({"h_rt": "60"}, {})
    assert category_key({"a": "x", "b": "y"}) != category_key({"b": "y", "a": "x"})
    assert m.request({"h_rt": "60"}) is m.request({"h_rt": "60"})


def test_category_cache_shares_refusals(m: Matcher) -> None:
    cache = CategoryCache()
    glob = _glob(m, {"license": "5"})
    hosts = [m.level(HOST, f"h{i}", load={"arch": "lx-amd64" if i else "sol"}) for i in range(3)]
    queues = [m.level(QUEUE, f"all.q@h{i}", {"slots": "1"}) for i in range(3)]
    big = m.request({"license": "10"})
    for host, queue in zip(hosts, queues, strict=True):
        assert not cache.fits(m, big, 1, glob, host, queue).ok
    assert (cache.misses, cache.hits) == (1, 2)  # refused globally once, for every queue
    lx = m.request({"arch": "lx-amd64"})
    results = [
        cache.fits(m, lx, 1, glob, host, queue) for host, queue in zip(hosts, queues, strict=True)
    ]
    assert [r.ok for r in results] == [False, True, True]
    assert cache.fits(m, lx, 1, glob, hosts[0], queues[0]) is results[0]
    assert cache.hits == 3


def test_category_cache_soft_violations(m: Matcher) -> None:
    cache = CategoryCache()
    req = m.request({}, {"arch": "lx-amd64"})
    host = m.level(HOST, "h", load={"arch": "sol"})
    queue = m.level(QUEUE, "q@h")
    assert cache.soft_violations(m, req, None, host, queue) == 1
    assert cache.soft_violations(m, req, None, host, queue) == 1
    assert (cache.misses, cache.hits) == (1, 1)


def test_bad_values_are_refused_when_compiling_or_building(m: Matcher) -> None:
    with pytest.raises(ValueError):
        m.request({"h_rt": "soon"})
    with pytest.raises(ValueError):
        m.level(QUEUE, "q@h", {"nosuch": "1"})
    with pytest.raises(ValueError):
        m.fits(m.request({}), 1, None)
    # Load sensors may report anything: unknown or unparsable values are ignored.
    host = m.level(HOST, "h", load={"sensor": "x", "mem_free": "lots"})
    assert host.offers == {}


# ---- properties ---------------------------------------------------------------------------------

_CONSUMABLES = ("slots", "license", "t02", "scratch")
_amounts = st.integers(min_value=0, max_value=12)


def _capacities() -> st.SearchStrategy[dict[str, str]]:
    return st.dictionaries(st.sampled_from(_CONSUMABLES), _amounts.map(str), max_size=4)


@settings(max_examples=200, deadline=None)
@given(
    levels=st.tuples(_capacities(), _capacities(), _capacities()),
    jobs=st.lists(
        st.tuples(
            st.dictionaries(st.sampled_from(_CONSUMABLES[1:]), _amounts.map(str), max_size=3),
            st.integers(min_value=1, max_value=6),
        ),
        max_size=25,
    ),
)
def test_debits_after_a_fit_never_overdraw_a_level(
    levels: tuple[dict[str, str], ...], jobs: list[tuple[dict[str, str], int]]
) -> None:
    matcher = Matcher(TABLE)
    glob = matcher.level(GLOBAL, "global", levels[0])
    host = matcher.level(HOST, "h", levels[1])
    queue = matcher.level(QUEUE, "q@h", levels[2])
    for requests, slots in jobs:
        req = matcher.request(requests)
        if not matcher.fits(req, slots, glob, host, queue).ok:
            continue
        for level in (glob, host, queue):
            for need in req.hard:
                if need.name in level.free:
                    assert need.key * slots <= available(level, need.name)
        matcher.debit(req, slots, glob, host, queue)
        for level in (glob, host, queue):
            assert all(free >= 0 for free in level.free.values())


# ---- memoised answers agree with fresh ones (plans, worded refusals, CategoryCache) -----------

_ATTR_VALUES = {
    "arch": st.sampled_from(["lx-amd64", "lx-arm64", "sol"]),
    "mem_free": st.sampled_from(["1G", "2G", "4G"]),
    "h_rt": st.sampled_from(["60", "600", "3600"]),
    "os": st.sampled_from(["linux", "LINUX", "solaris"]),
    "license": _amounts.map(str),
    "scratch": _amounts.map(lambda n: f"{n}G"),
    "tjob": _amounts.map(str),
    "slots": _amounts.map(str),
    "lic_forced": _amounts.map(str),
}
_REQUESTABLE = (*_ATTR_VALUES, "osre", "nosuch")


def _offers() -> st.SearchStrategy[dict[str, str]]:
    return st.dictionaries(
        st.sampled_from(tuple(_ATTR_VALUES)), st.just(""), max_size=4
    ).flatmap(lambda d: st.fixed_dictionaries({k: _ATTR_VALUES[k] for k in d}))


def _requests() -> st.SearchStrategy[dict[str, str]]:
    values = {
        **_ATTR_VALUES,
        "osre": st.sampled_from(["lin*", "sol|lin?x"]),
        "nosuch": st.just("1"),
    }
    return st.dictionaries(st.sampled_from(_REQUESTABLE), st.just(""), max_size=3).flatmap(
        lambda d: st.fixed_dictionaries({k: values[k] for k in d})
    )


def _fresh_fits(
    levels: list[tuple[str, str, dict[str, str], dict[str, str]]],
    live: list[Level],
    hard: dict[str, str],
    slots: int,
    master: bool,
):
    """The answer of a new Matcher on new levels holding the same free amounts: no memo."""
    matcher = Matcher(TABLE)
    fresh = []
    for (kind, name, values, load), old in zip(levels, live, strict=True):
        level = matcher.level(kind, name, values, load)
        level.free.update(old.free)
        fresh.append(level)
    return matcher.fits(matcher.request(hard), slots, *fresh, master=master)


@settings(max_examples=150, deadline=None)
@given(
    glob=_offers(),
    hosts=st.lists(st.tuples(_offers(), _offers()), min_size=1, max_size=3),
    queues=st.lists(_offers(), min_size=1, max_size=2),
    jobs=st.lists(
        st.tuples(_requests(), st.integers(min_value=1, max_value=4), st.booleans()),
        min_size=1,
        max_size=12,
    ),
)
def test_memoised_and_cached_answers_agree_with_fresh_ones(
    glob: dict[str, str],
    hosts: list[tuple[dict[str, str], dict[str, str]]],
    queues: list[dict[str, str]],
    jobs: list[tuple[dict[str, str], int, bool]],
) -> None:
    """A dispatch-like walk: every job tries every queue instance in order, first fit is
    debited. The Matcher (with its per-level memo) and a CategoryCache must answer exactly
    what a new Matcher on freshly built levels answers, refusal texts included."""
    m = Matcher(TABLE)
    specs = [(GLOBAL, "global", glob, {})]
    levels = [m.level(GLOBAL, "global", glob)]
    instances = []
    for h, (values, load) in enumerate(hosts):
        specs.append((HOST, f"h{h}", values, {k: v for k, v in load.items() if k != "slots"}))
        host = m.level(*specs[-1])
        levels.append(host)
        for q, qvalues in enumerate(queues):
            specs.append((QUEUE, f"q{q}@h{h}", qvalues, {}))
            queue = m.level(*specs[-1])
            levels.append(queue)
            instances.append((len(specs) - 2 - q, len(specs) - 1))
    cache = CategoryCache()
    for hard, slots, master in jobs:
        req = m.request(hard)
        for h_i, q_i in instances:
            chosen = [0, h_i, q_i]
            live = [levels[i] for i in chosen]
            want = _fresh_fits([specs[i] for i in chosen], live, hard, slots, master)
            got = m.fits(req, slots, *live, master=master)
            cached = cache.fits(m, req, slots, *live, master=master)
            assert got == want
            # A cached refusal may be worded from an earlier amount; the verdict is the same.
            assert cached.ok == want.ok
            if want.ok:
                m.debit(req, slots, *live, master=master)
                break


def test_refusals_follow_the_amount_left(m: Matcher) -> None:
    """A worded refusal is remembered per amount left, never reused after a debit."""
    queue = m.level(QUEUE, "q@h", {"slots": "3"})
    req = m.request({})
    assert m.fits(req, 4, queue).reason.endswith("offers only qc:slots=3.000000")
    m.debit(req, 2, queue)
    assert m.fits(req, 4, queue).reason.endswith("offers only qc:slots=1.000000")
    assert m.fits(req, 1, queue).ok
    m.debit(req, 1, queue)
    assert m.fits(req, 1, queue).reason.endswith("offers only qc:slots=0.000000")


def test_slave_tasks_skip_unknown_job_consumables(m: Matcher) -> None:
    queue = m.level(QUEUE, "q@h", {"slots": "4"})
    req = m.request({"tjob": "2"})
    assert m.fits(req, 1, queue).reason.endswith("job requests unknown resource (tjob)")
    assert m.fits(req, 1, queue, master=False).ok
    assert m.fits(req, 1, queue).reason.endswith("job requests unknown resource (tjob)")


def test_category_cache_keeps_levels_of_different_kinds_with_one_name(m: Matcher) -> None:
    cache = CategoryCache()
    host = m.level(HOST, "x", load={"arch": "sol"})
    queue = m.level(QUEUE, "x", {"slots": "0"})
    req = m.request({"arch": "sol"})
    assert cache.fits(m, req, 1, None, host, queue).kind == QUEUE  # stored under "x"
    bad_host = m.level(HOST, "x", load={"arch": "lx-amd64"})
    free_queue = m.level(QUEUE, "y", {"slots": "1"})
    assert cache.fits(m, req, 1, None, bad_host, free_queue).kind == HOST  # under (host, "x")
    assert cache.misses == 2
    good_host = m.level(HOST, "z", load={"arch": "sol"})
    assert cache.fits(m, req, 1, None, good_host, queue).kind == QUEUE
    assert cache.fits(m, req, 1, None, bad_host, free_queue).kind == HOST
    assert (cache.misses, cache.hits) == (2, 2)


@given(st.text(alphabet="ab*?[]^-\\!&|() .", max_size=40), st.text(alphabet="ab-.[]", max_size=8))
def test_any_expression_compiles_and_matches_without_raising(expression: str, value: str
                                                             ) -> None:
    """A request is a user's text: however malformed, it must never raise in a daemon."""
    compile_expression(expression).match(value)
    compile_expression(expression, caseless=True).match(value)


def test_deep_nesting_is_malformed_not_a_crash() -> None:
    for deep in ("(" * 5000 + "a" + ")" * 5000, "!" * 5000 + "a", "(!" * 40 + "a" + ")" * 40):
        assert compile_expression(deep).match("a") is None
    assert compile_expression("(" * 10 + "a" + ")" * 10).match("a") is not None

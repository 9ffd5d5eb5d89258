"""Web logins on a real cell: a token made with the running user's key logs them in, and
requests in the session are made as them; Watch sees the cell change; a token works once
and a session ends with its logout."""

from __future__ import annotations

import threading
import time

import pytest

from gridd import keys, login_token
from gridd.client import Client, Refused, current_user
from gridd.master.web_sessions import ENDED
from gridd.model.job import JobSpec
from tests.e2e.conftest import Cell


def job(cell: Cell) -> JobSpec:
    return JobSpec(name="web", owner="mallory", binary=True, command=["sleep", "60"],
                   o_home=str(cell.root), o_workdir=str(cell.root), cwd=str(cell.root))


def as_host(cell: Cell) -> str:
    """A token made with a host's key under its name: no user's, so no login."""
    host = next(name for kind, name, _, _ in keys.listing(cell.root) if kind == "host")
    pair = keys.read_secret(keys.secret_file(cell.root, keys.HOSTS, host))
    master = keys.read_public(keys.key_file(cell.root, keys.MASTER))
    return login_token.make(host, pair.secret, master, time.time())


def test_a_user_logs_in_with_a_token_acts_in_the_session_and_watches(cell: Cell):
    me = current_user()
    token = login_token.for_current_user(cell.root, time.time())
    with Client(cell.root) as web:
        session = web.login(token)
        assert session.user == me and session.expires > time.time() + 11 * 3600
        with pytest.raises(Refused, match="the login token was used before"):
            web.login(token)
        with pytest.raises(Refused, match="the cell has no key of user"):
            web.login(as_host(cell))
        with Client(cell.root, session=session.session) as browser:
            before = browser.watch(since=-1, timeout=10)
            seen: list[int] = []
            held = threading.Thread(target=lambda: seen.append(web.watch(before, 30)))
            held.start()  # held until a change (or the host check's heartbeat)
            submitted = browser.submit(job(cell))
            held.join()
            assert seen and seen[0] >= before
            assert browser.watch(since=before, timeout=30) > before
            (found,) = browser.jobs(ids=[str(submitted.job_id)]).jobs
            assert found.spec.owner == me  # the session's user, not whom the spec named
            deleted = browser.delete([str(submitted.job_id)], user="mallory")
            assert any(str(submitted.job_id) in line for line in deleted.lines), deleted
            web.logout(session.session)
            with pytest.raises(Refused) as ended:
                browser.ping()
            assert ended.value.text == ENDED

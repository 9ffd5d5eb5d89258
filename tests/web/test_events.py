"""/events: a page's stream starts from the change the page was made at, so a change
made in between is sent at once; a browser that connects again resumes at its last."""

from __future__ import annotations

from starlette.requests import Request
from starlette.testclient import TestClient

from gridd.web.events import _since
from tests.web.conftest import log_in


def request(query: str = "", last: str | None = None) -> Request:
    headers = [(b"last-event-id", last.encode())] if last is not None else []
    return Request({"type": "http", "method": "GET", "path": "/events",
                    "query_string": query.encode(), "headers": headers})


def test_the_stream_starts_from_the_last_event_then_the_page_then_now():
    assert _since(request("since=4", "7"), 9) == 7
    assert _since(request("since=4"), 9) == 4
    assert _since(request(), 9) == 9
    assert _since(request("since=x", "y"), 9) == 9


def test_a_change_since_the_page_was_made_is_sent_at_once(web: TestClient):
    log_in(web, "root")
    state = web.app.state.web
    assert 'data-version="0"' in web.get("/").text
    web.portal.call(state.changes.publish, 3)
    assert 'data-version="3"' in web.get("/").text
    with web.stream("GET", "/events?since=1") as stream:
        lines = stream.iter_lines()
        assert next(lines) == "retry: 2000"
        assert [next(lines) for _ in range(4)] == ["", "id: 3", "event: changed", "data: 3"]

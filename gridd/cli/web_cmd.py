"""`gridd web`: the browser interface of a cell, and `gridd web login`, a user's way in.

The server is a client of the master as the q* commands are (gridd.web); the login URL
carries a token only the user's own secret key can make and only the master can open
(gridd.login_token), so the web server never decides who anybody is.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def configure(sub: argparse._SubParsersAction) -> None:
    """Add `web` to gridd's subcommands."""
    parser = sub.add_parser(
        "web", help="serve the cell's web interface, or print a URL that logs you in",
        description="Serve the web interface of the cell under $GRIDD_ROOT in the "
        "foreground, as a client of its master: jobs, submission, advance reservations, "
        "quotas, complexes, hosts and reports, updated as they change. 'gridd web login' "
        "prints a URL, valid for 5 minutes and once, that logs the calling user in; the "
        "browser then acts as that user, with the rights the commands give them.")
    parser.add_argument("action", nargs="?", choices=("login",),
                        help="login: print the URL that logs you in to the running server")
    parser.add_argument("--listen", metavar="ADDR:PORT",
                        help="where the server listens (default: 127.0.0.1, a free port)")


def cmd_web(base: Path, args: argparse.Namespace) -> int:
    if args.action == "login":
        return _login(base)
    from gridd.web import server

    try:
        listen = server.parse_listen(args.listen or "127.0.0.1:0")
    except ValueError as exc:
        print(f"gridd: {exc}", file=sys.stderr)
        return 1
    return server.run(base, listen)


def _login(base: Path) -> int:
    from gridd import paths

    try:
        url = paths.web_url_file(base).read_text().strip()
    except OSError:
        url = ""
    if not url:
        print(f"gridd: no web server runs for the cell under {base}: start one with "
              "'gridd web'", file=sys.stderr)
        return 1
    from gridd import login_token
    from gridd.client import Client, GriddError

    try:
        with Client(base) as client:  # the master knows this user's key, and runs
            client.ping()
        token = login_token.for_current_user(base, time.time())
    except GriddError as exc:
        print(exc, file=sys.stderr)
        return exc.code
    print(f"{url}login?token={token}")
    return 0

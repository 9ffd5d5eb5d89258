"""The master's version of the cell, and the Watch requests waiting for it to change.

A web page updates live by watching: the web server asks Watch(since) and is answered
with Changed(version) once the version differs from the one it has (at once if it does
already), or at the next host check with the same version, so that nobody waits for
ever. The version counts the committed bursts that changed what pages show: jobs,
tasks, ARs, hosts, queue flags, the configuration; a bare load report does not. It
starts at 0 with the master; a watcher from before a restart is answered at once.
"""

from __future__ import annotations

from gridd import protocol as p
from gridd.master.state import Effects


def raises_version(fx: Effects) -> bool:
    """Whether a burst with these effects changed what a watcher shows."""
    return bool(fx.dirty_jobs or fx.dirty_tasks or fx.gone_jobs or fx.dirty_ars
                or fx.gone_ars or fx.dirty_hosts or fx.hosts_changed or fx.flags_changed
                or fx.config_changed)


class Watches:
    """The version, and the watches held: (connection, rid) of each."""

    def __init__(self) -> None:
        self.version = 0
        self.held: list[tuple[bytes, int]] = []

    def watch(self, ident: bytes, msg: p.Watch) -> p.Changed | None:
        """The answer now, or None when the watch is held until a change or a tick."""
        if msg.since != self.version:
            return p.Changed(version=self.version)
        self.held.append((ident, msg.rid))
        return None

    def committed(self, fx: Effects) -> None:
        """A burst was committed: if it raised the version, answer the held watches
        (in its replies, which the actor sends next)."""
        if raises_version(fx):
            self.version += 1
            self.answer(fx)

    def answer(self, fx: Effects) -> None:
        """Answer every held watch with the version as it is (at a host check, too)."""
        fx.replies.extend((ident, p.Changed(version=self.version, rid=rid))
                          for ident, rid in self.held)
        self.held.clear()

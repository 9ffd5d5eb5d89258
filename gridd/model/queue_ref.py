"""Queue references: the elements of `-q`, `-masterq` and soft queue lists, of qselect's and
qstat's -q, qmod's queue lists and an AR's master queues.

A reference splits at its first `@`: what precedes it is a cluster queue pattern (empty:
every cluster queue), what follows a host pattern (empty: every host), or after a second
`@` a host group pattern. So `@node1` names every queue on host node1, `all.q@@linux`
all.q on the hosts of host group @linux, and a bare `@linux` a *host* called "linux".
Patterns are shell patterns (fnmatch), matched with regard to case in cluster queue
names; a host name and a host pattern are matched as host names compare
(gridd.model.host_names: case and domain aside), as 8.1.9 matches them (`qselect -q
all.q@VM` lists all.q@vm). Patterns are kept as written rather than expanded, since a
waiting job must match the queues and hosts configured after it was submitted too.
"""

from collections.abc import Mapping
from fnmatch import fnmatchcase

from gridd.model.cluster import Instance
from gridd.model.host_names import host_key


def queue_matches(ref: str, qi: Instance, hostgroups: Mapping[str, list[str]]) -> bool:
    """Whether the reference names this queue instance; `hostgroups` are the host
    groups' resolved members."""
    queue_pattern, at, host_pattern = ref.partition("@")
    if queue_pattern and not fnmatchcase(qi.queue, queue_pattern):
        return False
    if not at or not host_pattern:
        return True
    if host_pattern.startswith("@"):
        return any(fnmatchcase(group, host_pattern) and qi.host in members
                   for group, members in hostgroups.items())
    return qi.host == host_pattern or fnmatchcase(host_key(qi.host), host_key(host_pattern))


def names_queue(ref: str, queue: str) -> bool:
    """Whether the reference's cluster queue part takes in this cluster queue, whatever
    its host part says."""
    return fnmatchcase(queue, ref.partition("@")[0] or "*")

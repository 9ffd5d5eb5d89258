"""A host whose execd registers without being an execution host of the configuration
becomes one, as if an administrator had run `qconf -Ae` with its name and `qconf -aattr
hostgroup hostlist NAME @allhosts`: the same verbs make the change, so their checks and
rules are the ones that apply. Only a host whose key the administrator made gets this far
(the ZAP handler lets no other key in); a cell without security admits whoever registers.

Grid Engine 8.1.9 does the same with an execd that starts on a host its configuration
does not know, even one deleted by `qconf -de` while its execd ran: it comes back.
"""

from __future__ import annotations

from gridd.master import admin
from gridd.master.bootstrap import ALL_HOSTS
from gridd.model.config import Configuration

_FILE = "exechost"  # the name the exec host's file goes by in the -Ae verb


def admit(cfg: Configuration, name: str, master_host: str) -> list[str]:
    """Make `name` an execution host of `cfg`, in @allhosts if that group exists (so
    the queues over it get an instance there). Returns the problems that kept the change
    from being made whole, in qconf's words; nothing when it was."""
    who = admin.Caller("root", master_host, files={_FILE: f"hostname {name}\n"})
    ans = admin.VERBS["-Ae"].verb(cfg, [_FILE], who)
    if ans.code or ALL_HOSTS not in cfg.hostgroups:
        return ans.err if ans.code else []
    ans = admin.VERBS["-aattr"].verb(cfg, ["hostgroup", "hostlist", name, ALL_HOSTS], who)
    return ans.err if ans.code else []

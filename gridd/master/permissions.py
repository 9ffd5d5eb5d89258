"""Who may do what, as Grid Engine decides it, with its words. Pure.

The master trusts a request's user and host fields: the master actor overwrites them
with who sent it, from where (gridd.master.identity). A request built inside the master
process (the unit tests) names no host; host rules then have nothing to judge.

- Managers may do everything; operators (managers included) may also change access
  lists, others' jobs and queue states.
- A job's owner, an operator or a manager may delete, alter and qmod it; the owner of an
  advance reservation, an operator or a manager may delete it, if a manager or in the
  `arusers` access list.
- qconf changes come from admin hosts; job submissions and changes (qsub, qdel, qalter)
  and advance reservations (qrsub, qrdel) from submit hosts, their names compared as
  gridd.model.host_names compares them.
"""

from __future__ import annotations

from gridd.model.config import Configuration
from gridd.model.host_names import among
from gridd.sched.access import member

AR_USERS = "arusers"  # the access list of users who may reserve besides managers
DEADLINE_USERS = "deadlineusers"  # the access list of users who may submit with -dl


def is_manager(config: Configuration, user: str) -> bool:
    return user in config.managers


def is_operator(config: Configuration, user: str) -> bool:
    """Operators, and managers, who may do whatever an operator may."""
    return user in config.operators or user in config.managers


def may_handle(config: Configuration, user: str, owner: str) -> bool:
    """Whether the user may delete, alter or qmod something the owner owns."""
    return user == owner or is_operator(config, user)


def in_userset(config: Configuration, name: str, user: str, group: str = "") -> bool:
    """Whether an access list (as configured now) names the user or the user's group."""
    found = config.usersets.get(name)
    return found is not None and member(user, group, found.entries)


def may_reserve(config: Configuration, user: str) -> bool:
    """qrsub and qrdel: managers and the users the arusers access list names (by name:
    Grid Engine does not look at their groups here)."""
    return is_manager(config, user) or in_userset(config, AR_USERS, user)


def admin_host(config: Configuration, host: str) -> bool:
    """Whether qconf changes may come from this host (named as host names compare)."""
    return not host or among(host, config.admin_hosts)


def not_admin_host(host: str) -> str:
    return f'denied: host "{host}" is not an admin host'


def submit_host_refusal(config: Configuration, host: str) -> str | None:
    """Why a job or advance reservation request from this host is refused, or None."""
    if host and not among(host, config.submit_hosts):
        return f'denied: host "{host}" is not a submit host'
    return None


def must_be_manager(user: str) -> str:
    return f'denied: "{user}" must be manager for this operation'


def must_be_operator(user: str) -> str:
    return f'denied: "{user}" must be operator for this operation'


def must_reserve(user: str) -> str:
    return f'denied: "{user}" must be manager or in userset "{AR_USERS}"'


def reservation_refusal(config: Configuration, user: str, host: str) -> str | None:
    """Why qrsub or qrdel is refused before any AR is looked at: who asks first, then
    from where, in Grid Engine's order (None: go on)."""
    if not may_reserve(config, user):
        return must_reserve(user)
    return submit_host_refusal(config, host)

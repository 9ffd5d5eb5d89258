"""Who may use what: the access lists (user_lists, xuser_lists) of queues, execution
hosts and parallel environments and the projects (projects, xprojects) of queues and
execution hosts, judged as Grid Engine judges them, at submission and at dispatch. Pure.

An access list (a userset) names users, and Unix groups with a leading `@`. A list that
does not exist names nobody, so a queue limited to it takes nobody's jobs.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from gridd.model.cluster import HostAccess, Instance, PlanConf
from gridd.model.pe import ParallelEnv

Usersets = Mapping[str, list[str]]


def member(user: str, group: str, entries: Collection[str]) -> bool:
    """Whether an access list's entries name the user or the user's group."""
    return user in entries or (bool(group) and f"@{group}" in entries)


def allowed(user_lists: list[str], xuser_lists: list[str], user: str, group: str,
            usersets: Usersets) -> bool:
    """Grid Engine's rule: kept out by any list of xuser_lists that names them, else let
    in when user_lists is empty or one of its lists names them."""
    if any(member(user, group, usersets.get(name, ())) for name in xuser_lists):
        return False
    return not user_lists or any(member(user, group, usersets.get(name, ()))
                                 for name in user_lists)


def project_allowed(projects: list[str], xprojects: list[str], project: str) -> bool:
    """A job without a project runs only where no projects list is set; one with a
    project where the projects list (if any) names it and xprojects does not."""
    if project and project in xprojects:
        return False
    return not projects or project in projects


def queue_refusal(qi: Instance, user: str, group: str, project: str,
                  usersets: Usersets) -> str | None:
    """Why the user's job (of this project) may never run in the queue instance, as
    qstat -j says it, or None. Grid Engine judges the cluster queue and names it; 8.1.9
    says "(no project)" whatever the job's project is (seen with -P and with xprojects)."""
    if (qi.user_lists or qi.xuser_lists) and not allowed(
            qi.user_lists, qi.xuser_lists, user, group, usersets):
        return f'has no permission for cluster queue "{qi.queue}"'
    if (qi.projects or qi.xprojects) and not project_allowed(qi.projects, qi.xprojects,
                                                            project):
        return ('(no project) does not have the correct project to run in cluster queue '
                f'"{qi.queue}"')
    return None


def host_refusal(host: str, access: HostAccess, user: str, group: str, project: str,
                 usersets: Usersets) -> str | None:
    """Why the user's job (of this project) may never run on the execution host (`global`:
    on any), as qstat -j says it, or None. Unlike for queues, 8.1.9 names the project."""
    if (access.user_lists or access.xuser_lists) and not allowed(
            access.user_lists, access.xuser_lists, user, group, usersets):
        return f'has no permission for host "{host}"'
    shown = f"(project {project})" if project else "(no project)"
    if project and project in access.xprojects:
        return (f'{shown} is not allowed to run in host "{host}" based on the excluded '
                "project list")
    if access.projects and project not in access.projects:
        return f'{shown} does not have the correct project to run in host "{host}"'
    return None


def pe_refusal(pe: ParallelEnv, user: str, group: str, usersets: Usersets) -> list[str]:
    """Why the user may not use the PE (none: may), as qstat -j says it: 8.1.9 adds that
    the PE then offers the job no slot."""
    if allowed(pe.user_lists, pe.xuser_lists, user, group, usersets):
        return []
    return [f'cannot run because no access to PE "{pe.name}"',
            f'cannot run in PE "{pe.name}" because it only offers 0 slots']


class AccessKey:
    """What a job's access depends on in one configuration: the access lists named by
    queues, hosts and PEs that hold its owner (or group), and its project where queues or
    hosts name it.
    Jobs alike in these are allowed alike, so they may share a planning category."""

    __slots__ = ("_lists", "_memo", "_projects", "_usersets")

    def __init__(self, lists: tuple[str, ...], projects: frozenset[str] | None,
                 usersets: Usersets) -> None:
        self._lists = lists  # every access list some queue instance, host or PE names
        self._projects = projects  # the projects queues and hosts name; None: none limits
        self._usersets = usersets
        self._memo: dict[tuple[str, str], tuple[str, ...]] = {}  # owner, group -> lists

    def of(self, owner: str, group: str, project: str) -> tuple[object, ...]:
        lists = self._memo.get((owner, group))
        if lists is None:
            lists = self._memo[(owner, group)] = tuple(
                name for name in self._lists if member(owner, group, self._usersets.get(name, ())))
        if self._projects is None:
            return (lists,)
        return lists, project if project in self._projects else ""


def access_key(conf: PlanConf) -> AccessKey | None:
    """The AccessKey of a configuration, None when no queue, host or PE limits access
    (the category key then stays as it was, and planning as fast)."""
    lists: set[str] = set()
    projects: set[str] = set()
    limited = False
    for holder in [*conf.instances, *conf.host_access.values()]:
        lists.update(holder.user_lists, holder.xuser_lists)
        if holder.projects or holder.xprojects:
            limited = True
            projects.update(holder.projects, holder.xprojects)
    for pe in conf.pes.values():
        lists.update(pe.user_lists, pe.xuser_lists)
    if not lists and not limited:
        return None
    return AccessKey(tuple(sorted(lists)), frozenset(projects) if limited else None,
                     conf.usersets)


def admits(qi: Instance, user: str, usersets: Mapping[str, list[str]], group: str = ""
           ) -> bool:
    """Whether the instance's access lists let a user in: of an advance reservation's
    access list (its groups are not known; a @userset entry is not judged), or one that
    qselect -U names, with its primary group."""
    if user.startswith("@"):
        return True
    return allowed(qi.user_lists, qi.xuser_lists, user, group, usersets)


def host_admits(conf: PlanConf, host: str, user: str, group: str = "") -> bool:
    """Whether the global host's and the host's access lists let a user in (as `admits`
    judges them)."""
    return user.startswith("@") or all(
        allowed(access.user_lists, access.xuser_lists, user, group, conf.usersets)
        for name in ("global", host) if (access := conf.host_access.get(name)) is not None)

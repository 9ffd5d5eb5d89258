"""`gridd`: start, stop and inspect a local cell, and run its daemons.

    gridd up [--hosts N] [--slots S] [--listen ADDR:PORT]
                                       a master and N execds (node1..nodeN) in the background
    gridd down [--kill-jobs]           stop them; their jobs go on unless --kill-jobs
    gridd status                       say what runs
    gridd keys user NAME | host NAME [--bundle FILE] | list
                                       make a user's or a host's CURVE key pair; list them
    gridd master [--listen ADDR:PORT]  the master process in the foreground
    gridd execd [--name NAME] [--master ENDPOINT] | --join FILE
                                       an execd in the foreground, on any machine
    gridd sim TRACE --slots P [--max-reservation N] [--duration-offset S] [--workers W]
              [--size allocated|requested] --out JOBS.csv
                                       replay an SWF trace in virtual time
    gridd report [NAME | --sql SQL | --export DIR | --html FILE] ...
                                       named SQL reports over the reporting database
    gridd dbwriter FILE... [--db PATH]  load accounting/reporting files into the database
    gridd web [--listen ADDR:PORT] | login
                                       the web interface, and a URL that logs you in
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from gridd import keys, master_endpoint, paths
from gridd.cli import dbwriter, drmaa_cmd, report, spool_cmd, web_cmd
from gridd.cli.listen import ListenError, check_bindable
from gridd.cli.listen import parse as parse_listen
from gridd.execd import signals
from gridd.pidfile import alive, local_pid, master_pidfile, pid_and_machine, this_machine
from gridd.spool import methods as spool_methods

if TYPE_CHECKING:
    from gridd.master.bootstrap import CellConfig

START_TIMEOUT = 30.0


def build_parser() -> argparse.ArgumentParser:
    """gridd's command line; its man pages are made from it too (gridd.manual.gridd_pages)."""
    parser = argparse.ArgumentParser(prog="gridd", description="a Grid Engine-style batch system")
    sub = parser.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser(
        "up", help="start a local cell under $GRIDD_ROOT, or what of it does not run",
        description="Start the master and an execd per host in the background, making the "
        "cell first if there is none; on an existing cell, start whichever of its daemons "
        "does not run (execds take over the jobs left running). --hosts, --slots, "
        "--spooling-method and --security shape a new cell only.")
    up.add_argument("--hosts", type=int, metavar="N",
                    help="a new cell's execution hosts on this machine, node1..nodeN, an "
                    "execd each; 0 for a master alone, whose hosts join from other "
                    "machines (default: 1)")
    up.add_argument("--listen", metavar="ADDR:PORT",
                    help="where the master listens: an address of this machine, or "
                    "0.0.0.0 for all of them, which others then reach by its host name; "
                    "on an existing cell, a new place while its master is stopped "
                    "(default: a new cell's master listens on 127.0.0.1, a free port)")
    up.add_argument("--slots", type=int, metavar="S",
                    help="a new cell's slots per host in all.q (default: the machine's CPUs)")
    up.add_argument("--load-report-time", type=float, default=10.0, metavar="SECONDS",
                    help="seconds between the load reports of the execds it starts "
                    "(default: %(default)g)")
    up.add_argument("--spooling-method", choices=spool_methods.METHODS,
                    help=f"how a new cell's master spools (default: {spool_methods.DEFAULT})")
    up.add_argument("--security", choices=(keys.CURVE, keys.NONE),
                    help="a new cell's connections: CURVE keys (the default), or none, only "
                    "to measure what CURVE costs")
    key_cmd = sub.add_parser("keys", help="make and list the CURVE keys of users and hosts")
    key_sub = key_cmd.add_subparsers(dest="what", required=True)
    for what, name in (("user", "the user's login name"),
                       ("host", "the host's name, as its execd's --name")):
        one = key_sub.add_parser(what, help=f"make a {what}'s key pair, unless it has one")
        one.add_argument("name", help=name)
        one.add_argument("--renew", action="store_true",
                         help="replace the key pair it has (default: keep it)")
        if what == "host":
            one.add_argument("--bundle", metavar="FILE",
                             help="also write FILE (mode 0600), all a machine without the "
                             "cell's root needs to run the host's execd: the master's "
                             "endpoint and public key, the host's name and key pair; "
                             "there, 'gridd execd --join FILE' (default: no file)")
    key_sub.add_parser("list", help="the keys the master knows")
    down = sub.add_parser(
        "down", help="stop the local cell's daemons; running jobs go on",
        description="Stop the master and the execds (SIGTERM, SIGKILL after 15 s). Running "
        "jobs go on, as with qconf -ke: the next 'gridd up' takes them over, and each is "
        "accounted once when it ends, also if it ends while the cell is down.")
    down.add_argument("--kill-jobs", action="store_true",
                      help="kill the running jobs first, as qconf -kej does; each is "
                      "accounted as killed, failed 100 and exit status 137 (default: leave "
                      "them running)")
    sub.add_parser("status", help="show what runs")
    master = sub.add_parser("master", help="run the master in the foreground")
    master.add_argument("--listen", metavar="ADDR:PORT",
                        help="listen there from now on, as 'gridd up --listen' (default: "
                        "where it listened last, which 'gridd up' chose)")
    master.add_argument("--schedule-interval", type=float, default=2.0, metavar="SECONDS",
                        help="seconds between scheduling runs at most, when nothing "
                        "prompts one sooner (default: %(default)g)")
    execd = sub.add_parser(
        "execd", help="run an execution daemon in the foreground",
        description="Run the execd of a host of the cell, on this machine or another: by "
        "default as the machine's host name, with the master's endpoint and key and the "
        "host's key pair from the cell root, shared with the master or filled by --join. "
        "A master that refuses the host's key ends it with status 1; one it cannot reach "
        "it says so within 10 s and goes on trying. SIGTERM or ^C ends it and leaves its "
        "jobs running for the next execd of the host to take over (as qconf -ke); SIGUSR1 "
        "kills its jobs first (as qconf -kej).")
    execd.add_argument("--name",
                       help="the execution host it serves; its key pair is the cell's "
                       "common/keys/hosts/NAME.key (gridd keys host NAME) (default: the "
                       "machine's host name)")
    execd.add_argument("--master", dest="master_endpoint", metavar="ENDPOINT",
                       help="where the master listens (default: the cell's "
                       "common/master_endpoint)")
    execd.add_argument("--join", metavar="FILE",
                       help="first install what FILE, made by 'gridd keys host NAME "
                       "--bundle FILE' on the master, holds into this machine's cell root "
                       "(the endpoint, the master's key, host NAME's key pair), then serve "
                       "as NAME; a plain 'gridd execd' does so afterwards (default: use the "
                       "cell root as it is)")
    execd.add_argument("--load-report-time", type=float, default=10.0, metavar="SECONDS",
                       help="seconds between load reports to the master "
                       "(default: %(default)g)")
    sim = sub.add_parser("sim", help="replay an SWF job trace through the planner in virtual "
                         "time")
    sim.add_argument("trace", help="a Standard Workload Format file (.swf or .swf.gz)")
    sim.add_argument("--slots", type=int, required=True, help="the pool's processors")
    sim.add_argument("--max-reservation", type=int, default=0,
                     help="reservations per scheduling run (sched_conf max_reservation; "
                     "default: %(default)s)")
    sim.add_argument("--duration-offset", type=float, default=60.0,
                     help="seconds added to every expected run time (DURATION_OFFSET; "
                     "default: %(default)g)")
    sim.add_argument("--out", required=True, help="the per-job CSV to write")
    sim.add_argument("--size", choices=("allocated", "requested"), default="allocated",
                     help="a job's processors: those allocated (field 5; the requested "
                     "where missing), as the Parallel Workloads Archive's tools count them, "
                     "or those requested (field 8; the allocated where missing) "
                     "(default: %(default)s)")
    sim.add_argument("--workers", type=int,
                     help="processes replaying busy periods side by side (default: one per "
                     "core, for traces of 10,000 jobs or more)")
    report.configure(sub)
    dbwriter.configure(sub)
    spool_cmd.configure(sub)
    web_cmd.configure(sub)
    drmaa_cmd.configure(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.cmd == "sim":
        from gridd.cli.sim import cmd_sim

        return cmd_sim(args)
    if args.cmd == "drmaa-library":
        return drmaa_cmd.cmd_drmaa_library(args)
    base = paths.root()
    foreign = paths.grid_engine_cell(base)
    if foreign and not (args.cmd == "dbwriter" and args.db):
        print(f"gridd: {base} (found by {paths.root_origin()}) holds a cell of Grid Engine "
              f"itself ({foreign}): gridd leaves it alone; set GRIDD_ROOT to a directory "
              "for a gridd cell", file=sys.stderr)
        return 1
    if args.cmd == "report":
        return report.cmd_report(base, args)
    if args.cmd == "dbwriter":
        return dbwriter.cmd_dbwriter(base, args)
    if args.cmd == "spool":
        return spool_cmd.cmd_spool(base, args)
    if args.cmd == "web":
        return web_cmd.cmd_web(base, args)
    try:
        return COMMANDS[args.cmd](base, args)
    except KeyboardInterrupt:
        return 130


def cmd_master(base: Path, args: argparse.Namespace) -> int:
    from gridd.actors import clock
    from gridd.actors.master import serve

    if args.listen and not _listen_at(base, args.listen):
        return 1
    try:
        endpoint = _bound_endpoint(base)
    except FileNotFoundError as exc:
        print(f"gridd: no cell under {base} (missing {exc.filename}): 'gridd up' makes one",
              file=sys.stderr)
        return 1
    log_to(paths.master_spool(base) / "messages")
    serve(base, endpoint, args.schedule_interval, clock.SYSTEM)
    return 0


def _bound_endpoint(base: Path) -> str:
    """Where the master binds: what --listen chose, else common/master_endpoint itself."""
    listen = paths.listen_file(base)
    chosen = listen if listen.exists() else paths.endpoint_file(base)
    return chosen.read_text().strip()


def _listen_at(base: Path, text: str) -> bool:
    """Make the master listen at `text` (ADDR:PORT) from its next start on; False, said,
    when it cannot: refused while it runs (its execds and clients would lose it), or an
    address it could not bind."""
    try:
        _move_master(base, text)
    except ListenError as exc:
        print(f"gridd: {exc}", file=sys.stderr)
        return False
    return True


def _move_master(base: Path, text: str) -> None:
    listen = parse_listen(text, socket.gethostname())
    endpoint_file = paths.endpoint_file(base)
    before = endpoint_file.read_text().strip() if endpoint_file.exists() else None
    if before is not None and (before, _bound_endpoint(base)) == (listen.public, listen.bind):
        return
    if alive(local_pid(master_pidfile(base))):
        raise ListenError(f"the master of the cell under {base} runs, listening at {before}: "
                          f"--listen {text} moves it only while it is stopped ('gridd "
                          "down' or 'qconf -km' first)")
    check_bindable(listen)
    paths.master_spool(base).mkdir(parents=True, exist_ok=True)
    paths.listen_file(base).write_text(f"{listen.bind}\n")
    endpoint_file.parent.mkdir(parents=True, exist_ok=True)
    endpoint_file.write_text(f"{listen.public}\n")
    if before is not None:
        print(f"gridd: the master now listens at {listen.bind.removeprefix('tcp://')}, "
              f"reached at {listen.public} (was {before}); execds still running with the "
              "old endpoint are to be started again", file=sys.stderr)


def cmd_execd(base: Path, args: argparse.Namespace) -> int:
    from gridd.actors import clock
    from gridd.actors.execd import serve

    if args.join:
        if args.name or args.master_endpoint:
            print("gridd: --join takes the host's name and the master's endpoint from its "
                  "bundle: no --name or --master with it", file=sys.stderr)
            return 1
        name = _join(base, args.join)
        if name is None:
            return 1
    else:
        name = args.name or socket.gethostname()
    if not keys.valid_name(name):
        print(f"gridd: {name!r} cannot name an execution host (letters, digits and _ . @ -, "
              "not first . @ or -): give --name", file=sys.stderr)
        return 1
    endpoint = args.master_endpoint
    if endpoint is None:
        endpoint_file = paths.endpoint_file(base)
        try:
            endpoint = endpoint_file.read_text().strip()
        except OSError as exc:
            print(f"gridd: no master to connect to: no --master and {endpoint_file} cannot "
                  f"be read ({exc.strerror}); the cell root is {base} (found by "
                  f"{paths.root_origin()}): set GRIDD_ROOT to the cell's shared root, or "
                  "join with 'gridd execd --join FILE' (gridd keys host NAME --bundle FILE "
                  "on the master)", file=sys.stderr)
            return 1
    log_to(paths.execd_spool(name, base) / "messages")
    for problem in _make_job_sge_root(base):
        logging.getLogger("gridd.execd").warning("%s", problem)
    return serve(base, name, endpoint, args.load_report_time, clock.SYSTEM)


def _join(base: Path, bundle_file: str) -> str | None:
    """Install a join bundle in this machine's cell root: the name of the host it makes
    this machine, or None when it cannot be used (said why, nothing installed)."""
    from gridd import join_bundle

    try:
        bundle = join_bundle.read(bundle_file)
        join_bundle.install(base, bundle)
    except (join_bundle.BundleError, OSError) as exc:
        text = f"{exc.strerror}: {exc.filename}" if isinstance(exc, OSError) else str(exc)
        print(f"gridd: cannot join: {text}", file=sys.stderr)
        return None
    print(f"gridd: joined the cell of the master at {bundle.master_endpoint} as host "
          f"{bundle.host}: its keys and endpoint are in {base}; 'gridd execd' runs it from "
          "now on", file=sys.stderr)
    if bundle.host != socket.gethostname():
        print(f"gridd: warning: this machine's host name is {socket.gethostname()}, not "
              f"{bundle.host}: the master checks submit and admin hosts by the names their "
              f"addresses resolve to; a plain 'gridd execd' here needs --name {bundle.host}",
              file=sys.stderr)
    return bundle.host


def cmd_up(base: Path, args: argparse.Namespace) -> int:
    import msgspec

    from gridd.cli.common import current_user
    from gridd.master.bootstrap import CellConfig

    if args.hosts is not None and args.hosts < 0:
        print(f"gridd: --hosts {args.hosts}: a number of hosts, 0 or more", file=sys.stderr)
        return 1
    master_file = master_pidfile(base)
    if (machine := pid_and_machine(master_file)[1]) != this_machine():
        print(f"gridd: the master of the cell under {base} runs on {machine} (by "
              f"{master_file}): 'gridd up' is for that machine, 'gridd execd' for this one; "
              "if that machine is gone, remove the file first", file=sys.stderr)
        return 1
    if args.listen and not _listen_at(base, args.listen):
        return 1
    paths.common(base).mkdir(parents=True, exist_ok=True)
    conf_file = paths.common(base) / "bootstrap.json"
    if conf_file.exists():
        cell = msgspec.json.decode(conf_file.read_bytes(), type=CellConfig)
        if args.security and args.security != keys.security(base):
            print(f"gridd: the cell under {base} was made with --security "
                  f"{keys.security(base)}", file=sys.stderr)
            return 1
        for line in kept_shape(cell, args.hosts, args.slots):
            print(f"gridd: {line}", file=sys.stderr)
    else:
        hosts = 1 if args.hosts is None else args.hosts
        cell = CellConfig(hosts=[f"node{i}" for i in range(1, hosts + 1)],
                          slots=args.slots or os.cpu_count() or 1, manager=current_user(),
                          machine=os.uname().nodename)
        keys.set_security(base, args.security or keys.CURVE)
        conf_file.write_bytes(msgspec.json.encode(cell))
    if keys.security(base) == keys.CURVE:
        # The master's, this user's (a manager's) and each execd's: the cell works at once.
        keys.ensure(base, keys.MASTER)
        keys.ensure(base, keys.USERS, current_user())
        for host in cell.hosts:
            keys.ensure(base, keys.HOSTS, host)
    if args.spooling_method:
        from gridd.spool.base import SpoolError
        from gridd.spool.methods import choose

        try:
            choose(paths.master_spool(base), args.spooling_method)
        except SpoolError as exc:
            print(f"gridd: {exc}", file=sys.stderr)
            return 1
    _make_job_sge_root(base)
    if not paths.endpoint_file(base).exists() and not paths.listen_file(base).exists():
        paths.master_spool(base).mkdir(parents=True, exist_ok=True)
        paths.listen_file(base).write_text(f"{master_endpoint.ANY_PORT}\n")
    spawned: list[Daemon] = []
    if not alive(local_pid(master_file)):
        spawned.append(_spawn(base, "master", ["master"], paths.master_spool(base),
                              signal.SIGTERM))
    try:
        endpoint = _wait_endpoint(base, spawned)
        for host in cell.hosts:
            if not alive(local_pid(paths.execd_spool(host, base) / "execd.pid")):
                spawned.append(_spawn(base, f"execd of {host}",
                                      ["execd", "--name", host, "--master", endpoint,
                                       "--load-report-time", str(args.load_report_time)],
                                      paths.execd_spool(host, base), signals.LEAVE_JOBS[0]))
        if not spawned:
            print(f"gridd: the cell under {base} is already running", file=sys.stderr)
            return 0
        _wait_ready(base, cell.hosts, spawned)
    except StartError as exc:
        _stop(spawned)
        print(f"gridd: {exc}; see {paths.master_spool(base) / 'messages'}; the daemons "
              "this started are stopped", file=sys.stderr)
        return 1
    print(f"gridd: cell up under {base}: master at {endpoint}, "
          f"{len(cell.hosts)} host(s) here x {cell.slots} slots in all.q")
    return 0


def kept_shape(cell: CellConfig, hosts: int | None, slots: int | None) -> list[str]:
    """What `gridd up` says when --hosts or --slots ask an existing cell for another
    shape than it was made with: what it keeps, and how to change it; nothing otherwise."""
    asked = [f"--{flag} {value}" for flag, value, has in
             (("hosts", hosts, len(cell.hosts)), ("slots", slots, cell.slots))
             if value is not None and value != has]
    if not asked:
        return []
    names = f" ({', '.join(cell.hosts)})" if cell.hosts else ""
    return [f"the cell keeps the shape it was made with, {len(cell.hosts)} host(s)"
            f"{names} x {cell.slots} slots; only a new cell takes {' '.join(asked)}",
            "to change this one: 'qconf -mattr queue slots S all.q'; a host more: 'gridd keys "
            "host NAME', then 'gridd execd' on host NAME, which joins @allhosts and all.q "
            "as it registers (without the cell's root there: 'gridd keys host NAME --bundle "
            "FILE', then 'gridd execd --join FILE' on it)"]


def cmd_down(base: Path, args: argparse.Namespace) -> int:
    """Stop the daemons; the jobs go on under their shepherds unless --kill-jobs (see
    gridd.execd.signals), and whatever still runs afterwards is said."""
    found = {f: pid_and_machine(f) for f in _pidfiles(base)}
    for f, (_, machine) in found.items():
        if machine != this_machine():
            print(f"gridd: left alone: the {_daemon(f)} on {machine} (stop it there)")
    master, *execds = [pid if machine == this_machine() else 0
                       for pid, machine in found.values()]
    stop_execd = signals.KILL_JOBS if args.kill_jobs else signals.LEAVE_JOBS[0]
    pids = []
    for pid, signum in [(master, signal.SIGTERM), *((pid, stop_execd) for pid in execds)]:
        if alive(pid):
            os.kill(pid, signum)
            pids.append(pid)
    deadline = time.monotonic() + 15
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    print(f"gridd: cell under {base} stopped ({len(pids)} process(es))")
    left = _jobs_running(base)
    if left:
        print(f"gridd: {left} job(s) left running, for the next 'gridd up' to take over")
    return 0


def _jobs_running(base: Path) -> int:
    """Jobs with a task whose shepherd still runs, on any host of the cell."""
    from gridd.execd.shepherd import shepherd_alive

    tasks = (base / "spool").glob("*/active_jobs/*")
    return len({task.name.partition(".")[0] for task in tasks if shepherd_alive(task)})


def cmd_status(base: Path, args: argparse.Namespace) -> int:
    """What runs on this machine; the daemons of other machines (a root shared over NFS)
    by the machine their pid files name, whose processes cannot be looked at from here."""
    endpoint = paths.endpoint_file(base)
    where = endpoint.read_text().strip() if endpoint.exists() else "-"
    master, *execds = _pidfiles(base)
    master_line, master_up = _status("master", master, where)
    print(master_line)
    for pidfile in execds:
        print(_status("execd", pidfile, pidfile.parent.name)[0])
    return 0 if master_up else 1


def _status(daemon: str, pidfile: Path, what: str) -> tuple[str, bool]:
    """A daemon's line of `gridd status`, and whether it runs here or elsewhere."""
    pid, machine = pid_and_machine(pidfile)
    if machine != this_machine():
        return f"{daemon:7} {'on ' + machine:8} pid {pid or '-':<8} {what}", True
    running = alive(pid)
    state = "running" if running else "stopped"
    return f"{daemon:7} {state:8} pid {pid or '-':<8} {what}", running


def _pidfiles(base: Path) -> list[Path]:
    """The master's pid file, then the execds' there are."""
    return [Path(master_pidfile(base)), *sorted((base / "spool").glob("*/execd.pid"))]


def _daemon(pidfile: Path) -> str:
    return "master" if pidfile.parent.name == "qmaster" else f"execd of {pidfile.parent.name}"


def cmd_keys(base: Path, args: argparse.Namespace) -> int:
    """`gridd keys user NAME`, `host NAME`, `list`. Whoever may write the key directories
    decides who may use the cell, as whom: the cell's administrator."""
    try:
        return _keys(base, args)
    except OSError as exc:  # e.g. not the administrator: the directories are not ours
        print(f"gridd: {exc.strerror}: {exc.filename}", file=sys.stderr)
        return 1


def _keys(base: Path, args: argparse.Namespace) -> int:
    from gridd.cli.common import current_user

    if args.what == "list":
        for kind, name, public, problem in keys.listing(base):
            print(f"{kind:6} {name:20} {public}" + (f"   ({problem})" if problem else ""))
        return 0
    if not keys.valid_name(args.name):
        print(f"gridd: {args.name!r} cannot name a key (letters, digits and _ . @ -, not "
              "first . @ or -)", file=sys.stderr)
        return 1
    kind = keys.USERS if args.what == "user" else keys.HOSTS
    path = keys.key_file(base, kind, args.name)
    bundle = getattr(args, "bundle", None)
    if bundle and keys.security(base) == keys.NONE:
        print(f"gridd: the cell under {base} has no keys (made with --security none): its "
              "hosts need no bundle", file=sys.stderr)
        return 1
    if keys.has_pair(path) and not args.renew:
        print(f"gridd: {args.what} {args.name} has a key pair already ({path}); --renew "
              "replaces it")
        return _write_bundle(base, args.name, bundle) if bundle else 0
    owner = None
    if kind == keys.USERS and os.geteuid() == 0:
        import pwd

        try:
            entry = pwd.getpwnam(args.name)
        except KeyError:
            print(f"gridd: no user {args.name} on this machine: the secret key is to be "
                  "theirs (create the user first)", file=sys.stderr)
            return 1
        owner = (entry.pw_uid, entry.pw_gid)
    keys.make_dirs(base)
    keys.create(path, owner)
    secret = path + keys.SECRET_SUFFIX
    print(f"gridd: made the key pair of {args.what} {args.name}: {path} (public) and {secret} "
          "(secret, mode 0600)")
    if kind == keys.USERS and owner is None and args.name != current_user():
        print(f"gridd: {secret} belongs to you: hand it to {args.name} privately, to use "
              "with GRIDD_KEY=FILE")
    return _write_bundle(base, args.name, bundle) if bundle else 0


def _write_bundle(base: Path, host: str, path: str) -> int:
    """`gridd keys host NAME --bundle FILE`: the join bundle of a host that has its keys."""
    from gridd import join_bundle

    endpoint_file = paths.endpoint_file(base)
    try:
        endpoint = endpoint_file.read_text().strip()
        master = keys.read_public(keys.key_file(base, keys.MASTER))
        pair = keys.read_secret(keys.secret_file(base, keys.HOSTS, host))
    except FileNotFoundError:
        print(f"gridd: no cell under {base} to join (missing {endpoint_file}); start one "
              "with 'gridd up' first", file=sys.stderr)
        return 1
    except keys.KeyFileError as exc:
        print(f"gridd: {exc}", file=sys.stderr)
        return 1
    join_bundle.write(path, join_bundle.Bundle(host, endpoint, master, pair))
    print(f"gridd: wrote {path} (mode 0600; it holds host {host}'s secret key): copy it "
          f"to host {host} privately, run 'gridd execd --join {os.path.basename(path)}' "
          "there, then delete it")
    if _loopback(endpoint):
        print(f"gridd: warning: the master is reached at {endpoint}, which other machines "
              "cannot reach: 'gridd down', 'gridd up --listen ADDR:PORT' and a new bundle",
              file=sys.stderr)
    return 0


def _loopback(endpoint: str) -> bool:
    host = endpoint.removeprefix("tcp://").rpartition(":")[0].strip("[]")
    return host in ("localhost", "::1") or host.startswith("127.")


COMMANDS = {"up": cmd_up, "down": cmd_down, "status": cmd_status, "master": cmd_master,
            "execd": cmd_execd, "keys": cmd_keys}


def _make_job_sge_root(base: Path) -> list[str]:
    """The jobs' $SGE_ROOT under the root with this installation's commands
    (gridd.sge_root); what could not be made is said on stderr, and returned."""
    from gridd import sge_root

    problems = sge_root.make(str(base), sge_root.own_commands(), sge_root.arch_name())
    for problem in problems:
        print(f"gridd: warning: {problem}", file=sys.stderr)
    return problems


class Daemon(NamedTuple):
    """A daemon `gridd up` started: what it is, its process, where its output goes, and
    the signal that stops it as `gridd down` does (an execd leaves its jobs running)."""
    what: str
    process: subprocess.Popen[bytes]
    output: Path
    stop: int


class StartError(Exception):
    """The cell did not come up; the text says which daemon, and why when it is known."""


def _spawn(base: Path, what: str, args: list[str], logdir: Path, stop: int) -> Daemon:
    logdir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, GRIDD_ROOT=str(base))
    output = logdir / "daemon.out"
    with open(output, "ab") as out:
        process = subprocess.Popen([sys.executable, "-m", "gridd.cli.gridd_cmd", *args],
                                   env=env, stdin=subprocess.DEVNULL, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True,
                                   close_fds=True)
    return Daemon(what, process, output, stop)


def _check_running(spawned: list[Daemon]) -> None:
    """Raise StartError for a daemon that has already ended, with its last words."""
    for daemon in spawned:
        if (code := daemon.process.poll()) is not None:
            lines = daemon.output.read_text(errors="replace").strip().splitlines()
            last = f": {lines[-1]}" if lines else ""
            raise StartError(f"the {daemon.what} stopped as it started (exit {code}){last}")


def _stop(spawned: list[Daemon]) -> None:
    """End what a failed `gridd up` started as `gridd down` would (jobs left running)."""
    for daemon in spawned:
        if daemon.process.poll() is None:
            daemon.process.send_signal(daemon.stop)
    for daemon in spawned:
        try:
            daemon.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            daemon.process.kill()
            daemon.process.wait()


def _wait_endpoint(base: Path, spawned: list[Daemon]) -> str:
    """The master's endpoint; on a new cell, once the master has bound a port and
    published it (gridd.master_endpoint)."""
    endpoint_file = paths.endpoint_file(base)
    deadline = time.monotonic() + START_TIMEOUT
    while not endpoint_file.exists():
        _check_running(spawned)
        if time.monotonic() > deadline:
            raise StartError(f"the master did not listen within {START_TIMEOUT:g} s")
        time.sleep(0.02)
    return endpoint_file.read_text().strip()


def _wait_ready(base: Path, hosts: list[str], spawned: list[Daemon]) -> None:
    from gridd.client import Client, GriddError
    from gridd.model.host_lifecycle import shown_up

    deadline = time.monotonic() + START_TIMEOUT
    missing: set[str] | None = None  # None until the master answers
    while time.monotonic() < deadline:
        _check_running(spawned)
        try:
            with Client(base) as client:
                reply = client.jobs()
        except GriddError:  # the master is not listening yet
            time.sleep(0.05)
            continue
        missing = set(hosts) - {h.name for h in reply.hosts if shown_up(h)}
        if not missing:
            return
        time.sleep(0.05)
    if missing is None:
        raise StartError(f"the master did not answer within {START_TIMEOUT:g} s")
    raise StartError(f"the cell did not come up within {START_TIMEOUT:g} s (hosts not "
                     f"reporting: {', '.join(sorted(missing))})")


def log_to(path: Path) -> None:
    """The daemons' log (the master's `messages`, which its accounting process shares)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(
        filename=path, level=logging.INFO,
        format="%(asctime)s|%(process)d|%(name)s|%(levelname).1s|%(message)s",
        datefmt="%m/%d/%Y %H:%M:%S")


if __name__ == "__main__":
    sys.exit(main())

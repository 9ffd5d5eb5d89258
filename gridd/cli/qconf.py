"""qconf: show and change the cell's configuration.

The options go to the master as one command line, applied there in order; the command
prints the two streams it gets back, since Grid Engine puts most confirmations on
stderr.
"""

import os
import sys

from gridd import protocol as p
from gridd.cli.common import current_user, run_command
from gridd.client import Client

USAGE = """usage: qconf [options]
   [-am user_list]            add users to the manager list
   [-ao user_list]            add users to the operator list
   [-ah hostname_list]        add administrative hosts
   [-as hostname_list]        add submit hosts
   [-au user_list list_list]  add users to access lists (created when missing)
   [-dm|-do user_list]        delete managers or operators
   [-dh|-ds hostname_list]    delete administrative or submit hosts
   [-du user_list list_list]  delete users from access lists
   [-dul list_list]           delete access lists
   [-sm|-so|-sh|-ss|-sul]     show managers, operators, admin hosts, submit hosts, lists
   [-su list_list]            show access lists
   [-help]                    print this help
"""


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args == ["-help"]:
        print(USAGE, end="", file=sys.stdout if args else sys.stderr)
        return 0 if args else 1

    def body() -> int:
        with Client() as client:
            reply = client.request(p.Qconf(argv=args, user=current_user(),
                                           host=os.uname().nodename))
        for line in reply.out:
            print(line)
        for line in reply.err:
            print(line, file=sys.stderr)
        return reply.code

    return run_command(body)

"""The queue selection options qstat and qselect share (gridd.cli.queue_select)."""

from gridd.manual.common import PE_LIST, RESOURCE_LIST, WC_QUEUE, WC_USER_LIST
from gridd.manual.page import Option

STATES = ("a: load alarm, A: suspend alarm, c: configuration ambiguous, C: suspended by "
          "calendar, d: disabled, D: disabled by calendar, E: error, o: orphaned, "
          "s: suspended, S: subordinated, u: unknown (its execution daemon does not "
          "report)")

RESOURCES = Option(
    "-l", "resource_list", "instances offering these resources",
    text="Only queue instances that offer every resource asked: a consumable with its whole "
         "capacity (whatever running jobs hold of it), a load value only if the host "
         "cannot change it while it runs (arch, num_proc, mem_total, swap_total, "
         "virtual_total, m_topology, m_socket, m_core, m_thread). String values may be "
         "wildcard expressions.")
PES = Option(
    "-pe", "pe_list", "instances listing one of these PEs",
    text="Only queue instances whose pe_list names one of these parallel environments.")
QUEUES = Option(
    "-q", "wc_queue_list", "only these queue instances",
    text="Only the queue instances these names and patterns take in: cluster queues, "
         "queue instances (queue@host) and queue domains (queue@@hostgroup).")
STATE = Option(
    "-qs", "{a|c|d|o|s|u|A|C|D|E|S}", "instances in one of these states",
    text="Only queue instances in one of the states these letters name: " + STATES + ".")
USERS = Option(
    "-U", "user_list", "instances all these users may use",
    text="Only queue instances that every one of these users may run jobs in: the access "
         "lists (user_lists, xuser_lists) of the queue, of its host and of the global host "
         "let each in.")

TERMS = (PE_LIST, RESOURCE_LIST, WC_USER_LIST, *WC_QUEUE)

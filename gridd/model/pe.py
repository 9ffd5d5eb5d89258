"""Parallel environments: how many slots a PE offers and how they spread over hosts."""


import msgspec

PE_SLOTS = "$pe_slots"  # all slots on one host
FILL_UP = "$fill_up"  # fill each host before taking the next
ROUND_ROBIN = "$round_robin"  # one slot per host in turn


class ParallelEnv(msgspec.Struct):
    name: str
    slots: int = 999
    allocation_rule: str = PE_SLOTS
    user_lists: list[str] = msgspec.field(default_factory=list)  # access lists let in
    xuser_lists: list[str] = msgspec.field(default_factory=list)  # and kept out

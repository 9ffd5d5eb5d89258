"""Advance reservation records of the reporting(5) file, as Grid Engine 8.1.9 writes them.

Every line starts with the time of the record and its type; the fields that follow are:

    new_ar   submission_time:ar_number:owner
    ar_attr  event_time:submission_time:ar_number:name:account:start_time:end_time:
             granted_pe:granted_resources
    ar_log   state_change_time:submission_time:ar_number:state:event:message
    ar_acct  termination_time:submission_time:ar_number:qname:hostname:slots

for example ``1795327215:new_ar:1795327215:12:root``. Times are whole epoch seconds
(fractions are dropped). 8.1.9 names the attribute record ``ar_attr`` where the AR spec
says ar_attribute; tools read what 8.1.9 writes, so gridd does too. An AR without a
parallel environment has the granted PE ``NONE``, and one without -l requests the granted
resources ``NONE``; the resources are written ``name=value,...`` with time-valued
complexes (h_rt, ...) in seconds, as the accounting category shows them.

The file is split on ':' by its readers, so text from users (names, accounts, owners,
queue and host names, messages, resource values) can never add a field or a line: every
':' in it is written as ';', and every line break (CR, LF) or other control character as
a blank.
"""

from __future__ import annotations

import re

from gridd.accounting.record import _resource_list
from gridd.model.ar import ArRecord

KINDS = ("new_ar", "ar_attr", "ar_log", "ar_acct")

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def field_text(value: str) -> str:
    """A string field that cannot break the line (see the module docstring)."""
    return _CONTROL.sub(" ", value.replace(":", ";"))


def line(record: ArRecord) -> str:
    """The reporting-file line of one AR record, without its newline."""
    ar = record.ar
    time = int(record.time)
    head = [str(time), record.kind]
    ident = [str(int(ar.submission_time)), str(ar.ar_id)]
    if record.kind == "new_ar":
        fields = [*ident, field_text(ar.spec.owner)]
    elif record.kind == "ar_attr":
        spec = ar.spec
        fields = [
            str(time), *ident, field_text(spec.name), field_text(spec.account),
            str(int(ar.start)), str(int(ar.end)),
            field_text(ar.granted_pe or spec.pe_name) or "NONE",
            field_text(_resource_list(spec.resources)) or "NONE",
        ]
    elif record.kind == "ar_log":
        fields = [str(time), *ident, field_text(record.state or ar.state),
                  field_text(record.event), field_text(record.message)]
    elif record.kind == "ar_acct":
        fields = [str(time), *ident, field_text(record.queue), field_text(record.host),
                  str(record.slots)]
    else:
        raise ValueError(f"unknown AR record kind {record.kind!r}")
    return ":".join(head + fields)

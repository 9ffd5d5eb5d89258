"""What every message is: a tagged struct with the protocol's version and the id of the
request a reply answers.

gridd.protocol lists the messages, frames and checks them; their base is here because
some of them are the planner's own input and output (gridd.model.planning), which the
planner, importing model alone, must know.
"""

import msgspec

from gridd.wire import VERSION as VERSION  # one number for the structs and the plain values


class Msg(msgspec.Struct, tag_field="t", kw_only=True):
    v: int = VERSION
    rid: int = 0  # request id: a reply carries the id of the request it answers

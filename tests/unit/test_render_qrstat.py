"""qrstat's layouts against the reference transcript (advance_reservation.txt), byte for
byte, and the qrstat command around them with a stand-in for the master."""

from __future__ import annotations

import pytest

from gridd import protocol as p
from gridd.cli import qrstat
from gridd.cli import render_qrstat as render
from gridd.manual.help_text import help_text
from gridd.model.ar import AdvanceReservation, ArSpec
from gridd.model.ar_lifecycle import ERROR

T0 = 1795327142  # 2026-11-22 05:59:02 UTC
T_SUB = 1795327157  # 2026-11-22 05:59:17 UTC


pytestmark = pytest.mark.usefixtures("utc")  # dates as the transcripts show them


def ar(ar_id: int, owner: str = "root", *, name: str = "", state: str = "r",
       start: float = T0, end: float = T0 + 600, submitted: float = T0,
       granted: list[tuple[str, int]] | None = None, pe: str = "", pe_slots: int = 0,
       resources: dict[str, str] | None = None, message: str = "",
       **spec: object) -> AdvanceReservation:
    return AdvanceReservation(
        ar_id=ar_id,
        spec=ArSpec(name=name, owner=owner, group="sgeadmin", pe_name=pe, pe_min=pe_slots,
                    pe_max=pe_slots, resources=resources or {}, **spec),
        submission_time=submitted, start=start, end=end, state=state,
        granted=[("all.q@vm", 1)] if granted is None else granted, granted_pe=pe,
        message=message,
    )


AR1 = ar(1, "roland")
AR2 = ar(2)
AR3 = ar(3, name="futr", state="w", start=1795334340, end=1795337940, submitted=T_SUB,
         granted=[("all.q@vm", 3)], pe="mpi", pe_slots=3)
AR4 = ar(4, name="futr2", state="w", start=1795337957, end=1795341540, submitted=T_SUB,
         granted=[("all.q@vm", 2)], pe="smp", pe_slots=2, resources={"license": "2"})
AR12 = ar(12, name="small", start=1795327215, end=1795327255, submitted=1795327215,
          granted=[("all.q@vm", 2)], pe="smp", pe_slots=2)

HEADER = """\
ar-id   name       owner        state start at             end at               duration
------------------------------------------------------------------------------------------
"""


def text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


# ---- overview ----------------------------------------------------------------------

def test_overview_of_one_ar():
    assert text(render.overview([AR2])) == HEADER + (
        "      2            root         r     11/22/2026 05:59:02  11/22/2026 06:09:02  "
        "00:10:00\n")


def test_overview_of_everybody():
    assert text(render.overview([AR4, AR2, AR3, AR1])) == HEADER + """\
      1            roland       r     11/22/2026 05:59:02  11/22/2026 06:09:02  00:10:00
      2            root         r     11/22/2026 05:59:02  11/22/2026 06:09:02  00:10:00
      3 futr       root         w     11/22/2026 07:59:00  11/22/2026 08:59:00  01:00:00
      4 futr2      root         w     11/22/2026 08:59:17  11/22/2026 09:59:00  00:59:43
"""


def test_overview_of_deleted_ars():
    deleted = [ar(1, "roland", state="d"), ar(2, state="d")]
    assert text(render.overview(deleted)) == HEADER + """\
      1            roland       d     11/22/2026 05:59:02  11/22/2026 06:09:02  00:10:00
      2            root         d     11/22/2026 05:59:02  11/22/2026 06:09:02  00:10:00
"""


def test_overview_without_ars_prints_nothing():
    assert render.overview([]) == []


def test_overview_truncates_name_and_owner_and_keeps_long_durations():
    long = ar(1234567, "a_very_long_owner_name", name="a_long_reservation_name",
              end=T0 + 30 * 3600 + 61)
    assert render.overview([long])[2] == (
        "1234567 a_long_res a_very_long_ r     11/22/2026 05:59:02  11/23/2026 12:00:03  "
        "30:01:01")


def test_overview_explains_only_when_asked():
    broken = ar(5, state=ERROR, message="queue instance all.q@vm is unknown")
    assert len(render.overview([broken])) == 3
    assert render.overview([broken], explain=True)[3] == (
        "       queue instance all.q@vm is unknown")


# ---- -ar ---------------------------------------------------------------------------

def test_details_of_a_plain_ar():
    assert text(render.details([AR2])) == """\
--------------------------------------------------------------------------------
id                             2
name                          \x20
owner                          root
state                          r
start_time                     11/22/2026 05:59:02
end_time                       11/22/2026 06:09:02
duration                       00:10:00
submission_time                11/22/2026 05:59:02
group                          sgeadmin
account                        sge
granted_slots_list             all.q@vm=1
"""


def test_details_of_a_pe_ar():
    assert text(render.details([AR3])) == """\
--------------------------------------------------------------------------------
id                             3
name                           futr
owner                          root
state                          w
start_time                     11/22/2026 07:59:00
end_time                       11/22/2026 08:59:00
duration                       01:00:00
submission_time                11/22/2026 05:59:17
group                          sgeadmin
account                        sge
granted_slots_list             all.q@vm=3
granted_parallel_environment   mpi slots 3
"""


def test_details_with_resources():
    assert text(render.details([AR4])) == """\
--------------------------------------------------------------------------------
id                             4
name                           futr2
owner                          root
state                          w
start_time                     11/22/2026 08:59:17
end_time                       11/22/2026 09:59:00
duration                       00:59:43
submission_time                11/22/2026 05:59:17
group                          sgeadmin
account                        sge
resource_list                  license=2
granted_slots_list             all.q@vm=2
granted_parallel_environment   smp slots 2
"""


def test_details_of_a_short_ar():
    lines = render.details([AR12])
    assert lines[1:8] == [
        "id                             12",
        "name                           small",
        "owner                          root",
        "state                          r",
        "start_time                     11/22/2026 06:00:15",
        "end_time                       11/22/2026 06:00:55",
        "duration                       00:00:40",
    ]


def test_details_of_several_ars_each_after_dashes():
    lines = render.details([AR3, AR2])
    assert [i for i, line in enumerate(lines) if line == "-" * 80] == [0, 12]
    assert lines[1].endswith(" 2") and lines[13].endswith(" 3")


def test_details_list_several_instances_and_resources():
    many = ar(7, granted=[("all.q@a", 2), ("all.q@b", 1)],
              resources={"license": "2", "arch": "lx-amd64"})
    lines = render.details([many])
    assert "resource_list                  license=2, arch=lx-amd64" in lines
    assert "granted_slots_list             all.q@a=2,all.q@b=1" in lines


def test_details_show_optional_fields_only_when_set():
    full = ar(8, checkpoint="blcr", mail_options="be", mail_list=["ann@node1"],
              users=["ann", "@arusers"])
    assert text(render.details([full])).endswith("""\
granted_slots_list             all.q@vm=1
checkpoint_name                blcr
mail_options                   be
mail_list                      ann@node1
acl_list                       ann,@arusers
""")


def test_details_message_in_error_states_or_with_explain():
    broken = ar(5, state=ERROR, message="host vm is unknown")
    assert "message                        host vm is unknown" in render.details([broken])
    waiting = ar(6, state="w", message="kept for a reason")
    assert not any(line.startswith("message") for line in render.details([waiting]))
    lines = render.details([waiting], explain=True)
    assert lines[8] == "message                        kept for a reason"


# ---- -xml --------------------------------------------------------------------------

XML_HEAD = """\
<?xml version='1.0'?>
<qrstat xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/resources/schemas/qrstat/qrstat.xsd">
"""  # noqa: E501


def test_xml_overview():
    assert text(render.xml([AR2])) == XML_HEAD + """\
   <ar_summary>
      <id>2</id>
      <name/>
      <owner>root</owner>
      <state>r</state>
      <start_time>2026-11-22T05:59:02</start_time>
      <end_time>2026-11-22T06:09:02</end_time>
      <duration>00:10:00</duration>
   </ar_summary>
</qrstat>
"""


def test_xml_details():
    assert text(render.xml([AR2], details=True)) == XML_HEAD + """\
   <ar_summary>
      <id>2</id>
      <name/>
      <owner>root</owner>
      <state>r</state>
      <start_time>2026-11-22T05:59:02</start_time>
      <end_time>2026-11-22T06:09:02</end_time>
      <duration>00:10:00</duration>
      <submission_time>2026-11-22T05:59:02</submission_time>
      <group>sgeadmin</group>
      <account>sge</account>
      <granted_slots_list>
         <granted_slots  queue_instance="all.q@vm" slots="1"/>
      </granted_slots_list>
   </ar_summary>
</qrstat>
"""


def test_xml_details_of_a_pe_ar_with_resources():
    assert text(render.xml([AR4], details=True)) == XML_HEAD + """\
   <ar_summary>
      <id>4</id>
      <name>futr2</name>
      <owner>root</owner>
      <state>w</state>
      <start_time>2026-11-22T08:59:17</start_time>
      <end_time>2026-11-22T09:59:00</end_time>
      <duration>00:59:43</duration>
      <submission_time>2026-11-22T05:59:17</submission_time>
      <group>sgeadmin</group>
      <account>sge</account>
      <resource_list>
         <resource name="license" type="2"/>
      </resource_list>
      <granted_slots_list>
         <granted_slots  queue_instance="all.q@vm" slots="2"/>
      </granted_slots_list>
      <granted_parallel_environment>
         <parallel_environment>smp</parallel_environment>
         <slots>2</slots>
      </granted_parallel_environment>
   </ar_summary>
</qrstat>
"""


def test_xml_without_ars_is_an_empty_document():
    assert text(render.xml([])) == XML_HEAD + "</qrstat>\n"


def test_xml_escapes_text_and_explains():
    odd = ar(9, name="a<b", state=ERROR, message='lost "vm" & more')
    lines = render.xml([odd], explain=True)
    assert "      <name>a&lt;b</name>" in lines
    assert "      <message>lost &quot;vm&quot; &amp; more</message>" in lines
    assert not any("<message>" in line for line in render.xml([odd]))


# ---- the command, with a stand-in master -------------------------------------------

class FakeClient:
    """Answers QueryArs from a fixed list, filtering as the master does."""

    ars: list[AdvanceReservation] = []
    asked: list[tuple[list[str], list[str]]] = []

    def __enter__(self) -> FakeClient:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def query_ars(self, ids=None, users=None) -> p.ArsReply:
        FakeClient.asked.append((list(ids or []), list(users or [])))
        found = [a for a in self.ars
                 if ("*" in users or a.spec.owner in users)
                 and (not ids or str(a.ar_id) in ids or a.spec.name in ids)]
        missing = [i for i in ids or [] if not any(i in (str(a.ar_id), a.spec.name)
                                                   for a in found)]
        return p.ArsReply(ars=found, now=T0, missing=missing)


@pytest.fixture
def master(monkeypatch):
    monkeypatch.setattr(qrstat, "Client", FakeClient)
    monkeypatch.setattr(qrstat, "current_user", lambda: "root")
    monkeypatch.setattr(FakeClient, "ars", [AR1, AR2, AR3, AR4])
    monkeypatch.setattr(FakeClient, "asked", [])
    return FakeClient


def test_qrstat_defaults_to_the_callers_ars(master, capsys):
    assert qrstat.main([]) == 0
    assert master.asked == [([], ["root"])]
    out = capsys.readouterr().out
    assert "roland" not in out and out.startswith(HEADER)


def test_qrstat_everybody(master, capsys):
    assert qrstat.main(["-u", "*"]) == 0
    assert master.asked == [([], ["*"])]
    assert len(capsys.readouterr().out.splitlines()) == 6


def test_qrstat_dollar_user_is_the_caller(master, capsys):
    assert qrstat.main(["-u", "$user,roland"]) == 0
    assert master.asked == [([], ["root", "roland"])]


def test_qrstat_nothing_to_show_prints_nothing(master, capsys):
    master.ars = []
    assert qrstat.main([]) == 0
    assert capsys.readouterr() == ("", "")


def test_qrstat_ar_shows_the_block_of_any_owner(master, capsys):
    assert qrstat.main(["-ar", "1"]) == 0
    assert master.asked == [(["1"], ["*"])]
    assert capsys.readouterr().out.splitlines()[3] == "owner                          roland"


def test_qrstat_ar_xml(master, capsys):
    assert qrstat.main(["-ar", "2", "-xml"]) == 0
    assert "<granted_slots  queue_instance" in capsys.readouterr().out


def test_qrstat_unknown_ar(master, capsys):
    """As 8.1.9 says it (checked there): those not found go unsaid while one is found;
    when none is, they are named on standard output."""
    assert qrstat.main(["-ar", "2,99"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("-" * 80 + "\nid                             2\n") and err == ""
    assert qrstat.main(["-ar", "98,99"]) == 1
    assert capsys.readouterr() == (
        "Following advance reservations do not exist:\n98, 99\n", "")


def test_qrstat_bad_option(capsys):  # each as 8.1.9 says it
    assert qrstat.main(["-x"]) == 1
    assert capsys.readouterr() == ("", 'error: invalid option argument "-x"\n')
    assert qrstat.main(["7"]) == 1
    # 8.1.9 prints its usage on standard output here, the complaint on standard error
    assert capsys.readouterr() == (help_text("qrstat"), "error: too many options\n")


def test_qrstat_missing_argument(capsys):
    assert qrstat.main(["-ar"]) == 1
    assert capsys.readouterr() == ("", "error: -ar option must have argument\n")
    assert qrstat.main(["-u"]) == 1
    assert capsys.readouterr() == ("", "error: -u option must have a list usernames\n")


def test_qrstat_help(capsys):
    assert qrstat.main(["-help"]) == 0
    assert capsys.readouterr() == (help_text("qrstat"), "")

"""qquota's text and XML against the 8.1.9 transcript, and its option handling."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridd.cli.qquota import UsageError, default_args, parse, render_text, render_xml
from gridd.model.rqs import QuotaRow


def row(rule: str, used: float, limit: str, *filters: tuple[str, list[str], list[str]],
        resource: str = "slots") -> QuotaRow:
    return QuotaRow(rule=rule, resource=resource, type="INT", used=used, limit=limit,
                    filters=list(filters))


ROWS = [
    row("maxujobs/1", 3, "20", ("users", ["*"], [])),
    row("max_linux/1", 3, "5", ("users", ["*"], []), ("hosts", ["@linux"], [])),
    row("max_per_host/1", 2, "2", ("users", ["roland"], []), ("hosts", ["vm"], [])),
    row("max_per_host/2", 1, "1", ("users", ["root"], []), ("hosts", ["vm"], [])),
]


def test_text_as_in_the_transcript():
    assert render_text(ROWS) == """\
resource quota rule limit                filter
--------------------------------------------------------------------------------
maxujobs/1         slots=3/20           users *
max_linux/1        slots=3/5            users * hosts @linux
max_per_host/1     slots=2/2            users roland hosts vm
max_per_host/2     slots=1/1            users root hosts vm
"""
    assert render_text([]) == ""  # nothing in use: not even the header
    assert render_text([row("s/1", 1, "1")]).splitlines()[2].endswith(" -")
    assert render_text([row("s/1", 1, "1", ("users", ["@staff"], ["roland"]))]
                       ).splitlines()[2].endswith(" users @staff,!roland")


def test_xml_as_in_the_transcript():
    assert render_xml(ROWS) == """\
<?xml version='1.0'?>
<qquota_result xmlns="http://arc.liv.ac.uk/repos/darcs/sge/source/source/dist/util/resources/schemas/qquota/qquota.xsd">
 <qquota_rule name='maxujobs/1'>
   <users>*</users>
   <limit resource='slots' limit='20' value='3'/>
 </qquota_rule>
 <qquota_rule name='max_linux/1'>
   <users>*</users>
   <hosts>@linux</hosts>
   <limit resource='slots' limit='5' value='3'/>
 </qquota_rule>
 <qquota_rule name='max_per_host/1'>
   <users>roland</users>
   <hosts>vm</hosts>
   <limit resource='slots' limit='2' value='2'/>
 </qquota_rule>
 <qquota_rule name='max_per_host/2'>
   <users>root</users>
   <hosts>vm</hosts>
   <limit resource='slots' limit='1' value='1'/>
 </qquota_rule>
</qquota_result>
"""  # noqa: E501


def test_one_rule_element_holds_the_limits_of_one_scope():
    two = [row("s/1", 1, "2", ("users", ["a"], [])),
           row("s/1", 4, "8", ("users", ["a"], []), resource="lic")]
    xml = render_xml(two)
    assert xml.count("<qquota_rule ") == 1 and xml.count("<limit ") == 2


def test_options_default_to_the_caller_and_later_ones_win(tmp_path: Path):
    req, form = parse(["-u", "*", "-h", "vm,node1", "-l", "slots=1,lic", "-xml"], "root")
    assert (req.users, req.hosts, req.resources, form) == (["*"], ["vm", "node1"],
                                                           ["slots", "lic"], "xml")
    assert parse(["-xml", "-json"], "root")[1] == "json"
    assert parse([], "roland") == (parse([], "roland")[0], "text")
    assert parse([], "roland")[0].users == ["roland"]
    with pytest.raises(UsageError, match='invalid option argument "-x"'):
        parse(["-x"], "root")
    with pytest.raises(UsageError, match="-h option must have argument"):
        parse(["-h"], "root")
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "sge_qquota").write_text("# cell defaults\n-u *\n")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".sge_qquota").write_text("-h vm\n")
    args = default_args(str(tmp_path), str(home))
    assert args == ["-u", "*", "-h", "vm"]
    assert parse([*args, "-u", "roland"], "root")[0].users == ["roland"]


def test_json_has_a_line_per_rule_scope_and_resource_with_numbers():
    from gridd.cli.qquota import render_json
    from tests.json_schemas import check

    rows = [*ROWS, row("mem/1", 1.5 * (1 << 30), "4G", ("users", ["@staff"], ["roland"]),
                       resource="h_vmem"),
            row("mem/1", 2, "infinity", ("users", ["@staff"], ["roland"]), resource="lic")]
    rows[-2].type = "MEMORY"
    found = check("qquota", render_json(rows))["quota_usage"]
    assert found[0] == {"rqs_name": "maxujobs", "rule_name": "1", "resource": "slots",
                        "used": 3, "max": 20, "users": [{"exclude": False, "name": "*"}]}
    assert found[1]["hosts"] == [{"exclude": False, "name": "@linux"}]
    staff = [{"exclude": False, "name": "@staff"}, {"exclude": True, "name": "roland"}]
    assert found[-2:] == [
        {"rqs_name": "mem", "rule_name": "1", "resource": "h_vmem", "used": 1.5 * 2**30,
         "max": 4 << 30, "users": staff},
        {"rqs_name": "mem", "rule_name": "1", "resource": "lic", "used": 2, "max": "infinity",
         "users": staff}]
    assert check("qquota", render_json([])) == {"quota_usage": []}

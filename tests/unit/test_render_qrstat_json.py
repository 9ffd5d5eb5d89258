"""qrstat -json: the ARs -xml shows, typed, valid against schemas/qrstat.json; and the
command's -json with a stand-in master."""

from __future__ import annotations

from datetime import datetime

import pytest

from gridd.cli import qrstat
from gridd.cli.render_json import document
from gridd.cli.render_qrstat_json import qrstat_json
from tests.json_schemas import check
from tests.unit.test_render_qrstat import AR1, AR2, AR3, AR4, T0, ar, master  # noqa: F401

pytestmark = pytest.mark.usefixtures("utc")


def test_overview_entries_are_typed():
    found = check("qrstat", document(qrstat_json([AR2, AR1])))
    first = found["ars"][0]
    assert (first["id"], first["owner"], first["state"], first["duration"]) == \
        (1, "roland", "r", 600)
    assert datetime.fromisoformat(first["start_time"]).timestamp() == T0
    assert "group" not in first


def test_details_of_a_pe_reservation():
    found = check("qrstat", qrstat_json([AR4], details=True))["ars"][0]
    assert found["resource_list"] == [{"name": "license", "value": "2"}]
    assert found["exec_queue_list"] == [{"name": "all.q@vm", "slots": 2}]
    assert found["granted_parallel_environment"] == [{"name": "smp", "range": "2"}]


def test_mail_acl_checkpoint_and_message():
    one = ar(5, state="E", message="no queue left", checkpoint="ck", mail_options="be",
             mail_list=["a@h1", "b"], users=["alice", "@staff"])
    found = check("qrstat", qrstat_json([one], details=True))["ars"][0]
    assert found["message"] == "no queue left" and found["checkpoint_name"] == "ck"
    assert found["mail_list"] == [{"user": "a", "host": "h1"}, {"user": "b", "host": ""}]
    assert found["acl_list"] == ["alice", "@staff"]
    assert "message" not in qrstat_json([one])["ars"][0]


def test_no_ar_is_an_empty_list():
    assert check("qrstat", qrstat_json([])) == {"ars": []}


def test_the_command(master, capsys):  # noqa: F811
    assert qrstat.main(["-u", "*", "-json"]) == 0
    found = check("qrstat", capsys.readouterr().out)
    assert [a["id"] for a in found["ars"]] == [1, 2, 3, 4]
    assert qrstat.main(["-ar", "3", "-json"]) == 0
    assert check("qrstat", capsys.readouterr().out)["ars"][0]["exec_queue_list"]


@pytest.mark.parametrize("form", [[], ["-xml"], ["-json"], ["-fmt", "json"]])
def test_an_unknown_ar_is_said_as_in_the_other_forms(master, capsys, form):  # noqa: F811
    assert qrstat.main(["-ar", "98", *form]) == 1
    assert capsys.readouterr() == ("Following advance reservations do not exist:\n98\n", "")

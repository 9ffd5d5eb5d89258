"""`gridd report` as a user runs it: listing, formats, late-bound parameters, refusals,
the Parquet snapshot and the HTML page (rendered in headless Chromium when installed).
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import tempfile
import threading
import zlib
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from gridd.accounting import report_catalog
from gridd.accounting.query import QueryError, Result
from gridd.accounting.report_export import export_parquet, write_parquet
from gridd.accounting.report_format import interval, table, to_csv, to_json
from gridd.cli.gridd_cmd import main
from tests import report_db

CHROMIUM = shutil.which("chromium")


@pytest.fixture(scope="module")
def cell(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cell")
    report_db.build(root)
    return root


@pytest.fixture
def gridd(cell: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """Run `gridd ARGS...` on the test cell: (exit code, stdout, stderr)."""
    monkeypatch.setenv("GRIDD_ROOT", str(cell))

    def run(*args: str) -> tuple[int, str, str]:
        code = main(["report", *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


# --- the catalogue ---------------------------------------------------------------------

def test_a_file_without_a_title_line_is_not_a_report() -> None:
    assert report_catalog.parse("schema", "-- Tables\nCREATE TABLE t (x INT);\n") is None


def test_header_gives_title_about_and_params() -> None:
    report = report_catalog.parse("r", "-- title: T\n-- about: one\n-- about: two\n"
                                  "-- param: since = 1970-01-01 -- from when\n"
                                  "-- param: who -- whose\n"
                                  "SELECT $since::DATE, $who")
    assert report is not None
    assert (report.title, report.about) == ("T", "one two")
    assert [(p.name, p.default, p.help) for p in report.params] == [
        ("since", "1970-01-01", "from when"), ("who", None, "whose")]
    assert report.sql == "SELECT $since::DATE, $who"
    assert report.bind({"who": "x"}) == {"since": "1970-01-01", "who": "x"}
    assert report.needs({}) == ["who"]


@pytest.mark.parametrize(("text", "message"), [
    ("-- title: T\n-- colour: red\nSELECT 1", "r.sql:2: a report header line is"),
    ("-- title: T\n-- param: x\nSELECT 1", "the SQL does not use $x"),
    ("-- title: T\nSELECT $y", "the SQL uses undeclared $y"),
    ("-- title: T\n-- param: 1x\nSELECT 1", "a parameter is 'NAME"),
    ("-- title: T\n-- about: nothing else\n", "has no SQL"),
])
def test_malformed_headers_are_refused_with_the_place(text: str, message: str) -> None:
    with pytest.raises(report_catalog.ReportError, match=re.escape(message)):
        report_catalog.parse("r", text, "r.sql")


def test_listing_names_titles_and_parameters(gridd) -> None:
    code, out, err = gridd()
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == len(report_catalog.load())
    assert re.fullmatch(r"ar_log +Advance reservation log +ar_number",
                        next(line for line in lines if line.startswith("ar_log ")))
    assert re.fullmatch(r"accounting_per_user +Accounting per user +"
                        r"\[period=month\] \[since=1970-01-01\]",
                        next(line for line in lines if line.startswith("accounting_per_user ")))
    assert len({line.index(" Accounting per") for line in lines if " Accounting per" in line}
               ) == 1, "titles start in one column"


# --- running a report ------------------------------------------------------------------

def test_a_report_prints_an_aligned_table(gridd) -> None:
    code, out, err = gridd("ar_log", "--param", "ar_number=102")
    assert (code, err) == (0, "")
    assert out == (
        "ar_number  time                 event               state  message\n"
        "---------  -------------------  ------------------  -----  ------------------------\n"
        "      102  2025-04-21 12:00:00  START TIME REACHED  r      start time of AR reached\n"
        "      102  2025-04-21 12:16:40  DELETED             d      AR deleted\n"
        "(2 rows)\n")


def test_table_shows_null_and_rounds_floats_to_three_decimals() -> None:
    result = Result(["n", "x", "d"], [(1, None, timedelta(days=1, seconds=5)),
                                      (22, 0.12345, timedelta(seconds=-61))])
    assert table(result) == (" n      x  d\n"  # numeric columns align right, headers too
                             "--  -----  --------------\n"
                             " 1   NULL  1 day 00:00:05\n"
                             "22  0.123  -00:01:01\n"
                             "(2 rows)\n")


def test_intervals_read_like_duckdb_prints_them() -> None:
    assert interval(timedelta(days=3, hours=4, microseconds=5)) == "3 days 04:00:00.000005"
    assert interval(timedelta(0)) == "00:00:00"


def test_csv_and_json(gridd) -> None:
    code, out, _ = gridd("ar_time_usage", "--format", "csv")
    assert code == 0
    assert out.splitlines() == ["ar_number,job_duration,ar_duration,unused_time",
                                "12,00:00:05,00:00:40,00:00:35",
                                "101,00:40:00,02:00:00,01:20:00",
                                "103,,00:30:00,00:30:00"]
    code, out, _ = gridd("ar_by_user", "--param", "ar_owner=carol", "--format", "json")
    assert code == 0
    assert json.loads(out) == [{"ar_number": 101, "submission_time": "2025-04-19 23:00:00"},
                               {"ar_number": 102, "submission_time": "2025-04-21 10:00:00"}]


def test_json_keeps_numbers_lists_and_nulls() -> None:
    result = Result(["a", "b", "c"], [(1.5, [1, None], None)])
    assert json.loads(to_json(result)) == [{"a": 1.5, "b": [1, None], "c": None}]
    assert to_csv(result) == "a,b,c\n1.5,\"[1, None]\",\n"


def test_parquet_keeps_duckdb_types(gridd, tmp_path: Path) -> None:
    out = tmp_path / "usage.parquet"
    code, stdout, err = gridd("ar_time_usage", "--format", "parquet", "--out", str(out))
    assert (code, stdout, err) == (0, "", "")
    con = duckdb.connect()
    assert con.execute(f"DESCRIBE SELECT * FROM '{out}'").fetchall()[1][:2] == (
        "job_duration", "INTERVAL")
    assert con.execute(f"SELECT ar_number, unused_time FROM '{out}'").fetchall() == [
        (12, timedelta(seconds=35)), (101, timedelta(seconds=4800)),
        (103, timedelta(seconds=1800))]
    assert [p.name for p in tmp_path.iterdir()] == ["usage.parquet"]


def test_parquet_of_an_empty_answer_keeps_its_columns(tmp_path: Path) -> None:
    write_parquet(Result(["t", "n"], [], ["TIMESTAMP", "BIGINT"]), tmp_path / "e.parquet")
    con = duckdb.connect()
    assert [row[:2] for row in con.execute(
        f"DESCRIBE SELECT * FROM '{tmp_path / 'e.parquet'}'").fetchall()] == [
        ("t", "TIMESTAMP"), ("n", "BIGINT")]


def test_period_and_since_are_late_bound(gridd) -> None:
    code, out, _ = gridd("job_counts", "--param", "period=year", "--param",
                         "since=2026-01-01", "--format", "csv")
    assert code == 0
    assert out.splitlines()[1].startswith("2026-01-01,28,")
    assert len(out.splitlines()) == 2


# --- refusals --------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "message"), [
    (["ar_log"], "report ar_log needs --param ar_number=VALUE"),
    (["ar_log", "--param", "ar_number=12", "--param", "colour=red"],
     "report ar_log has no parameter colour (its parameters: ar_number)"),
    (["ar_log", "--param", "ar_number=twelve"], "Could not convert string 'twelve'"),
    (["ar_log", "--param", "ar_number"], "--param 'ar_number' is not NAME=VALUE"),
    (["nosuch"], "no report named nosuch (gridd report lists them: accounting_per_department"),
    (["job_counts", "--param", "period=fortnight"], 'specifier "fortnight" not recognized'),
    (["ar_log", "--format", "parquet"], "--format parquet needs --out FILE"),
    (["ar_log", "--sql", "SELECT 1"], "give one of NAME, --sql, not several"),
    (["--export", "x", "--format", "csv"], "--out and --format go with a report or --sql"),
    (["--html", "x.html", "--param", "colour=red"], "no report takes --param colour"),
    (["--sql", "DELETE FROM sge_job"], "only queries are allowed here, not DELETE"),
    (["--sql", "CREATE TABLE t (x INT)"], "only queries are allowed here, not CREATE"),
    (["--sql", "INSERT INTO sge_user (u_user) VALUES ('eve')"],
     "only queries are allowed here, not INSERT"),
    (["--sql", "COPY sge_job TO '/tmp/x.csv'"], "only queries are allowed here, not COPY"),
    (["--sql", "SELECT 1; DROP TABLE sge_job"], "give exactly one SQL statement"),
    (["--sql", "SELEC 1"], "syntax error"),
    (["--sql", "SELECT * FROM nosuch"], "nosuch does not exist"),
])
def test_refusals_are_one_clear_line_and_exit_1(gridd, args: list[str], message: str) -> None:
    code, out, err = gridd(*args)
    assert code == 1
    assert out == ""
    assert err.startswith("gridd report: error: ")
    assert message in err
    assert len(err.splitlines()) == 1


def test_a_refused_write_changes_nothing(gridd) -> None:
    before = gridd("--sql", "SELECT count(*) AS n FROM sge_job", "--format", "csv")
    gridd("--sql", "DELETE FROM sge_job")
    assert gridd("--sql", "SELECT count(*) AS n FROM sge_job", "--format", "csv") == before


def test_ad_hoc_sql_with_parameters(gridd) -> None:
    code, out, _ = gridd("--sql", "SELECT username, count(*) AS jobs FROM view_job_times "
                         "WHERE project = $p GROUP BY username ORDER BY username",
                         "--param", "p=projA", "--format", "csv")
    assert (code, out) == (0, "username,jobs\nalice,2\ncarol,2\n")


def test_no_database_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GRIDD_ROOT", str(tmp_path))
    assert main(["report", "host_usage"]) == 1
    assert capsys.readouterr().err == (
        f"gridd report: error: no reporting database at {tmp_path}/common/reporting.duckdb\n")


# --- export ----------------------------------------------------------------------------

def test_export_writes_every_table_and_view(gridd, cell: Path, tmp_path: Path) -> None:
    out = tmp_path / "snapshot"
    code, stdout, _ = gridd("--export", str(out))
    assert code == 0
    db = duckdb.connect(str(cell / "common" / "reporting.duckdb"), read_only=True)
    names = {name for (name,) in db.execute(
        "SELECT table_name FROM duckdb_tables() WHERE NOT internal UNION "
        "SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    assert {"sge_job", "sge_job_usage", "sge_ar", "view_accounting",
            "view_ar_time_usage"} <= names
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{n}.parquet" for n in names)
    assert re.fullmatch(rf"gridd report: wrote {len(names)} Parquet files \(\d+ rows\) to "
                        rf"{re.escape(str(out))}\n", stdout)
    reader = duckdb.connect()
    for name in ("sge_job_usage", "view_accounting", "view_ar_time_usage"):
        assert sorted(reader.execute(f"FROM '{out / name}.parquet'").fetchall()) == sorted(
            db.execute(f"FROM {name}").fetchall())


def test_export_is_one_snapshot_beside_a_writer(tmp_path: Path) -> None:
    """Rows a writer commits while the export runs are in every file or in none: the view
    counting the table (exported after it) agrees with the table's own file."""
    con = duckdb.connect(str(tmp_path / "db.duckdb"))
    con.execute("CREATE TABLE a AS SELECT range AS x FROM range(200000)")
    con.execute("CREATE VIEW b AS SELECT count(*) AS n FROM a")
    stop = threading.Event()

    def write() -> None:
        writer = con.cursor()
        while not stop.is_set():
            writer.execute("INSERT INTO a SELECT range FROM range(100)")

    thread = threading.Thread(target=write)
    thread.start()
    try:
        for round_ in range(5):
            export_parquet(con, tmp_path / f"out{round_}")
    finally:
        stop.set()
        thread.join()
    reader = duckdb.connect()
    for round_ in range(5):
        out = tmp_path / f"out{round_}"
        (rows,) = reader.execute(f"SELECT count(*) FROM '{out}/a.parquet'").fetchone()
        assert reader.execute(f"SELECT n FROM '{out}/b.parquet'").fetchone() == (rows,)
        assert sorted(p.name for p in out.iterdir()) == ["a.parquet", "b.parquet"]


def test_a_failed_export_leaves_no_partial_files(tmp_path: Path) -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE a (x INT)")
    con.execute("CREATE TABLE z (x INT)")
    con.execute("CREATE VIEW m AS SELECT x FROM z")
    con.execute("DROP TABLE z")  # the view now fails, after a was written
    with pytest.raises(QueryError, match="export failed"):
        export_parquet(con, tmp_path / "out")
    assert list((tmp_path / "out").iterdir()) == []


# --- the HTML page ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def page(cell: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html") / "report.html"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GRIDD_ROOT", str(cell))
        assert main(["report", "--html", str(out), "--param", "ar_number=101"]) == 0
    return out


def test_html_page_is_self_contained(page: Path) -> None:
    text = page.read_text()
    assert "<script src" not in text and "<link" not in text and "@import" not in text
    assert "url(" not in text
    # the only URL is SVG's namespace name, which nothing fetches
    assert set(re.findall(r"https?://[^\"' )]+", text)) == {"http://www.w3.org/2000/svg"}


def test_html_page_holds_every_report(page: Path) -> None:
    text = page.read_text()
    for report in report_catalog.load().values():
        assert f'id="r-{report.name}"' in text
    assert "<td>nightly</td>" in text  # ar_attributes, run with --param ar_number=101
    assert "Not run: it needs <code>--param ar_owner=VALUE</code>" in text
    data = json.loads(re.search(r'<script type="application/json" id="chart-data">(.*?)'
                                r"</script>", text, re.S).group(1))
    assert [q["name"] for q in data["slots"]["queues"]] == ["all.q", "long.q", "short.q"]
    assert [b["jobs"] for b in data["wait"]] == [25, 6, 0, 2, 1, 0, 0]
    assert data["ars"] == [{"ar": 12, "reserved": 40.0, "used": 5.0},
                           {"ar": 101, "reserved": 7200.0, "used": 2400.0},
                           {"ar": 103, "reserved": 1800.0, "used": 0.0}]


def test_slot_chart_puts_the_queues_on_one_grid() -> None:
    from gridd.accounting import report_html

    t = datetime(2025, 1, 1)
    rows = [(t, "a", 2), (t + timedelta(seconds=10), "b", 1),
            (t + timedelta(seconds=20), "a", 0), (t + timedelta(seconds=30), "b", 0)]
    chart = report_html._slots(Result(["time", "queue", "slots"], rows))
    ms = report_html._epoch_ms(t)
    assert chart["times"] == [ms, ms + 10_000, ms + 20_000, ms + 30_000]
    assert chart["queues"] == [{"name": "a", "values": [2, 2, 0, 0]},
                               {"name": "b", "values": [0, 1, 1, 0]}]
    assert not chart["binned"]


def test_long_slot_series_become_bin_means_that_keep_the_slot_seconds() -> None:
    from gridd.accounting import report_html

    start = datetime(2025, 1, 1)
    busy = [(start + timedelta(seconds=i), "busy", 1 + 2 * (i % 2)) for i in range(5000)]
    flat = [(start, "flat", 4), (start + timedelta(seconds=4999), "flat", 0)]
    chart = report_html._slots(Result(["time", "queue", "slots"], busy + flat))
    assert chart["binned"] and len(chart["times"]) == report_html.SERIES_POINTS
    width = (chart["times"][1] - chart["times"][0]) / 1000
    busy_values, flat_values = (q["values"] for q in chart["queues"])
    # 2500 one-second steps at 1 slot, 2499 at 3; the last change (at the end) holds none
    assert sum(busy_values) * width == pytest.approx(2500 * 1 + 2499 * 3)
    assert flat_values == pytest.approx([4.0] * report_html.SERIES_POINTS)


def test_a_chart_report_edited_out_of_shape_is_a_clear_error() -> None:
    from gridd.accounting import report_html

    edited = report_catalog.parse("slots_in_use", "-- title: T\nSELECT 1 AS time")
    assert edited is not None
    section = report_html.Section(edited, Result(["time", "slots"], []))
    with pytest.raises(report_catalog.ReportError, match="needs a column 'queue'"):
        report_html.render([section], source="db", generated=datetime(2026, 1, 1))


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def _chromium(*args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=180, check=False)


def _png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB rows of an 8-bit RGB or RGBA PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        header = body if kind == b"IHDR" else header
        idat += body if kind == b"IDAT" else b""
        pos += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6), (depth, colour)
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) *
                                                            (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                corner = previous[i - bpp] if i >= bpp else 0
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else
                                      up if pb <= pc else corner)) & 255
        rows.append(bytes(line) if bpp == 3 else bytes(
            b for j in range(0, stride, 4) for b in line[j:j + 3]))
        previous = line
    return width, height, rows


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed "
                    "(apt-get install chromium; .ci/run installs it)")
def test_html_charts_are_drawn_in_chromium(page: Path) -> None:
    dom = _chromium("--dump-dom", page.as_uri()).stdout
    assert 'data-charts="drawn"' in dom  # the script ran to its end
    assert len(re.findall(r'<path [^>]*class="series"', dom)) == 3  # one line per queue
    # 7 wait-time bins, and reserved + used for ARs 12, 101 and 103
    assert len(re.findall(r'<rect [^>]*class="bar"', dom)) == 7 + 2 * 3
    assert "AR 101" in dom and "&lt; 10 s" in dom


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed "
                    "(apt-get install chromium; .ci/run installs it)")
def test_html_screenshot_shows_the_charts(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "page.png"
    _chromium(f"--screenshot={shot}", "--window-size=1000,1200", page.as_uri())
    width, height, rows = _png_pixels(shot.read_bytes())
    assert (width, height) == (1000, 1200)

    def colours(part: list[bytes]) -> Counter[bytes]:
        return Counter(row[i:i + 3] for row in part for i in range(0, len(row), 3))

    everything = colours(rows)
    assert len(everything) > 50, "the page looks blank"
    blue, orange, green = (bytes.fromhex(c) for c in ("1f77b4", "e6550d", "2ca02c"))
    # above the slot chart's legend (which starts near row 400): only the chart itself,
    # whose three queues must all show, however brief their jobs on a 20-month axis
    slot_chart = colours(rows[:360])
    assert min(slot_chart[blue], slot_chart[orange], slot_chart[green]) > 30, slot_chart
    # the wait-time bars below it, and the AR chart's reserved and used bars
    assert everything[blue] > 5000
    assert everything[orange] > 1000

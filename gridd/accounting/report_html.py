"""One self-contained HTML page of the named reports, with charts.

People would rather look at slot usage, wait times and AR usage than read them, and the
page must open anywhere: on a laptop without network, attached to a mail, from a file
server. So everything is inline: CSS, the chart data as JSON, and a small script that
draws the charts as SVG. Nothing is fetched. The tables are plain HTML written here, so
they read without the script too.

Three charts, each fed by a named report (so the SQL stays where analysts can see it):

    slots_in_use            slots in use over time, the queues stacked
    wait_time_distribution  jobs per wait-time bin
    ar_time_usage           each AR's reserved time next to the time its jobs used
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from gridd.accounting.query import Result
from gridd.accounting.report_catalog import Report, ReportError
from gridd.accounting.report_format import NULL, cell

TABLE_ROWS = 200  # rows of one report shown on the page; the CLI prints all of them
OPEN_ROWS = 50  # reports with more rows start folded
SERIES_POINTS = 1500  # moments of change beyond which the slot chart shows bin means
AR_BARS = 60  # the most recent ARs charted


@dataclass
class Section:
    """One report on the page: its answer, or the parameters it still needs."""

    report: Report
    result: Result | None = None
    missing: list[str] = field(default_factory=list)


def unknown_params(reports: Mapping[str, Report], params: Mapping[str, str]) -> list[str]:
    """The given parameters that no report of the page takes."""
    declared = {param.name for report in reports.values() for param in report.params}
    return sorted(set(params) - declared)


def sections(reports: Mapping[str, Report], params: Mapping[str, str],
             run: Callable[[Report, dict[str, str]], Result]) -> list[Section]:
    """Every report with the parameters it takes: `run` with them when it has every
    value it needs (gridd report --html over the cell's database, the web interface
    as its login's user), else what it still needs."""
    out = []
    for report in reports.values():
        own = {name: params[name] for name in (p.name for p in report.params) if name in params}
        missing = report.needs(own)
        out.append(Section(report, None if missing else run(report, own), missing))
    return out


def render(sections: Sequence[Section], *, source: str, generated: datetime) -> str:
    """The whole page as text."""
    import msgspec

    answers = {s.report.name: s.result for s in sections if s.result is not None}
    charts = {
        "slots": _slots(answers.get("slots_in_use")),
        "wait": _wait(answers.get("wait_time_distribution")),
        "ars": _ars(answers.get("ar_time_usage")),
    }
    data = msgspec.json.encode(charts).decode().replace("</", "<\\/")
    body = "\n".join(_section(s) for s in sections)
    index = "\n".join(f'<li><a href="#r-{_e(s.report.name)}">{_e(s.report.title)}</a></li>'
                      for s in sections)
    return _PAGE.format(
        source=_e(source), generated=_e(generated.strftime("%Y-%m-%d %H:%M:%S %Z").strip()),
        css=_CSS, index=index, sections=body, data=data, script=_SCRIPT)


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _section(section: Section) -> str:
    """A report as a table that opens by default when it is short enough to glance at."""
    report = section.report
    result = section.result
    count = 0 if result is None else len(result.rows)
    opened = " open" if result is not None and count <= OPEN_ROWS else ""
    status = ("not run" if result is None else f'{count} row{"s" if count != 1 else ""}')
    head = (f'<details id="r-{_e(report.name)}"{opened}><summary>{_e(report.title)} '
            f"<code>gridd report {_e(report.name)}</code> "
            f'<span class="count">{status}</span></summary>')
    about = f"<p>{_e(report.about)}</p>" if report.about else ""
    if result is None:
        needs = " ".join(f"--param {name}=VALUE" for name in section.missing)
        return (f'{head}{about}<p class="note">Not run: it needs <code>{_e(needs)}</code> '
                "(give it to gridd report --html).</p></details>")
    more = (f'<p class="note">The first {TABLE_ROWS} of {count} rows; '
            f"<code>gridd report {_e(report.name)}</code> prints them all.</p>"
            if count > TABLE_ROWS else "")
    header = "".join(f"<th>{_e(c)}</th>" for c in result.columns)
    rows = "\n".join("<tr>" + "".join(_td(v) for v in row) + "</tr>"
                     for row in result.rows[:TABLE_ROWS])
    return (f"{head}{about}<table><thead><tr>{header}</tr></thead>"
            f"<tbody>\n{rows}\n</tbody></table>{more}</details>")


def _td(value: Any) -> str:
    if value is None:
        return f'<td class="null">{NULL}</td>'
    if isinstance(value, float):
        return f'<td class="num">{value:.3f}</td>'
    if isinstance(value, int) and not isinstance(value, bool):
        return f'<td class="num">{value}</td>'
    return f"<td>{_e(cell(value))}</td>"


def _column(result: Result, name: str) -> int:
    """Where a chart's column is; a report edited out of the chart's shape says so."""
    try:
        return result.columns.index(name)
    except ValueError:
        raise ReportError(f"error: a chart of the page needs a column {name!r}; the report "
                          f"gives {', '.join(result.columns)}") from None


_EPOCH = datetime(1970, 1, 1)


def _epoch_ms(value: datetime) -> float:
    """Milliseconds since the epoch; the database's naive timestamps are UTC. (Subtracting
    is several times faster than attaching a zone: the slot chart converts every row.)"""
    if value.tzinfo is not None:
        return value.timestamp() * 1000
    return (value - _EPOCH).total_seconds() * 1000


def _seconds(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, timedelta):
        return value.total_seconds()
    return float(value)


def _slots(result: Result | None) -> dict[str, Any]:
    """The queues' slot levels on one time grid, for a chart that stacks them.

    Stacking needs every queue's level at the same moments. With few changes the grid is
    every moment any queue changed, and the chart is exact; with more than SERIES_POINTS
    it is that many equal bins, each holding a queue's mean level over the bin, which
    (unlike a peak) still adds up across queues and keeps the area: the slot-seconds used.
    """
    if result is None:
        return {"times": [], "end": 0, "queues": [], "binned": False}
    t, q, s = (_column(result, n) for n in ("time", "queue", "slots"))
    series: dict[str, list[tuple[float, float]]] = {}
    for row in result.rows:
        if row[t] is not None:
            series.setdefault(str(row[q]), []).append((_epoch_ms(row[t]), float(row[s] or 0)))
    moments = sorted({time for points in series.values() for time, _ in points})
    if not moments:
        return {"times": [], "end": 0, "queues": [], "binned": False}
    binned = len(moments) > SERIES_POINTS
    if binned:
        start, end = moments[0], moments[-1]
        width = (end - start) / SERIES_POINTS
        times = [start + i * width for i in range(SERIES_POINTS)]
        levels = {name: _means(points, start, width, end) for name, points in series.items()}
    else:
        times, end = moments, moments[-1]
        levels = {name: _levels(points, moments) for name, points in series.items()}
    queues = [{"name": name, "values": levels[name]} for name in sorted(series)]
    return {"times": times, "end": end, "queues": queues, "binned": binned}


def _levels(points: list[tuple[float, float]], moments: list[float]) -> list[float]:
    """A step line's level at each moment (0 before its first change)."""
    out, level, i = [], 0.0, 0
    for moment in moments:
        while i < len(points) and points[i][0] <= moment:
            level = points[i][1]
            i += 1
        out.append(level)
    return out


def _means(points: list[tuple[float, float]], start: float, width: float,
           end: float) -> list[float]:
    """A step line's mean level in each of SERIES_POINTS bins of `width` from `start`."""
    area = [0.0] * SERIES_POINTS
    for (left, level), right in zip(points, [p[0] for p in points[1:]] + [end], strict=True):
        index = min(int((left - start) / width), SERIES_POINTS - 1)
        while level and left < right:  # the bin index advances: rounding cannot stall it
            last = index == SERIES_POINTS - 1
            edge = right if last else min(right, start + (index + 1) * width)
            area[index] += level * (edge - left)
            left, index = edge, index + 1
    return [a / width for a in area]


def _wait(result: Result | None) -> list[dict[str, Any]]:
    if result is None:
        return []
    label, jobs = _column(result, "wait_time"), _column(result, "jobs")
    return [{"label": str(row[label]), "jobs": int(row[jobs] or 0)} for row in result.rows]


def _ars(result: Result | None) -> list[dict[str, Any]]:
    if result is None:
        return []
    ar, used, reserved = (_column(result, n) for n in ("ar_number", "job_duration",
                                                       "ar_duration"))
    rows = sorted(result.rows, key=lambda row: row[ar])[-AR_BARS:]
    return [{"ar": row[ar], "reserved": _seconds(row[reserved]), "used": _seconds(row[used])}
            for row in rows]


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gridd accounting reports</title>
<style>{css}</style>
</head>
<body>
<header>
<h1>gridd accounting reports</h1>
<p>From <code>{source}</code>, {generated}. All times are UTC.</p>
</header>
<main>
<section class="charts">
<figure id="chart-slots"><figcaption>Slots in use over time, per queue (stacked)</figcaption>
<div class="chart"></div></figure>
<figure id="chart-wait"><figcaption>Wait time distribution (submission to start)</figcaption>
<div class="chart"></div></figure>
<figure id="chart-ars"><figcaption>Advance reservations: reserved time and time used by
their jobs</figcaption><div class="chart"></div></figure>
</section>
<section class="reports">
<h2>Reports</h2>
<ul class="index">
{index}
</ul>
{sections}
</section>
</main>
<script type="application/json" id="chart-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""

_CSS = """
:root { --fg: #1d2430; --muted: #5b6573; --line: #d9dee5; --bg: #ffffff; --band: #f4f6f9; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
       color: var(--fg); background: var(--bg); }
header { padding: 18px 28px 8px; border-bottom: 1px solid var(--line); }
header h1 { margin: 0 0 4px; font-size: 22px; }
header p { margin: 0; color: var(--muted); }
main { padding: 12px 28px 40px; }
.charts { display: grid; grid-template-columns: 1fr; gap: 18px; }
figure { margin: 0; padding: 12px 14px; border: 1px solid var(--line); border-radius: 6px; }
figcaption { font-weight: 600; margin-bottom: 6px; }
.chart svg { width: 100%; height: auto; display: block; }
.chart text { font-size: 12px; fill: var(--muted); }
.chart .empty { font-size: 15px; }
.chart .axis { stroke: #9aa3ae; stroke-width: 1; }
.chart .grid { stroke: var(--line); stroke-width: 1; }
.chart .value { fill: var(--fg); }
.legend { display: flex; flex-wrap: wrap; gap: 14px; margin-top: 6px; color: var(--muted); }
.legend span::before { content: ""; display: inline-block; width: 12px; height: 12px;
                       margin-right: 5px; vertical-align: -1px; background: var(--c); }
h2 { margin: 26px 0 8px; font-size: 18px; }
.index { columns: 2; margin: 0 0 12px; padding-left: 18px; }
details { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; padding: 6px 12px; }
summary { cursor: pointer; font-weight: 600; }
summary code, .count { font-weight: normal; color: var(--muted); margin-left: 6px; }
.note { color: var(--muted); }
table { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 10px; border-bottom: 1px solid var(--line); text-align: left;
         white-space: nowrap; }
th { background: var(--band); }
td.num { text-align: right; }
td.null { color: #a0a7b1; }
"""

_SCRIPT = r"""
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var COLOURS = ["#1f77b4", "#e6550d", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                 "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];
  var data = JSON.parse(document.getElementById("chart-data").textContent);

  function el(name, attrs, parent, text) {
    var node = document.createElementNS(NS, name);
    for (var key in attrs) { node.setAttribute(key, attrs[key]); }
    if (text !== undefined) { node.textContent = text; }
    if (parent) { parent.appendChild(node); }
    return node;
  }

  function canvas(id, width, height) {
    var holder = document.querySelector("#" + id + " .chart");
    var svg = el("svg", {viewBox: "0 0 " + width + " " + height, role: "img"}, holder);
    return {holder: holder, svg: svg};
  }

  function empty(c, width, height, text) {
    el("text", {x: width / 2, y: height / 2, "text-anchor": "middle", "class": "empty"},
       c.svg, text);
  }

  function niceStep(span, count) {
    var raw = span / Math.max(count, 1);
    var power = Math.pow(10, Math.floor(Math.log10(raw || 1)));
    var steps = [1, 2, 5, 10];
    for (var i = 0; i < steps.length; i++) {
      if (raw <= steps[i] * power) { return steps[i] * power; }
    }
    return 10 * power;
  }

  function yAxis(svg, box, top, ticks) {
    var step = Math.max(1, niceStep(top, ticks));
    for (var v = 0; v <= top + 1e-9; v += step) {
      var y = box.y + box.h - v / top * box.h;
      el("line", {x1: box.x, x2: box.x + box.w, y1: y, y2: y, "class": "grid"}, svg);
      el("text", {x: box.x - 6, y: y + 4, "text-anchor": "end"}, svg, String(v));
    }
    el("line", {x1: box.x, x2: box.x, y1: box.y, y2: box.y + box.h, "class": "axis"}, svg);
    el("line", {x1: box.x, x2: box.x + box.w, y1: box.y + box.h, y2: box.y + box.h,
                "class": "axis"}, svg);
  }

  function stamp(ms, span) {
    var iso = new Date(ms).toISOString();
    if (span > 3 * 86400000) { return iso.slice(0, 10); }
    if (span > 86400000) { return iso.slice(5, 16).replace("T", " "); }
    return iso.slice(11, 19);
  }

  function legend(holder, names) {
    var box = document.createElement("div");
    box.className = "legend";
    names.forEach(function (name, i) {
      var item = document.createElement("span");
      item.style.setProperty("--c", COLOURS[i % COLOURS.length]);
      item.textContent = name;
      box.appendChild(item);
    });
    holder.appendChild(box);
  }

  function slots(info) {
    var W = 1100, H = 320, c = canvas("chart-slots", W, H);
    var box = {x: 56, y: 14, w: W - 76, h: H - 52};
    var times = info.times, queues = info.queues;
    if (!times.length) { return empty(c, W, H, "No finished jobs yet"); }
    var t0 = times[0], t1 = Math.max(info.end, t0 + 1000), span = t1 - t0;
    var totals = times.map(function () { return 0; });
    var bands = queues.map(function (q) {
      var lower = totals.slice();
      q.values.forEach(function (v, k) { totals[k] += v; });
      return {name: q.name, lower: lower, upper: totals.slice()};
    });
    var top = Math.max(1, Math.ceil(Math.max.apply(null, totals) * 1.1));
    function x(t) { return (box.x + (t - t0) / span * box.w).toFixed(1); }
    function y(v) { return (box.y + box.h - v / top * box.h).toFixed(1); }
    yAxis(c.svg, box, top, 5);
    for (var i = 0; i <= 5; i++) {
      var t = t0 + span * i / 5;
      el("text", {x: x(t), y: box.y + box.h + 18, "text-anchor": i === 0 ? "start" :
                  i === 5 ? "end" : "middle"}, c.svg, stamp(t, span));
    }
    el("text", {x: 12, y: box.y + box.h / 2, transform: "rotate(-90 12 " +
                (box.y + box.h / 2) + ")", "text-anchor": "middle"}, c.svg, "slots");
    bands.forEach(function (band, n) {
      var last = times.length - 1;
      var d = "M" + x(times[0]) + " " + y(band.lower[0]);
      for (var k = 0; k <= last; k++) {
        d += " V" + y(band.upper[k]) + " H" + x(k < last ? times[k + 1] : t1);
      }
      for (k = last; k >= 0; k--) {
        d += " V" + y(band.lower[k]) + " H" + x(times[k]);
      }
      var colour = COLOURS[n % COLOURS.length];
      var path = el("path", {d: d + " Z", fill: colour, "class": "series"}, c.svg);
      el("title", {}, path, band.name);
      // An outline of the steps where the queue held slots keeps brief jobs visible on a
      // long time axis (where they are thinner than a pixel); empty stretches get none, so
      // they draw nothing over the queues below.
      var edge = "";
      for (k = 0; k <= last; k++) {
        if (band.upper[k] > band.lower[k]) {
          edge += "M" + x(times[k]) + " " + y(band.lower[k]) + " V" + y(band.upper[k]) +
                  " H" + x(k < last ? times[k + 1] : t1) + " V" + y(band.lower[k]);
        }
      }
      if (edge) {
        el("path", {d: edge, fill: "none", stroke: colour, "stroke-width": 1.5,
                    "class": "edge"}, c.svg);
      }
    });
    legend(c.holder, queues.map(function (q) { return q.name; }));
    var note = document.createElement("p");
    note.className = "note";
    note.textContent = info.binned ?
      "Each step is a queue's mean slots in use over its time bin, stacked." :
      "Slots held by finished jobs, stacked by queue.";
    c.holder.appendChild(note);
  }

  function wait(bins) {
    var W = 1100, H = 280, c = canvas("chart-wait", W, H);
    var box = {x: 56, y: 20, w: W - 76, h: H - 56};
    var total = bins.reduce(function (s, b) { return s + b.jobs; }, 0);
    if (!total) { return empty(c, W, H, "No started jobs yet"); }
    var top = Math.ceil(Math.max.apply(null, bins.map(function (b) { return b.jobs; })) * 1.15);
    yAxis(c.svg, box, top, 5);
    var slot = box.w / bins.length, bar = slot * 0.7;
    bins.forEach(function (b, i) {
      var h = b.jobs / top * box.h, left = box.x + i * slot + (slot - bar) / 2;
      var rect = el("rect", {x: left, y: box.y + box.h - h, width: bar, height: h,
                             fill: COLOURS[0], "class": "bar"}, c.svg);
      el("title", {}, rect, b.label + ": " + b.jobs + " jobs");
      el("text", {x: left + bar / 2, y: box.y + box.h - h - 5, "text-anchor": "middle",
                  "class": "value"}, c.svg, String(b.jobs));
      el("text", {x: left + bar / 2, y: box.y + box.h + 18, "text-anchor": "middle"},
         c.svg, b.label);
    });
  }

  function duration(s) {
    if (s >= 86400) { return (s / 86400).toFixed(1) + " d"; }
    if (s >= 3600) { return (s / 3600).toFixed(1) + " h"; }
    if (s >= 60) { return (s / 60).toFixed(1) + " min"; }
    return Math.round(s) + " s";
  }

  function ars(rows) {
    var row = 30, W = 1100, H = Math.max(60, 20 + rows.length * row);
    var c = canvas("chart-ars", W, H);
    if (!rows.length) { return empty(c, W, H, "No ended advance reservations yet"); }
    var box = {x: 90, y: 10, w: W - 200, h: rows.length * row};
    var top = Math.max.apply(null, rows.map(function (r) {
      return Math.max(r.reserved, r.used); })) || 1;
    rows.forEach(function (r, i) {
      var y = box.y + i * row;
      el("text", {x: box.x - 8, y: y + row / 2 + 4, "text-anchor": "end"}, c.svg,
         "AR " + r.ar);
      [["reserved", r.reserved, 0], ["used", r.used, 1]].forEach(function (k) {
        var w = Math.max(1, k[1] / top * box.w);
        var rect = el("rect", {x: box.x, y: y + 3 + k[2] * 12, width: w, height: 11,
                               fill: COLOURS[k[2]], "class": "bar"}, c.svg);
        el("title", {}, rect, "AR " + r.ar + " " + k[0] + ": " + duration(k[1]));
        el("text", {x: box.x + w + 6, y: y + 12 + k[2] * 12}, c.svg, duration(k[1]));
      });
    });
    el("line", {x1: box.x, x2: box.x, y1: box.y, y2: box.y + box.h, "class": "axis"}, c.svg);
    legend(c.holder, ["reserved", "used by jobs"]);
  }

  slots(data.slots);
  wait(data.wait);
  ars(data.ars);
  document.body.setAttribute("data-charts", "drawn");
})();
"""

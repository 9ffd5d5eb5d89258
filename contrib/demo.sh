#!/usr/bin/env bash
# `make demo`: start a local cell, run a few jobs, show qstat, qhost, qacct and reports, stop the cell.
set -euo pipefail
BIN=${BIN:-.venv/bin}
export GRIDD_ROOT=${GRIDD_ROOT:-$PWD/gridd-root}
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
# gridd down leaves running jobs for the next gridd up: a demo cut short kills its own
trap '"$BIN/gridd" down --kill-jobs >/dev/null 2>&1 || true' EXIT
# a fresh cell every time, so that the job numbers below are the demo's own
"$BIN/gridd" down --kill-jobs >/dev/null 2>&1 || true
rm -rf "$GRIDD_ROOT"

say gridd up --hosts 2 --slots 2
"$BIN/gridd" up --hosts 2 --slots 2
say gridd status
"$BIN/gridd" status

say "qsub -b y sleep 3   (x3), an array job, and a script with #\$ directives"
for i in 1 2 3; do "$BIN/qsub" -b y sleep 3; done
"$BIN/qsub" -t 1-4:1 -N array -b y sleep 2
script=$(mktemp "${TMPDIR:-/tmp}/demo.XXXXXX.sh")
printf '#!/bin/sh\n#$ -N hello\n#$ -j y\n#$ -o %s\necho "hello from job $JOB_ID on $HOSTNAME"\n' \
    "$GRIDD_ROOT/hello.out" > "$script"
"$BIN/qsub" "$script"

say qstat
"$BIN/qstat"
say qhost
"$BIN/qhost"

say "qsub -sync y -b y exit 3   (waits, then exits with the job's code)"
"$BIN/qsub" -sync y -b y exit 3 || echo "exit code: $?"

printf '\nwaiting for the queue to drain'
while [ -n "$("$BIN/qstat")" ]; do printf .; sleep 0.5; done
echo
say "cat $GRIDD_ROOT/hello.out"
cat "$GRIDD_ROOT/hello.out"
say "qacct -j 1"
"$BIN/qacct" -j 1
say qacct
"$BIN/qacct"
say "gridd report   (named SQL reports over the DuckDB reporting database)"
"$BIN/gridd" report
say "gridd report job_counts --param period=day"
"$BIN/gridd" report job_counts --param period=day
say "gridd report --sql \"SELECT job_name, count(*) AS tasks, sum(ru_wallclock) AS wallclock FROM accounting GROUP BY ALL ORDER BY 1\""
"$BIN/gridd" report --sql "SELECT job_name, count(*) AS tasks, sum(ru_wallclock) AS wallclock FROM accounting GROUP BY ALL ORDER BY 1"
say gridd down
"$BIN/gridd" down
rm -f "$script"

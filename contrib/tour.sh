#!/usr/bin/env bash
# contrib/tour.sh: the README's walk-through ("Using a cell"), run top to bottom in a cell of
# its own. Each step says what it shows and why; the tour stops at the first step that does
# not do what it says, and leaves nothing running.
#
#   contrib/tour.sh                       # a new cell under a temporary directory
#   GRIDD_ROOT=/tmp/tour contrib/tour.sh  # or in a directory that holds no cell yet
#
# The commands are the venv's (BIN, default .venv/bin beside this file's parent), put first
# on PATH so that a Grid Engine installed on the same machine is not called by mistake.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$here/.venv/bin}
export PATH="$BIN:$PATH"
if [ -z "${GRIDD_ROOT:-}" ]; then
    GRIDD_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/gridd-tour.XXXXXX")
    made_root=$GRIDD_ROOT
fi
export GRIDD_ROOT
if [ -e "$GRIDD_ROOT/common/bootstrap.json" ]; then
    echo "tour: $GRIDD_ROOT already holds a cell; the tour needs one of its own" >&2
    exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/gridd-tour-work.XXXXXX")
finish() {
    gridd down --kill-jobs >/dev/null 2>&1 || true
    rm -rf "$work" ${made_root:+"$made_root"}
}
trap finish EXIT
cd "$work"

# --- how each step is shown ----------------------------------------------------------------
step() {  # a heading, then why this step is there
    printf '\n\033[1m== %s\033[0m\n' "$1"
    shift
    [ $# -eq 0 ] || printf '   %s\n' "$@"
}
run() {  # show a command line, then run it as the shell would
    printf '$ %s\n' "$1"
    eval "$1"
}
refused() {  # a command line that must fail: show it and its exit code
    printf '$ %s\n' "$1"
    local rc=0
    eval "$1" || rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "tour: expected '$1' to be refused" >&2
        exit 1
    fi
    echo "(exit code $rc: refused, as it should be)"
}
submit() {  # submit VAR 'qsub ...': show and run it, keep the job's number in VAR
    local out
    printf '$ %s\n' "$2"
    out=$(eval "$2")
    echo "$out"
    printf -v "$1" '%s' "$(sed -nE 's/^Your (job|job-array|advance reservation) ([0-9]+).*/\2/p' <<<"$out")"
}
wait_for() {  # wait_for WHAT COMMAND: poll COMMAND until it succeeds (60 s at most)
    local what=$1 deadline=$((SECONDS + 60))
    until eval "$2" >/dev/null 2>&1; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "tour: gave up waiting for $what" >&2
            exit 1
        fi
        sleep 0.2
    done
}
state_of() {  # the state column of qstat for a job (its first line)
    qstat -u '*' | awk -v j="$1" '$1 == j { print $5; exit }'
}
running() { case $(state_of "$1") in r|Rr) return 0;; esac; return 1; }  # Rr: running again
gone() { [ -z "$(state_of "$1")" ]; }
cat > job.sh <<'EOF'
#!/bin/sh
#$ -N tour
# a job script: #$ lines are qsub options; it runs for $1 seconds (default 1)
echo "job $JOB_ID task ${SGE_TASK_ID:-undefined} on $HOSTNAME"
sleep "${1:-1}"
EOF

# --- a cell --------------------------------------------------------------------------------
step "Start a cell" \
    "A master and four execution daemons (node1..node4), four slots each in all.q, all" \
    "under \$GRIDD_ROOT ($GRIDD_ROOT)."
run "gridd up --hosts 4 --slots 4"

step "Submit, watch, delete" \
    "qsub answers with the job's number; qstat shows it waiting (qw), then running (r)."
submit sleeper "qsub -b y sleep 30"
submit scripted "qsub -cwd -j y -l h_rt=0:10:0 job.sh"
wait_for "job $sleeper to run" "running $sleeper"
run "qstat"
run "qstat -f"
run "qstat -j $sleeper"
run "qstat -xml | head -12"
run "qhost"
run "qdel $sleeper"
step "Accounting" "A finished (or deleted) job has a record in the accounting file and database."
wait_for "job $sleeper's accounting record" "qacct -j $sleeper"
run "qacct -j $sleeper"

step "Commands as jobs" \
    "-b y runs a command instead of a script. Its words are shell text on the execution" \
    "host, as in Grid Engine: '\$SGE_TASK_ID' expands in each task. With -shell n the" \
    "command gets them as they are."
submit words "qsub -cwd -b y -t 1-3 echo '\$SGE_TASK_ID'"
submit asis "qsub -cwd -b y -shell n printf '%s\\n' 'a  b'"
wait_for "jobs $words and $asis to end" "gone $words && gone $asis"
run "cat echo.o$words.* printf.o$asis"

# --- users ---------------------------------------------------------------------------------
step "Managers, access lists and user objects" \
    "alice becomes a manager and a member of arusers (who may make advance reservations);" \
    "a user object is made at a user's first job, so you have one now."
run "qconf -am alice"
run "qconf -au alice arusers"
run "qconf -sul"
run "qconf -suserl"
run 'qconf -suser $(whoami)'

# --- complexes -----------------------------------------------------------------------------
step "A consumable: five licenses for the whole cell" \
    "A new INT consumable in the complex table, then five of it on the global host."
run "qconf -sc > c; echo 'license lic INT <= YES YES 0 0' >> c; qconf -Mc c"
run "qconf -mattr exechost complex_values license=5 global"
step "Three licenses for a 3-slot job" "A consumable asked for by a parallel job is taken per slot."
submit licensed "qsub -l license=1 -pe mpi 3 -b y sleep 600"
wait_for "job $licensed to run" "running $licensed"
refused "qsub -w v -l license=10 -b y true"
run "qstat -F license,slots | head -8"
run "qhost -F | head -12"
run "qhost -l arch=lx-amd64"
step "Why a job waits" "Three more licenses than the two left: qstat -j says which level refuses it."
submit waiting "qsub -l license=3 -b y true"
wait_for "a scheduling run for job $waiting" "qstat -j $waiting | grep -q 'cannot run'"
run "qstat -j $waiting | grep -A2 'scheduling info'"
step "Wildcard requests" "String requests are wildcard expressions: lx-amd64 matches lx*&!*86."
submit wild "qsub -l 'arch=lx*&!*86' -b y true"
step "An exclusive host" \
    "A host offering the EXCL complex 'exclusive' runs a job that asks for it alone, once" \
    "nothing else runs there: the jobs above are deleted first."
run "qdel $licensed $waiting"
wait_for "job $licensed to end" "gone $licensed"
run "echo 'exclusive excl BOOL EXCL YES YES 0 1000' >> c; qconf -Mc c"
run "qconf -aattr exechost complex_values exclusive=true node1"
submit alone "qsub -l exclusive=true -b y sleep 600"
wait_for "job $alone to run" "running $alone"
run "qstat -s r"
run "qdel $alone"
wait_for "job $alone to end" "gone $alone"

# --- queue instances and jobs ----------------------------------------------------------------
step "Queue instances chosen by what they offer" \
    "qselect names the instances that offer arch=lx-amd64 and the PE mpi; qmod -d disables" \
    "them, qstat -f -qs d shows the disabled ones, qmod -e enables them again."
run 'qmod -d $(qselect -l arch=lx-amd64 -pe mpi)'
run "qstat -f -qs d -explain a"
run 'qmod -e $(qselect -l arch=lx-amd64 -pe mpi)'
step "An array job, at most five tasks at once, and a copy of a job" \
    "-tc 5 caps the tasks running together; qresub submits a copy of a job still in the cell."
submit array "qsub -t 1-100 -tc 5 job.sh"
submit copy "qresub $array"
wait_for "tasks of job $array to run" "running $array"
run "qstat -u '*' | head -10"
step "One scheduling run, recorded" "qconf -tsm has the next run write its reasons to a file."
run "qconf -tsm"
wait_for "the scheduler's run log" 'test -s $GRIDD_ROOT/common/schedd_runlog'
run 'head -5 $GRIDD_ROOT/common/schedd_runlog'
run "qdel $array $copy"
step "Suspend, unsuspend, disable" "qmod acts on jobs and on queue instances."
submit paused "qsub -q all.q@node1 -b y sleep 600"
wait_for "job $paused to run" "running $paused"
run "qmod -d all.q@node1"
run "qmod -s $paused"
run "qstat -s s"
run "qmod -us $paused"
run "qmod -e all.q@node1"
step "Run a job again" "qmod -rj kills a rerunnable job (qsub -r y) and puts it back in the queue."
submit again "qsub -r y -b y sleep 600"
wait_for "job $again to run" "running $again"
run "qmod -rj $again"
wait_for "job $again to run again" "[ \"\$(state_of $again)\" = Rr ]"
run "qstat -s r | awk -v j=$again '\$1 == j'"
step "Holds" "An operator hold (-h o) keeps a waiting job from starting until it is released."
submit held "qsub -h -b y true"
run "qhold -h o $held"
run "qstat -j $held | grep -i hold"
run "qrls -h ou $held"
step "The master task on a chosen host" \
    "A 4-slot job of the PE mpi whose master task runs in all.q@node2."
submit mastered "qsub -pe mpi 4 -masterq all.q@node2 -b y sleep 600"
wait_for "job $mastered to run" "running $mastered"
run "qstat -g t | head -10"
run "qstat -g c"
run "qstat -s z | head -6"
step "Usage as a job runs" "execd reports the cpu, memory and io of running jobs."
wait_for "usage of job $mastered" "qstat -j $mastered | grep -q '^usage'"
run "qstat -j $mastered | grep '^usage'"
step "An execution daemon stops; its jobs go on" \
    "qconf -ke ends node3's execd (-kej would kill its jobs too); gridd up starts what is" \
    "not running."
run "qconf -ke node3"
run "gridd up"
run "qdel $paused $again $mastered"
wait_for "jobs to end" "gone $paused && gone $again && gone $mastered"

# --- quotas ----------------------------------------------------------------------------------
step "A resource quota set" "At most four slots per user, whatever they ask for."
cat > limits.rqs <<'EOF'
{
   name         per_user
   enabled      TRUE
   limit        users {*} to slots=4
}
EOF
run "cat limits.rqs"
run "qconf -Arqs limits.rqs"
submit eight "qsub -t 1-8 -b y sleep 600"
wait_for "four tasks of job $eight to run" \
    "[ \$(qstat -s r | awk -v j=$eight '\$1 == j' | wc -l) -eq 4 ]"
run "qquota -u '*'"
run "qquota -xml"
run "qdel $eight"
run "qconf -drqs per_user"

# --- reservation and backfilling -------------------------------------------------------------
step "Reservation" \
    "With max_reservation above 0, a job submitted with -R y that cannot start gets a" \
    "reservation instead of starving; MONITOR=1 writes every run's plan to common/schedule."
run "qconf -ssconf | sed -e 's/^max_reservation .*/max_reservation 10/' -e 's/^params .*/params MONITOR=1/' > s; qconf -Msconf s"
submit busy "qsub -pe mpi 12 -l h_rt=0:10:0 -b y sleep 600"
wait_for "job $busy to run" "running $busy"
submit big "qsub -R y -pe mpi 8 -l h_rt=1:0:0 -b y sleep 60"
wait_for "a reservation for job $big" "qstat -j $big | grep -q 'reserved start'"
run "qstat -j $big | grep 'reserved start'"
run "qalter -R y -p 100 $big"
step "Held array tasks" "hqw tasks; three of them released."
submit tasks "qsub -h -t 1-10 job.sh"
run "qrls $tasks.1-3"
run "qstat -u '*' | awk -v j=$tasks '\$1 == j'"
step "Why jobs are in this order" "Priority, urgency and what each job asked for."
run "qstat -pri"
run "qstat -urg"
run "qstat -r | head -20"
step "A deadline and a start time" \
    "Only members of deadlineusers may give a deadline; -a holds a job until the time given."
run 'qconf -au $(whoami) deadlineusers'
submit deadline 'qsub -dl $(date -d "+2 hours" +%Y%m%d%H%M) -a $(date -d "+1 hour" +%Y%m%d%H%M) job.sh'
run "qstat -j $deadline | grep -E 'deadline|execution_time'"
wait_for "the schedule file" 'test -s $GRIDD_ROOT/common/schedule'
run 'grep RESERVING $GRIDD_ROOT/common/schedule | head -4'
run "qdel $busy $big $tasks $deadline"

# --- simulation ------------------------------------------------------------------------------
step "Replaying a workload" \
    "gridd sim replays a Standard Workload Format trace through the same planner in virtual" \
    "time. This one is made up here: 500 jobs of 1-16 processors on a 100-slot pool."
awk 'BEGIN { srand(29); t = 0
    for (i = 1; i <= 500; i++) {
        t += int(rand() * 900); run = 60 + int(rand() * 7200); p = 1 + int(rand() * 16)
        printf "%d %d -1 %d %d -1 -1 %d %d -1 1 1 1 -1 1 -1 -1 -1\n", i, t, run, p, p, run * 2
    } }' | gzip > trace.swf.gz
run "gridd sim trace.swf.gz --slots 100 --max-reservation 1 --out jobs.csv"
run "head -3 jobs.csv"

# --- advance reservation ---------------------------------------------------------------------
step "An advance reservation" \
    "Four slots of the PE mpi for two hours, starting in an hour; alice may submit into it."
submit ar 'qrsub -a $(date -d "+1 hour" +%Y%m%d%H%M) -d 2:0:0 -pe mpi 4 -u alice'
run "qrstat -u '*'"
run "qrstat -ar $ar"
run "qrstat -xml | head -12"
step "A job inside the reservation" "It waits until the reservation starts."
submit inside "qsub -ar $ar -l h_rt=1:0:0 job.sh"
run "qstat -f"
run "qdel $inside"
run "qrdel $ar"

step "Interactive jobs" \
    "qrsh runs a command on an execution host now, scheduled as any job, its input and" \
    "output here and its exit status qrsh's own; qlogin (or qrsh with no command) opens a" \
    "shell there on a terminal of this one's size (not in this tour: it needs a terminal)."
run "qrsh hostname"
run "echo a b c | qrsh wc -w"
run "qrsh 'exit 3' || echo \"qrsh exited \$?\""

step "The cell's daemons, and stopping them" \
    "gridd down stops the daemons and leaves running jobs to the next gridd up;" \
    "--kill-jobs stops the jobs too."
run "gridd status"
run "gridd down --kill-jobs"
echo
echo "tour: every step did what it said"

#!/bin/bash
# Slurm integration tests: a real single-node cluster on localhost (munged, slurmctld, slurmd started
# here, all state in a temporary directory), jobs that fail the way training runs fail, and the epilog of
# bindings/slurm diagnosing them. Needs root (slurmd runs the Epilog as root; jobs run as 'nobody').
#
# usage: tests/slurm/run_tests.sh [BUILD_DIR]     (default: build; uses BUILD_DIR/faultline)
# KEEP=1 leaves the temporary directory (logs, reports) for inspection.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-build}
[ -x "$build/faultline" ] || { echo "slurm tests: $build/faultline not built" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "slurm tests: must run as root" >&2; exit 2; }
for b in munged slurmctld slurmd sbatch scontrol sinfo; do
  command -v "$b" >/dev/null || { echo "slurm tests: $b not installed (.ci/slurm-tests installs Slurm)" >&2; exit 2; }
done

node=$(hostname -s)
T=$(mktemp -d /tmp/faultline-slurm-test.XXXXXX)
chmod 755 "$T"   # jobs run as nobody and must reach their directory, the munge socket and the config
export SLURM_CONF=$T/slurm.conf
failures=0

# ---- the cluster ----

stop_daemon() {  # pidfile: TERM, wait up to 10 s, then KILL; only the daemons this script started
  local pid
  [ -s "$1" ] || return 0
  pid=$(cat "$1")
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  timeout 10 scancel --quiet --user=nobody 2>/dev/null || true
  stop_daemon "$T/slurmd.pid"
  stop_daemon "$T/slurmctld.pid"
  stop_daemon "$T/slurmdbd.pid"
  stop_daemon "$T/mysql/pid"
  stop_daemon "$T/munge/munged.pid"
  if [ "$rc" != 0 ] || [ "$failures" != 0 ]; then
    echo "--- slurmctld.log (tail)"; tail -n 30 "$T/log/slurmctld.log" 2>/dev/null || true
    echo "--- slurmd.log (tail)"; tail -n 30 "$T/log/slurmd.log" 2>/dev/null || true
    echo "--- slurmdbd.log (tail)"; tail -n 20 "$T/log/slurmdbd.log" 2>/dev/null || true
    echo "--- epilog.log"; cat "$T/log/epilog.log" 2>/dev/null || true
  fi
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$T"/{munge,state,spool,log,bin,textfile,work}
chmod 700 "$T/state" "$T/spool"
chmod 755 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$T/munge/munge.key"
# Its own socket, so that a munged of the machine (Debian starts one) is left alone.
munged --force --socket="$T/munge/socket" --key-file="$T/munge/munge.key" --pid-file="$T/munge/munged.pid" \
  --log-file="$T/munge/munged.log" --seed-file="$T/munge/seed"

# The faultline binary where the job's user can run it (a build tree under /root is not reachable).
install -m 755 "$build/faultline" "$T/bin/faultline"
chown nobody "$T/work"

cat >"$T/epilog" <<EOF
#!/bin/sh
exec "$repo/bindings/slurm/faultline-epilog" --config "$T/epilog.conf"
EOF
chmod 755 "$T/epilog"

# Accounting through slurmdbd and a MariaDB of our own (TCP on localhost, its own port): a finished
# job's AdminComment can only be set there (sacctmgr modify job), and sacct shows it.
accounting=AccountingStorageType=accounting_storage/none
if command -v slurmdbd >/dev/null && command -v mariadbd >/dev/null; then
  mkdir -p "$T/mysql/data"
  mariadb-install-db --no-defaults --datadir="$T/mysql/data" --user=root --auth-root-authentication-method=socket \
    --skip-test-db >"$T/log/mariadb-install.log" 2>&1
  mariadbd --no-defaults --datadir="$T/mysql/data" --user=root --socket="$T/mysql/socket" --port=16306 \
    --bind-address=127.0.0.1 --pid-file="$T/mysql/pid" --log-error="$T/log/mariadb.log" --skip-log-bin \
    >>"$T/log/mariadb.log" 2>&1 &
  for _ in $(seq 150); do [ -S "$T/mysql/socket" ] && break; sleep 0.2; done
  dbpass=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
  mariadb --no-defaults -S "$T/mysql/socket" -u root -e \
    "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$dbpass'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
  cat >"$T/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$T/munge/socket
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=16819
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=16306
StorageUser=slurm
StoragePass=$dbpass
StorageLoc=slurm_acct_db
LogFile=$T/log/slurmdbd.log
PidFile=$T/slurmdbd.pid
EOF
  chmod 600 "$T/slurmdbd.conf"
  slurmdbd   # reads slurmdbd.conf beside $SLURM_CONF
  accounting="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=16819
AccountingStoragePass=$T/munge/socket"
fi

cpus=$(nproc)
[ "$cpus" -ge 4 ] || cpus=4   # jobs run 4 tasks; config_overrides lets slurmd accept more CPUs than cores
cat >"$SLURM_CONF" <<EOF
ClusterName=faultline-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
$accounting
JobCompType=jobcomp/filetxt
JobCompLoc=$T/log/jobcomp.txt
MpiDefault=none
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
Epilog=$T/epilog
PrologEpilogTimeout=60
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
chmod 644 "$SLURM_CONF"

if [ -s "$T/slurmdbd.conf" ]; then
  # The cluster must exist in the database before slurmctld registers; slurmdbd may still be starting.
  dbd_up=$((SECONDS + 60))
  until timeout 10 sacctmgr -i add cluster faultline-test >/dev/null 2>&1 ||
    timeout 10 sacctmgr -n list cluster format=cluster 2>/dev/null | grep -q faultline-test; do
    [ "$SECONDS" -lt "$dbd_up" ] || { echo "slurm tests: slurmdbd did not come up"; exit 1; }
    sleep 0.5
  done
fi
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
up=$((SECONDS + 60))
until [ "$(timeout 10 sinfo -h -n "$node" -o %T 2>/dev/null)" = idle ]; do
  [ "$SECONDS" -lt "$up" ] || { echo "slurm tests: node $node did not come up"; exit 1; }
  sleep 0.2
done

# Test data in a directory the job's user can read.
mkdir -p "$T/data"
cp -r "$repo/tests/golden/multirank/oom-rank5" "$repo/tests/golden/multirank/lagging-rank" \
  "$repo/tests/slurm/data/ib-retry-rank1" "$repo/tests/golden/healthy/torchrun-modded-track3-batch-stdout.log" \
  "$repo/tests/slurm/jobs" "$T/data/"
chmod -R a+rX "$T/data"

# ---- helpers ----

pass() { echo "ok    $*"; }
fail() { echo "FAIL  $*"; failures=$((failures + 1)); }
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

# Epilog settings for the next job (the epilog reads them when it runs).
configure() {
  cat >"$T/epilog.conf" <<EOF
FAULTLINE_BIN=$T/bin/faultline
FAULTLINE_TEXTFILE_DIR=$T/textfile
FAULTLINE_METRIC_KEEP=3
FAULTLINE_LOG=$T/log/epilog.log
FAULTLINE_EXTRA_LOGS='%w/logs/%j/*.log'
EOF
  [ -s "$T/slurmdbd.conf" ] && echo FAULTLINE_ADMIN_COMMENT=sacctmgr >>"$T/epilog.conf"
  local kv
  for kv in "$@"; do echo "$kv" >>"$T/epilog.conf"; done
}

submit() {  # submit SCRIPT CASE [sbatch options...]: prints the job id
  local script=$1 case=$2
  shift 2
  sbatch --parsable --uid=nobody --gid="$(id -g nobody)" --chdir="$T/work" --export="ALL,CASE=$T/data/$case" "$@" \
    "$T/data/jobs/$script"
}

# Waits until the job has ended and its epilog has run, at most 180 s: slurmctld shows COMPLETING
# until every node's epilog is done; a job the epilog requeued is PENDING again with Restarts=1.
wait_job() {
  local show deadline=$((SECONDS + 180))
  while [ "$SECONDS" -lt "$deadline" ]; do
    show=$(timeout 10 scontrol show job "$1" 2>/dev/null)
    case $show in
      *JobState=COMPLETING* | *JobState=RUNNING* | *JobState=CONFIGURING* | '') ;;
      *JobState=PENDING*Restarts=[1-9]*) return 0 ;;
      *JobState=PENDING*) ;;
      *) return 0 ;;
    esac
    sleep 0.2
  done
  echo "job $1 did not finish: $(scontrol show job "$1" | head -n 5)"
  return 1
}

node_up() {  # the epilog never drains the node
  local state deadline=$((SECONDS + 10))
  while [ "$SECONDS" -lt "$deadline" ]; do
    state=$(timeout 10 sinfo -h -n "$node" -o %T)
    [ "$state" = idle ] && return 0
    sleep 0.2
  done
  echo "node $node is $state: $(scontrol show node "$node" | grep -E 'State=|Reason=')"
  return 1
}

json() {  # json FILE EXPR: prints a field of the report (python3 is part of the CI image)
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"r": r}))' "$1" "$2"
}

metric_line() { grep "^faultline_job_failure{job_id=\"$1\"," "$T/textfile/faultline.prom"; }

# Diagnosed failed job: report, summary and metric, owned by the job's user, naming the expected root.
# HOST "name?" accepts that host or none, never another: in one srun-labeled stream the host of rank 5
# comes only from torchrun's root-cause block of its node, and faultline keeps it or not depending on
# which node's block is printed last (an order srun does not fix).
expect_diagnosis() {  # JOB VERDICT ID TYPE RANK HOST ACTION
  local job=$1 verdict=$2 id=$3 type=$4 rank=$5 host=$6 action=$7 report summary metric got
  report=$T/work/faultline-$job.json
  summary=$T/work/faultline-$job.summary
  check "job $job: report beside the output" test -s "$report"
  check "job $job: summary beside the output" test -s "$summary"
  [ -s "$report" ] && [ -s "$summary" ] || return 0
  check "job $job: report and summary belong to the job's user" \
    test "$(stat -c %U "$report")" = nobody -a "$(stat -c %U "$summary")" = nobody
  check "job $job: verdict $verdict" test "$(json "$report" 'r["verdict"]')" = "$verdict"
  check "job $job: root cause $id" test "$(json "$report" 'r["root"]["id"]')" = "$id"
  check "job $job: type $type" test "$(json "$report" 'r["root"]["type"]')" = "$type"
  check "job $job: initiating rank $rank" test "$(json "$report" 'r["root"]["rank"]')" = "$rank"
  check "job $job: action $action" test "$(json "$report" 'r["action"]["name"]')" = "$action"
  got=$(json "$report" 'r["root"]["host"] or ""')
  case $host in
    *\?) check "job $job: host ${host%\?} or none (got '$got')" test "$got" = "${host%\?}" -o -z "$got" ;;
    *) check "job $job: host '$host'" test "$got" = "$host" ;;
  esac
  check "job $job: summary is one line of at most 1 KiB" test "$(wc -l <"$summary")" = 1 -a "$(wc -c <"$summary")" -le 1024
  check "job $job: summary names root, rank, host and action" \
    grep -q "^faultline: $verdict: $id ($type) on rank $rank${got:+ host $got}; action $action" "$summary"
  if [ -s "$T/slurmdbd.conf" ]; then
    # sacctmgr of Slurm 22.05 stores the value lowercased, with ' turned into `. --duplicates: a
    # requeued job has a record per run, the comment is on the run that failed.
    check "job $job: sacct shows the summary as AdminComment" \
      grep -qFx -- "$(tr "A-Z'" 'a-z`' <"$summary")" <<<"$(timeout 10 sacct -D -n -P -X -j "$job" -o AdminComment)"
  fi
  metric=$(metric_line "$job" || true)
  check "job $job: metric line" test -n "$metric"
  check "job $job: metric labels" grep -q "root_cause=\"$id\",type=\"$type\",rank=\"$rank\",host=\"$got\",action=\"$action\"" <<<"$metric"
}

# Seconds from the job's end to its summary: the epilog's time, as a bound.
epilog_seconds() {
  local end
  end=$(date -d "$(scontrol show job "$1" | sed -n 's/.*EndTime=\([^ ]*\).*/\1/p')" +%s)
  echo $(($(stat -c %Y "$T/work/faultline-$1.summary") - end))
}

# ---- the tests ----

echo "slurm tests: cluster on $node ($(slurmctld -V)), work in $T"
[ -s "$T/slurmdbd.conf" ] || echo "SKIP  AdminComment through slurmdbd: slurmdbd or mariadb-server not installed"

# 1. Two nodes' torchrun logs through srun --label; %x in --output/--error (expanded by slurmctld).
configure
job=$(submit two-nodes-label.sbatch oom-rank5 --job-name=oom)
wait_job "$job"
expect_diagnosis "$job" failure cuda-out-of-memory cuda_oom 5 node-b? fix-config
check "job $job: advice not to resubmit unchanged" grep -q "slurm: do not resubmit unchanged" "$T/work/faultline-$job.summary"
if [ "${VERBOSE:-0}" = 1 ]; then  # what an admin or the user sees (the README shows it)
  timeout 10 scontrol show job "$job"
  cat "$T/work/faultline-$job.summary"
  [ -s "$T/slurmdbd.conf" ] && timeout 10 sacct -X -j "$job" -o JobID,JobName,State,ExitCode,AdminComment%200
  metric_line "$job"
fi
check "node stays up after job $job" node_up

# 2. Per-rank files (srun --output=logs/%j/rank%t.log) found through FAULTLINE_EXTRA_LOGS; the cause
#    is not in any log: rank 2 never reached the collective the others timed out on.
configure
echo "root's file" >"$T/victim"
job=$(submit per-rank-files.sbatch lagging-rank --export="ALL,CASE=$T/data/lagging-rank,VICTIM=$T/victim")
wait_job "$job"
check "job $job: a planted symlink is replaced, not written through" \
  test ! -L "$T/work/faultline-$job.json" -a "$(cat "$T/victim")" = "root's file"
expect_diagnosis "$job" inconclusive nccl-watchdog-timeout nccl_timeout 2 "" investigate
check "job $job: the report says rank 2's log holds the cause" \
  grep -q "rank 2" <<<"$(json "$T/work/faultline-$job.json" 'r["missing_evidence"]')"
check "job $job: StdOut and the four rank files were read, not the link to /etc/shadow" \
  test "$(json "$T/work/faultline-$job.json" 'sorted(s["name"].rsplit("/", 1)[1] for s in r["inputs"]["sources"])')" = \
  "['rank0.log', 'rank1.log', 'rank2.log', 'rank3.log', 'slurm-$job.out']"
check "node stays up after job $job" node_up

# 3. A node fault: exclude-node-and-retry, with the opt-in requeue excluding the faulty node.
configure FAULTLINE_REQUEUE=on
job=$(submit ranks-label-host.sbatch ib-retry-rank1)
wait_job "$job"
expect_diagnosis "$job" failure nccl-ib-transport-retry-exceeded nccl_ib_error 1 "$node" exclude-node-and-retry
check "job $job: advice to exclude $node" grep -q -- "--exclude=$node" "$T/work/faultline-$job.summary"
show=$(scontrol show job "$job")
check "job $job: requeued (PENDING, Restarts=1)" grep -q "JobState=PENDING" <<<"$show"
check "job $job: requeued once" grep -q "Restarts=1" <<<"$show"
check "job $job: requeued excluding $node" grep -q "ExcNodeList=$node" <<<"$show"
scancel "$job"
check "node stays up after job $job" node_up

# 3b. The same with --no-requeue: slurmctld refuses the requeue, the job stays FAILED.
configure FAULTLINE_REQUEUE=on
job=$(submit ranks-label-host.sbatch ib-retry-rank1 --no-requeue)
wait_job "$job"
check "job $job (--no-requeue): diagnosed" test -s "$T/work/faultline-$job.summary"
check "job $job (--no-requeue): not requeued" grep -q "JobState=FAILED" <<<"$(timeout 10 scontrol show job "$job")"
check "job $job (--no-requeue): the epilog logged the refusal" grep -q "job $job\]: requeue with ExcNodeList=$node failed" "$T/log/epilog.log"
check "node stays up after job $job" node_up

# 4. A successful job gets nothing.
configure
job=$(submit success.sbatch torchrun-modded-track3-batch-stdout.log)
wait_job "$job"
check "job $job: succeeded" grep -q "JobState=COMPLETED" <<<"$(scontrol show job "$job")"
check "job $job: no report, no summary" test ! -e "$T/work/faultline-$job.json" -a ! -e "$T/work/faultline-$job.summary"
check "job $job: no metric line" test -z "$(metric_line "$job" || true)"
check "node stays up after job $job" node_up

# 5. Time bound: a 64 GiB log (sparse) cannot be read in the first pass's 4 s; the epilog answers from
#    the last 16 MiB within its 6 s budget, says so, and the node stays up.
configure FAULTLINE_TIMEOUT=6 FAULTLINE_MAX_BYTES=0
job=$(submit huge-log.sbatch oom-rank5 --export="ALL,CASE=$T/data/oom-rank5,HUGE=64G")
wait_job "$job"
expect_diagnosis "$job" failure cuda-out-of-memory cuda_oom 5 node-b? fix-config
check "job $job: the summary says the answer is partial (timed out)" grep -q "partial: timed out after 4s" "$T/work/faultline-$job.summary"
check "job $job: metric marks it partial" grep -q 'partial="true"' <<<"$(metric_line "$job")"
secs=$(epilog_seconds "$job")
check "job $job: epilog within its time bound ($secs s <= 6 s + 3 s scheduling slack)" test "$secs" -le 9
check "node stays up after job $job" node_up

# 6. Size bound: with FAULTLINE_MAX_BYTES, only the end of a huge log is read, in well under the budget.
configure FAULTLINE_TIMEOUT=60 FAULTLINE_MAX_BYTES=8388608
job=$(submit huge-log.sbatch oom-rank5 --export="ALL,CASE=$T/data/oom-rank5,HUGE=64G")
wait_job "$job"
expect_diagnosis "$job" failure cuda-out-of-memory cuda_oom 5 node-b? fix-config
check "job $job: the summary names the file read in part" grep -q "partial: read the last 8 MiB of huge-$job.out" "$T/work/faultline-$job.summary"
secs=$(epilog_seconds "$job")
check "job $job: epilog fast on the capped log ($secs s <= 10 s)" test "$secs" -le 10
check "node stays up after job $job" node_up

# 6b. A first pass that fails for another reason than time (here: a memory limit it cannot start under)
#     is followed by the tail pass too, and the summary says why the answer is partial.
# (The first call of the wrapper, made as the job's user, leaves a mark in the job's directory.)
printf '#!/bin/sh\n[ -e %s ] || { : >%s; ulimit -v 16384; }\nexec %s "$@"\n' "$T/work/first-pass-ran" "$T/work/first-pass-ran" \
  "$T/bin/faultline" >"$T/bin/faultline-lowmem"
chmod 755 "$T/bin/faultline-lowmem"
configure FAULTLINE_BIN="$T/bin/faultline-lowmem"
job=$(submit huge-log.sbatch oom-rank5 --export="ALL,CASE=$T/data/oom-rank5,HUGE=1G")
wait_job "$job"
expect_diagnosis "$job" failure cuda-out-of-memory cuda_oom 5 node-b? fix-config
check "job $job: the summary says the first pass failed and the tail was read" grep -Eq "partial: (failed \(status [0-9]+\)|was killed[^;]*); diagnosed the last 16 MiB" "$T/work/faultline-$job.summary"
check "node stays up after job $job" node_up

# 7. A broken installation (no faultline binary) must not drain the node either.
configure FAULTLINE_BIN=/nonexistent/faultline
job=$(submit two-nodes-label.sbatch oom-rank5 --job-name=broken)
wait_job "$job"
check "job $job: no report without faultline" test ! -e "$T/work/faultline-$job.json"
check "job $job: the epilog logged why" grep -q "job $job\]: /nonexistent/faultline is not executable" "$T/log/epilog.log"
check "node stays up after job $job" node_up

# The metric file: HELP/TYPE once, bounded to the last FAULTLINE_METRIC_KEEP=3 diagnosed jobs.
prom=$T/textfile/faultline.prom
check "metrics: HELP and TYPE lines" test "$(grep -c '^# HELP faultline_job_failure ' "$prom")" = 1 -a "$(grep -c '^# TYPE faultline_job_failure gauge' "$prom")" = 1
check "metrics: the last 3 failed jobs only" test "$(grep -c '^faultline_job_failure{' "$prom")" = 3
check "metrics: no temporary file left" test -z "$(find "$T/textfile" -name '.faultline.prom.??????')"
check "node never drained" test -z "$(sinfo -h -R)"

if [ "$failures" != 0 ]; then
  echo "slurm tests: $failures failed"
  exit 1
fi
echo "slurm tests: all passed"

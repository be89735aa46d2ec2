#!/usr/bin/env bash
# The test phases of `make test` (after the build and the test stack), each timed, a summary at the end.
#
#   1. At the same time: the integration files that run TEST_WORKERS at a time (each in its own world, built to
#      share the CPU), the unit project (pure logic, no I/O, no clock), the browser project (one file, its own
#      world and devnet) and the outage files one at a time (test/integration/outages/, each with private
#      infrastructure, mostly waiting out its outage: about a third of a core). Unit, browser and outages print
#      their output when they end, so the integration output stays readable.
#   2. Afterwards, the other integration files timed too tightly to share the CPU with phase 1 (SERIAL_TESTS,
#      Makefile: the crash tests), TEST_SERIAL_WORKERS at a time (2: the two cores; each spends more than half its
#      wall time waiting on restarts and the chain, so one at a time left a core idle).
#   3. The files that must run alone (ALONE_TESTS, Makefile: webhooks delivery, recovery/restore), one at a time.
#
# Why this shape: every integration file waits far more than it computes (the CPU table at the end: phase 1's
# files use about a fifth of their wall time as CPU of their own), so a phase's wall time is its files' summed
# wall time over its lanes; one crash test at a time, and an outage lane that ran as long again, left the cores
# mostly idle through phase 2. (More phase-1 workers did not help: on the shared machine the files then only took
# longer each, their wait being on the shared stack and the run queue.)
#
# TEST_OUTAGES=serial runs the outage files beside the serial files (phase 2) instead, TEST_OUTAGES=after after
# them; TEST_BROWSER=after runs the browser project alone at the end. Each is for a machine where phase 1 proves
# too crowded for them.
#
# Each phase's slowest files are printed at the end (jest --json; TEST_SLOWEST of them, 8 unless set) with their
# CPU (load, run, children: .ci/slowest-files.js), the wall time of their beforeAll hooks, tests and afterAll hooks
# (setup, cases, teardown), the load average and how busy the machine's cores were in each phase: the CI budget.
#
# TEST_OUTAGE_WORKERS (1 unless set) runs the outage files that many at a time (each has its own ports and private
# infrastructure); TEST_PHASES=1 stops after phase 1 and its table (for comparing lane settings back to back).
#
# Every phase runs even when an earlier one failed (a CI run then names every failure, not only the first);
# the exit status is 1 when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${TEST_WORKERS:=2}" "${TEST_SERIAL_WORKERS:=2}" "${TEST_OUTAGE_WORKERS:=1}" "${TEST_BROWSER:=beside}" "${TEST_OUTAGES:=phase-1}"
: "${TEST_SLOWEST:=8}" "${TEST_PHASES:=all}"
: "${SERIAL_TESTS:?SERIAL_TESTS (a jest path pattern) comes from the Makefile}"
: "${ALONE_TESTS:?ALONE_TESTS (a jest path pattern) comes from the Makefile}"

logs=$(mktemp -d "${TMPDIR:-/tmp}/test-phases.XXXXXX")
# Each file's CPU (test/support/cpu-environment.js), for the table at the end.
export TEST_CPU_DIR="$logs/cpu"
mkdir -p "$TEST_CPU_DIR"
jest() { infra/env/load.sh test -- npx jest --ci "$@"; }
summary=()
failed=0

# finish NAME RC SECONDS: one summary line.
finish() {
  local verdict=ok
  if [[ "$2" != 0 ]]; then verdict="FAILED (exit $2)"; failed=1; fi
  summary+=("$(printf '%-12s %5d s  %s' "$1" "$3" "$verdict")")
}

# background NAME CMD...: runs CMD with its output in $logs/NAME.log; $logs/NAME.rc holds "exit-code seconds".
background() {
  local name=$1
  shift
  (
    start=$SECONDS
    "$@" >"$logs/$name.log" 2>&1
    echo "$? $((SECONDS - start))" >"$logs/$name.rc"
  ) &
}

# collect NAME PID [BESIDE]: waits for a background phase, prints its output and its summary line.
collect() {
  wait "$2" 2>/dev/null
  local rc=1 took=0
  [[ -f "$logs/$1.rc" ]] && read -r rc took <"$logs/$1.rc"
  echo "=================== $1 (ran beside ${3:-the integration files}) ==================="
  cat "$logs/$1.log"
  finish "$1" "$rc" "$took"
}

# The load average, for the summary: figures from a loaded machine read relative.
load() { cut -d' ' -f1-3 /proc/loadavg; }
# The machine's CPU time (every process, the stack's daemons included: `time` of the run does not count them,
# they are not its children): "busy idle" jiffies from /proc/stat; busy SINCE prints the share of all cores busy
# since that reading. Whether a phase left cores idle (more lanes could help) or ran them full (only less CPU can).
cpu_now() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
busy() {
  local b0 i0 b1 i1
  read -r b0 i0 <<<"$1"
  read -r b1 i1 <<<"$(cpu_now)"
  awk -v b="$((b1 - b0))" -v i="$((i1 - i0))" -v n="$(nproc)" 'BEGIN { printf "cores %d%% busy of %d", (b + i) ? 100 * b / (b + i) : 0, n }'
}

started=$SECONDS
load_start=$(load)
cpu_start=$(cpu_now)
background unit jest --selectProjects unit
unit_pid=$!
browser() { infra/browser/ensure-chromium.sh && jest --selectProjects browser --runInBand --forceExit; }
if [[ "$TEST_BROWSER" == beside ]]; then
  background browser browser
  browser_pid=$!
fi

outages() {
  local lanes=(--runInBand)
  (( TEST_OUTAGE_WORKERS > 1 )) && lanes=(--maxWorkers="$TEST_OUTAGE_WORKERS")
  jest --json --outputFile="$logs/outages.json" --selectProjects integration "${lanes[@]}" --forceExit --testPathPattern '/outages/'
}
if [[ "$TEST_OUTAGES" == phase-1 ]]; then
  background outages outages
  outages_pid=$!
fi

start=$SECONDS
jest --json --outputFile="$logs/phase-1.json" --selectProjects integration --maxWorkers="$TEST_WORKERS" --forceExit \
  --testPathIgnorePatterns "$SERIAL_TESTS|$ALONE_TESTS|/outages/"
finish integration $? $((SECONDS - start))
collect unit "$unit_pid"
[[ "$TEST_BROWSER" == beside ]] && collect browser "$browser_pid"
[[ "$TEST_OUTAGES" == phase-1 ]] && collect outages "$outages_pid"
summary+=("$(printf '%-12s %5d s  (wall time of phase 1; %s)' 'phase 1' $((SECONDS - started)) "$(busy "$cpu_start")")")
if [[ "$TEST_PHASES" == 1 ]]; then
  echo "=================== slowest files (phase 1 only: TEST_PHASES=1) ==================="
  node .ci/slowest-files.js "$TEST_SLOWEST" --cpu "$TEST_CPU_DIR" "$logs/phase-1.json" "$logs/outages.json"
  rm -rf "$logs"
  echo "=================== phase 1 (load average: $load_start at the start, $(load) now) ==================="
  printf '%s\n' "${summary[@]}"
  exit "$failed"
fi

load_serial=$(load)
cpu_serial=$(cpu_now)
phase2=$SECONDS
if [[ "$TEST_OUTAGES" == serial ]]; then
  background outages outages
  outages_pid=$!
fi
start=$SECONDS
jest --json --outputFile="$logs/serial.json" --selectProjects integration --maxWorkers="$TEST_SERIAL_WORKERS" --forceExit \
  --testPathPattern "$SERIAL_TESTS" --testPathIgnorePatterns "$ALONE_TESTS|/outages/"
finish serial $? $((SECONDS - start))
if [[ "$TEST_OUTAGES" == serial ]]; then
  collect outages "$outages_pid" 'the serial files'
elif [[ "$TEST_OUTAGES" == after ]]; then
  start=$SECONDS
  outages
  finish outages $? $((SECONDS - start))
fi
summary+=("$(printf '%-12s %5d s  (wall time of phase 2; %s)' 'phase 2' $((SECONDS - phase2)) "$(busy "$cpu_serial")")")

start=$SECONDS
jest --json --outputFile="$logs/alone.json" --selectProjects integration --runInBand --forceExit --testPathPattern "$ALONE_TESTS"
finish alone $? $((SECONDS - start))
if [[ "$TEST_BROWSER" != beside ]]; then
  start=$SECONDS
  browser
  finish browser $? $((SECONDS - start))
fi

echo "=================== slowest files (budget: .ci/run within 6 minutes) ==================="
node .ci/slowest-files.js "$TEST_SLOWEST" --cpu "$TEST_CPU_DIR" "$logs/phase-1.json" "$logs/outages.json" "$logs/serial.json" "$logs/alone.json"
rm -rf "$logs"
echo "=================== test phases (load average: $load_start at the start, $load_serial at phase 2, $(load) now) ==================="
summary+=("$(printf '%-12s %5d s  (wall time of the test phases; %s)' 'all' $((SECONDS - started)) "$(busy "$cpu_start")")")
printf '%s\n' "${summary[@]}"
exit "$failed"

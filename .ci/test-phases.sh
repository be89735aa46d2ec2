#!/usr/bin/env bash
# The test phases of `make test` (after the build and the test stack), each timed, a summary at the end.
#
#   1. At the same time: the integration files that run TEST_WORKERS at a time (each in its own world, built to
#      share the CPU), the unit project (pure logic, no I/O, no clock) and the browser project (one file, its own
#      world and devnet). Unit and browser print their output when they end, so the integration output stays
#      readable. Before, the three ran one after the other.
#   2. Afterwards, the integration files timed too tightly to share the CPU with phase 1 (SERIAL_TESTS,
#      Makefile), one at a time, in two lanes side by side: the outage files (test/integration/outages/, each
#      with private infrastructure, mostly waiting out its outage: about a third of a core) and the others (the
#      crash tests, webhooks delivery, restore). Before, the outage files ran after the others, and the machine
#      sat mostly idle through them. TEST_OUTAGES=after runs them after the others again.
#
# Each phase's slowest files are printed at the end (jest --json), with the load average: the CI budget.
#
# TEST_BROWSER=after runs the browser project alone at the end instead (as before), should it prove too slow
# beside the integration files on some machine.
#
# Every phase runs even when an earlier one failed (a CI run then names every failure, not only the first);
# the exit status is 1 when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${TEST_WORKERS:=2}" "${TEST_BROWSER:=beside}" "${TEST_OUTAGES:=beside}"
: "${SERIAL_TESTS:?SERIAL_TESTS (a jest path pattern) comes from the Makefile}"

logs=$(mktemp -d "${TMPDIR:-/tmp}/test-phases.XXXXXX")
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

started=$SECONDS
load_start=$(load)
background unit jest --selectProjects unit
unit_pid=$!
browser() { infra/browser/ensure-chromium.sh && jest --selectProjects browser --runInBand --forceExit; }
if [[ "$TEST_BROWSER" == beside ]]; then
  background browser browser
  browser_pid=$!
fi

start=$SECONDS
jest --json --outputFile="$logs/phase-1.json" --selectProjects integration --maxWorkers="$TEST_WORKERS" --forceExit \
  --testPathIgnorePatterns "$SERIAL_TESTS|/outages/"
finish integration $? $((SECONDS - start))
collect unit "$unit_pid"
[[ "$TEST_BROWSER" == beside ]] && collect browser "$browser_pid"
summary+=("$(printf '%-12s %5d s  (wall time of phase 1)' 'phase 1' $((SECONDS - started)))")

load_serial=$(load)
phase2=$SECONDS
start=$SECONDS
outages() { jest --json --outputFile="$logs/outages.json" --selectProjects integration --runInBand --forceExit --testPathPattern '/outages/'; }
if [[ "$TEST_OUTAGES" == beside ]]; then
  background outages outages
  outages_pid=$!
fi
jest --json --outputFile="$logs/serial.json" --selectProjects integration --runInBand --forceExit --testPathPattern "$SERIAL_TESTS" \
  --testPathIgnorePatterns '/outages/'
finish serial $? $((SECONDS - start))
if [[ "$TEST_OUTAGES" == beside ]]; then
  collect outages "$outages_pid" 'the serial files'
else
  start=$SECONDS
  outages
  finish outages $? $((SECONDS - start))
fi
summary+=("$(printf '%-12s %5d s  (wall time of phase 2)' 'phase 2' $((SECONDS - phase2)))")
if [[ "$TEST_BROWSER" != beside ]]; then
  start=$SECONDS
  browser
  finish browser $? $((SECONDS - start))
fi

echo "=================== slowest files (budget: .ci/run within 6 minutes) ==================="
node .ci/slowest-files.js 8 "$logs/phase-1.json" "$logs/serial.json" "$logs/outages.json"
rm -rf "$logs"
echo "=================== test phases (load average: $load_start at the start, $load_serial at phase 2, $(load) now) ==================="
printf '%s\n' "${summary[@]}"
exit "$failed"

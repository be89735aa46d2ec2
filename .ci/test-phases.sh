#!/usr/bin/env bash
# The test phases of `make test` (after the build and the test stack), each timed, a summary at the end.
#
#   1. At the same time: the integration files that run TEST_WORKERS at a time (each in its own world, built to
#      share the CPU), the unit project (pure logic, no I/O, no clock) and the browser project (one file, its own
#      world and devnet). Unit and browser print their output when they end, so the integration output stays
#      readable. Before, the three ran one after the other.
#   2. Alone afterwards: the integration files timed too tightly to share the CPU (SERIAL_TESTS, Makefile).
#
# TEST_BROWSER=after runs the browser project alone at the end instead (as before), should it prove too slow
# beside the integration files on some machine.
#
# Every phase runs even when an earlier one failed (a CI run then names every failure, not only the first);
# the exit status is 1 when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${TEST_WORKERS:=2}" "${TEST_BROWSER:=beside}"
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

# collect NAME PID: waits for a background phase, prints its output and its summary line.
collect() {
  wait "$2" 2>/dev/null
  local rc=1 took=0
  [[ -f "$logs/$1.rc" ]] && read -r rc took <"$logs/$1.rc"
  echo "=================== $1 (ran beside the integration files) ==================="
  cat "$logs/$1.log"
  finish "$1" "$rc" "$took"
}

started=$SECONDS
background unit jest --selectProjects unit
unit_pid=$!
browser() { infra/browser/ensure-chromium.sh && jest --selectProjects browser --runInBand --forceExit; }
if [[ "$TEST_BROWSER" == beside ]]; then
  background browser browser
  browser_pid=$!
fi

start=$SECONDS
jest --selectProjects integration --maxWorkers="$TEST_WORKERS" --forceExit --testPathIgnorePatterns "$SERIAL_TESTS|/outages/"
finish integration $? $((SECONDS - start))
collect unit "$unit_pid"
[[ "$TEST_BROWSER" == beside ]] && collect browser "$browser_pid"
summary+=("$(printf '%-12s %5d s  (wall time of phase 1)' 'phase 1' $((SECONDS - started)))")

start=$SECONDS
jest --selectProjects integration --runInBand --forceExit --testPathPattern "$SERIAL_TESTS"
finish serial $? $((SECONDS - start))
if [[ "$TEST_BROWSER" != beside ]]; then
  start=$SECONDS
  browser
  finish browser $? $((SECONDS - start))
fi

rm -rf "$logs"
echo "=================== test phases (load average now: $(cut -d' ' -f1-3 /proc/loadavg)) ==================="
printf '%s\n' "${summary[@]}"
exit "$failed"

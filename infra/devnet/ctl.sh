#!/usr/bin/env bash
# Runs the devnet in the background: infra/devnet/ctl.sh {start|stop|status|reset}
# Settings come from the DEVNET_* variables (see infra/devnet/README.md); STACK_DIR (default
# <repo>/.stack) holds the pid file, the log and, unless DEVNET_DATA_DIR says otherwise, the chain.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STACK_DIR=${STACK_DIR:-$ROOT/.stack}
PORT=${DEVNET_PORT:-8090}
PID_FILE=$STACK_DIR/devnet-$PORT.pid
LOG_FILE=$STACK_DIR/logs/devnet-$PORT.log
URL=http://127.0.0.1:$PORT
export DEVNET_PORT=$PORT
export DEVNET_DATA_DIR=${DEVNET_DATA_DIR:-$STACK_DIR/devnet-data}
START_TIMEOUT_S=60

running() {
  [[ -f $PID_FILE ]] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null
}

answering() {
  curl -sf -o /dev/null --max-time 2 "$URL/admin/accounts"
}

# The compiled entry when it is at least as new as every source file, else the sources via tsx.
command_line() {
  local built=$ROOT/dist/infra/devnet/src/main.js
  if [[ -f $built ]] && [[ -z $(find "$ROOT/infra/devnet/src" -name '*.ts' -newer "$built" -print -quit) ]]; then
    echo "node $built"
  else
    echo "node --require tsx/cjs $ROOT/infra/devnet/src/main.ts"
  fi
}

start() {
  if running; then
    echo "devnet already running at $URL (pid $(cat "$PID_FILE"))"
    return 0
  fi
  # Another checkout's devnet on the same port (a second clone, CI on a developer's machine): use it
  # rather than start one that would die on the taken port while the old one answers for it.
  if answering; then
    # Not under `make up` (the local profile): there the other checkout's chain is not this one's.
    ( source "$ROOT/infra/env/lib.sh" && refuse_foreign devnet "$PORT" DEVNET_PORT )
    echo "devnet already answering at $URL (started elsewhere); using it"
    return 0
  fi
  mkdir -p "$STACK_DIR/logs"
  cd "$ROOT"
  # shellcheck disable=SC2046
  nohup $(command_line) >>"$LOG_FILE" 2>&1 &
  echo $! >"$PID_FILE"
  local deadline=$((SECONDS + START_TIMEOUT_S))
  until answering; do
    if ! running; then
      echo "devnet exited during start; last log lines:" >&2
      tail -n 20 "$LOG_FILE" >&2
      rm -f "$PID_FILE"
      return 1
    fi
    if ((SECONDS >= deadline)); then
      echo "devnet did not answer within ${START_TIMEOUT_S}s; see $LOG_FILE" >&2
      return 1
    fi
    sleep 0.3
  done
  echo "devnet running at $URL (pid $(cat "$PID_FILE"), log $LOG_FILE)"
}

stop() {
  if ! running; then
    rm -f "$PID_FILE"
    echo "devnet not running"
    return 0
  fi
  local pid
  pid=$(cat "$PID_FILE")
  kill "$pid"
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "devnet did not stop in 10 s; killing it" >&2
    kill -9 "$pid"
  fi
  rm -f "$PID_FILE"
  echo "devnet stopped"
}

status() {
  if running && answering; then
    echo "devnet running at $URL (pid $(cat "$PID_FILE"))"
  elif running; then
    echo "devnet process $(cat "$PID_FILE") is up but not answering at $URL"
    return 1
  else
    echo "devnet stopped"
    return 3
  fi
}

reset() {
  stop
  rm -rf "$DEVNET_DATA_DIR"
  echo "devnet data removed: $DEVNET_DATA_DIR"
  start
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  reset) reset ;;
  *)
    echo "usage: $0 {start|stop|status|reset}" >&2
    exit 2
    ;;
esac

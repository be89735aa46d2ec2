#!/usr/bin/env bash
# The service itself (every role in one process) in the background, on the stack's ports.
#
#   infra/service/ctl.sh start|stop|status
#
# start: runs `node dist/services/main.js --roles all` (build first: make build), waits until GET /readyz
# answers 200, then prints where everything listens. Idempotent: a running service is left alone.
# Env: API_HOST (127.0.0.1), API_PORT (3000), STACK_DIR, SERVICE_START_TIMEOUT (s, default 120), and
# everything the service reads (see services/platform/config.ts), passed through as it is.
set -euo pipefail

# shellcheck source=infra/env/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../env/lib.sh"

PART=service
resolve_stack_dir
# The pinned Node (infra/node/version); a no-op when make already put it on PATH.
NODE_BIN="$("$REPO_ROOT/infra/node/ensure.sh")"
[[ -n "$NODE_BIN" ]] && export PATH="$NODE_BIN:$PATH"
HOST="${API_HOST:-127.0.0.1}"
PORT="${API_PORT:-3000}"
# API processes sharing the port (node cluster); the other roles run once, in the primary.
export API_WORKERS="${API_WORKERS:-2}"
PIDFILE="$STACK_DIR/service-$PORT.pid"
LOGFILE="$STACK_DIR/logs/service-$PORT.log"
ENTRY="$REPO_ROOT/dist/services/main.js"
START_TIMEOUT="${SERVICE_START_TIMEOUT:-120}"

running_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid
  pid="$(cat "$PIDFILE")"
  # The command line names our entry point: a recycled pid is not ours.
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "dist/services/main.js"; then
    echo "$pid"
  else
    return 1
  fi
}

ready() { curl -fsS -m 3 "http://$HOST:$PORT/readyz" >/dev/null 2>&1; }

print_urls() {
  cat <<EOT
API            http://$HOST:$PORT/v1   (OpenAPI: http://$HOST:$PORT/v1/openapi.json)
Health         http://$HOST:$PORT/healthz  http://$HOST:$PORT/readyz  http://$HOST:$PORT/metrics
Devnet         ${TRON_FULL_HOST:-http://127.0.0.1:8090}   (wallets: ${TRON_FULL_HOST:-http://127.0.0.1:8090}/admin/accounts)
Kafka          ${KAFKA_BROKERS:-127.0.0.1:9092}
Registry       ${SCHEMA_REGISTRY_URL:-http://127.0.0.1:8081/apis/ccompat/v7}
PostgreSQL     ${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/energy_${NETWORK:-nile}}
Redis          ${REDIS_URL:-redis://127.0.0.1:6379/0}
Service log    $LOGFILE
Ops tool       ./bin/ops --help
EOT
}

start() {
  if pid="$(running_pid)"; then
    log $PART "already running (pid $pid)"
    print_urls
    return 0
  fi
  [[ -f "$ENTRY" ]] || die $PART "$ENTRY not found: run 'make build' first"
  # Something already answers on our port and it is not our pid: never wait for its /readyz as if it were ours.
  if port_open "$HOST" "$PORT"; then
    refuse_foreign $PART "$PORT" API_PORT
    die $PART "port $PORT is taken by another process: stop it, or choose another port: API_PORT=$((PORT + 100)) make up"
  fi
  log $PART "starting on $HOST:$PORT, log in $LOGFILE"
  local started
  started="$(now_ms)"
  nohup node --enable-source-maps "$ENTRY" --roles all >>"$LOGFILE" 2>&1 &
  echo $! >"$PIDFILE"
  local pid=$!
  # Ready means our process is alive and the port answers (the check above: nobody else held the port).
  until kill -0 "$pid" 2>/dev/null && ready; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 30 "$LOGFILE" >&2
      die $PART "exited during start-up (log above)"
    fi
    if (( $(now_ms) - started > START_TIMEOUT * 1000 )); then
      tail -n 30 "$LOGFILE" >&2
      die $PART "not ready after ${START_TIMEOUT}s"
    fi
    sleep 0.5
  done
  log $PART "ready in $(( $(now_ms) - started ))ms (pid $pid)"
  print_urls
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then
    log $PART "not running"
    rm -f "$PIDFILE"
    return 0
  fi
  kill -TERM "$pid"
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  rm -f "$PIDFILE"
  log $PART "stopped"
}

status() {
  if pid="$(running_pid)"; then
    if ready; then log $PART "running (pid $pid), ready"; else log $PART "running (pid $pid), not ready"; fi
  else
    log $PART "not running"
    return 1
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac

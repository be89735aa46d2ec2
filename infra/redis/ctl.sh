#!/usr/bin/env bash
# The machine's Redis server (shared with everything else on the machine).
#
#   infra/redis/ctl.sh start|status|stop
#
# Env: REDIS_URL (default redis://127.0.0.1:6379/0; host, port and password are used,
#      the database number is the service's business).
set -euo pipefail

# shellcheck source=infra/env/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../env/lib.sh"

PART=redis
parse_url "${REDIS_URL:-redis://127.0.0.1:6379/0}" 6379 || die $PART "bad REDIS_URL"
HOST="$U_HOST"; PORT="$U_PORT"
# redis://:password@host or redis://user:password@host
[[ -n "$U_PASS" ]] && export REDISCLI_AUTH="$U_PASS"

answers() { [[ "$(timeout 3 redis-cli -h "$HOST" -p "$PORT" ping 2>/dev/null)" == PONG ]]; }

start() {
  if answers; then log $PART "running at $HOST:$PORT"; return 0; fi
  is_local_host "$HOST" || die $PART "$HOST:$PORT does not answer and is not this machine"
  command -v redis-server >/dev/null || die $PART "Redis is not installed (apt-get install redis-server)"
  log $PART "not answering; starting redis-server on port $PORT"
  # The machine's own start command, with the port from REDIS_URL. Nothing is saved to
  # disk: Redis is a cache and reply bus here, PostgreSQL holds the state.
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$PORT" --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for 15 "" answers || die $PART "started, but $HOST:$PORT does not answer after 15s"
  log $PART "running at $HOST:$PORT"
}

case "${1:-}" in
  start) start ;;
  status)
    if answers; then echo "redis: running at $HOST:$PORT"; exit 0; fi
    echo "redis: not answering at $HOST:$PORT"; exit 3
    ;;
  stop)
    # The server is the machine's, shared by other projects and stacks: never stop it here.
    log $PART "left running (machine service shared with others)"
    ;;
  *)
    echo "usage: $0 start|status|stop" >&2
    exit 2
    ;;
esac

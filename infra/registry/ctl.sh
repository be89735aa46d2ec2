#!/usr/bin/env bash
# Apicurio Registry 3.0.9, serving the Confluent-compatible API, stored in PostgreSQL.
#
#   infra/registry/ctl.sh start|stop|status|restart|fetch|reset
#
# Env: SCHEMA_REGISTRY_URL (default http://127.0.0.1:8081/apis/ccompat/v7; host and port
#        are where the registry listens, the path is what clients use),
#      REGISTRY_DATABASE (default schema_registry; created if missing),
#      DATABASE_URL (its host, port, user and password are used for REGISTRY_DATABASE),
#      REGISTRY_HEAP_OPTS (default -Xms64m -Xmx384m), REGISTRY_START_TIMEOUT (s, default 180),
#      STACK_DIR, STACK_CACHE_DIR.
# Layout: $STACK_DIR/registry-<port>/registry.pid, $STACK_DIR/logs/registry-<port>.log,
#         $STACK_CACHE_DIR/apicurio-registry-<version>-<pom hash>/ (unpacked from ~/.m2; infra/env/lib.sh).
set -euo pipefail

# shellcheck source=infra/env/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../env/lib.sh"

PART=registry
REGISTRY_VERSION=3.0.9   # keep in step with infra/registry/pom.xml and docker-compose.yml

resolve_stack_dir
URL="${SCHEMA_REGISTRY_URL:-http://127.0.0.1:8081/apis/ccompat/v7}"
parse_url "$URL" 8081 || die $PART "bad SCHEMA_REGISTRY_URL '$URL'"
HOST="$U_HOST"
PORT="$U_PORT"
CLIENT_HOST="$HOST"; [[ "$HOST" == 0.0.0.0 ]] && CLIENT_HOST=127.0.0.1
# Health is checked on the Confluent-compatible API itself, whatever path the URL names.
CCOMPAT="http://$CLIENT_HOST:$PORT/apis/ccompat/v7"

DB="${REGISTRY_DATABASE:-schema_registry}"
parse_url "${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/}" 5432 || die $PART "bad DATABASE_URL"
DB_HOST="$U_HOST"; DB_PORT="$U_PORT"; DB_USER="${U_USER:-postgres}"; DB_PASS="$U_PASS"

RDIR="$STACK_DIR/registry-$PORT"
PIDFILE="$RDIR/registry.pid"
LOGFILE="$STACK_DIR/logs/registry-$PORT.log"
APP="$STACK_CACHE_DIR/apicurio-registry-$REGISTRY_VERSION-$(cache_key "$INFRA_ROOT/registry/pom.xml")"
RUNNER="$APP/apicurio-registry-app-$REGISTRY_VERSION-runner.jar"
START_TIMEOUT="${REGISTRY_START_TIMEOUT:-180}"
# The registry's command line names its port: how we know a pid is still ours.
MARK="-Dquarkus.http.port=$PORT"
# Compatibility enforced on every subject without a rule of its own (design: BACKWARD).
COMPAT="${REGISTRY_COMPATIBILITY:-BACKWARD}"

# Ready = the ccompat API answers with a compatibility level (it reads storage to do so).
registry_probe() {
  curl -fsS --max-time 3 "$CCOMPAT/config" 2>/dev/null | grep -q compatibilityLevel
}

fetch() {
  [[ -f "$APP/.complete" ]] && return 0
  # Locked: two starts (two profiles sharing a cache, or stack.sh and a direct call)
  # must not both replace the same directory.
  with_lock "$STACK_CACHE_DIR/.registry-fetch.lock" fetch_locked
}

fetch_locked() {
  [[ -f "$APP/.complete" ]] && return 0
  log $PART "fetching Apicurio Registry $REGISTRY_VERSION via Maven (once; cached in ~/.m2 and $APP)"
  local tmp="$APP.tmp.$$"
  rm -rf "$tmp"
  mvn_fetch $PART "$INFRA_ROOT/registry/pom.xml" dependency:unpack -Dregistry.unpack.dir="$tmp"
  [[ -f "$tmp/apicurio-registry-app-$REGISTRY_VERSION-runner.jar" ]] \
    || die $PART "unpacked archive has no runner jar (layout changed?)"
  rm -rf "$APP"
  mv "$tmp" "$APP"
  touch "$APP/.complete"
}

is_running() { pid_alive "$PIDFILE" "$MARK" >/dev/null && registry_probe; }

do_start() {
  if is_running; then log $PART "already running at $CCOMPAT"; return 0; fi
  # Ours but not answering: a start interrupted midway (^C) leaves it starting. Give it
  # the start time-out rather than launch a second one on the same port.
  if pid_alive "$PIDFILE" "$MARK" >/dev/null; then
    log $PART "started earlier but not answering yet; waiting up to ${START_TIMEOUT}s"
    if wait_for "$START_TIMEOUT" "$PIDFILE" registry_probe; then log $PART "ready at $CCOMPAT"; return 0; fi
    die $PART "pid $(<"$PIDFILE") does not answer at $CCOMPAT; see its logs, then: $0 stop"
  fi
  if registry_probe; then
    refuse_foreign $PART "$PORT" SCHEMA_REGISTRY_PORT
    log $PART "a registry already answers at $CCOMPAT (not started from $RDIR); using it"
    return 0
  fi
  if port_open "$CLIENT_HOST" "$PORT"; then
    die $PART "port $PORT is taken by something that is not a schema registry"
  fi
  rm -f "$PIDFILE"
  mkdir -p "$RDIR"

  # Storage lives in PostgreSQL so subjects and ids survive restarts; the registry
  # creates its tables itself (apicurio.sql.init=true) in a database we make sure exists.
  DATABASE_URL="postgres://$DB_USER${DB_PASS:+:$DB_PASS}@$DB_HOST:$DB_PORT/" \
    "$INFRA_ROOT/postgres/ctl.sh" ensure-db "$DB"

  find_java $PART
  fetch

  local jdbc="jdbc:postgresql://$DB_HOST:$DB_PORT/$DB"
  # shellcheck disable=SC2206  # REGISTRY_HEAP_OPTS is a list of flags on purpose
  local opts=(${REGISTRY_HEAP_OPTS:--Xms64m -Xmx384m}
    -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true
    # C1 only: starts ~25% faster on 2 cores (measured), and the registry does little
    # work once clients have cached their schemas.
    -XX:TieredStopAtLevel=1
    # Quarkus reads these as config; they override the jar's application.properties.
    "-Dquarkus.http.host=$HOST"
    "-Dquarkus.http.port=$PORT"
    -Dquarkus.http.access-log.enabled=false
    -Dapicurio.storage.kind=sql
    -Dapicurio.storage.sql.kind=postgresql
    "-Dapicurio.datasource.url=$jdbc"
    "-Dapicurio.datasource.username=$DB_USER"
    # The jar defaults to 20..100 connections; two stacks plus the service would
    # exhaust PostgreSQL's default max_connections (100).
    -Dapicurio.datasource.jdbc.initial-size=2
    -Dapicurio.datasource.jdbc.min-size=2
    -Dapicurio.datasource.jdbc.max-size=10
    # The design asks for backward compatibility on every subject. This is the default
    # global rule: it applies to any subject that has no rule of its own.
    "-Dapicurio.rules.global.compatibility=$COMPAT"
    # Confluent compares schemas in canonical form: the same schema re-registered with
    # other whitespace keeps its id instead of becoming a new version.
    -Dapicurio.ccompat.use-canonical-hash=true
  )
  # Only pass a password when there is one: trust auth needs none, and an empty
  # property would not override the jar's default anyway.
  [[ -n "$DB_PASS" ]] && opts+=("-Dapicurio.datasource.password=$DB_PASS")

  local t0; t0="$(now_ms)"
  log $PART "starting at $CCOMPAT (storage: postgresql $DB_HOST:$DB_PORT/$DB), log $LOGFILE"
  # setsid: outlive the caller; 9>&-: do not hold the start lock for the JVM's life.
  # cd: Quarkus may write temporary files to its working directory.
  (cd "$RDIR" && exec setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$PIDFILE" \
      "$JAVA" "${opts[@]}" -jar "$RUNNER") \
    </dev/null >"$LOGFILE" 2>&1 9>&- &
  local _i; for _i in $(seq 1 40); do [[ -s "$PIDFILE" ]] && break; sleep 0.05; done

  local rc=0
  wait_for "$START_TIMEOUT" "$PIDFILE" registry_probe || rc=$?
  if (( rc != 0 )); then
    tail -n 40 "$LOGFILE" >&2 || true
    (( rc == 2 )) && die $PART "the registry exited during start-up (log above)"
    stop_pid $PART "$PIDFILE" 10 "$MARK"
    die $PART "not ready after ${START_TIMEOUT}s (log above)"
  fi
  ensure_global_compatibility
  log $PART "ready at $CCOMPAT in $(( $(now_ms) - t0 ))ms (pid $(<"$PIDFILE")); global compatibility $COMPAT"
}

# The -Dapicurio.rules.global.compatibility default is enforced, but the ccompat API does
# not show it: GET /config answers NONE until a global rule is stored. Store it (it lives
# in PostgreSQL, so this is a no-op after the first start) so that Confluent clients see
# what is enforced.
ensure_global_compatibility() {
  local current
  current="$(curl -fsS --max-time 5 "$CCOMPAT/config")" || die $PART "GET $CCOMPAT/config failed"
  [[ "$current" == *"\"$COMPAT\""* ]] && return 0
  curl -fsS --max-time 5 -X PUT -H 'Content-Type: application/vnd.schemaregistry.v1+json' \
    -d "{\"compatibility\":\"$COMPAT\"}" "$CCOMPAT/config" >/dev/null \
    || die $PART "could not set the global compatibility to $COMPAT"
  log $PART "global compatibility set to $COMPAT (was $current)"
}

cmd="${1:-}"
case "$cmd" in
  start)
    if is_running; then log $PART "already running at $CCOMPAT"; exit 0; fi
    mkdir -p "$RDIR"
    with_lock "$RDIR/.lock" do_start
    ;;
  stop)
    with_lock "$RDIR/.lock" stop_pid $PART "$PIDFILE" 30 "$MARK"
    ;;
  restart)
    "$0" stop && exec "$0" start
    ;;
  status)
    if pid="$(pid_alive "$PIDFILE" "$MARK")"; then
      if registry_probe; then echo "registry: running (pid $pid) at $CCOMPAT, database $DB"; exit 0; fi
      echo "registry: starting or unhealthy (pid $pid), $CCOMPAT not answering"; exit 1
    fi
    if registry_probe; then echo "registry: a registry answers at $CCOMPAT (not started from $RDIR)"; exit 0; fi
    echo "registry: stopped ($CCOMPAT)"; exit 3
    ;;
  fetch)
    fetch
    ;;
  reset)
    # Forgets every subject and schema id: stop, then drop the registry's database.
    mkdir -p "$RDIR"
    with_lock "$RDIR/.lock" stop_pid $PART "$PIDFILE" 30 "$MARK"
    PGPASSWORD="$DB_PASS" psql -q -h "$DB_HOST" -p "$DB_PORT" -U "$DB_USER" -d postgres \
      -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS \"$DB\""
    rm -rf "$RDIR"
    log $PART "reset: dropped database $DB"
    ;;
  *)
    echo "usage: $0 start|stop|restart|status|fetch|reset" >&2
    exit 2
    ;;
esac

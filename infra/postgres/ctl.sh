#!/usr/bin/env bash
# The machine's PostgreSQL server (shared with everything else on the machine).
#
#   infra/postgres/ctl.sh start|status|stop|ensure-db NAME
#
# Env: DATABASE_URL (host, port, user and password are used; default
#      postgres://postgres@127.0.0.1:5432/). The database named in its path is not
#      touched here: ensure-db creates whichever database it is given.
set -euo pipefail

# shellcheck source=infra/env/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../env/lib.sh"

PART=postgres
parse_url "${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/}" 5432 || die $PART "bad DATABASE_URL"
PGHOST="$U_HOST"; PGPORT="$U_PORT"; PGUSER="${U_USER:-postgres}"
# libpq reads these; exporting them keeps every psql/createdb call below short.
export PGHOST PGPORT PGUSER
[[ -n "$U_PASS" ]] && export PGPASSWORD="$U_PASS"

answers() { pg_isready -q -h "$PGHOST" -p "$PGPORT" -t 2; }

start() {
  if answers; then log $PART "running at $PGHOST:$PGPORT"; return 0; fi
  is_local_host "$PGHOST" || die $PART "$PGHOST:$PGPORT does not answer and is not this machine"
  command -v pg_ctlcluster >/dev/null || die $PART "PostgreSQL is not installed (apt-get install postgresql)"
  # The Debian cluster of the newest installed major version ('main' is Debian's default name).
  local ver; ver="$(ls /etc/postgresql | sort -V | tail -n 1)"
  log $PART "not answering; starting cluster $ver/main"
  pg_ctlcluster --skip-systemctl-redirect "$ver" main start
  wait_for 30 "" answers || die $PART "started, but $PGHOST:$PGPORT does not answer after 30s"
  log $PART "running at $PGHOST:$PGPORT"
}

ensure_db() {
  local name="${1:-}"
  # Names go into SQL and shell: keep them to what the project uses.
  [[ "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die $PART "bad database name '$name'"
  answers || die $PART "$PGHOST:$PGPORT does not answer (run: $0 start)"
  exists() { [[ "$(psql -d postgres -XAtq -c "SELECT 1 FROM pg_database WHERE datname = '$name'")" == 1 ]]; }
  if exists; then return 0; fi
  # Two starts may race to create it: losing the race is fine, so check again on failure.
  if createdb "$name" 2>/dev/null || exists; then
    log $PART "created database $name"
  else
    createdb "$name"   # once more, to show the real error
  fi
}

case "${1:-}" in
  start) start ;;
  status)
    if answers; then echo "postgres: running at $PGHOST:$PGPORT"; exit 0; fi
    echo "postgres: not answering at $PGHOST:$PGPORT"; exit 3
    ;;
  stop)
    # The server is the machine's, shared by other projects and stacks: never stop it here.
    log $PART "left running (machine service shared with others)"
    ;;
  ensure-db) ensure_db "${2:-}" ;;
  *)
    echo "usage: $0 start|status|stop|ensure-db NAME" >&2
    exit 2
    ;;
esac

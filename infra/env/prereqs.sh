#!/usr/bin/env bash
# What `make up` needs from the machine, checked before anything is fetched or started: every missing
# piece is named in one list with the command that provides it (Debian/Ubuntu), then exit 1.
#
#   infra/env/prereqs.sh        # run by `make up` (and `make test-ready`); safe to run by hand
#
# Needs: Linux (the scripts read /proc and use ss); bash, curl, tar; a node and npm of any version (they
# only fetch the pinned Node 24, infra/node/version); Java 17+ and Maven (Kafka and the registry, fetched
# from Maven Central once); PostgreSQL answering on DATABASE_URL's host and trusting its user without a
# password from 127.0.0.1 (or the password in DATABASE_URL); Redis on REDIS_URL.
set -uo pipefail
# shellcheck source=infra/env/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

missing=()
need() { missing+=("$1"); }

[[ "$(uname -s)" == Linux ]] || need "Linux: the scripts read /proc and use ss (on macOS or Windows use Docker: docker compose up -d, README)"
for tool in curl tar ss; do
  command -v "$tool" >/dev/null || need "$tool (apt-get install ${tool/ss/iproute2})"
done
command -v node >/dev/null && command -v npm >/dev/null || need "node and npm, any version, to fetch the pinned Node $(tr -d '[:space:]' <"$REPO_ROOT/infra/node/version") (apt-get install nodejs npm)"

java="${JAVA_HOME:+$JAVA_HOME/bin/java}"
java="${java:-$(command -v java || true)}"
if [[ -z "$java" ]]; then
  need "Java 17+ (apt-get install openjdk-17-jre-headless)"
else
  ver="$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  [[ "${ver%%.*}" -ge 17 ]] 2>/dev/null || need "Java 17+: $java is $ver (apt-get install openjdk-17-jre-headless, or set JAVA_HOME)"
fi
command -v mvn >/dev/null || need "Maven (apt-get install maven)"

parse_url "${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/}" 5432 || need "a valid DATABASE_URL"
pg_user="${U_USER:-postgres}"
if ! command -v psql >/dev/null; then
  need "PostgreSQL (apt-get install postgresql; the scripts start the machine's cluster when it is stopped)"
elif pg_isready -q -h "$U_HOST" -p "$U_PORT" -t 2; then
  # A server that answers must also let us in: trust (or the URL's password) for $pg_user from 127.0.0.1.
  if ! out="$(PGPASSWORD="${U_PASS:-}" PGCONNECT_TIMEOUT=3 psql -h "$U_HOST" -p "$U_PORT" -U "$pg_user" -d postgres -w -Atc 'SELECT 1' 2>&1)"; then
    need "PostgreSQL at $U_HOST:$U_PORT refuses user $pg_user without a password (${out%%$'\n'*}): add 'host all $pg_user 127.0.0.1/32 trust' to pg_hba.conf and reload, or put the password in DATABASE_URL"
  fi
fi

parse_url "${REDIS_URL:-redis://127.0.0.1:6379/0}" 6379 || need "a valid REDIS_URL"
if ! port_open "$U_HOST" "$U_PORT" && ! command -v redis-server >/dev/null; then
  need "Redis (apt-get install redis-server), or REDIS_URL pointing at one"
fi

if (( ${#missing[@]} > 0 )); then
  echo "make up cannot start: this machine lacks" >&2
  printf '  - %s\n' "${missing[@]}" >&2
  exit 1
fi
echo "[prereqs] Linux, curl, tar, ss, node/npm, Java ${ver:-?}, Maven, PostgreSQL (user $pg_user), Redis: present" >&2

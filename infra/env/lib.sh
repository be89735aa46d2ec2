# shellcheck shell=bash disable=SC2034,SC2016  # globals are set for callers; single-quoted bash -c on purpose
# Helpers shared by infra/*/ctl.sh and infra/stack.sh. Sourced, never run.
#
# Everything here is plain bash plus coreutils/curl/flock, so the scripts run
# on a bare Debian machine with a JDK and Maven and nothing else.

# Repository root: infra/env/lib.sh -> ../..
INFRA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO_ROOT="$(cd "$INFRA_ROOT/.." && pwd)"

# STACK_DIR may be given relative (the env profiles say ".stack"): it is relative
# to the repository root, not to wherever make or the caller happens to run.
resolve_stack_dir() {
  local d="${STACK_DIR:-.stack}"
  [[ "$d" == /* ]] || d="$REPO_ROOT/$d"
  mkdir -p "$d"
  STACK_DIR="$(cd "$d" && pwd)"
  # Downloads unpacked once per user, beside ~/.m2 and npm's cache (XDG_CACHE_HOME, else ~/.cache), each under a
  # name that carries its version and a hash of the pom that fetched it (cache_key): a fresh clone or a second
  # profile reuses them instead of running Maven again (two Maven runs, 15 to 35 s of a fresh clone's
  # `make test`), and a changed pom fetches anew. STACK_CACHE_DIR chooses another place (without HOME:
  # $STACK_DIR/cache, as before).
  local user_cache="${XDG_CACHE_HOME:-${HOME:+$HOME/.cache}}"
  STACK_CACHE_DIR="${STACK_CACHE_DIR:-${user_cache:+$user_cache/energy-rental/stack}}"
  STACK_CACHE_DIR="${STACK_CACHE_DIR:-$STACK_DIR/cache}"
  [[ "$STACK_CACHE_DIR" == /* ]] || STACK_CACHE_DIR="$REPO_ROOT/$STACK_CACHE_DIR"
  mkdir -p "$STACK_CACHE_DIR" "$STACK_DIR/logs"
  export STACK_DIR STACK_CACHE_DIR
}

# cache_key FILE -> the first 12 hex digits of FILE's sha256: part of a cached download's directory name, so
# what a pom fetched is never taken for what an edited pom would fetch.
cache_key() { sha256sum "$1" | cut -c1-12; }

# log PART message... -> "[kafka] message" on stderr, so stdout stays clean for callers.
log() { local part="$1"; shift; printf '[%s] %s\n' "$part" "$*" >&2; }
die() { local part="$1"; shift; printf '[%s] ERROR: %s\n' "$part" "$*" >&2; exit 1; }

now_ms() { date +%s%3N; }

# ---------------------------------------------------------------- URL parsing
# parse_hostport "host:port" DEFAULT_PORT -> sets HP_HOST HP_PORT.
# Accepts "kafka://h:p", "h:p", "[::1]:p", and takes the first of a comma list.
parse_hostport() {
  local s="${1%%,*}" def="$2"
  s="${s#*://}"
  if [[ "$s" =~ ^\[([^]]+)\](:([0-9]+))?$ ]]; then
    HP_HOST="${BASH_REMATCH[1]}"; HP_PORT="${BASH_REMATCH[3]:-$def}"
  elif [[ "$s" =~ ^([^:/]+)(:([0-9]+))?$ ]]; then
    HP_HOST="${BASH_REMATCH[1]}"; HP_PORT="${BASH_REMATCH[3]:-$def}"
  else
    return 1
  fi
}

# parse_url URL DEFAULT_PORT -> sets U_SCHEME U_USER U_PASS U_HOST U_PORT U_PATH
# (user/password percent-encoding is not decoded: local profiles do not use any).
parse_url() {
  local url="$1" def="$2"
  local re='^([a-zA-Z][a-zA-Z0-9+.-]*)://(([^:@/]*)(:([^@/]*))?@)?(\[[^]]+\]|[^:/?#]+)(:([0-9]+))?(/[^?#]*)?'
  [[ "$url" =~ $re ]] || return 1
  U_SCHEME="${BASH_REMATCH[1]}"
  U_USER="${BASH_REMATCH[3]}"
  U_PASS="${BASH_REMATCH[5]}"
  U_HOST="${BASH_REMATCH[6]}"; U_HOST="${U_HOST#[}"; U_HOST="${U_HOST%]}"
  U_PORT="${BASH_REMATCH[8]:-$def}"
  U_PATH="${BASH_REMATCH[9]}"
}

# True when HOST is this machine, i.e. a server we may start ourselves.
is_local_host() {
  case "$1" in 127.*|localhost|::1|0.0.0.0|'') return 0 ;; *) return 1 ;; esac
}

# ---------------------------------------------------------------- processes
# proc_running PID -> 0 if PID is a live process. A zombie (dead, not yet reaped by
# its new parent) counts as dead: kill -0 alone would say it is alive.
proc_running() {
  local state
  kill -0 "$1" 2>/dev/null || return 1
  state="$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null || true)"
  [[ "$state" != Z && "$state" != X ]]
}

# pid_alive PIDFILE [MARK] -> 0 if the file names a live process (and echoes the pid).
# With MARK, the process's command line must also contain it, so a pid reused by an
# unrelated process after a crash or reboot is not mistaken for ours.
pid_alive() {
  local f="$1" mark="${2:-}" pid
  [[ -s "$f" ]] || return 1
  pid="$(<"$f")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  proc_running "$pid" || return 1
  if [[ -n "$mark" ]] && ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$mark"; then
    return 1
  fi
  echo "$pid"
}

# listener_dir PORT -> the working directory of the local process listening on PORT (empty when unknown):
# which checkout a stack part was started from.
listener_dir() {
  command -v ss >/dev/null || return 0
  local pid
  pid="$(ss -Hltnp "( sport = :$1 )" 2>/dev/null | grep -o 'pid=[0-9]*' | head -n 1 | cut -d= -f2)"
  [[ -n "$pid" ]] && readlink "/proc/$pid/cwd" 2>/dev/null || true
}

# refuse_foreign PART PORT VAR: under the local profile (`make up`), a part that answers on PORT but was not
# started from this checkout is another checkout's: taking it for ours would report ready off a stack whose
# database, topics and code are not this checkout's. One sentence and the command that fixes it, then exit.
# Other profiles (tests, a machine whose services are started for it) keep using what answers.
refuse_foreign() {
  local part="$1" port="$2" var="$3" owner
  [[ "${STACK_PROFILE:-local}" == local ]] || return 0
  owner="$(listener_dir "$port")"
  [[ -n "$owner" && ( "$owner" == "$REPO_ROOT" || "$owner" == "$REPO_ROOT/"* ) ]] && return 0
  die "$part" "port $port answers for a stack this checkout did not start${owner:+ (started from $owner)}: stop it there (make down), or give this checkout other ports: $var=$((port + 100)) make up"
}

# port_open HOST PORT -> 0 if something accepts TCP connections there.
port_open() {
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null
}

# wait_for SECONDS PIDFILE CHECK_CMD... -> polls CHECK_CMD every 0.25 s until it
# succeeds; returns 2 early if the process in PIDFILE dies (no point waiting on a
# corpse), 1 on time-out. PIDFILE may be "" when there is no process of ours to watch.
wait_for() {
  local secs="$1" pidfile="$2"; shift 2
  local deadline=$(( $(date +%s) + secs ))
  while (( $(date +%s) < deadline )); do
    "$@" && return 0
    if [[ -n "$pidfile" ]] && ! pid_alive "$pidfile" >/dev/null; then return 2; fi
    sleep 0.25
  done
  return 1
}

# stop_pid PART PIDFILE GRACE_SECONDS [MARK] -> SIGTERM, wait, then SIGKILL.
stop_pid() {
  local part="$1" pidfile="$2" grace="$3" mark="${4:-}" pid
  if ! pid="$(pid_alive "$pidfile" "$mark")"; then
    rm -f "$pidfile"
    log "$part" "not running"
    return 0
  fi
  log "$part" "stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$(( $(date +%s) + grace ))
  while proc_running "$pid" && (( $(date +%s) < deadline )); do sleep 0.2; done
  if proc_running "$pid"; then
    log "$part" "still alive after ${grace}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    deadline=$(( $(date +%s) + 10 ))
    while proc_running "$pid" && (( $(date +%s) < deadline )); do sleep 0.1; done
  fi
  rm -f "$pidfile"
  log "$part" "stopped"
}

# with_lock LOCKFILE CMD... -> runs CMD holding an exclusive flock, so two
# concurrent "start"s (two terminals, two make targets) cannot race to format
# storage or launch a second JVM on the same port.
with_lock() {
  local lockfile="$1"; shift
  mkdir -p "$(dirname "$lockfile")"
  (
    flock -w 600 9 || { echo "could not lock $lockfile" >&2; exit 1; }
    "$@"
  ) 9>"$lockfile"
}

# ---------------------------------------------------------------- toolchain
# Sets JAVA to a java binary of version >= 17 (JAVA_HOME wins, then PATH).
find_java() {
  local part="$1" j ver
  if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then j="$JAVA_HOME/bin/java"
  else j="$(command -v java || true)"; fi
  [[ -n "$j" ]] || die "$part" "no java found (install a JDK 17+ or set JAVA_HOME)"
  ver="$("$j" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  [[ "${ver%%.*}" -ge 17 ]] 2>/dev/null || die "$part" "java $ver at $j is too old: need 17+"
  JAVA="$j"
}

# mvn_fetch PART POM GOAL ARGS... -> runs Maven quietly. Artifacts go to ~/.m2 once;
# with them there Maven does not touch the network (versions and plugin are pinned).
mvn_fetch() {
  local part="$1" pom="$2"; shift 2
  command -v mvn >/dev/null || die "$part" "mvn not found (apt-get install maven)"
  local out
  if ! out="$(mvn -q -B -f "$pom" "$@" 2>&1)"; then
    printf '%s\n' "$out" >&2
    die "$part" "maven fetch failed (see above)"
  fi
}

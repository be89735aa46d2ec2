#!/usr/bin/env bash
# The local stack without Docker: PostgreSQL, Redis, Kafka, schema registry, devnet.
#
#   infra/stack.sh [--profile local|test|FILE] {up|down|status|reset} [--only kafka,registry,...]
#
# Each part is infra/<part>/ctl.sh {start|stop|status}; "up" starts them in order and
# returns when every one answers, "down" stops them in reverse order. Both are
# idempotent. Without --profile the environment is used as it is (ctl.sh defaults are
# the local ports); with it, infra/env/<profile>.env fills in what the caller did not set.
# reset: stops Kafka and the registry and deletes their data (topics, offsets, schemas).
set -euo pipefail

INFRA="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ALL_PARTS=(postgres redis kafka registry devnet)

usage() {
  echo "usage: $0 [--profile NAME] {up|down|status|reset} [--only ${ALL_PARTS[*]// /,}]" >&2
  exit 2
}

cmd="" only="" profile=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --only) only="${2:-}"; shift 2 || usage ;;
    --only=*) only="${1#--only=}"; shift ;;
    --profile) profile="${2:-}"; shift 2 || usage ;;
    --profile=*) profile="${1#--profile=}"; shift ;;
    up|down|status|reset) [[ -z "$cmd" ]] || usage; cmd="$1"; shift ;;
    -h|--help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
[[ -n "$cmd" ]] || usage

if [[ -n "$profile" ]]; then
  # shellcheck source=infra/env/load.sh
  source "$INFRA/env/load.sh" "$profile"
fi
# shellcheck source=infra/env/lib.sh
source "$INFRA/env/lib.sh"
resolve_stack_dir

# The parts asked for, always in dependency order.
PARTS=()
if [[ -z "$only" ]]; then
  PARTS=("${ALL_PARTS[@]}")
else
  IFS=, read -r -a wanted <<<"$only"
  for w in "${wanted[@]}"; do
    [[ " ${ALL_PARTS[*]} " == *" $w "* ]] || { echo "unknown part '$w' (parts: ${ALL_PARTS[*]})" >&2; exit 2; }
  done
  for p in "${ALL_PARTS[@]}"; do
    [[ ",$only," == *",$p,"* ]] && PARTS+=("$p")
  done
fi
selected() { [[ " ${PARTS[*]} " == *" $1 "* ]]; }

# The devnet is another engineer's part: optional until its ctl.sh exists, unless asked
# for by name.
part_ctl() {
  local ctl="$INFRA/$1/ctl.sh"
  if [[ ! -f "$ctl" ]]; then
    if [[ "$1" == devnet && ",$only," != *",devnet,"* ]]; then
      log stack "devnet: skipped (infra/devnet/ctl.sh does not exist yet)"
      return 0
    fi
    die stack "$ctl does not exist"
  fi
  bash "$ctl" "${@:2}"
}

up() {
  local t0; t0="$(now_ms)"
  log stack "up (${PARTS[*]}), profile ${STACK_PROFILE:-none}, STACK_DIR=$STACK_DIR"
  if selected postgres; then
    part_ctl postgres start
    # The service's own database (DATABASE_URL's path), so migrations have somewhere to run.
    parse_url "${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/}" 5432 || die stack "bad DATABASE_URL"
    local appdb="${U_PATH#/}"
    if [[ -n "$appdb" ]]; then part_ctl postgres ensure-db "$appdb"; fi
  fi
  if selected redis; then part_ctl redis start; fi

  if selected kafka && selected registry; then
    # Download first, one after the other (one Maven at a time on a cold ~/.m2), then
    # start both JVMs together: neither needs the other, and it saves seconds on every run.
    part_ctl kafka fetch
    part_ctl registry fetch
    part_ctl kafka start &
    local kafka_pid=$!
    local reg_rc=0 kafka_rc=0
    part_ctl registry start || reg_rc=$?
    wait "$kafka_pid" || kafka_rc=$?
    (( kafka_rc == 0 )) || die stack "kafka failed to start"
    (( reg_rc == 0 )) || die stack "registry failed to start"
  else
    if selected kafka; then part_ctl kafka start; fi
    if selected registry; then part_ctl registry start; fi
  fi

  if selected devnet; then part_ctl devnet start; fi
  log stack "up in $(( $(now_ms) - t0 ))ms"
  status || true
}

down() {
  local i
  for (( i=${#PARTS[@]}-1; i>=0; i-- )); do
    part_ctl "${PARTS[$i]}" stop
  done
}

status() {
  local p rc=0
  for p in "${PARTS[@]}"; do
    if [[ "$p" == devnet && ! -f "$INFRA/devnet/ctl.sh" ]]; then
      echo "devnet: not part of the stack yet (no infra/devnet/ctl.sh)"
      continue
    fi
    part_ctl "$p" status || rc=1
  done
  return $rc
}

reset() {
  # Only the parts that own data in this stack; PostgreSQL's and Redis's other data is
  # not ours to delete.
  if selected devnet; then part_ctl devnet stop; fi
  if selected registry; then part_ctl registry reset; fi
  if selected kafka; then part_ctl kafka reset; fi
}

case "$cmd" in
  up) up ;;
  down) down ;;
  status) status ;;
  reset) reset ;;
esac

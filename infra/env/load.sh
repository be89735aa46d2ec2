#!/usr/bin/env bash
# Loads an env profile (infra/env/<name>.env) into the environment. A variable that is
# already set in the caller's environment wins over the file, so
# `KAFKA_BROKERS=127.0.0.1:29092 make test-stack-up` moves just that one port.
#
#   source infra/env/load.sh test          # export into the current shell
#   eval "$(infra/env/load.sh test)"       # same, from any shell
#   infra/env/load.sh test -- CMD ARGS...  # run CMD with the profile loaded
#
# The profile is a name (local, test) or a path to a file. File format: KEY=VALUE per
# line, '#' comments, optional surrounding quotes; ${NAME} in a value expands to NAME as
# loaded so far (caller's value or an earlier line). Nothing else is expanded or run.

# Only change shell options when run, never in a shell that sources us.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
fi

# _envload_file FILE: exports every KEY=VALUE of FILE the caller has not set (appends to _ENVLOAD_SET).
_envload_file() {
  local file="$1" line key value name lineno=0
  while IFS= read -r line || [[ -n "$line" ]]; do
    lineno=$((lineno + 1))
    line="${line%$'\r'}"
    [[ "$line" =~ ^[[:space:]]*(#|$) ]] && continue
    if [[ ! "$line" =~ ^[[:space:]]*(export[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]]; then
      echo "load.sh: $file:$lineno: not KEY=VALUE: $line" >&2
      return 1
    fi
    key="${BASH_REMATCH[2]}"
    value="${BASH_REMATCH[3]}"
    # The caller's value wins (set, even if empty).
    [[ -n "${!key+x}" ]] && continue
    # Strip one pair of surrounding quotes.
    if [[ "$value" =~ ^\"(.*)\"$ || "$value" =~ ^\'(.*)\'$ ]]; then value="${BASH_REMATCH[1]}"; fi
    # Expand ${NAME} references, and nothing else (no command substitution).
    while [[ "$value" =~ \$\{([A-Za-z_][A-Za-z0-9_]*)\} ]]; do
      name="${BASH_REMATCH[1]}"
      value="${value//\$\{$name\}/${!name-}}"
    done
    export "$key=$value"
    _ENVLOAD_SET+=("$key")
  done <"$file"
}

_envload_main() {
  local profile="${1:-${STACK_PROFILE:-local}}"
  local dir file
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  if [[ -f "$profile" ]]; then file="$profile"; else file="$dir/$profile.env"; fi
  if [[ ! -f "$file" ]]; then
    echo "load.sh: no profile '$profile' (looked for $file)" >&2
    return 1
  fi

  _ENVLOAD_SET=()
  _envload_file "$file" || return 1
  export STACK_PROFILE="${STACK_PROFILE:-$(basename "$file" .env)}"
  # The local and test profiles carry per-installation secret keys under STACK_DIR (never committed),
  # generated on first use; every other profile brings its own (the service refuses to start without).
  case "$STACK_PROFILE" in
    local|test)
      "$dir/keys.sh" "${STACK_DIR:-.stack}" || return 1
      local stack="${STACK_DIR:-.stack}"
      [[ "$stack" == /* ]] || stack="$dir/../../$stack"
      _envload_file "$stack/keys.env" || return 1
      ;;
  esac
}

if [[ "${BASH_SOURCE[0]}" != "$0" ]]; then
  # Sourced: export into the caller's shell.
  _envload_main "${1:-}"
  _envload_rc=$?
  unset -f _envload_main _envload_file
  unset _ENVLOAD_SET
  # shellcheck disable=SC2317  # return when sourced
  return $_envload_rc 2>/dev/null || true
fi

# Run as a command.
profile="${1:-}"
[[ $# -gt 0 ]] && shift
_envload_main "$profile"
if [[ "${1:-}" == "--" ]]; then
  shift
  [[ $# -gt 0 ]] || { echo "load.sh: nothing to run after --" >&2; exit 2; }
  exec "$@"
fi
# No command: print the loaded variables for eval.
for key in "${_ENVLOAD_SET[@]}" STACK_PROFILE; do
  printf 'export %s=%q\n' "$key" "${!key}"
done

#!/usr/bin/env bash
# Installs Debian's chromium for the browser suite (test/browser) when it is missing; does nothing
# when /usr/bin/chromium already runs. Idempotent, so `make test` calls it on every run.
# Needs root (CI machines run as root) or sudo.
set -euo pipefail
BIN="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [[ -x "$BIN" ]] && "$BIN" --headless --no-sandbox --version >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [[ "$(id -u)" != 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
"$BIN" --headless --no-sandbox --version

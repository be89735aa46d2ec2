#!/usr/bin/env bash
# The project's Node runtime: prints the bin directory of the pinned version (infra/node/version),
# fetching it once from the npm registry (package node-linux-<arch>, integrity checked by npm) into
# ~/.cache/energy-rental/node/<version> (below). The machine's own node/npm only bootstrap this download.
#
#   PATH="$(infra/node/ensure.sh):$PATH" node --version
#
# PROJECT_NODE=system skips the pin (uses whatever node is on PATH) and prints nothing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
[[ "${PROJECT_NODE:-}" == "system" ]] && exit 0
version="$(tr -d '[:space:]' <"$root/infra/node/version")"
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "infra/node/ensure.sh: no Node package for $(uname -m)" >&2; exit 1 ;;
esac
# Kept per user (XDG_CACHE_HOME, else ~/.cache; NODE_CACHE_DIR overrides), beside npm's own cache: a fresh clone
# then finds it instead of packing and unpacking it again (5 to 40 s of its `make test`, by the machine's load).
# A checkout that already holds one in .stack/node keeps using it; without HOME, .stack/node as before.
cache="${XDG_CACHE_HOME:-${HOME:+$HOME/.cache}}"
base="${NODE_CACHE_DIR:-${cache:+$cache/energy-rental/node}}"
[[ -x "$root/.stack/node/$version/bin/node" || -z "$base" ]] && base="$root/.stack/node"
dir="$base/$version"
if [[ ! -x "$dir/bin/node" ]]; then
  mkdir -p "$base"
  exec 9>"$base/.lock"
  flock 9
  if [[ ! -x "$dir/bin/node" ]]; then
    echo "[node] fetching node-linux-$arch@$version from the npm registry" >&2
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && npm pack --silent "node-linux-$arch@$version" >/dev/null 2>"$tmp/npm.err") || { cat "$tmp/npm.err" >&2; exit 1; }
    mkdir -p "$tmp/x"
    tar xzf "$tmp"/node-linux-*.tgz -C "$tmp/x" --strip-components=1
    [[ "$("$tmp/x/bin/node" --version)" == "v$version" ]] || { echo "[node] unpacked node is not v$version" >&2; exit 1; }
    rm -rf "$dir"
    mv "$tmp/x" "$dir"
  fi
fi
echo "$dir/bin"

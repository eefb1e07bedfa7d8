#!/usr/bin/env bash
# Installs Debian's docker.io (dockerd 20.10, containerd, runc) and debootstrap when missing. The packages' service is
# never started (a policy-rc.d refuses it for the install): engine-start.sh runs the engine on a socket of its own.
set -euo pipefail
missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v debootstrap >/dev/null || missing+=(debootstrap)
[ ${#missing[@]} -eq 0 ] && exit 0
[ "$(id -u)" -eq 0 ] || { echo "install-engine: ${missing[*]} missing and not root" >&2; exit 1; }
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
  trap 'rm -f "$policy"' EXIT
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
if ! { apt-get update -q && apt-get install -y -q "${missing[@]}"; } >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  exit 1
fi
rm -f "$log"
echo "installed ${missing[*]}"

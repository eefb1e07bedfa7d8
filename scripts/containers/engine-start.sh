#!/usr/bin/env bash
# Starts dockerd on $ENGINE_SOCKET (engine-env.sh) with no bridge and no iptables rules: containers take the host
# network (or none), so no traffic goes to a bridge's private addresses. Waits until it answers (60 s at most).
set -euo pipefail
here=$(dirname "$0")
. "$here/lib.sh"
. "$here/engine-env.sh"
if engine_answers; then echo "engine: already answering at $ENGINE_SOCKET"; exit 0; fi
command -v dockerd >/dev/null || { echo "engine-start: no dockerd (install-engine.sh)" >&2; exit 1; }
mkdir -p "$ENGINE_DATA_ROOT" "$ENGINE_EXEC_ROOT"
setsid dockerd -H "unix://$ENGINE_SOCKET" --data-root "$ENGINE_DATA_ROOT" --exec-root "$ENGINE_EXEC_ROOT" \
  --pidfile "$ENGINE_PIDFILE" --bridge=none --iptables=false --ip6tables=false --ip-masq=false \
  >"$ENGINE_LOG" 2>&1 </dev/null &
for _ in $(seq 1 120); do
  if engine_answers; then echo "engine: dockerd $(dockerd --version | cut -d, -f1 | cut -d' ' -f3) at $ENGINE_SOCKET"; exit 0; fi
  if ! kill -0 $! 2>/dev/null; then break; fi
  sleep 0.5
done
echo "engine-start: dockerd did not answer; its log ($ENGINE_LOG):" >&2
tail -n 5 "$ENGINE_LOG" >&2
{ kill $! && wait $!; } 2>/dev/null || true
umount "$ENGINE_DATA_ROOT" 2>/dev/null || true
exit 1

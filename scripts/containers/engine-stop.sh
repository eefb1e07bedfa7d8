#!/usr/bin/env bash
# Stops the dockerd engine-start.sh started (its pidfile) and waits until it has exited.
set -uo pipefail
here=$(dirname "$0")
. "$here/lib.sh"
. "$here/engine-env.sh"
[ -f "$ENGINE_PIDFILE" ] || exit 0
pid=$(cat "$ENGINE_PIDFILE")
kill "$pid" 2>/dev/null || exit 0
# dockerd leaves its network namespace mounted under its exec root, and when killed its data root mounted on itself.
unmount() { umount "$ENGINE_EXEC_ROOT/netns/default" 2>/dev/null; umount "$ENGINE_DATA_ROOT" 2>/dev/null; true; }
for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || { unmount; echo "engine: stopped"; exit 0; }; sleep 0.5; done
echo "engine-stop: dockerd $pid still runs after 30 s" >&2
exit 1

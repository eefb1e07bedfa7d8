#!/usr/bin/env bash
# .ci/run's image step, after `npm test` (which built the workspace): the local Node image (once) and the service image,
# then scripts/containers/image-settles.test.mjs settles one payment through it. Prints mocha's "N passing / M failing";
# a build that fails counts as one failing.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/containers/lib.sh
build_log=$(mktemp)
started=$(date +%s)
if ! scripts/containers/build-node-image.sh ||
  ! "$DOCKER" build --force-rm --network host -t "$SERVICE_IMAGE" . >"$build_log" 2>&1; then
  tail -n 30 "$build_log"
  printf 'service image: the build failed\n  0 passing\n  1 failing\n'
  exit 1
fi
echo "service image $SERVICE_IMAGE: built in $(($(date +%s) - started)) s"
npx mocha --no-config --timeout 300000 scripts/containers/image-settles.test.mjs
status=$?
# The build's intermediate images are the next run's cache; a day old, they are only disk.
"$DOCKER" image prune --force --filter until=24h >/dev/null
exit "$status"

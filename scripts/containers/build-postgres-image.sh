#!/usr/bin/env bash
# The local Postgres image ($POSTGRES_IMAGE) from the local base and Debian's postgresql-15; skipped when present.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
if image_present "$POSTGRES_IMAGE"; then echo "postgres image $POSTGRES_IMAGE: present"; exit 0; fi
# Host network for the build's apt-get: the engine may have no bridge (.ci/run starts it with --bridge=none).
"$DOCKER" build -q --force-rm --network host --build-arg "BASE_IMAGE=$BASE_IMAGE" -t "$POSTGRES_IMAGE" \
  "$(dirname "$0")/postgres" >/dev/null
echo "postgres image $POSTGRES_IMAGE: built from $BASE_IMAGE"

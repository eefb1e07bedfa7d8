# Sourced by .ci/run: a Docker engine of its own (installed and started when missing) and the local Debian and Postgres
# images, for testcontainers; or none, in one line, and the tests use embedded Postgres as before.
containers=scripts/containers
. "$containers/lib.sh"
. "$containers/engine-env.sh"
engine_started=no
engine_ready=no
if engine_answers; then
  echo "container engine: already answering at $ENGINE_SOCKET"
  engine_ready=yes
elif "$containers/install-engine.sh" && "$containers/engine-start.sh"; then
  engine_started=yes
  engine_ready=yes
  # An earlier run stopped without warning leaves its containers in the engine's data root (Exited (255) once the
  # engine is back): they are not this run's, whose leftovers containers-down.sh counts as a failure.
  stale=$("$DOCKER" -H "unix://$ENGINE_SOCKET" ps -aq)
  if [ -n "$stale" ]; then
    echo "$stale" | xargs "$DOCKER" -H "unix://$ENGINE_SOCKET" rm -f >/dev/null
    echo "container engine: removed $(echo "$stale" | wc -l) containers an interrupted earlier run left"
  fi
fi
if [ "$engine_ready" = yes ]; then
  export DOCKER_HOST="unix://$ENGINE_SOCKET"
  if "$containers/build-base-image.sh" && "$containers/build-postgres-image.sh"; then
    export TEST_POSTGRES_IMAGE="$POSTGRES_IMAGE" TESTCONTAINERS_RYUK_DISABLED=true
  else
    echo "container images: not built; the tests use embedded Postgres and the image step is skipped"
    unset DOCKER_HOST
    engine_ready=no
  fi
else
  echo "container engine: not available; the tests use embedded Postgres and the image step is skipped"
fi

# Sourced by .ci/run at the end: containers left on its engine fail the run (the tests' own hooks remove theirs; the
# reaper is off), then the engine it started is stopped.
if [ "$engine_started" = yes ]; then
  left=$("$DOCKER" -H "unix://$ENGINE_SOCKET" ps -aq)
  if [ -n "$left" ]; then
    "$DOCKER" -H "unix://$ENGINE_SOCKET" ps -a
    printf 'containers left after the run: removed\n  1 failing\n' | tee -a "$log"
    echo "$left" | xargs "$DOCKER" -H "unix://$ENGINE_SOCKET" rm -f >/dev/null
  fi
  scripts/containers/engine-stop.sh
fi

# Sourced: where .ci/run's Docker engine lives. A socket of its own, never /var/run/docker.sock: other checkouts on
# this machine would find an engine there and switch their tests to testcontainers mid-run.
ENGINE_NAME=${ENGINE_NAME:-x402-ci-docker}
ENGINE_SOCKET=${ENGINE_SOCKET:-/run/$ENGINE_NAME.sock}
ENGINE_DATA_ROOT=${ENGINE_DATA_ROOT:-/var/lib/$ENGINE_NAME}
ENGINE_EXEC_ROOT=${ENGINE_EXEC_ROOT:-/run/$ENGINE_NAME}
ENGINE_PIDFILE=${ENGINE_PIDFILE:-/run/$ENGINE_NAME.pid}
ENGINE_LOG=${ENGINE_LOG:-/tmp/$ENGINE_NAME.log}
engine_answers() { [ -S "$ENGINE_SOCKET" ] && "${DOCKER:-docker}" -H "unix://$ENGINE_SOCKET" version >/dev/null 2>&1; }

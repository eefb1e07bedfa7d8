#!/bin/sh
# The image runs the service for a real network only: dev mode (no RPC_URL: a local anvil, embedded Postgres and demo
# payers) is not in it. Settings come from the environment or a mounted file: `--config /path/to/config.json`.
set -eu
case " $* " in
*" --help "* | *" -h "* | *" --config "*) ;;
*)
  if [ -z "${RPC_URL:-}" ] && [ -z "${NETWORKS:-}" ]; then
    echo 'x402-facilitator image: set RPC_URL (or NETWORKS, or pass --config FILE); dev mode is not in the image' >&2
    exit 64
  fi
  ;;
esac
exec node /app/packages/app/dist/src/main.js "$@"

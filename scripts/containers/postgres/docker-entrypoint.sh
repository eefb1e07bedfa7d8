#!/bin/sh
# The official postgres image's contract, reduced: on an empty PGDATA, initdb with POSTGRES_USER (superuser,
# default postgres) and POSTGRES_PASSWORD (required unless POSTGRES_HOST_AUTH_METHOD=trust), create POSTGRES_DB
# (default: the user's name) in single-user mode, then run the server listening on every address. No temporary
# server: until `postgres` runs, nothing answers, so a pg_isready health check means ready.
set -eu
if [ "${1:-}" != postgres ]; then exec "$@"; fi
user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}
auth=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$auth" != trust ]; then
    echo 'docker-entrypoint: POSTGRES_PASSWORD is required (or POSTGRES_HOST_AUTH_METHOD=trust)' >&2
    exit 1
  fi
  mkdir -p "$PGDATA"
  chmod 0700 "$PGDATA"
  pwfile=$(mktemp)
  printf '%s\n' "${POSTGRES_PASSWORD:-}" >"$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host="$auth" \
    --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
  printf 'host all all all %s\n' "$auth" >>"$PGDATA/pg_hba.conf"
  if [ "$database" != postgres ]; then
    quoted=$(printf '%s' "$database" | sed 's/"/""/g')
    echo "CREATE DATABASE \"$quoted\";" | postgres --single -D "$PGDATA" -j postgres >/dev/null
  fi
  echo "docker-entrypoint: initialised $PGDATA (user $user, database $database)"
fi
exec "$@"

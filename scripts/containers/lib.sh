# Sourced by the scripts here: the Docker client to use and the names of the local images.
# Debian's client (20.10) matches Debian's engine and builds without buildx; another client negotiates its API.
if [ -z "${DOCKER:-}" ]; then
  if [ -x /usr/bin/docker ]; then DOCKER=/usr/bin/docker; else DOCKER=docker; fi
fi
BASE_IMAGE=${BASE_IMAGE:-x402-debian:bookworm}
POSTGRES_IMAGE=${POSTGRES_IMAGE:-x402-postgres:15-bookworm}
NODE_IMAGE=${NODE_IMAGE:-x402-node:$(node --version | tr -d v)-bookworm}
SERVICE_IMAGE=${SERVICE_IMAGE:-x402-facilitator:local}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

image_present() { "$DOCKER" image inspect "$1" >/dev/null 2>&1; }

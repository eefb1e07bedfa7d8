#!/usr/bin/env bash
# The local Debian base (no registry is needed): a minimal bookworm by debootstrap, imported as $BASE_IMAGE.
# Skipped when the image is there. Needs root and debootstrap (apt-get install debootstrap).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
if image_present "$BASE_IMAGE"; then echo "base image $BASE_IMAGE: present"; exit 0; fi
command -v debootstrap >/dev/null || { echo "build-base-image: debootstrap is missing" >&2; exit 1; }
root=$(mktemp -d /tmp/x402-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase bookworm "$root" "$DEBIAN_MIRROR" >"$root.log" 2>&1 || {
  tail -n 20 "$root.log" >&2
  exit 1
}
rm -f "$root.log"
security=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
cat >"$root/etc/apt/sources.list" <<LIST
deb $DEBIAN_MIRROR bookworm main
deb $DEBIAN_MIRROR bookworm-updates main
deb $security bookworm-security main
LIST
# The mirror's lists and downloaded packages are build leftovers; each image runs apt-get update itself.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -c . | "$DOCKER" import --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE" >/dev/null
echo "base image $BASE_IMAGE: built from debootstrap bookworm ($DEBIAN_MIRROR)"

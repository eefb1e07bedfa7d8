#!/usr/bin/env bash
# The local Node image ($NODE_IMAGE): this machine's `node` binary and its npm on the local base; skipped when present.
# The binary links only glibc and libstdc++, which bookworm has; the tag carries its version. Also this machine's
# own certificate authorities.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
if image_present "$NODE_IMAGE"; then echo "node image $NODE_IMAGE: present"; exit 0; fi
node=$(command -v node)
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
context=$(mktemp -d /tmp/x402-node-image.XXXXXX)
trap 'rm -rf "$context"' EXIT
cp "$(dirname "$0")/node/Dockerfile" "$context/"
cp "$node" "$context/node"
cp -a "$npm_dir" "$context/npm"
# The certificate authorities this machine added to Debian's (an egress proxy's, say): npm in the build reaches the
# registry as this machine does.
mkdir -p "$context/ca-certificates"
cp /usr/local/share/ca-certificates/*.crt "$context/ca-certificates/" 2>/dev/null || true
"$DOCKER" build -q --force-rm --network host --build-arg "BASE_IMAGE=$BASE_IMAGE" -t "$NODE_IMAGE" "$context" >/dev/null
echo "node image $NODE_IMAGE: built from $BASE_IMAGE and $node ($(node --version))"

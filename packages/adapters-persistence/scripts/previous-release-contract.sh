#!/bin/sh
# The previous release's journal (its adapters-persistence at a git ref), compiled as it was, run through the journal
# contract suite on a database this release migrated (docs/ARCHITECTURE.md §5, "Networks"): replicas of that release
# keep writing while this one runs. Run from the repository, after `npm run build` (the package's `npm test` runs it
# with the last commit before the expand migration, 152b614):
#   packages/adapters-persistence/scripts/previous-release-contract.sh <git ref of the previous release>
set -eu
ref=${1:?usage: previous-release-contract.sh <git ref of the previous release>}
root=$(git rev-parse --show-toplevel)
git -C "$root" cat-file -e "$ref^{commit}" 2>/dev/null || {
  echo "previous-release-contract: $ref is not in this clone's history (a shallow clone?): fetch it, the suite needs it" >&2
  exit 1
}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
git -C "$root" archive "$ref" packages/adapters-persistence/src | tar -x -C "$dir"
ln -s "$root/node_modules" "$dir/node_modules"
printf '{ "type": "module" }\n' >"$dir/package.json"
cat >"$dir/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "module": "nodenext",
    "target": "es2022",
    "rootDir": "packages/adapters-persistence/src",
    "outDir": "dist",
    "noCheck": true,
    "skipLibCheck": true
  },
  "include": ["packages/adapters-persistence/src/**/*.ts"]
}
JSON
(cd "$dir" && "$root/node_modules/.bin/tsc" -p .)
PREVIOUS_RELEASE_DIST="$dir/dist" "$root/node_modules/.bin/mocha" --no-config --timeout 60000 \
  "$root/packages/adapters-persistence/scripts/previous-release-contract.test.mjs"

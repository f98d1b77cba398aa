#!/usr/bin/env bash
# Installs npm from the npm registry's tarball (npm.txt: version and SHA-512) into
# $dlp_deps_dir/npm, run by the machine's node through $dlp_deps_dir/npm/bin/npm,
# and prints that path. For machines with Node.js but no npm (Debian's nodejs
# without Debian's npm); scripts/build.sh points CMake at it. Idempotent: an npm
# made from the same pins is kept. DLP_NPM_PINS and DLP_NPM_REGISTRY stand in for
# npm.txt and the registry in its test (tests/scripts/install_npm_test.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/dir.sh"
pins=${DLP_NPM_PINS:-$here/npm.txt}
registry=${DLP_NPM_REGISTRY:-https://registry.npmjs.org}
folder=$dlp_deps_dir/npm
if [ -x "$folder/bin/npm" ] && dlp_deps_current "$folder" "$pins"; then
  echo "$folder/bin/npm"
  exit 0
fi

pin() { awk -v key="$1" '$1 == key { print $2 }' "$pins"; }
version=$(pin version)
sha512=$(pin sha512)
staging=$folder.new
rm -rf "$staging"
mkdir -p "$staging/bin" "$staging/lib"
tarball=$staging/npm-$version.tgz
echo "install-npm: downloading npm $version from $registry" >&2
curl -fsSL --retry 3 -o "$tarball" "$registry/npm/-/npm-$version.tgz"
if ! echo "$sha512  $tarball" | sha512sum -c --status; then
  echo "install-npm: npm-$version.tgz does not match the SHA-512 in $pins" >&2
  rm -rf "$staging"
  exit 1
fi
tar -xzf "$tarball" -C "$staging/lib" --strip-components=1
rm "$tarball"
# npm's own bin/npm looks for itself beside node; this one runs the copy here.
cat >"$staging/bin/npm" <<'SCRIPT'
#!/bin/sh
exec node "$(dirname "$(readlink -f "$0")")/../lib/bin/npm-cli.js" "$@"
SCRIPT
chmod +x "$staging/bin/npm"
dlp_deps_stamp "$pins" >"$staging/.pins"
rm -rf "$folder" && mv "$staging" "$folder"
echo "install-npm: npm $("$folder/bin/npm" --version) in $folder" >&2
echo "$folder/bin/npm"

#!/usr/bin/env bash
# scripts/deps/install-npm.sh against a registry in a local folder: a tarball
# that matches its pinned SHA-512 is installed and runs through bin/npm; one
# that does not is refused with exit 1, leaving the installed npm as it was and
# no staging folder behind. Exits 77 (skipped) without node or curl.
set -euo pipefail
command -v node >/dev/null && command -v curl >/dev/null || exit 77
script=$(cd "$(dirname "$0")/../.." && pwd)/scripts/deps/install-npm.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A registry with one "npm" whose CLI prints its version.
publish() {  # VERSION
  mkdir -p "$work/pkg/package/bin" "$work/registry/npm/-"
  echo "console.log('$1')" >"$work/pkg/package/bin/npm-cli.js"
  tar -czf "$work/registry/npm/-/npm-$1.tgz" -C "$work/pkg" package
}
pin() {  # VERSION SHA512
  printf 'version %s\nsha512 %s\n' "$1" "$2" >"$work/npm.txt"
}
export DLP_DEPS_DIR=$work/deps DLP_NPM_PINS=$work/npm.txt DLP_NPM_REGISTRY=file://$work/registry

publish 1.0.0
pin 1.0.0 "$(sha512sum "$work/registry/npm/-/npm-1.0.0.tgz" | cut -d' ' -f1)"
npm=$("$script" 2>/dev/null) || fail "a matching tarball was refused"
[ "$npm" = "$work/deps/npm/bin/npm" ] || fail "printed '$npm', not the installed bin/npm"
[ "$("$npm" --version)" = 1.0.0 ] || fail "bin/npm does not run the installed npm"
[ "$("$script" 2>/dev/null)" = "$npm" ] || fail "a second run with the same pins did not keep it"

publish 2.0.0
pin 2.0.0 "$(printf '%0128d' 0)"
if err=$("$script" 2>&1 >/dev/null); then fail "a tarball that does not match its SHA-512 was installed"; fi
case $err in *"does not match the SHA-512"*) ;; *) fail "the refusal does not say why: $err" ;; esac
[ "$("$npm" --version)" = 1.0.0 ] || fail "the refused download replaced the installed npm"
[ ! -e "$work/deps/npm.new" ] || fail "the refused download left its staging folder"
echo "install-npm: 2 cases passed"

#!/usr/bin/env bash
# Installs dependencies, builds, and runs the whole test suite (what CI runs).
# Services the tests need are started by the tests themselves (dlpd, sshd in
# network namespaces) or by scripts/services.sh, and stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scripts/install-deps.sh
scripts/build.sh ${CI:+-DDLP_WERROR=ON}
build_dir=${BUILD_DIR:-build}

started_services=()
cleanup() {
  for s in "${started_services[@]}"; do "$root/scripts/services.sh" stop "$s" || true; done
}
trap cleanup EXIT
if [ -x scripts/services.sh ]; then
  for s in $(scripts/services.sh list); do
    scripts/services.sh start "$s"
    started_services+=("$s")
  done
fi

cd "$build_dir"
ctest --output-on-failure --timeout 600 -j "$(nproc)" "$@"

#!/usr/bin/env bash
# Runs the tests (CONTRIBUTING.md explains the labels):
#   scripts/test.sh            installs dependencies, builds everything, starts the services
#                              the tests need (Slurm), runs every test, stops the services.
#                              This is what CI runs.
#   scripts/test.sh --quick    builds only the unit tests and runs `ctest -L unit` (the
#                              edit loop: no installs, no services, about a minute).
# Further arguments go to ctest, e.g. scripts/test.sh --quick -R Spec.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build_dir=${BUILD_DIR:-build}

if [ "${1:-}" = "--quick" ]; then
  shift
  BUILD_TARGETS=dlp_unit_tests scripts/build.sh
  cd "$build_dir"
  exec ctest --output-on-failure -j "$(nproc)" -L unit "$@"
fi

scripts/install-deps.sh
scripts/build.sh ${CI:+-DDLP_WERROR=ON}

started_services=()
cleanup() {
  for s in "${started_services[@]}"; do "$root/scripts/services.sh" stop "$s" || true; done
}
trap cleanup EXIT
for s in $(scripts/services.sh list); do
  scripts/services.sh start "$s"
  started_services+=("$s")
done

cd "$build_dir"
# Each test has its label's timeout (tests/CMakeLists.txt).
ctest --output-on-failure -j "$(nproc)" "$@"

#!/usr/bin/env bash
# Runs the tests (CONTRIBUTING.md explains the labels):
#   scripts/test.sh            installs dependencies (the `frameworks` tests' TensorFlow, JAX
#                              and PyTorch included), builds everything, starts the services
#                              the tests need (Slurm, Kubernetes), runs every test, stops them.
#                              This is what CI runs.
#   scripts/test.sh --quick    builds only the unit tests and runs `ctest -L unit` (the
#                              edit loop: no installs, no services, about a minute).
#   scripts/test.sh --sanitize builds the unit and integration tests with clang under
#                              ASan+UBSan (build-asan/, shared with bench/fuzz/run.sh) and
#                              runs them, then the collectives and rendezvous tests under
#                              TSan (build-tsan/). No installs, no services.
#   scripts/test.sh --sanitize-ci   what CI adds: the ASan+UBSan unit tests, then every
#                              fuzz target for FUZZ_SECONDS (default 30).
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

# Configures a clang build folder with the given sanitizers (cmake/Sanitizers.cmake).
configure_sanitized() {
  local dir=$1
  shift
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    CC=clang CXX=clang++ cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DDLP_WITH_CUDA=OFF -DDLP_CLI_STATIC_DEPS=OFF "$@" >/dev/null
  fi
}

if [ "${1:-}" = "--sanitize" ] || [ "${1:-}" = "--sanitize-ci" ]; then
  mode=$1
  shift
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
  # Reports fail the test; third-party suppressions live in scripts/sanitizers/.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/scripts/sanitizers/lsan.supp}
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$root/scripts/sanitizers/tsan.supp}
  asan_dir=${ASAN_BUILD_DIR:-build-asan}
  # One ASan+UBSan build serves the tests and the fuzz targets (DLP_FUZZ adds
  # libFuzzer's coverage hooks, which cost the tests little).
  configure_sanitized "$asan_dir" -DDLP_SANITIZE=address,undefined -DDLP_FUZZ=ON
  if [ "$mode" = "--sanitize-ci" ]; then
    cmake --build "$asan_dir" -j "$(nproc)" --target dlp_unit_tests
    (cd "$asan_dir" && ctest --output-on-failure -j "$(nproc)" -L unit "$@")
    BUILD_DIR=$asan_dir bench/fuzz/run.sh "${FUZZ_SECONDS:-30}"
    exit 0
  fi
  cmake --build "$asan_dir" -j "$(nproc)" --target dlp_unit_tests dlp_integration_tests
  (cd "$asan_dir" && ctest --output-on-failure -j "$(nproc)" -L 'unit|integration' "$@")
  tsan_dir=${TSAN_BUILD_DIR:-build-tsan}
  configure_sanitized "$tsan_dir" -DDLP_SANITIZE=thread -DDLP_BUILD_BENCH=OFF
  cmake --build "$tsan_dir" -j "$(nproc)" --target dlp_tsan_tests
  # Only the collectives and rendezvous tests are built there (tests/CMakeLists.txt).
  (cd "$tsan_dir" && ctest --output-on-failure -j "$(nproc)" -L unit "$@")
  exit 0
fi

scripts/install-deps.sh --tests --cuda --python --frameworks
# Into the quick start's folder when it is there: configured again, so that what
# was installed since (the CUDA toolkit, the benchmarks' Open MPI, pybind11)
# joins it, and only that and the tests and benchmarks are built. CI adds
# -Werror, which changes every compile command, and builds the programs in
# batches as the quick start does (DLP_UNITY_BUILD), so that they stay
# buildable that way.
scripts/build.sh -DDLP_BUILD_TESTS=ON -DDLP_BUILD_BENCH=ON ${CI:+-DDLP_WERROR=ON -DDLP_UNITY_BUILD=ON}

started_services=()
cleanup() {
  for s in "${started_services[@]}"; do "$root/scripts/services.sh" stop "$s" || true; done
}
trap cleanup EXIT
for s in $(scripts/services.sh list); do
  scripts/services.sh start "$s"
  started_services+=("$s")
done

# Each test has its label's timeout (tests/CMakeLists.txt).
status=0
(cd "$build_dir" && ctest --output-on-failure -j "$(nproc)" "$@") || status=$?
# The failed assertions again at the end, where a log's last lines show them.
[ "$status" -eq 0 ] || scripts/failed-tests.sh "$build_dir" >&2
exit "$status"

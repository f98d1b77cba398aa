#!/usr/bin/env bash
# Configures and builds dlp into build/ (BUILD_DIR to change). Extra arguments go to cmake
# (and configure an existing folder again).
# BUILD_TARGETS: build only these targets (e.g. "programs"); default: everything,
# tests and benchmarks included.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
# Paths inside the tree are hashed relative to it, so every clone shares ccache's results.
export CCACHE_BASEDIR="$PWD"
# Debug info would otherwise put each clone's folder into the hash.
export CCACHE_NOHASHDIR=1
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
# The CUDA toolkit from NVIDIA's wheels, where scripts/install-deps.sh --cuda laid it out.
. scripts/deps/dir.sh
cuda=()
if [ -x "$dlp_deps_dir/cuda/bin/nvcc" ]; then cuda=(-DDLP_CUDA_ROOT="$dlp_deps_dir/cuda"); fi
# The Python package's test environment (scripts/deps/install-python.sh), also
# into a build folder configured before it existed.
python=()
if [ -x "$dlp_deps_dir/python-package/bin/pytest" ]; then
  python=(-DDLP_PYTHON_VENV="$dlp_deps_dir/python-package")
fi
# npm from the npm registry (scripts/deps/install-npm.sh) where none is on PATH.
npm=()
if ! command -v npm >/dev/null && [ -x "$dlp_deps_dir/npm/bin/npm" ]; then
  npm=(-DDLP_NPM="$dlp_deps_dir/npm/bin/npm")
fi
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cuda[@]}" \
    "${python[@]}" "${npm[@]}" "$@"
elif [ $# -gt 0 ] || { [ ${#python[@]} -gt 0 ] &&
                       ! grep -q "^DLP_PYTHON_VENV:PATH=." "$build_dir/CMakeCache.txt"; } ||
     { [ ${#cuda[@]} -gt 0 ] &&
       grep -qx "CMAKE_CUDA_COMPILER:FILEPATH=NOTFOUND" "$build_dir/CMakeCache.txt"; } ||
     { [ ${#npm[@]} -gt 0 ] && grep -q "^DLP_NPM:FILEPATH=.*NOTFOUND" "$build_dir/CMakeCache.txt"; }; then
  # A toolkit, venv or npm installed after the folder was configured (the quick
  # start's build, reused by scripts/test.sh) joins it here.
  cmake -S . -B "$build_dir" "${cuda[@]}" "${python[@]}" "${npm[@]}" "$@"
fi
targets=()
if [ -n "${BUILD_TARGETS:-}" ]; then
  read -ra names <<<"$BUILD_TARGETS"
  targets=(--target "${names[@]}")
fi
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"

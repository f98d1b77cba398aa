#!/usr/bin/env bash
# Installs what dlp's programs need to build and run (dlp, dlpd with its web UI,
# dlp-run, fmnist-train and its data set), from Debian 12's packages and, from
# the npm registry, npm itself where the machine has none and the dashboard's
# packages: what scripts/quickstart.sh and the README's Install need. With --tests
# also what only the tests, benchmarks and sanitized builds use (clang, Slurm,
# sshd, Open MPI, Chromium, ...); with --cuda also the CUDA toolkit from NVIDIA's
# wheels (scripts/deps/install-cuda.sh), so that the CUDA code paths compile; with
# --python also the Python package's module and test dependencies (pybind11,
# pytest, pandas: scripts/deps/install-python.sh); with --frameworks also
# TensorFlow, JAX and PyTorch from PyPI in a virtual environment
# (scripts/deps/install-frameworks.sh), for the `frameworks` tests.
# scripts/test.sh asks for all four. Idempotent: what is present is kept.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
with_tests=0
with_cuda=0
with_python=0
with_frameworks=0
for arg in "$@"; do
  case $arg in
    --tests) with_tests=1 ;;
    --cuda) with_cuda=1 ;;
    --python) with_python=1 ;;
    --frameworks) with_frameworks=1 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-deps: unknown option '$arg' (expected --tests, --cuda, --python or --frameworks)" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake ninja-build pkg-config ccache git
  libcli11-dev libcurl4-openssl-dev nlohmann-json3-dev libyaml-cpp-dev
  libcpp-httplib-dev libssl-dev zlib1g-dev libbrotli-dev libabsl-dev libsqlite3-dev
  libgtest-dev libgmock-dev  # CMake's configure: the tests are part of every build tree
  libcairo2-dev fonts-dejavu-core  # dlp metrics --png/--svg (libdlp_chart.so)
  dataset-fashion-mnist  # the main job's data (fmnist-train)
  openssh-client  # dlp-run's starts on other hosts
  python3  # schema/cpp_fields.py writes the job spec's field tables at build time
)
if [ "$with_tests" = 1 ]; then
  packages+=(
    clang libclang-rt-14-dev  # scripts/test.sh --sanitize, bench/fuzz (libFuzzer, sanitizers)
    openmpi-bin libopenmpi-dev libgloo-dev  # bench/allreduce's baselines
    openssh-server iproute2 procps  # the ssh launch tests (scripts/netns-ssh.sh)
    slurm-wlm slurm-client munge slurmrestd slurm-wlm-jwt-plugin
    python3 python3-jsonschema python3-yaml  # Kubernetes manifests vs. the CRD schemas
    chromium  # web/test: the dashboard's tests in a real browser
    zsh fish  # e2e/cli_completion_test: the generated completions load in each shell
  )
fi
if [ "$with_tests" = 1 ] || [ "$with_python" = 1 ]; then
  packages+=(python3-dev pybind11-dev)  # the Python package's module over libdlp (python/)
fi
if [ "$with_cuda" = 1 ] || [ "$with_python" = 1 ] || [ "$with_frameworks" = 1 ]; then
  packages+=(python3 python3-venv)  # the project's own virtual environments (scripts/deps/)
fi
# web/: Node and npm build the dashboard (`npm ci` from web/package-lock.json).
# Debian's nodejs, and npm from the npm registry (scripts/deps/install-npm.sh)
# rather than Debian's npm package and its ~360 node-* packages. A Node installed
# from elsewhere (NodeSource) brings its own npm.
if ! command -v node >/dev/null; then packages+=(nodejs); fi
if ! command -v npm >/dev/null; then packages+=(curl); fi  # install-npm.sh's download

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "install-deps: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The dashboard's npm packages, exactly as web/package-lock.json pins them: this
# fills npm's cache, from which the build's `npm ci --offline` installs them.
npm=$(command -v npm || "$here/deps/install-npm.sh" || true)
web=$here/../web
if [ -n "$npm" ] && [ -f "$web/package-lock.json" ] && [ ! -d "$web/node_modules" ]; then
  (cd "$web" && "$npm" ci --no-audit --no-fund --no-update-notifier --loglevel=error) ||
    echo "install-deps: npm ci failed; dlpd will be built without its web UI" >&2
fi

if [ "$with_cuda" = 1 ]; then "$here/deps/install-cuda.sh"; fi
if [ "$with_python" = 1 ]; then "$here/deps/install-python.sh"; fi
if [ "$with_frameworks" = 1 ]; then "$here/deps/install-frameworks.sh" >/dev/null; fi

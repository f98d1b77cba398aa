#!/usr/bin/env bash
# Quick start on a fresh Debian 12 machine: installs the dependencies, builds
# dlp, and runs the main job on the local backend (dlpd starts on demand),
# following its logs. The exit status is the job's outcome (see dlp(1)).
set -euo pipefail

JOB_FILE=${JOB_FILE:-examples/fashion-mnist/job.yaml}

cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Only the programs the job needs, their sources compiled in batches (a build
# from scratch: CMakeLists.txt, DLP_UNITY_BUILD); scripts/test.sh builds the
# tests and benchmarks into the same folder.
BUILD_TARGETS=programs scripts/build.sh -DDLP_UNITY_BUILD=ON
build_dir=${BUILD_DIR:-build}
# The job's command (fmnist-train) is found through PATH, as installed programs are.
export PATH="$PWD/$build_dir/bin:$PATH"
exec "$build_dir/bin/dlp" submit "$JOB_FILE" --follow

#!/usr/bin/env bash
# Trainer throughput: fmnist-train samples/s for 1, 2 and 4 ranks under dlp-run
# (same global batch), the speedup over 1 rank and the scaling efficiency
# (speedup / min(ranks, cores): ranks beyond the core count share cores).
#
#   bench/trainer/run.sh [BUILD_DIR] [extra fmnist-train flags...]
#   e.g. bench/trainer/run.sh build --model cnn --limit-train 10000
set -euo pipefail
build=${1:-build}
shift || true
bin="$build/bin"
[[ -x "$bin/fmnist-train" ]] || { echo "no $bin/fmnist-train: build it first" >&2; exit 2; }
[[ -x "$bin/dlp-run" ]] || { echo "no $bin/dlp-run: build it first" >&2; exit 2; }
cores=$(nproc)
flags=(--epochs "${EPOCHS:-2}" --device cpu --limit-test 1000 "$@")

# Prints the samples/s of the last epoch that rank 0 reported.
run() {
  local ranks=$1
  "$bin/dlp-run" -np "$ranks" -- "$bin/fmnist-train" "${flags[@]}" |
    sed -n 's/^\[0\] //p' | grep '^{' | tail -1 |
    python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["samples_per_second"])'
}

echo "# fmnist-train ${flags[*]} on $cores cores ($(uname -m))"
printf '%6s %14s %9s %11s\n' ranks samples/s speedup efficiency
base=""
for ranks in 1 2 4; do
  sps=$(run "$ranks")
  [[ -n "$base" ]] || base=$sps
  python3 - "$ranks" "$sps" "$base" "$cores" <<'PY'
import sys
ranks, sps, base, cores = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
speedup = sps / base
print("%6d %14.0f %8.2fx %10.0f%%" % (ranks, sps, speedup, 100 * speedup / min(ranks, cores)))
PY
done

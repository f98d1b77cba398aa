#!/usr/bin/env bash
# Trainer throughput: fmnist-train samples/s for 1, 2 and 4 ranks under dlp-run
# (same global batch), the speedup over 1 rank and the scaling efficiency
# (speedup / min(ranks, cores): ranks beyond the core count share cores).
# Each allreduce algorithm in ALGOS (DLP_COMM_ALGO, default "ring auto": the ring
# that ran before the direct algorithm, and the automatic choice) runs
# REPEAT times (default 3), interleaved with the others so that a change in the
# machine's load affects them alike; the table shows medians.
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
algos=${ALGOS:-"ring auto"}
repeat=${REPEAT:-3}
flags=(--epochs "${EPOCHS:-2}" --device cpu --limit-test 1000 "$@")

# Prints the samples/s of the last epoch that rank 0 reported.
run() {
  local ranks=$1 algo=$2
  # The trainer's first line (on stderr) would interleave with the table; errors still show.
  DLP_COMM_ALGO=$algo "$bin/dlp-run" -np "$ranks" -- "$bin/fmnist-train" "${flags[@]}" \
    2> >(grep -v '^\[0\] fmnist-train: training ' >&2) |
    sed -n 's/^\[0\] //p' | grep '^{' | tail -1 |
    python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["samples_per_second"])'
}

results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "# fmnist-train ${flags[*]} on $cores cores ($(uname -m)), load average" \
  "$(cut -d' ' -f1-3 /proc/loadavg) before the run; medians of $repeat interleaved runs"
for ((i = 0; i < repeat; i++)); do
  echo "1 - $(run 1 auto)" >>"$results"
  for ranks in 2 4; do
    for algo in $algos; do echo "$ranks $algo $(run "$ranks" "$algo")" >>"$results"; done
  done
done
python3 - "$results" "$cores" "$algos" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
cores, algos = int(sys.argv[2]), sys.argv[3].split()
runs = {}
for ranks, algo, sps in rows:
    runs.setdefault((int(ranks), algo), []).append(float(sps))
med = {k: statistics.median(v) for k, v in runs.items()}
base = med[(1, "-")]
print("%6s %-7s %12s %9s %11s" % ("ranks", "algo", "samples/s", "speedup", "efficiency"))
print("%6d %-7s %12.0f %8.2fx %10.0f%%" % (1, "-", base, 1.0, 100))
for ranks in (2, 4):
    for algo in algos:
        sps = med[(ranks, algo)]
        print("%6d %-7s %12.0f %8.2fx %10.0f%%" % (ranks, algo, sps, sps / base,
                                                   100 * sps / base / min(ranks, cores)))
# Each repeat's 4-rank run against the 2-rank run beside it: how far the
# machine's noise moves the ratio of the medians.
for algo in algos:
    pairs = [100 * four / two for two, four in zip(runs[(2, algo)], runs[(4, algo)])]
    print("4 ranks / 2 ranks (%s): %.0f%% (target >= 90%%; repeats %.0f-%.0f%%)" % (
        algo, 100 * med[(4, algo)] / med[(2, algo)], min(pairs), max(pairs)))
PY

#!/bin/sh
# Launch overhead: wall time of `dlp-run -np 4 -- true` against
# `mpirun --allow-run-as-root --oversubscribe -np 4 true`, median of RUNS runs
# each (default 15), and their ratio.
#   bench/launch/run.sh [BUILD_DIR]    (default: build)
set -eu
build=${1:-build}
runs=${RUNS:-15}
dlp_run="$build/bin/dlp-run"
[ -x "$dlp_run" ] || { echo "no $dlp_run; build the dlp-run target first" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "mpirun not found (Debian: openmpi-bin)" >&2; exit 1; }

# Median wall time in milliseconds of running "$@" $runs times.
median_ms() {
  i=0
  while [ "$i" -lt "$runs" ]; do
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
    end=$(date +%s%N)
    echo $(( (end - start) / 1000 ))
    i=$((i + 1))
  done | sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.2f\n", m / 1000 }'
}

dlp=$(median_ms "$dlp_run" -np 4 -- true)
mpi=$(median_ms mpirun --allow-run-as-root --oversubscribe -np 4 true)
printf '%-52s %12s\n' "launcher (4 ranks of true, median of $runs)" "wall ms"
printf '%-52s %12s\n' "dlp-run -np 4 -- true" "$dlp"
printf '%-52s %12s\n' "mpirun --oversubscribe -np 4 true" "$mpi"
awk -v d="$dlp" -v m="$mpi" 'BEGIN { printf "%-52s %12.3f\n", "ratio dlp-run / mpirun", d / m }'

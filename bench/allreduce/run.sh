#!/usr/bin/env bash
# Allreduce side by side: dlp vs Open MPI vs Gloo (ring chunked), float32,
# 1 MiB .. 256 MiB, 2 and 4 ranks on this host, with memcpy as the ceiling.
# Builds what it needs, prints an nccl-tests-style table of medians and the
# ratios at 64 MiB / 4 ranks; exits non-zero on any wrong element or failure.
#
#   bench/allreduce/run.sh [BUILD_DIR]     (MAX_BYTES=... RANKS="2 4" to narrow;
#                                           BIN=DIR runs prebuilt benchmarks)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
ranks=${RANKS:-"2 4"}
max_bytes=${MAX_BYTES:-268435456}
jobs=${JOBS:-2}

if [[ -n ${BIN:-} ]]; then
  bin=$BIN
else
  if [[ ! -f $build/build.ninja ]]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDLP_WITH_CUDA=OFF \
      -DDLP_BUILD_TESTS=OFF >/dev/null
  fi
  targets="dlp_allreduce_bench memcpy_bench"
  for t in mpi_allreduce_bench gloo_allreduce_bench; do
    # Built only where CMake found MPI / Gloo.
    if ninja -C "$build" -t targets all 2>/dev/null | grep -q "^$t:"; then targets+=" $t"; fi
  done
  if ! ninja -C "$build" -j"$jobs" $targets >"$build/bench-build.log" 2>&1; then
    tail -30 "$build/bench-build.log" >&2
    exit 1
  fi
  bin=$build/bin
fi

rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
status=0
run() {  # run LABEL CMD...: keep the ROW lines, note a failure
  if ! "${@:2}" --max-bytes "$max_bytes" 2>"$rows.err" | grep '^ROW' >>"$rows"; then
    echo "FAILED: $1" >&2; cat "$rows.err" >&2; status=1
  fi
}
run memcpy "$bin/memcpy_bench"
for n in $ranks; do
  run "dlp $n" "$bin/dlp_allreduce_bench" --ranks "$n"
  if [[ -x $bin/mpi_allreduce_bench ]] && command -v mpirun >/dev/null; then
    run "mpi $n" mpirun --allow-run-as-root --oversubscribe -np "$n" "$bin/mpi_allreduce_bench"
  fi
  if [[ -x $bin/gloo_allreduce_bench ]]; then
    run "gloo $n" "$bin/gloo_allreduce_bench" --ranks "$n"
  fi
done
rm -f "$rows.err"

awk -v ranks="$ranks" -v max_bytes="$max_bytes" '
  $1 == "ROW" { key = $2 " " $3 " " $4; time[key] = $5; bus[key] = $7; wrong[key] = $8
                if ($2 == "memcpy") mem[$4] = $7
                if ($8 != 0) bad = 1 }
  END {
    printf "%-7s %5s | %12s %8s %6s | %12s %8s %6s | %12s %8s %6s | %8s\n", "ranks", "MiB",
      "dlp us", "busbw", "#wrong", "mpi us", "busbw", "#wrong", "gloo us", "busbw", "#wrong", "memcpy"
    n = split(ranks, rs, " ")
    for (i = 1; i <= n; i++) for (s = 1048576; s <= max_bytes; s *= 4) {
      r = rs[i]; line = sprintf("%-7s %5d", r, s / 1048576)
      split("dlp mpi gloo", impls, " ")
      for (k = 1; k <= 3; k++) {
        key = impls[k] " " r " " s
        if (key in time) line = line sprintf(" | %12.0f %8.3f %6d", time[key], bus[key], wrong[key])
        else line = line sprintf(" | %12s %8s %6s", "-", "-", "-")
      }
      printf "%s | %8.3f\n", line, mem[s]
    }
    print "(times are medians in microseconds; busbw = S*2(N-1)/N/t in GB/s; memcpy GB/s)"
    s = 67108864; d = bus["dlp 4 " s]
    if (d > 0) {
      if (bus["mpi 4 " s] > 0) printf "64 MiB, 4 ranks: dlp/mpi  = %.2fx (target >= 1.0)\n", d / bus["mpi 4 " s]
      if (bus["gloo 4 " s] > 0) printf "64 MiB, 4 ranks: dlp/gloo = %.2fx (target >= 2.0)\n", d / bus["gloo 4 " s]
      if (mem[s] > 0) printf "64 MiB, 4 ranks: dlp busbw = %.0f%% of memcpy\n", 100 * d / mem[s]
    }
    if (bad) { print "WRONG ELEMENTS FOUND"; exit 1 }
  }' "$rows" || status=1
exit $status

#!/usr/bin/env bash
# Allreduce side by side: dlp (automatic choice) vs dlp's ring (DLP_COMM_ALGO=ring,
# the algorithm before the direct one) vs dlp with both buffers in shared memory
# (dlp_shared_alloc: zero-copy from 1 MiB) and that path's bare reduction (the
# "kernel" row of the summary) vs Open MPI vs Gloo (ring chunked), float32,
# 4 KiB .. 256 MiB, 2 and 4 ranks on this host, with memcpy as the ceiling and, up to
# 256 KiB, the one-shot exchange without a library (bare_exchange_bench.cc).
# Builds what it needs, prints an nccl-tests-style table of medians and the
# ratios the targets are stated in; exits non-zero on any wrong element or failure.
#
#   bench/allreduce/run.sh [BUILD_DIR]     (MIN_BYTES=... MAX_BYTES=... RANKS="2 4" to
#                                           narrow; BIN=DIR runs prebuilt benchmarks)
# Open MPI runs with MPI_FLAGS (default: its shared-memory transport, vader, under
# ob1, and its default `coll tuned` decision rules: what a user gets).
# dlp's and Gloo's ranks are bound to their share of the CPUs, as
# `dlp-run --bind-to core` binds them and as mpirun binds its ranks by default
# (to a core each while there are no more ranks than cores);
# DLP_BENCH_BIND=none leaves them unbound.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
ranks=${RANKS:-"2 4"}
max_bytes=${MAX_BYTES:-268435456}
min_bytes=${MIN_BYTES:-4096}
mpi_flags=${MPI_FLAGS:-"--mca pml ob1 --mca btl self,vader"}
jobs=${JOBS:-2}

if [[ -n ${BIN:-} ]]; then
  bin=$BIN
else
  if [[ ! -f $build/build.ninja ]]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDLP_WITH_CUDA=OFF \
      -DDLP_BUILD_TESTS=OFF >/dev/null
  fi
  targets="dlp_allreduce_bench memcpy_bench bare_exchange_bench"
  for t in mpi_allreduce_bench gloo_allreduce_bench; do
    # Built only where CMake found MPI / Gloo.
    if ninja -C "$build" -t targets all 2>/dev/null | grep "^$t:" >/dev/null; then targets+=" $t"; fi
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
run() {  # [upto=BYTES] run LABEL CMD...: keep the ROW lines, note a failure
  if ! "${@:2}" --min-bytes "$min_bytes" --max-bytes "${upto:-$max_bytes}" 2>"$rows.err" |
    grep '^ROW' >>"$rows"; then
    echo "FAILED: $1" >&2; cat "$rows.err" >&2; status=1
  fi
}
run memcpy "$bin/memcpy_bench"
for n in $ranks; do
  # The automatic choice, the ring, shared buffers and the bare reduction between them
  # (the ceiling for shared buffers), their calls alternating in one run.
  run "dlp $n" env DLP_BENCH_ALGOS="auto ring shared kernel" "$bin/dlp_allreduce_bench" --ranks "$n"
  if [[ -x $bin/mpi_allreduce_bench ]] && command -v mpirun >/dev/null; then
    # shellcheck disable=SC2086
    run "mpi $n" mpirun --allow-run-as-root --oversubscribe $mpi_flags -np "$n" \
      "$bin/mpi_allreduce_bench"
  fi
  if [[ -x $bin/gloo_allreduce_bench ]]; then
    run "gloo $n" "$bin/gloo_allreduce_bench" --ranks "$n"
  fi
  # The one-shot exchange without a library, beside the small sizes.
  if ((min_bytes <= 262144)); then
    upto=$((max_bytes < 262144 ? max_bytes : 262144)) run "bare $n" "$bin/bare_exchange_bench" --ranks "$n"
  fi
done
rm -f "$rows.err"

echo "# $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before the run; MPI_FLAGS: $mpi_flags"
awk -v ranks="$ranks" -v min_bytes="$min_bytes" -v max_bytes="$max_bytes" '
  function human(s) { return s >= 1048576 ? sprintf("%dM", s / 1048576) : sprintf("%dK", s / 1024) }
  $1 == "ROW" { key = $2 " " $3 " " $4; time[key] = $5; bus[key] = $7; wrong[key] = $8
                if ($2 == "memcpy") mem[$4] = $7
                if ($8 != 0) bad = 1 }
  END {
    printf "%-5s %5s | %10s %7s %6s | %10s %7s | %10s %7s | %10s %7s %6s | %10s %7s %6s | %7s\n",
      "ranks", "size", "dlp us", "busbw", "#wrong", "ring us", "busbw", "shared us", "busbw",
      "mpi us", "busbw", "#wrong", "gloo us", "busbw", "#wrong", "memcpy"
    n = split(ranks, rs, " ")
    for (i = 1; i <= n; i++) for (s = min_bytes; s <= max_bytes; s *= 4) {
      r = rs[i]; line = sprintf("%-5s %5s", r, human(s))
      split("dlp dlp_ring dlp_shared mpi gloo", impls, " ")
      for (k = 1; k <= 5; k++) {
        key = impls[k] " " r " " s
        if (k == 2 || k == 3) {
          if (key in time) line = line sprintf(" | %10.2f %7.3f", time[key], bus[key])
          else line = line sprintf(" | %10s %7s", "-", "-")
        } else if (key in time) line = line sprintf(" | %10.2f %7.3f %6d", time[key], bus[key], wrong[key])
        else line = line sprintf(" | %10s %7s %6s", "-", "-", "-")
      }
      printf "%s | %7.3f\n", line, mem[s]
    }
    print "(medians in microseconds; busbw = S*2(N-1)/N/t in GB/s; ring = dlp with DLP_COMM_ALGO=ring;"
    print " shared = dlp with both buffers from dlp_shared_alloc; memcpy GB/s)"
    print "kernel = the reduction of the shared path alone (every input read once, every output written"
    print " once), then a barrier: what this memory allows an allreduce between shared buffers"
    for (i = 1; i <= n; i++) {
      r = rs[i]
      for (v = 1; v <= 2; v++) {
        impl = v == 1 ? "dlp" : "dlp_shared"
        s = 67108864; d = bus[impl " " r " " s]
        if (d > 0 && mem[s] > 0) printf "64 MiB, %d ranks: %s busbw = %.0f%% of memcpy (target >= 50%%)\n", r, impl, 100 * d / mem[s]
        if (d > 0 && bus["gloo " r " " s] > 0) printf "64 MiB, %d ranks: %s/gloo = %.2fx (target >= 5)\n", r, impl, d / bus["gloo " r " " s]
        s = 16777216; d = bus[impl " " r " " s]
        if (d > 0 && bus["mpi " r " " s] > 0) printf "16 MiB, %d ranks: %s/mpi  = %.2fx (target >= 2.5)\n", r, impl, d / bus["mpi " r " " s]
      }
      s = 67108864; k = bus["dlp_kernel " r " " s]; d = bus["dlp_shared " r " " s]
      if (k > 0 && mem[s] > 0) printf "64 MiB, %d ranks: kernel busbw = %.0f%% of memcpy; dlp_shared = %.0f%% of kernel\n", r, 100 * k / mem[s], 100 * d / k
      d = bus["dlp " r " " s]
      if (d > 0 && bus["dlp_ring " r " " s] > 0) printf "64 MiB, %d ranks: dlp/ring = %.2fx\n", r, d / bus["dlp_ring " r " " s]
      line = ""
      for (s = min_bytes; s <= 262144 && s <= max_bytes; s *= 4) {
        t = time["dlp " r " " s]; m = time["mpi " r " " s]
        if (t > 0 && m > 0) line = line sprintf(" %s %.2fx", human(s), m / t)
      }
      if (line != "") printf "latency, %d ranks, mpi time / dlp time:%s (target >= 2 up to 256K)\n", r, line
      line = ""
      for (s = min_bytes; s <= 262144 && s <= max_bytes; s *= 4) {
        t = time["bare " r " " s]; m = time["mpi " r " " s]
        if (t > 0 && m > 0) line = line sprintf(" %s %.2fx", human(s), m / t)
      }
      if (line != "") printf "latency, %d ranks, mpi time / bare one-shot time:%s (the same moves without a library)\n", r, line
    }
    if (bad) { print "WRONG ELEMENTS FOUND"; exit 1 }
  }' "$rows" || status=1
exit $status

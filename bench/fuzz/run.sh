#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan: cmake/Sanitizers.cmake) and runs
# each for SECONDS from its seeds in bench/fuzz/corpus/NAME, then prints one line
# per target: seconds, executions, crashes, leaks, timeouts (bench/RESULTS.md, "Fuzzing").
#   bench/fuzz/run.sh SECONDS [TARGET...]   default: every target
# BUILD_DIR (default build-asan) is shared with `scripts/test.sh --sanitize`.
# Findings go to $OUT (default $BUILD_DIR/fuzz-out/NAME: crash-*, leak-*, the
# grown corpus); a run keeps going after a crash (-fork=1 -ignore_crashes=1)
# so that the counts are whole (timeouts: over 10 s for one input, or over 2 GiB).
# JOBS targets run at once (default: one per core; each fuzzes in one process), so
# that CI's share of the time does not grow with the number of targets.
# Exit status 1 when any target crashed, leaked or timed out.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
seconds=${1:?usage: bench/fuzz/run.sh SECONDS [TARGET...]}
shift
build_dir=${BUILD_DIR:-build-asan}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(spec_yaml spec_json group_json log_line log_tail log_ndjson trace api status_json tenant_path
           rendezvous)
fi

export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDLP_WITH_CUDA=OFF -DDLP_SANITIZE=address,undefined -DDLP_FUZZ=ON \
    -DDLP_CLI_STATIC_DEPS=OFF >/dev/null
fi
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"

out_root=${OUT:-$build_dir/fuzz-out}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
parallel=${JOBS:-$(nproc)}

# Fuzzes one target, then writes its summary line to $out/summary.
fuzz_one() {
  local t=$1 out=$out_root/$1
  mkdir -p "$out/corpus"
  local log=$out/fuzz.log
  # The seeds in the tree are read, never written: new inputs go to $out/corpus.
  "$build_dir/bin/fuzz_$t" "$out/corpus" "bench/fuzz/corpus/$t" -max_total_time="$seconds" \
    -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -artifact_prefix="$out/" -print_final_stats=1 >"$log" 2>&1 || true
  # Fork mode prints "#RUNS: cov: ..." with the runs of every job so far.
  local execs crashes leaks timeouts
  execs=$(grep -oE '^#[0-9]+: cov' "$log" | tail -1 | tr -dc 0-9 || true)
  # Counts are of inputs saved (-artifact_prefix), not of distinct bugs.
  crashes=$(find "$out" -maxdepth 1 -name 'crash-*' | wc -l)
  leaks=$(find "$out" -maxdepth 1 -name 'leak-*' | wc -l)
  timeouts=$(find "$out" -maxdepth 1 \( -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  printf '%-12s %8s %12s %8s %6s %9s\n' "$t" "$seconds" "${execs:-0}" "$crashes" "$leaks" \
    "$timeouts" >"$out/summary"
}

for t in "${targets[@]}"; do
  rm -f "$out_root/$t/summary"
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  fuzz_one "$t" &
done
wait

printf '%-12s %8s %12s %8s %6s %9s\n' target seconds executions crashes leaks timeouts
status=0
for t in "${targets[@]}"; do
  if [ ! -f "$out_root/$t/summary" ]; then
    echo "$t: the fuzzer's run did not finish (see $out_root/$t/fuzz.log)" >&2
    status=1
    continue
  fi
  line=$(cat "$out_root/$t/summary")
  echo "$line"
  read -r _ _ _ crashes leaks timeouts <<<"$line"
  if [ "$crashes" -gt 0 ] || [ "$leaks" -gt 0 ] || [ "$timeouts" -gt 0 ]; then status=1; fi
done
exit $status

#!/usr/bin/env bash
# Tracing overhead on the trainer: the median step time of a 4-rank
# fmnist-train with tracing on (DLP_TRACE_DIR set by dlp-run --log-dir) and off
# (DLP_TRACE=0), over several alternating runs. Step time comes from the
# trainer's own samples/s (DLP_METRIC lines), so both modes are measured the
# same way. Usage: bench/trace/run.sh [BUILD_DIR] [RUNS]
set -euo pipefail
build=${1:-build}
runs=${2:-5}
bin=$(cd "$build/bin" && pwd)
np=${NP:-4}
args=(--limit-train "${LIMIT_TRAIN:-8192}" --limit-test 256 --epochs 1 --batch 64 --device cpu)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Prints the run's mean samples/s over all ranks.
one_run() {
  local mode=$1
  local dir=$work/$mode-$2
  mkdir -p "$dir"
  if [[ $mode == on ]]; then
    "$bin/dlp-run" -np "$np" --log-dir "$dir" -- "$bin/fmnist-train" "${args[@]}" >/dev/null
  else
    DLP_TRACE=0 "$bin/dlp-run" -np "$np" --log-dir "$dir" -- "$bin/fmnist-train" "${args[@]}" >/dev/null
  fi
  cat "$dir"/*.log | sed -n 's/.*DLP_METRIC samples_per_s=\([0-9.e+]*\).*/\1/p' |
    awk '{s += $1; n++} END {printf "%.3f\n", s / n}'
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

on=() off=()
for i in $(seq "$runs"); do
  off+=("$(one_run off "$i")")
  on+=("$(one_run on "$i")")
done
off_med=$(printf '%s\n' "${off[@]}" | median)
on_med=$(printf '%s\n' "${on[@]}" | median)
# Step time is inversely proportional to samples/s at a fixed batch.
printf '%-8s %10s %14s\n' tracing runs 'samples/s(med)'
printf '%-8s %10d %14.1f   [%s]\n' off "$runs" "$off_med" "${off[*]}"
printf '%-8s %10d %14.1f   [%s]\n' on "$runs" "$on_med" "${on[*]}"
awk -v a="$off_med" -v b="$on_med" 'BEGIN {printf "overhead: %+.2f%% step time (on vs off, medians)\n", (a / b - 1) * 100}'

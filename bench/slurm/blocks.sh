#!/usr/bin/env bash
# bench/slurm/blocks.sh [ROUNDS] [BLOCK] BIN_DIR...
#
# Submission rates in interleaved blocks, so that every column sees the same
# load on a shared machine: each round submits BLOCK trivial jobs with
# `dlp submit -q` on the local backend for each BIN_DIR (one dlpd, started by
# the first), then BLOCK with a bare `sbatch` on the Slurm test cluster
# (scripts/services.sh start slurm). Prints the median submits/s per column and
# each column's ratio to sbatch. Defaults: 8 rounds of 40.
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh
rounds=8
block=40
if [[ ${1:-} =~ ^[0-9]+$ ]]; then rounds=$1; shift; fi
if [[ ${1:-} =~ ^[0-9]+$ ]]; then block=$1; shift; fi
(( $# > 0 )) || { echo "usage: $0 [ROUNDS] [BLOCK] BIN_DIR..." >&2; exit 2; }
bins=()
for dir in "$@"; do bins+=("$(cd "$dir" && pwd)"); done
env_file=${DLP_SLURM_ENV:-/tmp/dlp-slurm/env}
[ -f "$env_file" ] || { echo "no Slurm test cluster ($env_file); run scripts/services.sh start slurm" >&2; exit 1; }
set -a; . "$env_file"; set +a

work=$(mktemp -d)
export XDG_STATE_HOME=$work/state DLP_CONFIG=$work/none.yaml
unset DLP_CONTEXT
trap '"${bins[0]}/dlp" server stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
write_trivial_job "$work/trivial.yaml"
now() { date +%s.%N; }
rate() { awk -v a="$1" -v b="$2" -v n="$block" 'BEGIN { printf "%.1f", n / (b - a) }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

"${bins[0]}/dlp" server start >/dev/null
declare -A rates=()
for (( r = 1; r <= rounds; ++r )); do
  for bin in "${bins[@]}"; do
    t0=$(now)
    for (( i = 0; i < block; ++i )); do "$bin/dlp" submit -q "$work/trivial.yaml" >/dev/null; done
    rates[$bin]+=" $(rate "$t0" "$(now)")"
  done
  t0=$(now)
  for (( i = 0; i < block; ++i )); do
    sbatch --parsable -J dlpbench -o /dev/null --wrap true >/dev/null
  done
  rates[sbatch]+=" $(rate "$t0" "$(now)")"
done
while [ "$(squeue -h -n dlpbench -t PD,R,CG,CF | wc -l)" -gt 0 ]; do sleep 0.2; done

# shellcheck disable=SC2086
sbatch_rate=$(median ${rates[sbatch]})
echo "| submitter ($rounds interleaved blocks of $block) | median submits/s | relative to sbatch |"
echo "| --- | ---: | ---: |"
for bin in "${bins[@]}"; do
  # shellcheck disable=SC2086
  r=$(median ${rates[$bin]})
  printf '| `dlp submit -q` (%s) | %s | %.2f× |\n' "$bin" "$r" "$(awk -v a="$r" -v b="$sbatch_rate" 'BEGIN { print a / b }')"
done
printf '| bare `sbatch` | %s | 1.00× |\n' "$sbatch_rate"

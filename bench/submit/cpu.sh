#!/usr/bin/env bash
# bench/submit/cpu.sh [RUNS] BIN_DIR...
#
# CPU time of one `dlp` process (perf stat's task-clock, median of three rounds
# of RUNS, the builds interleaved), side by side for each BIN_DIR (a build's bin/
# or an installed prefix's): `dlp version --client`, `dlp submit -q` on the local
# backend (a running dlpd, so only the client is timed), and, when the Slurm test
# cluster is up (scripts/services.sh start slurm), `dlp submit -q` on the Slurm
# backend (sbatch included) next to a bare `sbatch`. CPU time rather than wall
# time: the figures hold on a machine busy with other work.
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh
runs=50
if [[ ${1:-} =~ ^[0-9]+$ ]]; then runs=$1; shift; fi
(( $# > 0 )) || { echo "usage: $0 [RUNS] BIN_DIR..." >&2; exit 2; }
command -v perf >/dev/null || { echo "cpu.sh: needs perf (Debian: linux-perf)" >&2; exit 2; }
bins=()
for dir in "$@"; do bins+=("$(cd "$dir" && pwd)"); done

work=$(mktemp -d)
export XDG_STATE_HOME=$work/state DLP_CONFIG=$work/none.yaml
unset DLP_CONTEXT
trap 'DLP_CONFIG=$work/none.yaml "${bins[0]}/dlp" server stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
write_trivial_job "$work/job.yaml"

# msec TASK...: perf stat's task-clock (ms, children included) for RUNS runs of TASK.
msec() {
  perf stat -x, -r "$runs" -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ {printf "%.2f", $1}'
}
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }

# row LABEL CMD...: one line, a column per build; "{}" in CMD is that build's folder.
row() {
  local label=$1; shift
  local -A samples=()
  for _ in 1 2 3; do
    for bin in "${bins[@]}"; do
      samples[$bin]+=" $(msec "${@//\{\}/$bin}")"
    done
  done
  printf '| %s |' "$label"
  for bin in "${bins[@]}"; do
    # shellcheck disable=SC2086
    printf ' %s |' "$(median3 ${samples[$bin]})"
  done
  echo
}

"${bins[0]}/dlp" server start >/dev/null
printf '| command (ms of CPU per process) |'; printf ' %s |' "$@"; echo
printf '| --- |'; for _ in "$@"; do printf ' ---: |'; done; echo
row '`dlp version --client`' '{}/dlp' version --client
row '`dlp submit -q` (local dlpd)' '{}/dlp' submit -q "$work/job.yaml"

env_file=${DLP_SLURM_ENV:-/tmp/dlp-slurm/env}
if [ -f "$env_file" ]; then
  set -a; . "$env_file"; set +a
  write_slurm_context "$work/slurm.yaml" "$work/jobs"
  export DLP_CONFIG=$work/slurm.yaml
  row '`dlp submit -q` (Slurm, sbatch included)' '{}/dlp' submit -q "$work/job.yaml"
  row 'bare `sbatch --wrap true`' sbatch --parsable -J dlpbench -o /dev/null --wrap true
  while [ "$(squeue -h -n dlpbench -t PD,R,CG,CF | wc -l)" -gt 0 ]; do sleep 0.2; done
fi

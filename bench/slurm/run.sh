#!/usr/bin/env bash
# 500 trivial jobs on the dlp local backend and on Slurm (bare sbatch), side by
# side on this machine: acknowledged submissions per second and the time until
# every job has finished; then the overhead of `dlp submit` on the Slurm backend
# over a bare sbatch. Needs the test cluster (scripts/services.sh start slurm)
# and a build (BUILD_DIR, default build).
#   bench/slurm/run.sh [JOBS] [OVERHEAD_SAMPLES]
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh
jobs=${1:-500}
samples=${2:-50}
bin=$(cd "${BUILD_DIR:-build}/bin" && pwd)
env_file=${DLP_SLURM_ENV:-/tmp/dlp-slurm/env}
[ -f "$env_file" ] || { echo "no Slurm test cluster ($env_file); run scripts/services.sh start slurm" >&2; exit 1; }
set -a; . "$env_file"; set +a
work=$(mktemp -d)
trap 'DLP_CONFIG=$work/none.yaml XDG_STATE_HOME=$work/state "$bin/dlp" server stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
now() { date +%s.%N; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.1f", n / t }'; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

write_trivial_job "$work/trivial.yaml"

# --- dlp local backend: dlp submit per job, like sbatch per job ---
export XDG_STATE_HOME=$work/state
# Prefix assignments, not env(1): one process per submission, like sbatch.
DLP_CONFIG=$work/none.yaml "$bin/dlp" server start >/dev/null
t0=$(now)
for _ in $(seq "$jobs"); do DLP_CONFIG=$work/none.yaml "$bin/dlp" submit -q "$work/trivial.yaml"; done > "$work/local.ids"
t1=$(now)
DLP_CONFIG=$work/none.yaml "$bin/dlp" wait $(cat "$work/local.ids") > /dev/null
t2=$(now)
local_submit=$(secs "$t0" "$t1"); local_all=$(secs "$t0" "$t2")

# --- Slurm: bare sbatch ---
t0=$(now)
for _ in $(seq "$jobs"); do sbatch --parsable -J dlpbench -o /dev/null --wrap true; done > "$work/slurm.ids"
t1=$(now)
while [ "$(squeue -h -n dlpbench -t PD,R,CG,CF | wc -l)" -gt 0 ]; do sleep 0.2; done
t2=$(now)
slurm_submit=$(secs "$t0" "$t1"); slurm_all=$(secs "$t0" "$t2")

# --- dlp submit on the Slurm backend vs bare sbatch, per submission ---
write_slurm_context "$work/slurm.yaml" "$work/jobs"
t0=$(now)
for _ in $(seq "$samples"); do sbatch --parsable -J dlpbench -o /dev/null --wrap true; done > /dev/null
t1=$(now)
for _ in $(seq "$samples"); do DLP_CONFIG=$work/slurm.yaml "$bin/dlp" submit -q "$work/trivial.yaml"; done > /dev/null
t2=$(now)
sbatch_ms=$(awk -v a="$t0" -v b="$t1" -v n="$samples" 'BEGIN { printf "%.1f", (b - a) * 1000 / n }')
dlp_ms=$(awk -v a="$t1" -v b="$t2" -v n="$samples" 'BEGIN { printf "%.1f", (b - a) * 1000 / n }')
while [ "$(squeue -h -n dlpbench -t PD,R,CG,CF | wc -l)" -gt 0 ]; do sleep 0.2; done

printf '%-22s %10s %14s %16s\n' backend jobs "submits/s" "all done (s)"
printf '%-22s %10s %14s %16s\n' "dlp local" "$jobs" "$(rate "$jobs" "$local_submit")" "$local_all"
printf '%-22s %10s %14s %16s\n' "slurm (sbatch)" "$jobs" "$(rate "$jobs" "$slurm_submit")" "$slurm_all"
printf 'ratio local/slurm: submissions/s %.2fx, time to finish all %.2fx faster\n' \
  "$(awk -v a="$slurm_submit" -v b="$local_submit" 'BEGIN { print a / b }')" \
  "$(awk -v a="$slurm_all" -v b="$local_all" 'BEGIN { print a / b }')"
printf 'dlp submit on slurm: %s ms per job; bare sbatch: %s ms; overhead %s ms (%d samples)\n' \
  "$dlp_ms" "$sbatch_ms" "$(awk -v a="$dlp_ms" -v b="$sbatch_ms" 'BEGIN { printf "%.1f", a - b }')" "$samples"

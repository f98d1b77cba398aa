#!/usr/bin/env bash
# Stops the daemons that start.sh started (by the pid files under its folder).
set -uo pipefail
dir=${DLP_SLURM_DIR:-/tmp/dlp-slurm}
[ -d "$dir" ] || exit 0
if [ -f "$dir/slurm.conf" ]; then
  # Jobs first, so that no task outlives the cluster.
  SLURM_CONF="$dir/slurm.conf" timeout 10 scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
fi
stop_pid_file() {
  local file=$1
  [ -f "$file" ] || return 0
  local pid
  pid=$(cat "$file" 2>/dev/null) || return 0
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}
stop_pid_file "$dir/slurmrestd.pid"
stop_pid_file "$dir/slurmd.pid"
stop_pid_file "$dir/slurmctld.pid"
stop_pid_file "$dir/munge/munged.pid"
rm -f "$dir/env"

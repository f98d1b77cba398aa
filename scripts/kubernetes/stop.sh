#!/usr/bin/env bash
# Stops what start.sh started (by the pid files under $DLP_K8S_DIR), the
# controllers first, and removes the folder: nothing is left behind.
set -uo pipefail
dir=${DLP_K8S_DIR:-/tmp/dlp-k8s}
[ -d "$dir" ] || exit 0
stop_pid_file() {
  local file=$1 pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file" 2>/dev/null) || return 0
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}
for name in kueue jobset kwok kube-scheduler kube-controller-manager kube-apiserver etcd; do
  stop_pid_file "$dir/$name.pid"
done
rm -rf "$dir"

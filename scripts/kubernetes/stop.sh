#!/usr/bin/env bash
# Stops what start.sh started (by the pid files under $DLP_K8S_DIR) and
# removes the folder: nothing is left behind. Every component gets SIGTERM
# at once, and SIGKILL if it still runs 10 seconds later.
set -uo pipefail
dir=${DLP_K8S_DIR:-/tmp/dlp-k8s}
[ -d "$dir" ] || exit 0
pids=()
for name in kueue jobset kwok kube-scheduler kube-controller-manager kube-apiserver etcd; do
  pid=$(cat "$dir/$name.pid" 2>/dev/null) || continue
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && pids+=("$pid")
done
for pid in "${pids[@]}"; do
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
done
rm -rf "$dir"

#!/usr/bin/env bash
# Restarts one component of the test cluster under $DLP_K8S_DIR (default
# /tmp/dlp-k8s), as an upgrade or a crash would: SIGTERM (SIGKILL with
# --kill), then the command line start.sh recorded in NAME.cmd, and returns
# once the API server answers /readyz again. The tests use it to break the
# watches of a running `dlp wait`.
#   restart.sh [--kill] kube-apiserver
set -euo pipefail
dir=${DLP_K8S_DIR:-/tmp/dlp-k8s}
deadline_s=${DLP_K8S_START_TIMEOUT:-180}
signal=TERM
if [ "${1:-}" = --kill ]; then
  signal=KILL
  shift
fi
name=${1:-}
if [ -z "$name" ] || [ $# -ne 1 ]; then
  echo "usage: restart.sh [--kill] COMPONENT (etcd, kube-apiserver, kube-scheduler, ...)" >&2
  exit 2
fi
if [ ! -f "$dir/$name.cmd" ] || [ ! -f "$dir/env" ]; then
  echo "kubernetes: no $name under $dir (start the cluster with this checkout's start.sh)" >&2
  exit 2
fi
kubectl=$(sed -n 's/^DLP_K8S_KUBECTL=//p' "$dir/env")

pid=$(cat "$dir/$name.pid")
kill -s "$signal" "$pid" 2>/dev/null || true
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -9 "$pid" 2>/dev/null || true
while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done

echo "--- restarted by restart.sh" >> "$dir/$name.log"
eval "setsid $(cat "$dir/$name.cmd") >>\"\$dir/\$name.log\" 2>&1 < /dev/null &"
echo $! > "$dir/$name.pid"
end=$((SECONDS + deadline_s))
until "$kubectl" --kubeconfig "$dir/admin.kubeconfig" get --raw /readyz >/dev/null 2>&1; do
  if [ $SECONDS -ge $end ] || ! kill -0 "$(cat "$dir/$name.pid")" 2>/dev/null; then
    echo "kubernetes: $name not ready after ${deadline_s}s (or it exited); see $dir/$name.log" >&2
    tail -n 15 "$dir/$name.log" >&2
    exit 1
  fi
  sleep 0.2
done
echo "kubernetes: $name restarted (pid $(cat "$dir/$name.pid"))"

#!/usr/bin/env bash
# scripts/kubernetes/start.sh and stop.sh on a second cluster of their own
# (another folder, another port range), beside the one the suite uses:
#  - right after start, a JobSet deleted in the foreground (as `dlp cancel`
#    deletes) is gone within seconds: the garbage collector knew the CRDs from
#    its start (it reads the API's kinds again only every 30 seconds);
#  - a second start is harmless and prints the KUBECONFIG line again;
#  - stop leaves no process and no folder behind.
# Exits 77 (skipped) unless root with the suite's cluster built (its env file).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
main_env=${DLP_K8S_ENV:-${DLP_K8S_DIR:-/tmp/dlp-k8s}/env}
[ "$(id -u)" -eq 0 ] && [ -f "$main_env" ] || exit 77
export DLP_K8S_DIR
DLP_K8S_DIR=$(mktemp -d)/cluster
export DLP_K8S_PORT_BASE=16600
trap '"$root/scripts/kubernetes/stop.sh"; rm -rf "$(dirname "$DLP_K8S_DIR")"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

last=$("$root/scripts/kubernetes/start.sh" | tail -n 1)
[ "$last" = "KUBECONFIG=$DLP_K8S_DIR/admin.kubeconfig" ] || fail "start printed '$last' last"
pids=$(cat "$DLP_K8S_DIR"/*.pid)
kubectl=("$(sed -n 's/^DLP_K8S_KUBECTL=//p' "$DLP_K8S_DIR/env")" --kubeconfig "$DLP_K8S_DIR/admin.kubeconfig")

probe=$root/scripts/kubernetes/probe-jobset.yaml
"${kubectl[@]}" create -f "$probe" >/dev/null
"${kubectl[@]}" delete --cascade=foreground --timeout 10s -f "$probe" >/dev/null ||
  fail "a JobSet deleted in the foreground right after start was still there 10 s later"

again=$("$root/scripts/kubernetes/start.sh" | tail -n 1)
[ "$again" = "$last" ] || fail "a second start printed '$again'"
[ "$(cat "$DLP_K8S_DIR"/*.pid)" = "$pids" ] || fail "a second start replaced the components"

"$root/scripts/kubernetes/stop.sh"
[ ! -e "$DLP_K8S_DIR" ] || fail "stop left $DLP_K8S_DIR behind"
for pid in $pids; do
  ! kill -0 "$pid" 2>/dev/null || fail "stop left process $pid running"
done
echo "kubernetes start/stop: 3 checks passed"

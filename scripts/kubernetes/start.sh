#!/usr/bin/env bash
# Starts a Kubernetes control plane for the tests on 127.0.0.1 only, under
# $DLP_K8S_DIR (default /tmp/dlp-k8s): etcd, kube-apiserver (RBAC, the default
# admission chain, a service-account issuer, an audit log of watches),
# kube-controller-manager, kube-scheduler, KWOK with fake nodes
# (tests/k8s-cluster/kwok-stages.yaml), and the JobSet and Kueue controllers
# with their CRDs and webhooks (reached by URL on loopback, certificates made
# here). Builds the components first when they are not cached (build.sh);
# restart.sh restarts one of them. Writes $DLP_K8S_DIR/env and prints
# KUBECONFIG=PATH (an admin's) as its last line. A second start while the
# cluster runs only prints that line again.
set -Eeuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${DLP_K8S_DIR:-/tmp/dlp-k8s}
base=${DLP_K8S_PORT_BASE:-16400}
deadline_s=${DLP_K8S_START_TIMEOUT:-180}
etcd_port=$((base + 1)) etcd_peer_port=$((base + 2)) apiserver_port=$((base + 3))
cm_port=$((base + 4)) scheduler_port=$((base + 5)) kwok_port=$((base + 6))
jobset_webhook_port=$((base + 7)) jobset_health_port=$((base + 8))
kueue_webhook_port=$((base + 9)) kueue_health_port=$((base + 10))
components=("etcd" "kube-apiserver" "kube-controller-manager" "kube-scheduler" "kwok" "jobset" "kueue")
# shellcheck source=pki.sh
. "$here/pki.sh"

running() {
  [ -f "$dir/env" ] || return 1
  local c
  for c in "${components[@]}"; do
    kill -0 "$(cat "$dir/$c.pid" 2>/dev/null || echo 0)" 2>/dev/null || return 1
  done
}
if running; then
  echo "kubernetes: already running under $dir"
  echo "KUBECONFIG=$dir/admin.kubeconfig"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  # Kueue reads its metrics certificate from /etc/kueue, which it sees in a
  # private mount namespace (an overlay over /etc) that only root can make.
  echo "kubernetes: the test cluster runs as root" >&2
  exit 1
fi
for tool in openssl curl unshare; do
  command -v "$tool" >/dev/null || { echo "kubernetes: $tool not installed (run scripts/install-deps.sh)" >&2; exit 1; }
done

bin_root=$("$here/build.sh")
bin=$bin_root/bin
"$here/stop.sh" >/dev/null 2>&1 || true
mkdir -p "$dir"
chmod 700 "$dir"
end=$((SECONDS + deadline_s))

# start NAME ARGS...: runs the component in the background, logs to
# $dir/NAME.log, and keeps its command line in $dir/NAME.cmd for restart.sh.
start() {
  local name=$1
  shift
  printf '%q ' "$@" > "$dir/$name.cmd"
  setsid "$@" >"$dir/$name.log" 2>&1 < /dev/null &
  echo $! > "$dir/$name.pid"
}

# On any failure: the end of each component's log, then nothing left running.
failed() {
  local log
  for log in "$dir"/*.log; do
    [ -f "$log" ] || continue
    echo "--- the end of $log:" >&2
    tail -n 15 "$log" >&2
  done
  "$here/stop.sh" >/dev/null 2>&1 || true
}
trap 'failed' ERR

# wait_for NAME COMMAND...: until COMMAND succeeds; fails when NAME exits or time runs out.
wait_for() {
  local name=$1
  shift
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $end ] || ! kill -0 "$(cat "$dir/$name.pid")" 2>/dev/null; then
      echo "kubernetes: $name not ready after ${deadline_s}s (or it exited)" >&2
      return 1
    fi
    sleep 0.2
  done
}

pki_make
for client in admin controller-manager scheduler; do pki_kubeconfig "$client"; done
kubectl=("$bin/kubectl" --kubeconfig "$dir/admin.kubeconfig")
mkdir -p "$dir/webhook-certs"
cp "$dir/pki/webhook.crt" "$dir/webhook-certs/tls.crt"
cp "$dir/pki/webhook.key" "$dir/webhook-certs/tls.key"

start etcd "$bin/etcd" --name dlp-test --data-dir "$dir/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$etcd_peer_port" \
  --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer_port" \
  --initial-cluster "dlp-test=http://127.0.0.1:$etcd_peer_port" \
  --unsafe-no-fsync --log-level warn
wait_for etcd curl -sf "http://127.0.0.1:$etcd_port/health"

# The audit log records each watch on jobs and JobSets as it opens, so that
# a test knows when a `dlp wait` watches before it breaks the watch.
cat > "$dir/audit-policy.yaml" <<YAML
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseComplete, Panic]
rules:
- level: Metadata
  verbs: [watch]
  resources: [{group: batch, resources: [jobs]}, {group: jobset.x-k8s.io, resources: [jobsets]}]
- level: None
YAML
start kube-apiserver "$bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" \
  --audit-policy-file "$dir/audit-policy.yaml" --audit-log-path "$dir/audit.log" \
  --audit-log-maxsize 50 --audit-log-maxbackup 1 \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$apiserver_port" \
  --tls-cert-file "$dir/pki/apiserver.crt" --tls-private-key-file "$dir/pki/apiserver.key" \
  --client-ca-file "$dir/pki/ca.crt" --authorization-mode RBAC \
  --service-account-issuer "https://127.0.0.1:$apiserver_port" \
  --service-account-key-file "$dir/pki/sa.pub" --service-account-signing-key-file "$dir/pki/sa.key" \
  --service-cluster-ip-range 10.96.0.0/16 --endpoint-reconciler-type none --profiling=false
wait_for kube-apiserver "${kubectl[@]}" get --raw /readyz

# The CRDs and webhook configurations before kube-controller-manager: its
# garbage collector reads the API's kinds when it starts and again only every
# 30 seconds, and until it knows JobSet and Workload a foreground deletion of
# either waits (a `dlp cancel` right after start would hang that long).
/usr/bin/python3 "$here/manifests.py" "$bin_root" "$dir/pki/ca.crt" "$jobset_webhook_port" \
  "$kueue_webhook_port" > "$dir/controllers.yaml"
"${kubectl[@]}" apply --server-side -f "$dir/controllers.yaml" > /dev/null
"${kubectl[@]}" apply --server-side -f "$here/cluster.yaml" > /dev/null
"${kubectl[@]}" wait --for condition=Established --timeout 60s crd --all > /dev/null
served() { "${kubectl[@]}" get --raw "/apis/$1" | grep -q "\"$2\""; }
wait_for kube-apiserver served jobset.x-k8s.io/v1alpha2 jobsets
wait_for kube-apiserver served kueue.x-k8s.io/v1beta2 workloads

start kube-controller-manager "$bin/kube-controller-manager" \
  --kubeconfig "$dir/controller-manager.kubeconfig" \
  --authentication-kubeconfig "$dir/controller-manager.kubeconfig" \
  --authorization-kubeconfig "$dir/controller-manager.kubeconfig" \
  --bind-address 127.0.0.1 --secure-port "$cm_port" --leader-elect=false \
  --use-service-account-credentials --service-account-private-key-file "$dir/pki/sa.key" \
  --root-ca-file "$dir/pki/ca.crt" --profiling=false \
  --controllers "node-lifecycle-controller,job-controller,garbage-collector-controller,namespace-controller,serviceaccount-controller,serviceaccount-token-controller,root-ca-certificate-publisher-controller,pod-garbage-collector-controller,ttl-after-finished-controller,endpointslice-controller"
start kube-scheduler "$bin/kube-scheduler" --kubeconfig "$dir/scheduler.kubeconfig" \
  --authentication-kubeconfig "$dir/scheduler.kubeconfig" \
  --authorization-kubeconfig "$dir/scheduler.kubeconfig" \
  --bind-address 127.0.0.1 --secure-port "$scheduler_port" --leader-elect=false --profiling=false
start kwok "$bin/kwok" --kubeconfig "$dir/admin.kubeconfig" \
  --config "$root/tests/k8s-cluster/kwok-stages.yaml" \
  --manage-all-nodes=false --manage-nodes-with-label-selector type=kwok \
  --cidr 10.244.0.0/16 --node-ip 10.244.0.1 --node-lease-duration-seconds 40 \
  --server-address "127.0.0.1:$kwok_port"

cat > "$dir/jobset.yaml" <<YAML
apiVersion: config.jobset.x-k8s.io/v1alpha1
kind: Configuration
webhook: {host: 127.0.0.1, port: $jobset_webhook_port, certDir: $dir/webhook-certs}
metrics: {bindAddress: "0"}
health: {healthProbeBindAddress: "127.0.0.1:$jobset_health_port"}
leaderElection: {leaderElect: false}
internalCertManagement: {enable: false}
YAML
start jobset env KUBECONFIG="$dir/admin.kubeconfig" "$bin/jobset" --config "$dir/jobset.yaml"

cat > "$dir/kueue.yaml" <<YAML
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue-system
webhook: {host: 127.0.0.1, port: $kueue_webhook_port, certDir: $dir/webhook-certs}
metrics: {bindAddress: "0"}
health: {healthProbeBindAddress: "127.0.0.1:$kueue_health_port"}
# The on-demand visibility API server wants its certificate in /visibility.
featureGates: {VisibilityOnDemand: false}
leaderElection: {leaderElect: false}
internalCertManagement: {enable: false}
integrations:
  # Kueue's pod, deployment and statefulset webhooks see every namespace
  # but kube-system and kueue-system, so their handlers must be there.
  frameworks: ["batch/job", "jobset.x-k8s.io/jobset", "pod", "deployment", "statefulset"]
YAML
# Kueue reads its metrics certificate from a fixed /etc/kueue/metrics/certs:
# it gets one in an overlay over /etc that only its mount namespace sees.
mkdir -p "$dir/etc-overlay/upper/kueue/metrics" "$dir/etc-overlay/work"
cp -r "$dir/webhook-certs" "$dir/etc-overlay/upper/kueue/metrics/certs"
start kueue env KUBECONFIG="$dir/admin.kubeconfig" unshare --mount --propagation private sh -c \
  'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc && shift && exec "$@"' \
  sh "$dir/etc-overlay" "$bin/kueue" --config "$dir/kueue.yaml"

wait_for kube-controller-manager curl -skf "https://127.0.0.1:$cm_port/healthz"
wait_for kube-scheduler curl -skf "https://127.0.0.1:$scheduler_port/healthz"
wait_for kwok curl -sf "http://127.0.0.1:$kwok_port/healthz"
wait_for jobset curl -sf "http://127.0.0.1:$jobset_health_port/readyz"
wait_for kueue curl -sf "http://127.0.0.1:$kueue_health_port/readyz"
wait_for kwok "${kubectl[@]}" wait --for condition=Ready --timeout 2s node -l type=kwok
# A new node is tainted not-ready until the node lifecycle controller sees it Ready.
untainted() { [ -z "$("${kubectl[@]}" get nodes -l type=kwok -o jsonpath='{.items[*].spec.taints}')" ]; }
wait_for kube-controller-manager untainted
wait_for kube-controller-manager "${kubectl[@]}" get serviceaccount default -n default
# The webhooks answer: a server-side dry run goes through JobSet's and Kueue's.
wait_for jobset "${kubectl[@]}" create --dry-run=server -f "$here/probe-jobset.yaml"
wait_for kueue "${kubectl[@]}" create --dry-run=server -f "$here/probe-kueue.yaml"
# The garbage collector knows the CRDs: a JobSet deleted in the foreground
# (as `dlp cancel` deletes) goes, its Jobs with it.
"${kubectl[@]}" create -f "$here/probe-jobset.yaml" > /dev/null
wait_for kube-controller-manager "${kubectl[@]}" delete --cascade=foreground --timeout 5s \
  -f "$here/probe-jobset.yaml" --ignore-not-found

versions=$(tr '\n' ',' < "$bin_root/versions" | sed 's/,$//; s/,/, /g')
cat > "$dir/env" <<ENV
KUBECONFIG=$dir/admin.kubeconfig
DLP_K8S_DIR=$dir
DLP_K8S_BIN=$bin
DLP_K8S_KUBECTL=$bin/kubectl
DLP_K8S_RESTART=$here/restart.sh
DLP_K8S_AUDIT_LOG=$dir/audit.log
DLP_K8S_VERSIONS=$versions
ENV
echo "kubernetes: running ($versions), API server https://127.0.0.1:$apiserver_port"
echo "KUBECONFIG=$dir/admin.kubeconfig"

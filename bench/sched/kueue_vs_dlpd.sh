#!/usr/bin/env bash
# Kueue's scheduler and dlpd on Kueue's scheduler baseline, on this machine, in one run:
#
#   bench/sched/kueue_vs_dlpd.sh [--scale S] [--deadline-min M] [--out DIR] [--keep-cluster]
#                                [--preempt-exempt-time SECONDS]
#
# 1. dlpd: build/bin/dlp-bench-kueue-baseline --scale S (15,000 jobs at S = 1), with
#    dlpd --preempt-exempt-time SECONDS (default 0).
# 2. Kueue: Kueue's own performance runner (test/performance/scheduler/runner of
#    sigs.k8s.io/kueue, pinned in bench/sched/kueue-runner/go.mod, built into the
#    dependency cache) with Kueue's generator config (configs/baseline/generator.yaml,
#    each workload set's count times S) against the Kueue controller of the test
#    cluster (scripts/services.sh start kubernetes; started here when it does not run,
#    and stopped again at the end unless --keep-cluster). The runner creates the
#    ResourceFlavor, the 30 ClusterQueues in 5 cohorts, their LocalQueues and the
#    workloads at Kueue's pacing, marks each admitted workload finished after its
#    runtime, and writes summary.yaml; its objects are deleted before the next step.
#    Past M minutes (default 60) the Workloads are listed and the runner is stopped:
#    the report then gives lower bounds for Kueue's figures (all but the usage).
# 3. Both rows side by side (wall, usage, mean time to admission per class, evictions,
#    CPU), with the load average and how busy the machine was during each side.
#
# dlpd runs first, before the cluster starts (when this script starts it), so that
# neither side runs beside the other's processes. DLP_K8S_DIR and DLP_K8S_PORT_BASE
# choose the cluster as for scripts/services.sh; BUILD_DIR the build (default build).
# Results and each side's output stay in DIR (default a new /tmp/kueue-vs-dlpd-*).
set -Eeuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../../scripts/deps/dir.sh
. "$root/scripts/deps/dir.sh"
py=/usr/bin/python3
helper="$here/kueue_vs_dlpd.py"
scale=1 deadline_min=60 out="" keep_cluster=0 exempt=0
usage() {
  echo "usage: $0 [--scale S] [--deadline-min M] [--out DIR] [--keep-cluster] [--preempt-exempt-time SECONDS]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) [ $# -ge 2 ] || usage; scale=$2; shift 2 ;;
    --deadline-min) [ $# -ge 2 ] || usage; deadline_min=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    --keep-cluster) keep_cluster=1; shift ;;
    --preempt-exempt-time) [ $# -ge 2 ] || usage; exempt=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
[[ $scale =~ ^[0-9]*\.?[0-9]+$ ]] || { echo "kueue_vs_dlpd: --scale must be a positive number, not '$scale'" >&2; exit 2; }
[[ $exempt =~ ^[0-9]*\.?[0-9]+$ ]] || { echo "kueue_vs_dlpd: --preempt-exempt-time must be a number of seconds, not '$exempt'" >&2; exit 2; }
[[ $deadline_min =~ ^[1-9][0-9]*$ ]] || { echo "kueue_vs_dlpd: --deadline-min must be a whole number of minutes, not '$deadline_min'" >&2; exit 2; }
build=${BUILD_DIR:-$root/build}
bench_bin="$build/bin/dlp-bench-kueue-baseline"
[ -x "$bench_bin" ] || { echo "kueue_vs_dlpd: $bench_bin missing: BUILD_TARGETS=\"dlpd dlp-run dlp_cli dlp-bench-kueue-baseline\" scripts/build.sh" >&2; exit 1; }
[ -n "$out" ] || out=$(mktemp -d /tmp/kueue-vs-dlpd-XXXXXX)
mkdir -p "$out/kueue" "$out/dlpd"
k8s_dir=${DLP_K8S_DIR:-/tmp/dlp-k8s}

# The runner, built once per go.mod/go.sum into the dependency cache.
module="$here/kueue-runner"
key=$(cat "$module/go.mod" "$module/go.sum" | sha256sum | cut -c1-16)
runner="$dlp_deps_dir/kueue-runner/$key/runner"
if [ ! -x "$runner" ]; then
  echo "kueue_vs_dlpd: building Kueue's performance runner (about 3 CPU minutes with the test cluster's Go cache warm)" >&2
  mkdir -p "$dlp_deps_dir/kueue-runner/$key"
  (cd "$module" && go mod download && go build -p "${DLP_GO_BUILD_JOBS:-2}" -trimpath -ldflags=-s \
    -o "$runner.tmp" tool && mv "$runner.tmp" "$runner")
fi
kueue_src=$(cd "$module" && go list -m -f '{{.Dir}}' sigs.k8s.io/kueue)
"$py" "$helper" scale-generator "$kueue_src/test/performance/scheduler/configs/baseline/generator.yaml" \
  "$scale" > "$out/kueue/generator.yaml"

cluster_running() { [ -f "$k8s_dir/env" ] && kill -0 "$(cat "$k8s_dir/kueue.pid" 2>/dev/null || echo 0)" 2>/dev/null; }
started_cluster=0
finish() {
  if [ "$started_cluster" = 1 ] && [ "$keep_cluster" = 0 ]; then
    "$root/scripts/services.sh" stop kubernetes || true
  fi
}
trap finish EXIT

echo "== dlpd: $bench_bin --scale $scale --preempt-exempt-time $exempt (load average $(cut -d' ' -f1-3 /proc/loadavg))"
"$py" "$helper" measure "$out/dlpd/measure.json" --pids "$k8s_dir" -- \
  sh -c '"$1" --scale "$2" --preempt-exempt-time "$4" > "$3/out.txt" 2> "$3/progress.txt"' \
  sh "$bench_bin" "$scale" "$out/dlpd" "$exempt" || true
cat "$out/dlpd/out.txt"

if ! cluster_running; then
  started_cluster=1
  "$root/scripts/services.sh" start kubernetes | tail -n 1
fi
# The env file's values are not quoted for the shell: take the two needed.
env_value() { sed -n "s/^$1=//p" "$k8s_dir/env"; }
KUBECONFIG=$(env_value KUBECONFIG)
export KUBECONFIG
kubectl=("$(env_value DLP_K8S_KUBECTL)" --kubeconfig "$KUBECONFIG")
versions=$(env_value DLP_K8S_VERSIONS)
label=kueue.x-k8s.io/performance-scheduler-cleanup

# Deletes what a runner left (its namespaces hold the workloads) and waits until it is gone.
remove_runner_objects() {
  "${kubectl[@]}" delete namespaces,clusterqueues,resourceflavors -l "$label" --wait=false >/dev/null
  "${kubectl[@]}" wait --for=delete namespaces,clusterqueues,resourceflavors -l "$label" --timeout 15m >/dev/null 2>&1 || true
  [ -z "$("${kubectl[@]}" get namespaces,clusterqueues,resourceflavors -l "$label" -o name)" ] || {
    echo "kueue_vs_dlpd: the runner's objects are still there after 15 minutes" >&2
    return 1
  }
}
remove_runner_objects

echo "== Kueue ($versions): $runner with $out/kueue/generator.yaml (load average $(cut -d' ' -f1-3 /proc/loadavg))"
# The in-cluster flags of Kueue's Makefile (run-performance-scheduler-in-cluster).
# Kueue's test utilities find the Kueue source through PROJECT_DIR at start. The
# runner's own timeout ends it without a summary: the deadline comes first.
PROJECT_DIR="$kueue_src/Makefile" "$py" "$helper" measure "$out/kueue/measure.json" --pids "$k8s_dir" \
  --deadline $((deadline_min * 60)) \
  --before-stop "$(printf '%q ' "${kubectl[@]}") get workloads -A -o json > $(printf '%q' "$out/kueue/workloads.json")" -- \
  sh -c 'exec "$1" -o "$2" --generatorConfig "$2/generator.yaml" --qps=1000 --burst=2000 --timeout="$3m" \
    --zap-log-level=info > "$2/runner.log" 2>&1' sh "$runner" "$out/kueue" "$((deadline_min + 10))" || true
[ -f "$out/kueue/summary.yaml" ] || { echo "kueue_vs_dlpd: the runner wrote no summary: see $out/kueue/runner.log" >&2; exit 1; }
cat "$out/kueue/summary.yaml"
# Kueue's own cleanup misses the LocalQueues (a namespaced DeleteAllOf without a
# namespace): their namespaces take them with them.
[ "$started_cluster" = 1 ] && [ "$keep_cluster" = 0 ] || remove_runner_objects

echo "== Kueue's scheduler baseline at scale $scale on this machine ($(nproc) cores), $(date -u +%F)"
"$py" "$helper" report "$out" | tee "$out/report.md"
echo "results: $out"

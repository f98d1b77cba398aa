#!/usr/bin/env bash
# bench/ui/jobs_page.sh [BUILD_DIR]
#
# The web UI's Jobs page over JOBS jobs (10,000) of a real dlpd, in Debian's
# headless Chromium: from navigation to the table drawn with every job
# counted, the median of LOADS (7) loads (web/test/jobs_page_bench.mjs).
# The store is filled through the API as fast as it takes it: one job holds
# dlpd's only CPU, the others are submitted 32 at a time (dlpd commits
# concurrent submissions together) and stay Queued, then 9 in 10 are
# cancelled, so the page lists a mix of Queued and Cancelled jobs without
# starting a process. Also prints the time of one GET /v1/jobs page of 1000
# summaries. Needs build/bin/dlpd, curl, node with web/node_modules and chromium.
# STATE=DIR keeps the filled store there and uses it again on the next run
# (only the page loads are repeated; its blocker job keeps running).
# VIEW=runs measures the runs table instead (two metric columns, sorted by
# dlpd); then the first METRIC_JOBS (200) jobs run before the others and each
# prints a loss and an accuracy, so those columns have values to sort.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/soak/common.sh

build=${1:-build}
bin=$(cd "$build/bin" && pwd)
JOBS=${JOBS:-10000} LOADS=${LOADS:-7}
METRIC_JOBS=$([[ ${VIEW:-} == runs ]] && echo "${METRIC_JOBS:-200}" || echo 0)
blocker=$((METRIC_JOBS + 1))
tmp=$(mktemp -d /tmp/dlp-bench-ui-XXXXXX)
state=${STATE:-$tmp/state}
dlpd_pid=""
cleanup() {
  if [[ -n $dlpd_pid ]]; then
    [[ -z ${STATE:-} ]] && soak_api POST "/v1/jobs/$blocker/cancel" >/dev/null 2>&1
    kill "$dlpd_pid" 2>/dev/null && wait "$dlpd_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# parallel_curl CONFIG: runs curl's config file 32 requests at a time (curl
# draws its progress meter in parallel mode even with -s; the counts below
# check the outcome).
parallel_curl() { curl -s --parallel --parallel-max 32 -K "$1" >/dev/null 2>&1; }
request() {  # request PATH [JSON_BODY]: one entry of a curl config file (POST)
  printf 'url = "http://%s%s"\nheader = "Authorization: Bearer %s"\noutput = "/dev/null"\n' \
    "$addr" "$1" "$token"
  if [[ $# -ge 2 ]]; then
    printf 'header = "Content-Type: application/json"\ndata-binary = "%s"\n' "${2//\"/\\\"}"
  else
    printf 'request = "POST"\n'
  fi
}
# The jobs with metrics run to the end before the blocker takes the CPU.
seed_metrics() {
  local i n
  ((METRIC_JOBS > 0)) || return 0
  for ((i = 1; i <= METRIC_JOBS; ++i)); do
    ((i > 1)) && echo next
    request /v1/jobs "$(soak_spec "metrics-$i" ui "[\"/bin/sh\",\"-c\",\"echo DLP_METRIC loss=0.$((i * 37 % 1000)) step=1; echo DLP_METRIC accuracy=0.$((i * 53 % 1000)) step=1\"]")"
  done >"$tmp/metrics.cfg"
  parallel_curl "$tmp/metrics.cfg"
  for ((i = 0; i < 3000; ++i)); do
    n=$(soak_count "/v1/jobs?fields=summary&state=Succeeded")
    ((n >= METRIC_JOBS)) && return 0
    sleep 0.1
  done
  echo "only $n of $METRIC_JOBS jobs with metrics succeeded within 300 s" >&2
  return 1
}
seed() {
  local t0 i id
  t0=$(date +%s.%N)
  seed_metrics
  soak_api POST /v1/jobs "$(soak_spec blocker ui '["sleep","3600"]' | sed 's/"100m"/"1"/')" >/dev/null
  for ((i = METRIC_JOBS + 1; i < JOBS; ++i)); do
    ((i > 1)) && echo next
    request /v1/jobs "$(soak_spec "train-$((i % 97))-$i" ui '["true"]')"
  done >"$tmp/submit.cfg"
  parallel_curl "$tmp/submit.cfg"
  for ((id = blocker + 1; id <= JOBS; ++id)); do
    ((id % 10 == 0)) && continue
    ((id > blocker + 1)) && echo next
    request "/v1/jobs/$id/cancel"
  done >"$tmp/cancel.cfg"
  parallel_curl "$tmp/cancel.cfg"
  printf 'filled the store with %d jobs (%d cancelled) in %.1f s\n' \
    "$(soak_count "/v1/jobs?fields=summary")" "$(soak_count "/v1/jobs?fields=summary&state=Cancelled")" \
    "$(echo "$(date +%s.%N) - $t0" | bc)"
}

filled=$([[ -s $state/dlpd.token ]] && echo yes || true)
soak_start_dlpd "$bin" "$state" 127.0.0.1:0 --cpus 1
[[ -n $filled ]] || seed
listed=$(soak_count "/v1/jobs?fields=summary")
[[ $listed == "$JOBS" ]] || { echo "expected $JOBS jobs, dlpd lists $listed" >&2; exit 1; }

page_ms=$(for i in 1 2 3 4 5; do
  curl -s -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $token" \
    "http://$addr/v1/jobs?limit=1000&before=$((JOBS + 1))&fields=summary"
done | sort -g | awk '{a[NR] = $1 * 1000} END {printf "%.1f", a[int((NR + 1) / 2)]}')
echo "GET /v1/jobs?limit=1000&before=$((JOBS + 1))&fields=summary: median of 5 $page_ms ms"

if [[ ${VIEW:-} == runs ]]; then
  q="columns=metric.loss,metric.accuracy&sort=-metric.accuracy&limit=200"
  runs_ms=$(for i in 1 2 3 4 5; do
    curl -s -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $token" "http://$addr/v1/jobs?$q"
  done | sort -g | awk '{a[NR] = $1 * 1000} END {printf "%.1f", a[int((NR + 1) / 2)]}')
  echo "GET /v1/jobs?$q: median of 5 $runs_ms ms"
fi
VIEW=${VIEW:-} node web/test/jobs_page_bench.mjs "http://$addr" "$token" "$listed" "$LOADS"

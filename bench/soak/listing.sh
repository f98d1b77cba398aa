#!/usr/bin/env bash
# bench/soak/listing.sh [BUILD_DIR]
#
# What listing costs the rest of dlpd. A fresh dlpd holds JOBS queued jobs (a blocker job takes
# every CPU); LISTERS clients then list every job in a loop (GET /v1/jobs, what `dlp list` sends)
# while one client submits SUBMITS jobs one after another on one connection. Prints the time of
# one full listing and the submit latency with and without the listers: a listing that holds the
# controller's lock makes every submit wait for it. Environment: JOBS=2000 LISTERS=4 SUBMITS=200.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/soak/common.sh

build=${1:-build}
bin=$(cd "$build/bin" && pwd)
JOBS=${JOBS:-2000} LISTERS=${LISTERS:-4} SUBMITS=${SUBMITS:-200}
tmp=$(mktemp -d /tmp/dlp-soak-listing-XXXXXX)
dlpd_pid=""
listers=()
cleanup() {
  for p in "${listers[@]}"; do kill "$p" 2>/dev/null || true; done
  [[ -n $dlpd_pid ]] && kill "$dlpd_pid" 2>/dev/null && wait "$dlpd_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
soak_start_dlpd "$bin" "$tmp/state" 127.0.0.1:0 --cpus 1
soak_api POST /v1/jobs "$(soak_spec blocker listing '["sleep","3600"]' | sed 's/"100m"/"1"/')" >/dev/null
soak_spec queued listing '["true"]' >"$tmp/spec.json"

config() {  # config N: N submissions on one connection, each printing its time in seconds
  local i
  for ((i = 0; i < $1; ++i)); do
    (( i > 0 )) && echo next
    printf 'url = "http://%s/v1/jobs"\nheader = "Authorization: Bearer %s"\n' "$addr" "$token"
    printf 'header = "Content-Type: application/json"\ndata-binary = "@%s"\n' "$tmp/spec.json"
    printf 'output = "/dev/null"\nwrite-out = "%%{time_total}\\n"\n'
  done
}
config "$JOBS" >"$tmp/fill.cfg"
config "$SUBMITS" >"$tmp/submit.cfg"
curl -s -K "$tmp/fill.cfg" >/dev/null
stats() {  # median and p99 in ms of the seconds on stdin
  sort -g | awk '{a[NR] = $1 * 1000} END {printf "%.1f %.1f\n", a[int((NR + 1) / 2)], a[int(NR * 0.99 + 0.5)]}'
}
list_ms=$(for i in 1 2 3 4 5; do
  curl -s -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $token" "http://$addr/v1/jobs"
done | stats | cut -d' ' -f1)
read -r quiet_median quiet_p99 < <(curl -s -K "$tmp/submit.cfg" | stats)
for ((l = 0; l < LISTERS; ++l)); do
  while :; do curl -s -o /dev/null -H "Authorization: Bearer $token" "http://$addr/v1/jobs"; done &
  listers+=($!)
done
read -r busy_median busy_p99 < <(curl -s -K "$tmp/submit.cfg" | stats)
echo "| jobs listed | one listing (ms) | submit median / p99, quiet (ms) | submit median / p99, $LISTERS listers (ms) |"
echo "| ---: | ---: | ---: | ---: |"
echo "| $((JOBS + 1)) | $list_ms | $quiet_median / $quiet_p99 | $busy_median / $busy_p99 |"

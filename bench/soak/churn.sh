#!/usr/bin/env bash
# bench/soak/churn.sh [BUILD_DIR]
#
# Load soak of dlpd. JOBS short jobs (`sleep 0.2` .. `sleep 1`, 100m of CPU each) are submitted
# at RATE submissions/s in all by CLIENTS concurrent clients (curl, one keep-alive connection
# each, to the API that `dlp submit` uses) to a real dlpd started with --cpus CPUS, while
# `dlp top --once`, `dlp list` and `dlp logs -f` of the newest job run in loops. Checks:
#   - dlpd stays up, and every submission is acknowledged (201);
#   - every job ends Succeeded (within TIMEOUT seconds of the last submission);
#   - the watchers never fail;
#   - dlpd's RSS and open descriptors come back to their value before the load, within
#     RSS_SLACK_MIB and FD_SLACK, at most 20 s after the load ended;
#   - the measured submission rate is at least MIN_RATE.
# Environment (defaults): JOBS=10000 RATE=250 CLIENTS=10 CPUS=600 TIMEOUT=600 RSS_SLACK_MIB=64
# FD_SLACK=4 MIN_RATE=200 KEEP=0 (1 keeps the temporary folder). Exit 0 when every check holds.
# The CI runs a small version (tests/e2e/soak_test.cc).
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/soak/common.sh

build=${1:-build}
bin=$(cd "$build/bin" && pwd)
JOBS=${JOBS:-10000} RATE=${RATE:-250} CLIENTS=${CLIENTS:-10} CPUS=${CPUS:-600}
TIMEOUT=${TIMEOUT:-600} RSS_SLACK_MIB=${RSS_SLACK_MIB:-64} FD_SLACK=${FD_SLACK:-4}
MIN_RATE=${MIN_RATE:-200} KEEP=${KEEP:-0}
for tool in dlp dlpd dlp-run; do
  [[ -x $bin/$tool ]] || { echo "churn.sh: $bin/$tool is missing; build it first" >&2; exit 2; }
done

tmp=$(mktemp -d /tmp/dlp-soak-churn-XXXXXX)
export XDG_STATE_HOME=$tmp/xdg DLP_CONFIG=$tmp/no-config.yaml DLP_DLPD=/bin/false NO_COLOR=1
unset DLP_CONTEXT
state=$XDG_STATE_HOME/dlp
dlpd_pid=""
watchers=()
cleanup() {
  touch "$tmp/stop"
  for w in "${watchers[@]}"; do kill "$w" 2>/dev/null || true; done
  [[ -n $dlpd_pid ]] && kill "$dlpd_pid" 2>/dev/null && wait "$dlpd_pid" 2>/dev/null || true
  if [[ $KEEP == 1 ]]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

soak_start_dlpd "$bin" "$state" 127.0.0.1:0 --cpus "$CPUS"
rss0=$(soak_rss_kib "$dlpd_pid") fds0=$(soak_fds "$dlpd_pid")
label=churn$$

specs=()
for s in 0.2 0.4 0.6 0.8 1; do
  soak_spec "churn" "$label" "[\"sleep\",\"$s\"]" >"$tmp/spec-$s.json"
  specs+=("$tmp/spec-$s.json")
done

# Watchers: each loops until $tmp/stop exists and counts its failures.
watch() {  # watch NAME COMMAND...
  local name=$1
  shift
  while [[ ! -e $tmp/stop ]]; do
    if ! "$@" >/dev/null 2>>"$tmp/watch-$name.err"; then echo x >>"$tmp/watch-$name.failed"; fi
    echo x >>"$tmp/watch-$name.runs"
    sleep 1
  done
}
follow_newest() {
  local id
  id=$(soak_ids "/v1/jobs?limit=1")
  [[ -z $id ]] || "$bin/dlp" logs -f "$id"
}
watch top "$bin/dlp" top --once & watchers+=($!)
watch list "$bin/dlp" list & watchers+=($!)
watch follow1 follow_newest & watchers+=($!)
watch follow2 follow_newest & watchers+=($!)

per_client=$(( (RATE + CLIENTS - 1) / CLIENTS ))
clients=()
for ((c = 0; c < CLIENTS; ++c)); do
  n=$(( JOBS / CLIENTS + (c < JOBS % CLIENTS ? 1 : 0) ))
  {
    for ((i = 0; i < n; ++i)); do
      (( i > 0 )) && echo next
      printf 'url = "http://%s/v1/jobs"\nheader = "Authorization: Bearer %s"\n' "$addr" "$token"
      printf 'header = "Content-Type: application/json"\ndata-binary = "@%s"\n' \
        "${specs[$(( (c + i) % 5 ))]}"
      printf 'output = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n'
    done
  } >"$tmp/client-$c.cfg"
done
start=$(date +%s.%N)
for ((c = 0; c < CLIENTS; ++c)); do
  curl -s --rate "$per_client/s" -K "$tmp/client-$c.cfg" >"$tmp/client-$c.codes" &
  clients+=($!)
done
for p in "${clients[@]}"; do wait "$p" || true; done
end=$(date +%s.%N)
acked=$(cat "$tmp"/client-*.codes | grep -c '^201$' || true)
rate=$(awk -v s="$start" -v e="$end" -v n="$JOBS" 'BEGIN {printf "%.1f", n / (e - s)}')

deadline=$(( $(date +%s) + TIMEOUT ))
left=1
while (( $(date +%s) < deadline )); do
  kill -0 "$dlpd_pid" 2>/dev/null || break
  left=$(( $(soak_count "/v1/jobs?state=Queued") + $(soak_count "/v1/jobs?state=Running") ))
  (( left == 0 )) && break
  sleep 1
done
drained=$(date +%s.%N)
touch "$tmp/stop"
for w in "${watchers[@]}"; do wait "$w" 2>/dev/null || true; done
watchers=()

failures=0
check() {  # check OK DESCRIPTION
  if [[ $1 == 1 ]]; then echo "ok:     $2"; else echo "FAILED: $2"; failures=$((failures + 1)); fi
}
up=0; kill -0 "$dlpd_pid" 2>/dev/null && up=1
check "$up" "dlpd stayed up (pid $dlpd_pid)"
if (( up == 0 )); then tail -20 "$state.out"; exit 1; fi
succeeded=$(soak_count "/v1/jobs?state=Succeeded&label=soak%3D$label")
# Descriptors and memory once the load has gone: client sockets close asynchronously, and
# dlpd hands freed memory back to the system every 5 s. Waits up to 20 s for both.
for ((i = 0; i < 200; ++i)); do
  (( $(soak_fds "$dlpd_pid") <= fds0 + FD_SLACK &&
     $(soak_rss_kib "$dlpd_pid") <= rss0 + RSS_SLACK_MIB * 1024 )) && break
  sleep 0.1
done
rss1=$(soak_rss_kib "$dlpd_pid") fds1=$(soak_fds "$dlpd_pid")
watch_runs=0 watch_failed=0
for f in "$tmp"/watch-*.runs; do watch_runs=$((watch_runs + $(wc -l <"$f"))); done
for f in "$tmp"/watch-*.failed; do [[ -e $f ]] && watch_failed=$((watch_failed + $(wc -l <"$f"))); done

check "$(( acked == JOBS ))" "$acked of $JOBS submissions acknowledged"
check "$(( left == 0 ))" "every job ended ($left still queued or running)"
check "$(( succeeded == JOBS ))" "$succeeded of $JOBS jobs Succeeded"
check "$(( watch_failed == 0 ))" "$watch_failed of $watch_runs watcher commands failed (top, list, logs -f)"
check "$(awk -v r="$rate" -v m="$MIN_RATE" 'BEGIN {print (r >= m) ? 1 : 0}')" \
  "$rate submissions/s (at least $MIN_RATE)"
check "$(( rss1 <= rss0 + RSS_SLACK_MIB * 1024 ))" \
  "dlpd RSS $((rss0 / 1024)) MiB before, $((rss1 / 1024)) MiB after (slack $RSS_SLACK_MIB MiB)"
check "$(( fds1 <= fds0 + FD_SLACK ))" "dlpd open fds $fds0 before, $fds1 after (slack $FD_SLACK)"
awk -v s="$start" -v e="$end" -v d="$drained" -v n="$JOBS" -v c="$CLIENTS" 'BEGIN {
  printf "| jobs | clients | submit s | submits/s | all ended s | jobs/s end to end |\n"
  printf "| ---: | ---: | ---: | ---: | ---: | ---: |\n"
  printf "| %d | %d | %.1f | %.1f | %.1f | %.1f |\n", n, c, e - s, n / (e - s), d - s, n / (d - s)
}'
if (( failures > 0 )); then
  for f in "$tmp"/watch-*.err; do [[ -s $f ]] && { echo "== $f"; tail -3 "$f"; }; done
  exit 1
fi

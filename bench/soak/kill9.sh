#!/usr/bin/env bash
# bench/soak/kill9.sh [BUILD_DIR]
#
# kill -9 soak of dlpd. CLIENTS concurrent clients submit JOBS jobs in all (curl to the API,
# PACE seconds apart) while dlpd is SIGKILLed at random moments (every 0.05 .. MAX_GAP seconds,
# at least KILLS times, also after the clients are done if they finish first) and restarted on
# the same address. Each job appends its id to one file, which counts its runs. Checks:
#   - every acknowledged submission (201 with an id) is listed by the last dlpd;
#   - every listed job (acknowledged or not) reaches a terminal state;
#   - every job ran exactly once, and Succeeded.
# Environment (defaults): JOBS=1000 CLIENTS=4 KILLS=30 PACE=0.03 MAX_GAP=0.6 CPUS=16
# TIMEOUT=300 KEEP=0. Exit 0 when every check holds. The CI runs a small version
# (tests/e2e/soak_test.cc).
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/soak/common.sh

build=${1:-build}
bin=$(cd "$build/bin" && pwd)
JOBS=${JOBS:-1000} CLIENTS=${CLIENTS:-4} KILLS=${KILLS:-30} PACE=${PACE:-0.03}
MAX_GAP=${MAX_GAP:-0.6} CPUS=${CPUS:-16} TIMEOUT=${TIMEOUT:-300} KEEP=${KEEP:-0}
for tool in dlpd dlp-run; do
  [[ -x $bin/$tool ]] || { echo "kill9.sh: $bin/$tool is missing; build it first" >&2; exit 2; }
done

tmp=$(mktemp -d /tmp/dlp-soak-kill9-XXXXXX)
state=$tmp/state
runs=$tmp/runs
touch "$runs"
dlpd_pid=""
clients=()
cleanup() {
  for p in "${clients[@]}"; do kill "$p" 2>/dev/null || true; done
  [[ -n $dlpd_pid ]] && kill "$dlpd_pid" 2>/dev/null && wait "$dlpd_pid" 2>/dev/null || true
  if [[ $KEEP == 1 ]]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

soak_start_dlpd "$bin" "$state" 127.0.0.1:0 --cpus "$CPUS"
listen=$addr  # every later dlpd listens where the clients send
soak_spec kill9 kill9 "[\"/bin/sh\",\"-c\",\"echo \\\"\$DLP_JOB_ID\\\" >> $runs; sleep 0.1\"]" \
  >"$tmp/spec.json"

# client N COUNT: submits COUNT jobs; acknowledged ids go to ack-N, unanswered ones are counted.
client() {
  local n=$1 count=$2 i out rc tries
  for ((i = 0; i < count; ++i)); do
    for ((tries = 0; tries < 1000; ++tries)); do
      rc=0
      out=$(curl -sS --max-time 30 -H "Authorization: Bearer $token" \
        -H 'Content-Type: application/json' --data-binary "@$tmp/spec.json" \
        -w '\n%{http_code}' "http://$listen/v1/jobs" 2>/dev/null) || rc=$?
      (( rc == 7 )) || break  # not connected: nothing was sent, so trying again is safe
      sleep 0.02
    done
    if (( rc == 0 )) && [[ ${out##*$'\n'} == 201 ]]; then
      awk 'match($0, /"id":"[0-9]+"/) {print substr($0, RSTART + 6, RLENGTH - 7); exit}' \
        <<<"$out" >>"$tmp/ack-$n"
    else
      echo "rc=$rc ${out##*$'\n'}" >>"$tmp/unanswered-$n"
    fi
    sleep "$PACE"
  done
}
for ((c = 0; c < CLIENTS; ++c)); do
  client "$c" $(( JOBS / CLIENTS + (c < JOBS % CLIENTS ? 1 : 0) )) &
  clients+=($!)
done

clients_running() {
  local p
  for p in "${clients[@]}"; do kill -0 "$p" 2>/dev/null && return 0; done
  return 1
}
kills=0 kills_during=0
start=$(date +%s.%N)
while (( kills < KILLS )) || clients_running; do
  sleep "$(awk -v m="$MAX_GAP" -v r="$RANDOM" 'BEGIN {printf "%.3f", 0.05 + (m - 0.05) * r / 32767}')"
  clients_running && kills_during=$((kills_during + 1))
  kill -9 "$dlpd_pid"
  wait "$dlpd_pid" 2>/dev/null || true
  kills=$((kills + 1))
  soak_start_dlpd "$bin" "$state" "$listen" --cpus "$CPUS"
done
for p in "${clients[@]}"; do wait "$p" || true; done
clients=()
submitted=$(date +%s.%N)

deadline=$(( $(date +%s) + TIMEOUT ))
left=1
while (( $(date +%s) < deadline )); do
  # A query that fails (dlpd busy recovering) counts as not done, never as none left.
  if queued=$(soak_count "/v1/jobs?state=Queued") && running=$(soak_count "/v1/jobs?state=Running")
  then
    left=$((queued + running))
    (( left == 0 )) && break
  fi
  sleep 0.5
done

cat "$tmp"/ack-* 2>/dev/null | sort -u >"$tmp/acked"
soak_ids /v1/jobs >"$tmp/listed"
for s in Succeeded Failed Cancelled; do soak_ids "/v1/jobs?state=$s" >"$tmp/state-$s"; done
sort "$runs" | uniq -c | awk '{print $2, $1}' >"$tmp/run-counts"  # id count
acked=$(wc -l <"$tmp/acked")
listed=$(wc -l <"$tmp/listed")
unanswered=$(cat "$tmp"/unanswered-* 2>/dev/null | wc -l)
missing=$(comm -23 "$tmp/acked" "$tmp/listed" | wc -l)
succeeded=$(wc -l <"$tmp/state-Succeeded")
failed=$(wc -l <"$tmp/state-Failed")
twice=$(awk '$2 > 1' "$tmp/run-counts" | wc -l)
never=$(comm -23 "$tmp/listed" <(cut -d' ' -f1 "$tmp/run-counts" | sort -u) | wc -l)
once=$(awk '$2 == 1' "$tmp/run-counts" | wc -l)

failures=0
check() {  # check OK DESCRIPTION
  if [[ $1 == 1 ]]; then echo "ok:     $2"; else echo "FAILED: $2"; failures=$((failures + 1)); fi
}
check "$(( kills >= KILLS ))" "dlpd SIGKILLed $kills times ($kills_during while clients submitted)"
check "$(( missing == 0 ))" "$missing of $acked acknowledged jobs missing ($unanswered submissions unanswered; $listed jobs listed)"
check "$(( left == 0 ))" "every job reached a terminal state ($left still queued or running)"
check "$(( twice == 0 ))" "$twice jobs ran more than once"
check "$(( never == 0 ))" "$never listed jobs never ran"
check "$(( succeeded == listed ))" "$succeeded of $listed jobs Succeeded ($failed Failed)"
echo "| submissions | acknowledged | unanswered | jobs | SIGKILLs | ran once | ran twice | never ran | Succeeded | Failed |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
echo "| $JOBS | $acked | $unanswered | $listed | $kills | $once | $twice | $never | $succeeded | $failed |"
if (( failed > 0 )); then
  soak_api GET "/v1/jobs?state=Failed" | grep -o '"reason":"[^"]*"' | sort | uniq -c | head -5 || true
fi
(( failures == 0 ))

#!/usr/bin/env bash
# bench/submit/run.sh [BUILD_DIR] [JOBS] [REPETITIONS]
#
# Durable submissions per second, side by side: through libdlp
# (dlp-bench-submit) and through the CLI (a loop of `dlp submit -q`, one process
# per job). Both use a fresh dlpd in a temporary state folder with a blocker job
# holding every CPU, so the submitted jobs stay queued and only the submit path
# (request, validation, SQLite commit before the ack) is measured.
set -euo pipefail

build=${1:-build}
jobs=${2:-1000}
reps=${3:-3}
bin=$(cd "$build/bin" && pwd)
for tool in dlp dlpd dlp-bench-submit; do
  [[ -x $bin/$tool ]] || { echo "run.sh: $bin/$tool is missing; build it first" >&2; exit 2; }
done

lib_out=$("$bin/dlp-bench-submit" --jobs "$jobs" --repetitions "$reps" --dlpd "$bin/dlpd")
echo "$lib_out"
lib_rate=$(awk '/^median/ {print $3}' <<<"$lib_out")

tmp=$(mktemp -d /tmp/dlp-bench-cli-XXXXXX)
export XDG_STATE_HOME=$tmp/xdg DLP_CONFIG=$tmp/no-config.yaml DLP_DLPD=$bin/dlpd
unset DLP_CONTEXT
blocker=""
cleanup() {
  [[ -n $blocker ]] && "$bin/dlp" cancel "$blocker" >/dev/null 2>&1 || true
  [[ -n $blocker ]] && "$bin/dlp" wait "$blocker" >/dev/null 2>&1 || true
  "$bin/dlp" server stop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

spec() {  # spec NAME CPUS COMMAND
  cat <<YAML
apiVersion: dlp/v1
kind: Job
metadata: {name: $1}
spec:
  workdir: /
  replicas:
    worker: {count: 1, command: [sh, -c, '$3'], resources: {cpu: $2}}
YAML
}

cpus=$(nproc)
while (( cpus >= 1 )); do
  spec blocker "$cpus" "sleep 3600" >"$tmp/blocker.yaml"
  if blocker=$("$bin/dlp" submit -q "$tmp/blocker.yaml" 2>/dev/null); then break; fi
  blocker=""
  cpus=$(( cpus / 2 ))
done
[[ -n $blocker ]] || { echo "run.sh: could not submit the blocker job" >&2; exit 1; }
spec bench "$cpus" true >"$tmp/job.yaml"

echo "# durable submits through the CLI (dlp submit -q): $jobs jobs x $reps repetitions"
printf '%5s %7s %9s %11s\n' rep jobs seconds submits/s
rates=()
for (( rep = 1; rep <= reps; ++rep )); do
  start=$(date +%s.%N)
  for (( i = 0; i < jobs; ++i )); do
    "$bin/dlp" submit -q "$tmp/job.yaml" >/dev/null
  done
  end=$(date +%s.%N)
  read -r seconds rate < <(awk -v s="$start" -v e="$end" -v n="$jobs" \
    'BEGIN {printf "%.3f %.1f\n", e - s, n / (e - s)}')
  rates+=("$rate")
  printf '%5d %7d %9s %11s\n' "$rep" "$jobs" "$seconds" "$rate"
done
cli_rate=$(printf '%s\n' "${rates[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
echo "median submits/s: $cli_rate"

echo
echo "| path | median durable submits/s | relative to libdlp |"
echo "| --- | ---: | ---: |"
awk -v l="$lib_rate" -v c="$cli_rate" 'BEGIN {
  printf "| libdlp (dlp::Client::Submit) | %.1f | 1.00 |\n", l
  printf "| CLI (dlp submit -q, a process per job) | %.1f | %.2f |\n", c, c / l
}'

#!/usr/bin/env bash
# bench/api/storm.sh [BUILD_DIR] [SLOWLORIS] [FOLLOWS] [SAMPLES]   (defaults: build 500 200 40)
#
# dlpd's API under a connection storm: a fresh dlpd with 8 tenants (Unix
# accounts dlpbench0..7, made for the run where missing: run it as root), each with
# a silent job; then dlp-bench-api-storm opens SLOWLORIS sockets that trickle
# one header byte every 2 s (500) and FOLLOWS idle log follows spread over the
# tenants (200), and times the owner's GET /v1/health and `dlp list`.
# DLPD=PATH runs another dlpd (an older build, for a comparison).
set -euo pipefail

build=${1:-build}
slowloris=${2:-500}
follows=${3:-200}
samples=${4:-40}
bin=$(cd "$build/bin" && pwd)
for tool in dlp dlpd dlp-run dlp-bench-api-storm; do
  [[ -x $bin/$tool ]] || { echo "storm.sh: $bin/$tool is missing; build it first" >&2; exit 2; }
done

tmp=$(mktemp -d /tmp/dlp-bench-storm-XXXXXX)
chmod 755 "$tmp"  # the tenants' jobs reach their folders below it (dlpd --tokens)
export XDG_STATE_HOME=$tmp/xdg DLP_CONFIG=$tmp/config.yaml
unset DLP_CONTEXT
state=$XDG_STATE_HOME/dlp
dlpd_pid=""
cleanup() {
  for id in $(cat "$tmp/jobs" 2>/dev/null | awk '{print $3}'); do
    "$bin/dlp" cancel "$id" >/dev/null 2>&1 || true
  done
  [[ -n $dlpd_pid ]] && kill "$dlpd_pid" 2>/dev/null && wait "$dlpd_pid" 2>/dev/null || true
  for user in $(cat "$tmp/made-users" 2>/dev/null); do userdel "$user" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

: >"$tmp/tokens"
for t in 0 1 2 3 4 5 6 7; do
  # A tenant's jobs run as its Unix account.
  if ! id "dlpbench$t" >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin "dlpbench$t" ||
      { echo "storm.sh: cannot add the account dlpbench$t (run as root)" >&2; exit 2; }
    echo "dlpbench$t" >>"$tmp/made-users"
  fi
  echo "dlpbench$t $(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" >>"$tmp/tokens"
done
"${DLPD:-$bin/dlpd}" --state-dir "$state" --listen 127.0.0.1:0 --tokens "$tmp/tokens" \
  --cpus 64 --log-file "$tmp/dlpd.log" 2>/dev/null &
dlpd_pid=$!
for _ in $(seq 100); do [[ -s $state/dlpd.addr ]] && break; sleep 0.1; done
address=$(cat "$state/dlpd.addr")
owner=$(cat "$state/dlpd.token")

{
  echo "current-context: local"
  echo "contexts:"
  echo "  - {name: local, backend: local}"
  while read -r tenant token; do
    echo "  - {name: $tenant, backend: remote, server: 'http://$address', token: $token}"
  done <"$tmp/tokens"
} >"$DLP_CONFIG"
cat >"$tmp/quiet.yaml" <<YAML
apiVersion: dlp/v1
kind: Job
metadata: {name: quiet}
spec:
  workdir: /
  replicas:
    worker: {command: [sleep, "3600"], resources: {cpu: 100m}}
YAML
: >"$tmp/jobs"
while read -r tenant token; do
  id=$("$bin/dlp" --context "$tenant" submit -q "$tmp/quiet.yaml")
  echo "$tenant $token $id" >>"$tmp/jobs"
done <"$tmp/tokens"
awk '{print $2, $3}' "$tmp/jobs" >"$tmp/follows"

echo "# dlpd $address; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin/dlp-bench-api-storm" "$address" "$owner" "$tmp/follows" "$slowloris" "$follows" \
  "$samples" "$bin/dlp list >/dev/null"

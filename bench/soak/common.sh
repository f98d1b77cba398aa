# Shared by the soak scripts (source it): a real dlpd in a temporary state folder, the API
# through curl, and dlpd's resource figures.

# A soak stopped by `set -e` says where, so that a failure is never silent.
set -E
trap 'echo "${BASH_SOURCE[0]##*/}:$LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR

# soak_start_dlpd BIN STATE LISTEN [DLPD FLAGS...]: starts dlpd in the background (pid in
# $dlpd_pid, output appended to $STATE.out) and waits until it answers; sets $addr and $token.
soak_start_dlpd() {
  local bin=$1 state=$2 listen=$3
  shift 3
  mkdir -p "$state"
  "$bin/dlpd" --state-dir "$state" --listen "$listen" "$@" >>"$state.out" 2>&1 &
  dlpd_pid=$!
  local i
  for ((i = 0; i < 600; ++i)); do
    if [[ -s $state/dlpd.addr && $(cat "$state/dlpd.pid" 2>/dev/null) == "$dlpd_pid" ]]; then
      addr=$(cat "$state/dlpd.addr")
      token=$(cat "$state/dlpd.token")
      if soak_api GET /v1/health >/dev/null 2>&1; then return 0; fi
    fi
    kill -0 "$dlpd_pid" 2>/dev/null || { echo "dlpd exited:" >&2; tail -5 "$state.out" >&2; return 1; }
    sleep 0.05
  done
  echo "dlpd did not answer within 30 s" >&2
  return 1
}

# soak_api METHOD PATH [BODY]: one API call; prints the body, fails on a non-2xx answer.
soak_api() {
  local args=(-sS --fail --max-time 120 -H "Authorization: Bearer $token" -X "$1")
  [[ $# -ge 3 ]] && args+=(-H 'Content-Type: application/json' --data-binary "$3")
  curl "${args[@]}" "http://$addr$2"
}

# soak_count PATH: how many jobs GET PATH lists (one "tenant" field a job).
soak_count() {
  soak_api GET "$1" | awk -F'"tenant":"' '{n += NF - 1} END {print n + 0}'
}

# soak_ids PATH: the ids of the jobs GET PATH lists, sorted, one a line.
soak_ids() {
  soak_api GET "$1" | awk '{
    while (match($0, /"id":"[0-9]+"/)) {
      print substr($0, RSTART + 6, RLENGTH - 7)
      $0 = substr($0, RSTART + RLENGTH)
    }
  }' | sort -u
}

# soak_rss_kib PID / soak_fds PID: resident memory (KiB) and open descriptors of a process.
soak_rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
soak_fds() { ls "/proc/$1/fd" | wc -l; }

# soak_spec NAME LABEL COMMAND_JSON: a one-replica job on 100m of CPU, as the API takes it.
soak_spec() {
  printf '{"name":"%s","labels":{"soak":"%s"},"workdir":"/tmp","replicas":[{"role":"worker","count":1,"command":%s,"resources":{"cpu":"100m"}}]}' \
    "$1" "$2" "$3"
}

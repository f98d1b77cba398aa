#!/usr/bin/env bash
# Starts a single-node Slurm cluster for localhost under $DLP_SLURM_DIR
# (default /tmp/dlp-slurm): munged, slurmctld, slurmd and slurmrestd (JWT over
# TCP on 127.0.0.1), then waits until the node is idle and writes
# $DLP_SLURM_DIR/env, which the tests read. Installs nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${DLP_SLURM_DIR:-/tmp/dlp-slurm}
ctld_port=${DLP_SLURM_CTLD_PORT:-16817}
slurmd_port=${DLP_SLURM_SLURMD_PORT:-16818}
rest_port=${DLP_SLURM_REST_PORT:-16820}
deadline_s=${DLP_SLURM_START_TIMEOUT:-60}

for tool in munged slurmctld slurmd sinfo; do
  command -v "$tool" >/dev/null || { echo "slurm: $tool not installed (run scripts/install-deps.sh)" >&2; exit 1; }
done
if [ "$(id -u)" -ne 0 ]; then
  echo "slurm: the test cluster runs its daemons as root (SlurmUser=root)" >&2
  exit 1
fi

"$here/stop.sh" >/dev/null 2>&1 || true
rm -rf "$dir"
mkdir -p "$dir"/{munge,state,spool,jobs}
chmod 755 "$dir"
# Job output folders must be writable by whoever submits.
chmod 1777 "$dir/jobs"

# munged: its own key, socket and seed under $dir.
chmod 755 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1 count=1024 status=none
chmod 400 "$dir/munge/munge.key"
munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/munged.seed"

dd if=/dev/urandom of="$dir/jwt.key" bs=32 count=1 status=none
chmod 600 "$dir/jwt.key"

host=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
sed -e "s|@DIR@|$dir|g" -e "s|@HOST@|$host|g" -e "s|@CPUS@|$cpus|g" \
  -e "s|@MEMORY@|$memory|g" -e "s|@CTLD_PORT@|$ctld_port|g" \
  -e "s|@SLURMD_PORT@|$slurmd_port|g" "$here/slurm.conf.in" > "$dir/slurm.conf"
chmod 644 "$dir/slurm.conf"
export SLURM_CONF="$dir/slurm.conf"

slurmctld -i -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N "$host"

# slurmrestd refuses to run as root; over TCP it authenticates users by JWT.
if command -v slurmrestd >/dev/null; then
  SLURM_JWT=daemon setsid slurmrestd -f "$SLURM_CONF" -a rest_auth/jwt -s openapi/v0.0.38 -u slurm -g slurm \
    "127.0.0.1:$rest_port" >"$dir/slurmrestd.log" 2>&1 < /dev/null &
  echo $! > "$dir/slurmrestd.pid"
fi

end=$((SECONDS + deadline_s))
until sinfo -h -N -o '%t' 2>/dev/null | grep -qx 'idle'; do
  if [ $SECONDS -ge $end ] || ! kill -0 "$(cat "$dir/slurmctld.pid" 2>/dev/null || echo 0)" 2>/dev/null; then
    echo "slurm: node not idle after ${deadline_s}s; sinfo says: $(sinfo -h -N -o '%t %E' 2>&1)" >&2
    tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
    exit 1
  fi
  sleep 0.2
done

rest_url=""
if [ -f "$dir/slurmrestd.pid" ]; then
  until curl -s -o /dev/null "http://127.0.0.1:$rest_port/openapi/v3"; do
    if [ $SECONDS -ge $end ] || ! kill -0 "$(cat "$dir/slurmrestd.pid")" 2>/dev/null; then
      echo "slurm: slurmrestd not answering on 127.0.0.1:$rest_port" >&2
      cat "$dir/slurmrestd.log" >&2 || true
      exit 1
    fi
    sleep 0.2
  done
  rest_url="http://127.0.0.1:$rest_port"
fi

cat > "$dir/env" <<ENV
SLURM_CONF=$SLURM_CONF
DLP_SLURM_DIR=$dir
DLP_SLURM_PARTITION=debug
DLP_SLURM_REST_URL=$rest_url
ENV
echo "slurm: node $host idle ($cpus CPUs, ${memory} MB); env in $dir/env"

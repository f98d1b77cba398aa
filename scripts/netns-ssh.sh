#!/bin/sh
# Network namespaces joined by a bridge, each running its own sshd, for the
# dlp-run remote-host tests (tests/runtime/launch/netns_ssh_integration_test.cc).
#
#   netns-ssh.sh up PREFIX DIR N    namespaces PREFIX-0..N-1 at 10.77.0.1..N,
#                                   keys, known_hosts and sshd configs in DIR
#   netns-ssh.sh down PREFIX DIR N  kills the sshds and deletes the namespaces
#
# PREFIX-0 holds the bridge; the others join it through veth pairs created
# directly inside the namespaces, so no test traffic touches the root
# namespace. Needs root, iproute2 and OpenSSH's sshd.
set -eu
cmd=$1 prefix=$2 dir=$3 n=$4
subnet=10.77.0

down() {
  for pidfile in "$dir"/sshd-*.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
  i=0
  while [ "$i" -lt "$n" ]; do
    ip netns del "$prefix-$i" 2>/dev/null || true
    i=$((i + 1))
  done
}

up() {
  mkdir -p "$dir" /run/sshd
  chmod 0755 /run/sshd
  ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key" -C host
  ssh-keygen -q -t ed25519 -N '' -f "$dir/id" -C user
  cp "$dir/id.pub" "$dir/authorized_keys"
  : > "$dir/known_hosts"
  i=0
  while [ "$i" -lt "$n" ]; do
    ip netns add "$prefix-$i"
    ip -n "$prefix-$i" link set lo up
    i=$((i + 1))
  done
  ip -n "$prefix-0" link add br0 type bridge
  ip -n "$prefix-0" link set br0 up
  ip -n "$prefix-0" addr add "$subnet.1/24" dev br0
  i=1
  while [ "$i" -lt "$n" ]; do
    ip link add "v$i" netns "$prefix-0" type veth peer name eth0 netns "$prefix-$i"
    ip -n "$prefix-0" link set "v$i" master br0 up
    ip -n "$prefix-$i" addr add "$subnet.$((i + 1))/24" dev eth0
    ip -n "$prefix-$i" link set eth0 up
    i=$((i + 1))
  done
  i=0
  while [ "$i" -lt "$n" ]; do
    addr="$subnet.$((i + 1))"
    echo "$addr $(cut -d' ' -f1-2 "$dir/host_key.pub")" >> "$dir/known_hosts"
    cat > "$dir/sshd-$i.conf" <<CONF
ListenAddress $addr
Port 22
HostKey $dir/host_key
PidFile $dir/sshd-$i.pid
AuthorizedKeysFile $dir/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
UsePAM no
PrintMotd no
LogLevel ERROR
CONF
    ip netns exec "$prefix-$i" /usr/sbin/sshd -f "$dir/sshd-$i.conf" -E "$dir/sshd-$i.log"
    i=$((i + 1))
  done
}

case "$cmd" in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down PREFIX DIR N" >&2; exit 2 ;;
esac

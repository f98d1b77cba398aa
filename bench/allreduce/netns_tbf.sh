#!/usr/bin/env bash
# dlp's allreduce between network namespaces whose links are shaped to 1 Gbit/s,
# against the ring bound 2(N-1)/N * S / B. Namespace PREFIX-0 holds the bridge
# and dlp-run (with the rendezvous store); ranks run one per namespace
# PREFIX-1..N, reached over real ssh (scripts/netns-ssh.sh), each joined to the
# bridge by a veth pair shaped on both ends with
#   tc qdisc add dev X root tbf rate 1gbit burst 256kb latency 50ms (TBF_LATENCY)
# All traffic stays between the namespaces. Needs root, iproute2, tc, sshd.
# PER_HOST=2 puts two ranks in each namespace (one host id each, so shared
# memory within): the automatic choice (hierarchical) and the flat ring
# (DLP_COMM_ALGO=ring) then run alternately, against the host-level bound
# 2(H-1)/H * S / B for H namespaces.
# TCP cannot reach that bound: each 1514-byte frame (MTU 1500 with the Ethernet
# header, the shaper's count) carries 1448 bytes of payload (less IP, TCP and
# timestamp headers), so the column "/ wire" divides the ratio by frame/payload,
# 1.0456 here: the time against the fastest any TCP stream can be. MTU=9000 sets
# jumbo frames on every link, as training clusters configure them (1.0074).
#
#   bench/allreduce/netns_tbf.sh [BUILD_DIR]     (RANKS="2 4" ITERS=3 PER_HOST=1 MTU=1500)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
ranks=${RANKS:-"2 4"}
iters=${ITERS:-3}
per_host=${PER_HOST:-1}
mtu=${MTU:-1500}
latency=${TBF_LATENCY:-50ms}  # the most a packet may wait in the shaper
bin=$build/bin
for b in dlp-run dlp_allreduce_bench; do
  [[ -x $bin/$b ]] || { echo "missing $bin/$b (ninja -C $build $b)" >&2; exit 1; }
done
rate_bytes=125000000  # 1 Gbit/s

prefix=dlpbw$$
keys=$(mktemp -d)
hosts_up=0
cleanup() {
  [[ $hosts_up -gt 0 ]] && "$root/scripts/netns-ssh.sh" down "$prefix" "$keys" "$hosts_up" || true
  rm -rf "$keys"
}
trap cleanup EXIT

printf '%-5s %-5s %-8s %5s | %12s %12s %8s %8s\n' ranks hosts algo MiB "time us" "bound us" "ratio" \
  "/ wire"
for n in $ranks; do
  hosts=$((n / per_host))
  hosts_up=$((hosts + 1))
  "$root/scripts/netns-ssh.sh" up "$prefix" "$keys/$n" "$hosts_up"
  keys_n=$keys/$n
  hostlist=""
  for ((i = 1; i <= hosts; i++)); do
    ip -n "$prefix-0" link set "v$i" mtu "$mtu"
    ip -n "$prefix-$i" link set eth0 mtu "$mtu"
    tc -n "$prefix-0" qdisc add dev "v$i" root tbf rate 1gbit burst 256kb latency "$latency"
    tc -n "$prefix-$i" qdisc add dev eth0 root tbf rate 1gbit burst 256kb latency "$latency"
    hostlist+="${hostlist:+,}10.77.0.$((i + 1)):$per_host"
  done
  ip -n "$prefix-0" link set br0 mtu "$mtu"
  out=$(DLP_SSH_OPTS="-i $keys_n/id -o UserKnownHostsFile=$keys_n/known_hosts -o ConnectTimeout=5" \
    ip netns exec "$prefix-0" "$bin/dlp-run" -H "$hostlist" -- \
    env DLP_BENCH_ALGOS="$([[ $per_host -gt 1 ]] && echo "auto ring" || echo auto)" \
    "$bin/dlp_allreduce_bench" --min-bytes $((16 << 20)) --max-bytes $((64 << 20)) --iters "$iters")
  timestamps=$(ip netns exec "$prefix-1" sysctl -n net.ipv4.tcp_timestamps)
  frame=$((mtu + 14))
  payload=$((mtu - 40 - (timestamps != 0 ? 12 : 0)))
  "$root/scripts/netns-ssh.sh" down "$prefix" "$keys_n" "$hosts_up"
  hosts_up=0
  # dlp-run prefixes rank 0's lines with "[0] ".
  echo "$out" | awk -v n="$n" -v h="$hosts" -v rate="$rate_bytes" -v frame="$frame" \
    -v payload="$payload" '
    $1 == "[0]" && $2 == "ROW" {
      algo = $3 == "dlp" ? "auto" : substr($3, 5); bytes = $5; us = $6; wrong = $9
      bound = 2 * (h - 1) / h * bytes / rate * 1e6
      printf "%-5d %-5d %-8s %5d | %12.0f %12.0f %8.3f %8.3f%s\n", n, h, algo, bytes / 1048576, us,
        bound, us / bound, us / bound * payload / frame,
        (wrong != 0 ? "  WRONG=" wrong : "")
      if (wrong != 0) bad = 1
    }
    END { exit bad }'
done

#!/usr/bin/env python3
"""The alpha-beta cost model of docs/collectives.md: predicted allreduce time of
ring, direct, one-shot, tree (recursive doubling) and hierarchical allreduce,
from 2 to 1,024 ranks and 4 KiB to 1 GiB, and the algorithm with the least.

    bench/allreduce/model.py [ALPHA_SHM_US BETA_SHM_GBPS ALPHA_TCP_US BETA_TCP_GBPS]

Defaults are the figures measured on the 2-core machine (bench/history/RESULTS-2026.md).
alpha: the cost of one synchronisation / message; beta: bytes per second a rank
moves through the transport (for shm, memcpy-like traffic).
"""
import math
import sys

args = [float(a) for a in sys.argv[1:5]] or [3.0, 6.0, 25.0, 1.0]
A_SHM, B_SHM, A_TCP, B_TCP = args[0] * 1e-6, args[1] * 1e9, args[2] * 1e-6, args[3] * 1e9
CHUNK = 256 << 10  # direct's round on a host with a core per rank
PER_HOST = 8       # ranks per host; up to 8 ranks are one host (direct, one-shot)


def ring(n, s, a, b):
    return 2 * (n - 1) * a + 2 * (n - 1) / n * s / b


def direct(n, s):
    # Two synchronisations per round; a rank stages its input and copies the
    # result out (the reduction reads slots that are still in cache).
    rounds = max(1, math.ceil(s / CHUNK))
    return 2 * rounds * A_SHM + 2 * s / B_SHM


def oneshot(n, s):
    return A_SHM + (1 + n) * s / B_SHM


def tree(n, s, a, b):
    # Recursive doubling: log2(N) exchanges of the whole message.
    return math.ceil(math.log2(n)) * (a + s / b)


def hierarchical(n, s):
    hosts = n // PER_HOST
    local = direct(PER_HOST, s)  # local reduce + local broadcast ~ one direct
    return local + ring(hosts, s, A_TCP, B_TCP)


def human(s):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if s >= size:
            return "%d %s" % (s // size, unit)
    return "%d B" % s


def fmt(t):
    if t < 1e-3:
        return "%.0f us" % (t * 1e6)
    if t < 1:
        return "%.1f ms" % (t * 1e3)
    return "%.2f s" % t


print("| ranks | bytes | ring (TCP) | tree (TCP) | hierarchical | direct (1 host) | one-shot (1 host) | least |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for n in (2, 8, 64, 1024):
    for s in (4 << 10, 256 << 10, 16 << 20, 1 << 30):
        cols = {"ring": ring(n, s, A_TCP, B_TCP), "tree": tree(n, s, A_TCP, B_TCP)}
        if n > PER_HOST:
            cols["hierarchical"] = hierarchical(n, s)
        else:
            cols["direct"] = direct(n, s)
            cols["oneshot"] = oneshot(n, s)
        best = min(cols, key=cols.get)
        row = [cols.get(k) for k in ("ring", "tree", "hierarchical", "direct", "oneshot")]
        print("| %d | %s | %s | %s |" % (n, human(s), " | ".join(fmt(t) if t else "-" for t in row), best))

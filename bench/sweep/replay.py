#!/usr/bin/env python3
"""ASHA's stopping rule replayed on recorded learning curves.

    bench/sweep/replay.py CURVES.json... [--trials N] [--eta 3] [--min 1]
                          [--parallelism 2] [--orderings 200 | --in-order]

Each CURVES file is what `CURVES=FILE bench/sweep/run.sh` writes: the random
sweep's trials, each with its objective after every epoch. The files are
pooled (trials of different sampler seeds are independent draws from the same
space); each ordering draws --trials of them at random and replays the sweep
engine's rule (libdlp/src/sweep/engine.cc: rungs at min * eta^k below the last
epoch; once a rung holds eta values, a trial below its top 1/eta is stopped)
with --parallelism trials at a time, every epoch of equal length. It prints,
over the orderings, how often ASHA's best is within 0.5 points of the best
last epoch of all the drawn trials (random search with the same trials) while
spending at most 1/3 of their trial-epochs, and the medians.
"""
import argparse
import heapq
import json
import random


def meets_target(gap_points, budget_share):
    """The issue's target: within 0.5 points of random's best on at most a third
    of its trial-epochs (bench/sweep/run.sh checks its real runs with this too)."""
    return gap_points >= -0.5 and budget_share <= 1 / 3


def replay(curves, eta, rmin, parallelism):
    """(best objective of ASHA's trials, trial-epochs spent)"""
    last = len(curves[0])
    rungs = []
    r = rmin
    while r < last:
        rungs.append(r)
        r *= eta
    at_rung = {r: [] for r in rungs}
    spent, final, events, queued = {}, {}, [], iter(range(len(curves)))

    def start(now):
        i = next(queued, None)
        if i is not None:
            heapq.heappush(events, (now + 1, i, 1))

    for _ in range(parallelism):
        start(0)
    while events:
        now, i, epoch = heapq.heappop(events)
        value = curves[i][epoch - 1]
        spent[i], final[i] = epoch, value
        if epoch in at_rung:
            values = at_rung[epoch]
            values.append(value)
            if len(values) >= eta:
                cutoff = sorted(values, reverse=True)[max(1, len(values) // eta) - 1]
                if value < cutoff:
                    start(now)
                    continue
        if epoch == last:
            start(now)
        else:
            heapq.heappush(events, (now + 1, i, epoch + 1))
    return max(final.values()), sum(spent.values())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("curves", nargs="+")
    p.add_argument("--trials", type=int, default=16)
    p.add_argument("--eta", type=int, default=3)
    p.add_argument("--min", type=int, default=1)
    p.add_argument("--parallelism", type=int, default=2)
    p.add_argument("--orderings", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--in-order", action="store_true",
                   help="one ordering: the first --trials of the files, in the files' order")
    a = p.parse_args()
    pool = []
    for path in a.curves:
        pool += [t["objective"] for t in json.load(open(path))]
    # A trial that failed has a shorter curve (or none): it has no place in a replay.
    epochs = max(len(c) for c in pool)
    complete = [c for c in pool if len(c) == epochs]
    if len(complete) < len(pool):
        print(f"left out {len(pool) - len(complete)} trial(s) with fewer than {epochs} epochs")
    pool = complete
    if a.trials > len(pool):
        p.error(f"--trials {a.trials}: the files hold {len(pool)} trials")
    rng = random.Random(a.seed)
    met, gaps, budgets = 0, [], []
    orderings = 1 if a.in_order else a.orderings
    for _ in range(orderings):
        drawn = pool[:a.trials] if a.in_order else rng.sample(pool, a.trials)
        best_random = max(c[-1] for c in drawn)
        best, spent = replay(drawn, a.eta, a.min, a.parallelism)
        gap, budget = 100 * (best - best_random), spent / (len(drawn[0]) * a.trials)
        gaps.append(gap)
        budgets.append(budget)
        met += meets_target(gap, budget)
    gaps.sort()
    budgets.sort()
    n = orderings
    print(f"{a.trials} of {len(pool)} trials, eta {a.eta}, min {a.min}, parallelism "
          f"{a.parallelism}, {n} orderings: target met in {met} ({100 * met / n:.0f} %); "
          f"ASHA - random median {gaps[n // 2]:+.2f} points (10th percentile "
          f"{gaps[n // 10]:+.2f}); trial-epochs median {budgets[n // 2]:.2f} "
          f"(90th percentile {budgets[9 * n // 10]:.2f})")


if __name__ == "__main__":
    main()

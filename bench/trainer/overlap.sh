#!/usr/bin/env bash
# How fmnist-train reduces its gradient: the same run with one allreduce after
# backward, with the optimizer sharded (a reduce-scatter after backward, an
# allgather after the update), sharded over one model in shared memory (two
# barriers; the MLP's weight gradients summed from the ranks' activations), and
# with buckets all-reduced beside backward,
# interleaved REPEAT times (default 3), for each rank count in RANKS (default
# "2 4"). MODES lists the step kinds as comma-joined fmnist-train flags.
# Each run is traced; `dlp profile --dir` gives the share of step time the step
# waited for communication and the share that ran beside backward. Medians.
#
#   bench/trainer/overlap.sh [BUILD_DIR] [extra fmnist-train flags...]
set -euo pipefail
build=${1:-build}
shift || true
bin="$build/bin"
for tool in fmnist-train dlp-run dlp; do
  [[ -x "$bin/$tool" ]] || { echo "no $bin/$tool: build it first" >&2; exit 2; }
done
repeat=${REPEAT:-3}
flags=(--epochs "${EPOCHS:-1}" --device cpu --limit-test 1000 "$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

modes=${MODES:-"--no-overlap,--shard-optimizer=off --no-overlap,--shard-optimizer=on,--shared-model=off --no-overlap,--shard-optimizer=on,--shared-model=on --overlap"}

# Prints "samples/s commShare overlappedCommShare" of one traced run.
run() {
  local ranks=$1 mode_flags dir
  IFS=, read -r -a mode_flags <<<"$2"
  dir=$(mktemp -d -p "$work")
  local sps
  "$bin/dlp-run" -np "$ranks" --log-dir "$dir" -- "$bin/fmnist-train" "${flags[@]}" \
    "${mode_flags[@]}" >/dev/null
  # Rank 0's log lines are "TIME STREAM TEXT"; its epoch reports are JSON.
  sps=$(grep -o '{"epoch".*' "$dir/rank-0.log" | tail -1 |
    python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["samples_per_second"])')
  "$bin/dlp" profile --dir "$dir" -o json | python3 -c '
import json, sys
p = json.load(sys.stdin)
print(sys.argv[1], "%.3f" % p["commShare"], "%.3f" % p.get("overlappedCommShare", 0))' "$sps"
}

results="$work/results"
echo "# fmnist-train ${flags[*]} on $(nproc) cores, load average" \
  "$(cut -d' ' -f1-3 /proc/loadavg) before the run; medians of $repeat interleaved runs"
for ((i = 0; i < repeat; i++)); do
  for ranks in ${RANKS:-2 4}; do
    for mode in $modes; do echo "$ranks $mode $(run "$ranks" "$mode")" >>"$results"; done
  done
done
python3 - "$results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    ranks, mode, sps, comm, over = line.split()
    rows.setdefault((int(ranks), mode), []).append((float(sps), float(comm), float(over)))
names = {"--no-overlap,--shard-optimizer=off": "allreduce after backward",
         "--no-overlap,--shard-optimizer=on,--shared-model=off": "sharded: reduce-scatter, update 1/N, allgather",
         "--no-overlap,--shard-optimizer=on,--shared-model=on": "sharded, one shared model: barrier, sum and update 1/N in place (the MLP: from the activations), barrier",
         "--overlap": "buckets beside backward"}
print("| ranks | gradient | samples/s | waited for communication | beside backward |")
print("| ---: | --- | ---: | ---: | ---: |")
for (ranks, mode), runs in sorted(rows.items()):
    med = [statistics.median(r[i] for r in runs) for i in range(3)]
    print(f"| {ranks} | {names.get(mode, mode)} | {med[0]:,.0f} | {med[1]*100:.1f} % | {med[2]*100:.1f} % |")
PY

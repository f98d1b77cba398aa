#!/usr/bin/env bash
# bench/sweep/run.sh [BUILD_DIR]
#
# 1. Random search vs ASHA on Fashion-MNIST with the same trial budget
#    (TRIALS trials of up to EPOCHS epochs, the same seed and parameter space):
#    the best test accuracy each reaches and the trial-epochs each spends (the
#    sum over trials of the epochs they ran), for each sampler seed in SEEDS;
#    then, for each reduction factor, in how many seeds ASHA met the target
#    (within 0.5 points of random's best with at most 1/3 of its
#    trial-epochs) and the medians. Trials anneal their rate (--lr-schedule
#    cosine) and are scored on the whole 10,000-image test set, so a trial's
#    last epoch is settled and measured to about 0.4 points (one standard
#    error).
# 2. Controller overhead: trials started per second in a RANDOM_TRIALS-trial
#    random sweep of `true` jobs (parallelism PARALLEL), from the submission to
#    the last trial's start, next to plain `dlp submit` of the same job.
# Both run on a fresh dlpd in a temporary state folder. Environment:
#   TRIALS (128) EPOCHS (8) LIMIT_TRAIN (6000) PARALLEL_FMNIST (2)
#   SEEDS ("1 2 3": the sampler's seeds, each for both searches; SEED=S is
#   SEEDS=S) ETA (4: ASHA's reduction factor; "3 4" runs one ASHA search per
#   factor, rows asha/3 and asha/4, beside the seed's one random search)
#   RANDOM_TRIALS (1000) PARALLEL (50) SKIP_FMNIST=1 / SKIP_RATE=1
#   CURVES=FILE: also write each random trial's test accuracy after every
#   epoch there, for bench/sweep/replay.py (ASHA's rule replayed on them);
#   with several seeds, "{seed}" in FILE is replaced by each
set -euo pipefail

build=${1:-build}
bin=$(cd "$build/bin" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
for tool in dlp dlpd dlp-run fmnist-train; do
  [[ -x $bin/$tool ]] || { echo "run.sh: $bin/$tool is missing; build it first" >&2; exit 2; }
done
trials=${TRIALS:-128}
epochs=${EPOCHS:-8}
limit=${LIMIT_TRAIN:-6000}
par_fmnist=${PARALLEL_FMNIST:-2}
seeds=${SEEDS:-${SEED:-1 2 3}}
etas=${ETA:-4}
random_trials=${RANDOM_TRIALS:-1000}
parallel=${PARALLEL:-50}

tmp=$(mktemp -d /tmp/dlp-bench-sweep-XXXXXX)
export XDG_STATE_HOME=$tmp/xdg DLP_CONFIG=$tmp/no-config.yaml DLP_DLPD=$bin/dlpd
export PATH=$bin:$PATH
unset DLP_CONTEXT
cleanup() {
  "$bin/dlp" server stop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# sweep_yaml NAME SEARCH EPOCHS_ARG: the fmnist sweep of the comparison.
sweep_yaml() {
  cat <<YAML
apiVersion: dlp/v1
kind: Sweep
metadata: {name: $1}
spec:
  objective: {metric: test_accuracy, goal: maximize}
  search: $2
  maxTrials: $trials
  parallelism: $par_fmnist
  parameters:
    lr: {type: logfloat, min: 0.003, max: 0.3}
    hidden: {type: categorical, values: [64, 128, 256]}
    batch: {type: categorical, values: [32, 64, 128]}
    momentum: {type: float, min: 0.5, max: 0.95}
  template:
    workdir: $tmp
    replicas:
      worker:
        command: [fmnist-train, --device, cpu, --lr, "\${params.lr}", --hidden, "\${params.hidden}",
                  --batch, "\${params.batch}", --momentum, "\${params.momentum}",
                  --epochs, "$3", --lr-schedule, cosine, --limit-train, "$limit", --seed, "1"]
        resources: {cpu: 1}
YAML
}

# summary ID: "best trial_epochs" of a finished sweep; on stderr, every trial
# that failed (a random search's trials should all succeed, and ASHA's end
# Succeeded or Cancelled by it), with its reason.
summary() {
  "$bin/dlp" sweep status "$1" -o json | python3 -c '
import json, sys
s = json.load(sys.stdin)
for t in s["trials"]:
    if t["state"] not in ("Succeeded", "Cancelled"):
        print("trial job %s: %s: %s" % (t["job"], t["state"], t.get("reason")), file=sys.stderr)
best = s["best"]["objective"] if s["best"] else float("nan")
print("%.4f %d" % (best, sum(t["resource"] for t in s["trials"])))'
}

# curves ID: the trials of a finished sweep, each with its objective per epoch.
curves() {
  "$bin/dlp" sweep status "$1" -o json | python3 -c '
import json, subprocess, sys
out = []
for t in json.load(sys.stdin)["trials"]:
    m = json.loads(subprocess.check_output([sys.argv[1], "metrics", str(t["job"]), "-o", "json"]))
    values = [p["value"] for p in m["metrics"] if p["name"] == "test_accuracy"]
    out.append({"job": t["job"], "params": t.get("params"), "objective": values})
json.dump(out, sys.stdout)' "$bin/dlp"
}

# target RESULTS: per reduction factor, the seeds where ASHA met the target
# and the medians, from RESULTS' lines "seed search best trial_epochs".
target() {
  python3 - "$1" "$here" <<'PY'
import statistics, sys
sys.path.insert(0, sys.argv[2])
from replay import meets_target
rows = [line.split() for line in open(sys.argv[1])]
random = {seed: (float(best), int(spent)) for seed, search, best, spent in rows if search == "random"}
for search in sorted({r[1] for r in rows if r[1] != "random"}):
    gaps, ratios, met = [], [], 0
    for seed, s, best, spent in rows:
        if s != search:
            continue
        gap = 100 * (float(best) - random[seed][0])
        ratio = int(spent) / random[seed][1]
        gaps.append(gap)
        ratios.append(ratio)
        met += meets_target(gap, ratio)
    print(f"{search}: target met in {met} of {len(gaps)} seeds; ASHA - random median "
          f"{statistics.median(gaps):+.2f} points (worst {min(gaps):+.2f}); trial-epochs "
          f"median {statistics.median(ratios):.2f} (most {max(ratios):.2f}) of random's")
PY
}

if [[ -z ${SKIP_FMNIST:-} ]]; then
  echo "# Fashion-MNIST: $trials trials of up to $epochs epochs, --limit-train $limit," \
    "parallelism $par_fmnist, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%5s %-8s %10s %13s %9s\n' seed search best_acc trial_epochs seconds
  searches=(random)
  for eta in $etas; do searches+=("asha/$eta"); done
  for seed in $seeds; do
    for search in "${searches[@]}"; do
      if [[ $search == random ]]; then
        search_yaml="{algorithm: random, seed: $seed}" epochs_arg=$epochs
      else
        search_yaml="{algorithm: asha, resource: epoch, min: 1, max: $epochs,"
        search_yaml+=" reductionFactor: ${search#asha/}, seed: $seed}"
        epochs_arg='${resource}'
      fi
      sweep_yaml "bench-${search/\//-}" "$search_yaml" "$epochs_arg" >"$tmp/sweep.yaml"
      start=$(date +%s.%N)
      id=$("$bin/dlp" sweep submit -q --follow "$tmp/sweep.yaml" | head -1)
      end=$(date +%s.%N)
      read -r best spent < <(summary "$id")
      if [[ $search == random && -n ${CURVES:-} ]]; then curves "$id" >"${CURVES//\{seed\}/$seed}"; fi
      echo "$seed $search $best $spent" >>"$tmp/results"
      printf '%5s %-8s %10s %13s %9.0f\n' "$seed" "$search" "$best" "$spent" \
        "$(echo "$end - $start" | bc)"
    done
  done
  target "$tmp/results"
fi

if [[ -z ${SKIP_RATE:-} ]]; then
  cat >"$tmp/true.yaml" <<YAML
apiVersion: dlp/v1
kind: Sweep
metadata: {name: bench-true}
spec:
  objective: {metric: score, goal: maximize}
  search: {algorithm: random, seed: 1}
  maxTrials: $random_trials
  parallelism: $parallel
  parameters:
    x: {type: float, min: 0, max: 1}
  template:
    workdir: /
    replicas:
      worker: {command: ["true"], resources: {cpu: 100m}}
YAML
  echo "# $random_trials-trial random sweep of \`true\` jobs, parallelism $parallel"
  start=$(date +%s.%N)
  id=$("$bin/dlp" sweep submit -q "$tmp/true.yaml")
  while :; do
    state=$("$bin/dlp" sweep status "$id" -o json |
      python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["state"], len(s["trials"]))')
    [[ ${state%% *} != Running ]] && break
    sleep 1
  done
  end=$(date +%s.%N)
  seconds=$(echo "$end - $start" | bc)
  printf '%8s %9s %14s\n' trials seconds trials/s
  printf '%8s %9.1f %14.1f\n' "$random_trials" "$seconds" "$(echo "$random_trials / $seconds" | bc -l)"
fi

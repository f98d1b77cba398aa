#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU (CUDA under /usr/local/cuda,
# NCCL beside it). Builds with CUDA, runs the gpu-labelled tests, prints a GPU
# allreduce busbw table and the host allreduce table on this machine's cores.
# Time-boxed: the whole script stops after BUDGET seconds (default 280).
#
#   bench/gpu-check.sh [BUILD_DIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-gpu}
budget=${BUDGET:-280}
start=$SECONDS
left() { echo $((budget - (SECONDS - start))); }
step() { echo; echo "=== $* ($(($SECONDS - start)) s)"; }
status=0

step "GPU"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || status=1

step "configure and build (CUDA on)"
jobs=$(nproc)
# CUDA 17 dialect: CMake 3.25 does not know nvcc 13's C++20 flags.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDLP_WITH_CUDA=ON -DCMAKE_CUDA_STANDARD=17 >"$build.cmake.log" 2>&1 \
  || { tail -20 "$build.cmake.log"; exit 1; }
grep -E "dlp: CUDA" "$build.cmake.log"
targets="dlp_runtime runtime_gpu_comm_gpu_test gpu_allreduce_bench dlp_allreduce_bench memcpy_bench"
timeout "$(left)" ninja -C "$build" -j"$jobs" $targets >"$build.build.log" 2>&1 \
  || { tail -30 "$build.build.log"; exit 1; }

step "gpu-labelled tests"
(cd "$build" && timeout "$(left)" "$build/bin/runtime_gpu_comm_gpu_test") || status=1

step "GPU allreduce busbw (float32): 1 rank = NCCL, 2 and 4 ranks sharing the GPU = host staging"
for n in 1 2 4; do
  timeout "$(left)" "$build/bin/gpu_allreduce_bench" --ranks "$n" --max-bytes $((256 << 20)) \
    | awk '{ printf "%-16s ranks %d %10.1f MiB %12.1f us algbw %8.2f busbw %8.2f GB/s #wrong %s\n",
             $2, $3, $4 / 1048576, $5, $6, $7, $8 }' || status=1
done

step "host allreduce on this machine's cores (dlp only, 2 and 4 ranks)"
for n in 2 4; do
  timeout "$(left)" "$build/bin/dlp_allreduce_bench" --ranks "$n" --max-bytes $((64 << 20)) \
    | awk '{ printf "%-6s ranks %d %10.1f MiB %12.1f us busbw %8.2f GB/s #wrong %s\n",
             $2, $3, $4 / 1048576, $5, $7, $8 }' || status=1
done
timeout "$(left)" "$build/bin/memcpy_bench" --max-bytes $((64 << 20)) \
  | awk '{ printf "memcpy %10.1f MiB %8.2f GB/s\n", $4 / 1048576, $6 }'

# ---- trainer (fmnist-train on the GPU against the CPU run) -----------------
# One epoch per row (CNN rows on a 10k-sample subset, to stay in the budget);
# the GPU MLP must reach 0.80 test accuracy after its epoch.
step "fmnist-train: GPU (cuBLAS + CUDA kernels) against the CPU"
timeout "$(left)" ninja -C "$build" -j"$jobs" fmnist-train dlp-run >>"$build.build.log" 2>&1 \
  || { tail -30 "$build.build.log"; status=1; }
if [[ -x "$build/bin/fmnist-train" ]]; then
  printf '%-6s %-5s %6s %8s %12s %9s\n' device model ranks seconds samples/s accuracy
  fmnist_row() {  # device model ranks flags...
    local device=$1 model=$2 ranks=$3; shift 3
    local cmd=("$build/bin/fmnist-train" --device "$device" --model "$model" --epochs 1 "$@")
    [[ $ranks -gt 1 ]] && cmd=("$build/bin/dlp-run" -np "$ranks" -- "${cmd[@]}")
    timeout "$(left)" "${cmd[@]}" 2>/dev/null | sed 's/^\[0\] //' | grep '^{' | tail -1 |
      python3 -c 'import json, sys
r = json.load(sys.stdin); d, m, n = sys.argv[1:4]
print("%-6s %-5s %6s %8.1f %12.0f %9.4f" % (d, m, n, r["seconds"], r["samples_per_second"], r["test_accuracy"]))
sys.exit(0 if m != "mlp" or d != "cuda" or r["test_accuracy"] >= 0.80 else 1)' "$device" "$model" "$ranks"
  }
  fmnist_row cuda mlp 1 || status=1
  fmnist_row cpu mlp 1 || status=1
  fmnist_row cuda mlp 2 || status=1
  fmnist_row cuda cnn 1 --limit-train 10000 || status=1
  fmnist_row cpu cnn 1 --limit-train 10000 || status=1
fi
# ---- end of the trainer section ---------------------------------------------

step "done"
exit $status

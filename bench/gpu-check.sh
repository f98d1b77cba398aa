#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU: runs the gpu-labelled
# collectives tests, prints a GPU allreduce busbw table (NCCL for one rank,
# host staging for ranks sharing the GPU), the host allreduce table on the
# machine's cores, fmnist-train on the GPU against the CPU, and dlpd's GPU
# sharing: its NVML inventory, and two `gpu: 0.5` jobs that must run at once
# on one device. The whole check stops after BUDGET seconds (default 280).
# CHECKS=sharing runs only the last (after the build): what a short lease needs.
#
#   bench/gpu-check.sh [BUILD_DIR]   build with CUDA here (the toolkit of
#                                    scripts/deps/install-cuda.sh, else
#                                    /usr/local/cuda; CUDA_HOME to choose), then check
#   bench/gpu-check.sh --pack DIR    build here, then copy the binaries, the
#                                    shared libraries they need beyond glibc,
#                                    libstdc++ and the driver, the CUDA runtime
#                                    (NCCL and cuBLAS too with PACK_CUDA_LIBS=1:
#                                    ~800 MB; else the GPU machine's own are
#                                    used) and the Fashion-MNIST files into DIR
#   bench/gpu-check.sh --packed DIR  check with DIR, on a GPU machine that has
#                                    the CUDA libraries but not the build
#                                    dependencies
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
budget=${BUDGET:-280}
start=$SECONDS
left() { echo $((budget - (SECONDS - start))); }
step() { echo; echo "=== $* ($((SECONDS - start)) s)"; }
. "$root/scripts/deps/dir.sh"
if [[ -z ${CUDA_HOME:-} ]]; then
  CUDA_HOME=/usr/local/cuda
  [[ -x $dlp_deps_dir/cuda/bin/nvcc ]] && CUDA_HOME=$dlp_deps_dir/cuda
fi
status=0
binaries=(runtime_comm_comm_gpu_test gpu_allreduce_bench dlp_allreduce_bench memcpy_bench bare_exchange_bench fmnist-train dlp-run dlp dlpd)
optional=(gloo_allreduce_bench)  # built where CMake found Gloo
data=/usr/share/datasets/fashion-mnist

build_with_cuda() {  # build_dir
  local build=$1
  mkdir -p "$build"
  step "configure and build (CUDA on)"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDLP_WITH_CUDA=ON -DDLP_CUDA_ROOT="$CUDA_HOME" >"$build/gpu-check.cmake.log" 2>&1 \
    || { tail -20 "$build/gpu-check.cmake.log"; exit 1; }
  grep -E "dlp: CUDA" "$build/gpu-check.cmake.log"
  # grep reads to the end: with -q it could leave ninja to a SIGPIPE, failing the pipeline.
  for t in "${optional[@]}"; do
    if ninja -C "$build" -t targets all 2>/dev/null | grep "^$t:" >/dev/null; then binaries+=("$t"); fi
  done
  local targets=()
  for b in "${binaries[@]}"; do targets+=("$([[ $b == dlp ]] && echo dlp_cli || echo "$b")"); done
  # Packing is a build alone: the check's budget does not bound it (timeout 0: none).
  timeout "$([[ $mode == pack ]] && echo 0 || left)" \
    ninja -C "$build" -j"$(nproc)" "${targets[@]}" >"$build/gpu-check.build.log" 2>&1 \
    || { tail -30 "$build/gpu-check.build.log"; exit 1; }
}

# Copies what the check runs into a folder that travels to a GPU machine
# without compilers or -dev packages (same architecture, glibc at least ours).
pack() {  # build_dir pack_dir
  local build=$1 out=$2
  rm -rf "$out" && mkdir -p "$out/bin" "$out/lib" "$out/data"
  for b in "${binaries[@]}"; do strip -o "$out/bin/$b" "$build/bin/$b"; done
  # Libraries from the distribution, except the ones every Linux has and the
  # CUDA ones, which must match the GPU machine's driver.
  ldd "${binaries[@]/#/$build/bin/}" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
    grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libstdc\+\+|libgcc_s)\.so' |
    grep -vE '/(libcuda|libcudart|libnccl|libcublas|libcublasLt)\.so' |
    while read -r lib; do cp -L "$lib" "$out/lib/"; done
  # The toolkit's runtime is small and must match the build; NCCL and cuBLAS are
  # large, and a GPU machine usually has its own.
  local cuda_libs=(libcudart.so.*)
  [[ ${PACK_CUDA_LIBS:-0} == 1 ]] && cuda_libs+=(libnccl.so.* libcublas.so.* libcublasLt.so.*)
  for pattern in "${cuda_libs[@]}"; do
    for lib in "$CUDA_HOME"/lib64/$pattern; do [[ -e $lib ]] && cp -L "$lib" "$out/lib/"; done
  done
  cp "$data"/*.gz "$out/data/"
  # fmnist-train opens cuBLAS itself (trainer/nn/cuda_blas.h), so ldd does not list it.
  sed -n 's/^#define CUBLAS_VER_MAJOR \([0-9]*\).*/libcublas.so.\1/p' \
    "$CUDA_HOME/include/cublas_api.h" >"$out/opened-at-run-time"
  du -sh "$out"
}

# Points the loader at the CUDA libraries a packed binary still misses:
# the toolkit's folder, else a Python wheel's copy (nvidia-nccl, nvidia-cublas).
find_cuda_libraries() {  # pack_dir
  local missing lib found
  export LD_LIBRARY_PATH="$1/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  missing=$({ ldd "$1"/bin/* 2>/dev/null | awk '/not found/ { print $1 }'
    cat "$1/opened-at-run-time" 2>/dev/null; } | sort -u)
  for lib in $missing; do
    found=$(find /usr/local /opt /usr/lib -name "$lib" -not -path '*/stubs/*' 2>/dev/null | head -1)
    if [[ -n $found ]]; then
      LD_LIBRARY_PATH="$(dirname "$found"):$LD_LIBRARY_PATH"
      echo "$lib: $found"
    else
      echo "$lib: not found on this machine"
    fi
  done
}

mode=build
case ${1:-} in
  --pack) mode=pack; dir=${2:?--pack DIR} ;;
  --packed) mode=packed; dir=$(cd "${2:?--packed DIR}" && pwd) ;;
  -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) dir=${1:-$root/build-gpu} ;;
esac

if [[ $mode == pack ]]; then
  build_with_cuda "$root/build-gpu"
  pack "$root/build-gpu" "$dir"
  exit 0
fi

step "GPU"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || status=1
if [[ $mode == packed ]]; then
  bin=$dir/bin
  data=$dir/data
  find_cuda_libraries "$dir"
else
  build_with_cuda "$dir"
  bin=$dir/bin
fi

# GET PATH from the dlpd of $XDG_STATE_HOME/dlp (python3: curl may be missing).
dlpd_get() {
  python3 - "$XDG_STATE_HOME/dlp" "$1" <<'PY'
import json, sys, urllib.request
state, path = sys.argv[1:3]
addr = open(state + "/dlpd.addr").read().strip()
token = open(state + "/dlpd.token").read().strip()
req = urllib.request.Request("http://" + addr + path, headers={"Authorization": "Bearer " + token})
print(json.dumps(json.load(urllib.request.urlopen(req, timeout=10)), indent=1))
PY
}

# dlpd with NVML's inventory: two `gpu: 0.5` jobs must run at the same time
# with the same CUDA_VISIBLE_DEVICES, each seeing exactly one device from CUDA.
sharing_jobs() {  # box
  local box=$1 rc=0 name id deadline log visible=()
  local -A ids
  "$bin/dlp" server start >/dev/null || return 1
  echo "inventory (GET /v1/gpus):"
  dlpd_get /v1/gpus || return 1
  [[ $(dlpd_get /v1/gpus | grep -c '"id"') -ge 1 ]] || { echo "FAIL: no GPU in dlpd's inventory"; return 1; }
  for name in half-a half-b; do
    cat >"$box/$name.yaml" <<EOF
apiVersion: dlp/v1
kind: Job
metadata: {name: $name}
spec:
  replicas:
    worker:
      command:
        - /bin/sh
        - -c
        - |
          echo "visible=[\$CUDA_VISIBLE_DEVICES]"
          nvidia-smi -L
          python3 -c 'import ctypes; c = ctypes.CDLL("libcuda.so.1"); n = ctypes.c_int(); b = ctypes.create_string_buffer(96); d = ctypes.c_int(); ok = c.cuInit(0) == 0 and c.cuDeviceGetCount(ctypes.byref(n)) == 0 and c.cuDeviceGet(ctypes.byref(d), 0) == 0 and c.cuDeviceGetName(b, 96, d) == 0; print("cuda devices=%d name=%s" % (n.value, b.value.decode()) if ok else "cuda: no device")'
          touch $box/started-$name
          while [ ! -e $box/go ]; do sleep 0.1; done
      resources: {cpu: 100m, gpu: 0.5}
EOF
    ids[$name]=$("$bin/dlp" submit -q "$box/$name.yaml") || return 1
  done
  deadline=$((SECONDS + 60))
  while [[ ! -e $box/started-half-a || ! -e $box/started-half-b ]] && ((SECONDS < deadline)); do
    sleep 0.2
  done
  for name in half-a half-b; do
    id=${ids[$name]}
    log=$XDG_STATE_HOME/dlp/jobs/$id/logs/worker-0.log
    echo "--- job $id ($name): its log"
    cat "$log" 2>/dev/null
    visible+=("$(grep -o 'visible=\[[^]]*\]' "$log" 2>/dev/null)")
    grep -q 'cuda devices=1 ' "$log" 2>/dev/null \
      || { echo "FAIL: job $id did not see exactly one device from CUDA"; rc=1; }
  done
  "$bin/dlp" describe "${ids[half-a]}" | sed -n '/^GPU sharing/p;/^Replicas/,/^$/p'
  if [[ ! -e $box/started-half-a || ! -e $box/started-half-b ]]; then
    echo "FAIL: the two gpu: 0.5 jobs did not run at the same time within 60 s"
    "$bin/dlp" list
    rc=1
  elif [[ -z ${visible[0]} || ${visible[0]} == "visible=[]" || ${visible[0]} != "${visible[1]}" ]]; then
    echo "FAIL: not on one device: ${visible[0]:-none} and ${visible[1]:-none}"
    rc=1
  else
    echo "OK: both ran at once with ${visible[0]}"
  fi
  touch "$box/go"
  "$bin/dlp" wait --timeout 60s "${ids[half-a]}" "${ids[half-b]}" >/dev/null \
    || { echo "FAIL: the jobs did not succeed"; rc=1; }
  return $rc
}

sharing_check() {
  step "dlpd: NVML inventory, and two gpu: 0.5 jobs sharing one device"
  local box rc=0
  box=$(mktemp -d)
  # Its own dlpd and state folder; the variables end with the function.
  local -x XDG_STATE_HOME=$box/state XDG_CONFIG_HOME=$box/config XDG_RUNTIME_DIR=$box/run
  local -x DLP_CONFIG=$box/no-config.yaml NO_COLOR=1 DLP_CONTEXT=
  sharing_jobs "$box" || rc=1
  "$bin/dlp" server stop >/dev/null 2>&1
  rm -rf "$box"
  return $rc
}

if [[ ${CHECKS:-all} == sharing ]]; then
  sharing_check || status=1
  step "done (exit $status)"
  exit $status
fi

step "gpu-labelled tests"
timeout "$(left)" "$bin/runtime_comm_comm_gpu_test" || status=1

step "GPU allreduce busbw (float32): 1 rank = NCCL, 2 and 4 ranks sharing the GPU = host staging"
for n in 1 2 4; do
  timeout "$(left)" "$bin/gpu_allreduce_bench" --ranks "$n" --max-bytes $((256 << 20)) \
    | awk '$1 == "ROW" { printf "%-16s ranks %d %10.1f MiB %12.1f us algbw %8.2f busbw %8.2f GB/s #wrong %s\n",
             $2, $3, $4 / 1048576, $5, $6, $7, $8 }' || status=1
done

step "host allreduce on this machine's cores: dlp against Gloo where packed"
BIN=$bin RANKS="2 4 8" MAX_BYTES=$((64 << 20)) timeout "$(left)" "$root/bench/allreduce/run.sh" || status=1

# One epoch per row (CNN rows on a 10k-sample subset, to stay in the budget);
# the GPU MLP must reach 0.80 test accuracy after its epoch.
step "fmnist-train: GPU (cuBLAS + CUDA kernels) against the CPU"
printf '%-6s %-5s %6s %8s %12s %9s\n' device model ranks seconds samples/s accuracy
fmnist_row() {  # device model ranks flags...
  local device=$1 model=$2 ranks=$3; shift 3
  local cmd=("$bin/fmnist-train" --data "$data" --device "$device" --model "$model" --epochs 1 "$@")
  [[ $ranks -gt 1 ]] && cmd=("$bin/dlp-run" -np "$ranks" -- "${cmd[@]}")
  local log json
  log=$(mktemp)
  json=$(timeout "$(left)" "${cmd[@]}" 2>"$log" | sed 's/^\[0\] //' | grep '^{' | tail -1)
  if [[ -z $json ]]; then
    printf '%-6s %-5s %6s failed: %s\n' "$device" "$model" "$ranks" "$(grep -v '^$' "$log" | tail -1)"
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
  python3 -c 'import json, sys
r = json.loads(sys.argv[4]); d, m, n = sys.argv[1:4]
print("%-6s %-5s %6s %8.1f %12.0f %9.4f" % (d, m, n, r["seconds"], r["samples_per_second"], r["test_accuracy"]))
sys.exit(0 if m != "mlp" or d != "cuda" or r["test_accuracy"] >= 0.80 else 1)' "$device" "$model" "$ranks" "$json"
}
fmnist_row cuda mlp 1 || status=1
fmnist_row cpu mlp 1 || status=1
fmnist_row cuda mlp 2 || status=1
fmnist_row cuda cnn 1 --limit-train 10000 || status=1
fmnist_row cpu cnn 1 --limit-train 10000 || status=1

# dlpd schedules a gpu: 1 job onto the GPU and samples its use through NVML.
step "dlpd: a gpu: 1 job, its GPU use sampled through NVML (dlp top)"
sandbox=$(mktemp -d)
export XDG_STATE_HOME=$sandbox/state XDG_CONFIG_HOME=$sandbox/config XDG_RUNTIME_DIR=$sandbox/run
cat >"$sandbox/job.yaml" <<EOF
apiVersion: dlp/v1
kind: Job
metadata: {name: gpu-sampling}
spec:
  framework: none
  replicas:
    worker:
      count: 1
      command: ["$bin/fmnist-train", "--device", "cuda", "--epochs", "100", "--data", "$data"]
      resources: {cpu: 1, memory: 2Gi, gpu: 1}
  restartPolicy: {policy: Never}
EOF
if job=$("$bin/dlp" submit -q "$sandbox/job.yaml"); then
  row=""
  for _ in $(seq 1 60); do  # up to 30 s: dlpd samples every 2 s
    # Columns: JOB NAME REPLICA PID CPU% MEM(2) GPU% GPU-MEM(2) STEP RATE.
    row=$("$bin/dlp" top --once 2>/dev/null | awk -v j="$job" '$1 == j && $8 ~ /^[0-9]+$/ && $9 + 0 > 0')
    [[ -n $row ]] && break
    sleep 0.5
  done
  "$bin/dlp" top --once | grep "^JOB"
  if [[ -n $row ]]; then echo "$row"; else echo "no GPU sample for job $job"; status=1; fi
  "$bin/dlp" describe "$job" 2>/dev/null | grep -iE "gpu|CUDA_VISIBLE" | head -3
  "$bin/dlp" cancel "$job" >/dev/null
else
  status=1
fi
"$bin/dlp" server stop >/dev/null 2>&1
rm -rf "$sandbox"
unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_RUNTIME_DIR

sharing_check || status=1

step "done (exit $status)"
exit $status

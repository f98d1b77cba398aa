#!/usr/bin/env bash
# Installs the CUDA toolkit from NVIDIA's wheels (cuda.txt) and lays it out as a
# toolkit folder, $dlp_deps_dir/cuda (bin/nvcc, include/, lib64/), that CMake is
# pointed at (DLP_CUDA_ROOT). Idempotent: a toolkit made from the same pins is kept.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/dir.sh"
pins=$here/cuda.txt
toolkit=$dlp_deps_dir/cuda
if [ -x "$toolkit/bin/nvcc" ] && dlp_deps_current "$toolkit" "$pins"; then exit 0; fi

venv=$dlp_deps_dir/cuda-wheels
echo "install-cuda: installing the CUDA wheels into $venv" >&2
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-warn-script-location -r "$pins"
wheels=$("$venv/bin/python" -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))')/nvidia

# nvcc finds its headers and libraries from its own real path (nvcc.profile:
# $(TOP)/include, $(TOP)/lib64), so the toolkit is a copy, hard-linked where the
# file system allows, not a tree of symbolic links.
staging=$toolkit.new
rm -rf "$staging"
copy() { cp -al "$@" 2>/dev/null || cp -a "$@"; }
copy "$wheels/cu13" "$staging"
copy "$wheels/nccl/include/." "$staging/include/"
copy "$wheels/nccl/lib/libnccl.so.2" "$staging/lib/"
# The linker's names for the versioned libraries the wheels ship.
for versioned in "$staging"/lib/lib*.so.*; do
  ln -sfn "$(basename "$versioned")" "${versioned%%.so.*}.so"
done
ln -sfn lib "$staging/lib64"
dlp_deps_stamp "$pins" >"$staging/.pins"
rm -rf "$toolkit" && mv "$staging" "$toolkit"
echo "install-cuda: CUDA toolkit in $toolkit ($("$toolkit/bin/nvcc" --version | tail -2 | head -1))" >&2

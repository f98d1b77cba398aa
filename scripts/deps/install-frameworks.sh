#!/usr/bin/env bash
# Installs the Python frameworks of the examples (frameworks.txt: TensorFlow,
# JAX, PyTorch 2) into a virtual environment the project owns,
# $dlp_deps_dir/frameworks, whose python the `frameworks` tests run. Idempotent:
# an environment made from the same pins is kept (a second run takes no time).
# Prints the environment's folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/dir.sh"
pins=$here/frameworks.txt
venv=$dlp_deps_dir/frameworks
if [ -x "$venv/bin/python" ] && dlp_deps_current "$venv" "$pins"; then
  echo "$venv"
  exit 0
fi

echo "install-frameworks: installing TensorFlow, JAX and PyTorch into $venv" >&2
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
# --no-cache-dir: the environment is the cache; a second copy of 2 GB of wheels
# in pip's cache would only fill the disk.
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-warn-script-location \
  --no-cache-dir --no-deps -r "$pins"
# Written last: an interrupted install is redone on the next run.
dlp_deps_stamp "$pins" >"$venv/.pins"
echo "install-frameworks: $(du -sh "$venv" | cut -f1) in $venv" >&2
echo "$venv"

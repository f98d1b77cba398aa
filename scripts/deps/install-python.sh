#!/usr/bin/env bash
# Installs the Python packages of python.txt into the project's virtual
# environment $dlp_deps_dir/python-package (Debian's /usr/bin/python3, never
# the system's site-packages), which CMake's DLP_PYTHON_VENV points at.
# Idempotent: a venv made from the same pins is kept.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/dir.sh"
pins=$here/python.txt
venv=$dlp_deps_dir/python-package
if [ -x "$venv/bin/pytest" ] && dlp_deps_current "$venv" "$pins"; then exit 0; fi
echo "install-python: installing python.txt into $venv" >&2
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-warn-script-location -r "$pins"
dlp_deps_stamp "$pins" >"$venv/.pins"

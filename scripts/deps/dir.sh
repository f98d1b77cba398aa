# Sourced: where the dependencies that do not come from Debian live (the CUDA
# toolkit, Python virtual environments, Go binaries). Outside the clone, so that
# every clone and CI run on a machine shares them; DLP_DEPS_DIR to move it.
# Root's lives outside /root: programs linked against the CUDA libraries there
# run as tenants' accounts too (a shared dlpd's jobs), which cannot enter /root.
if [ "$(id -u)" -eq 0 ]; then
  dlp_deps_dir=${DLP_DEPS_DIR:-/var/cache/dlp-deps}
else
  dlp_deps_dir=${DLP_DEPS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dlp-deps}
fi
# A folder made from a pins file carries the pins' digest in FOLDER/.pins:
# `dlp_deps_current FOLDER PINS` is true while they are unchanged, and
# `dlp_deps_stamp PINS` is what to write there once the folder is complete.
dlp_deps_stamp() { sha256sum "$1" | cut -c1-16; }
dlp_deps_current() { [ "$(cat "$1/.pins" 2>/dev/null)" = "$(dlp_deps_stamp "$2")" ]; }

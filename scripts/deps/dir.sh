# Sourced: where the dependencies that do not come from Debian live (the CUDA
# toolkit, Python virtual environments, Go binaries). Outside the clone, so that
# every clone and CI run on a machine shares them; DLP_DEPS_DIR to move it.
dlp_deps_dir=${DLP_DEPS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dlp-deps}

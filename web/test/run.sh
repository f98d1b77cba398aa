#!/usr/bin/env bash
# ctest's entry to the web tests: `run.sh unit` (the pure modules under Node),
# `run.sh browser BUILD_DIR` (the pages in headless Chromium against the
# build's dlpd), `run.sh tracking BUILD_DIR` (sweeps, runs, pipelines and
# models in the same way) or `run.sh conformance BUILD_DIR` (dlpd's answers
# against schema/api.schema.json). Exits 77, which ctest reports as skipped, when what they need
# is missing.
set -euo pipefail
web="$(cd "$(dirname "$0")/.." && pwd)"
skip() { echo "SKIP: $*" >&2; exit 77; }
command -v node >/dev/null || skip "node is not installed (scripts/install-deps.sh)"
[ -d "$web/node_modules/esbuild" ] || skip "no $web/node_modules: run npm ci in web/"
case "${1:-}" in
  unit)
    cd "$web"
    exec node --test test/unit/*.test.mjs
    ;;
  browser | tracking)
    build="${2:?usage: run.sh browser|tracking BUILD_DIR}"
    chromium="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
    [ -n "$chromium" ] || skip "chromium is not installed (scripts/install-deps.sh)"
    [ -d "$web/node_modules/puppeteer-core" ] || skip "puppeteer-core is missing: run npm ci in web/"
    [ -x "$build/bin/dlpd" ] || skip "no $build/bin/dlpd"
    script=$([ "$1" = tracking ] && echo tracking_browser.mjs || echo browser.mjs)
    CHROMIUM="$chromium" exec node "$web/test/$script" "$build"
    ;;
  conformance)
    build="${2:?usage: run.sh conformance BUILD_DIR}"
    [ -d "$web/node_modules/ajv" ] || skip "ajv is missing: run npm ci in web/"
    [ -x "$build/bin/dlpd" ] || skip "no $build/bin/dlpd"
    exec node "$web/test/api_conformance.mjs" "$build"
    ;;
  *)
    echo "usage: run.sh unit | browser BUILD_DIR | tracking BUILD_DIR | conformance BUILD_DIR" >&2
    exit 2
    ;;
esac

#!/usr/bin/env bash
# Builds the test cluster's components from the pinned Go modules of
# tests/k8s-cluster/ (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl, Kueue; JobSet and KWOK from modules of their own
# in jobset/ and kwok/, whose dependencies differ) and copies the CRDs and
# webhook manifests of JobSet and Kueue from their module zips beside them.
# Everything goes to
# $dlp_deps_dir/k8s-cluster/KEY, KEY a hash of the modules' go.mod and
# go.sum and of this script: a second run finds it and returns at once.
# Prints the folder. Go builds with -p 2 (the CI machine has two cores).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../deps/dir.sh
. "$root/scripts/deps/dir.sh"
module="$root/tests/k8s-cluster"
modules=("$module" "$module/jobset" "$module/kwok")
key=$(for m in "${modules[@]}"; do cat "$m/go.mod" "$m/go.sum"; done | cat - "$here/build.sh" |
  sha256sum | cut -c1-16)
out="$dlp_deps_dir/k8s-cluster/$key"
if [ -f "$out/complete" ]; then
  echo "$out"
  exit 0
fi
command -v go >/dev/null || { echo "kubernetes: go not installed (run scripts/install-deps.sh)" >&2; exit 1; }
mkdir -p "$dlp_deps_dir/k8s-cluster"
tmp=$(mktemp -d "$dlp_deps_dir/k8s-cluster/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
started=$SECONDS
echo "kubernetes: building the test cluster's components (cold: 800 CPU seconds, 8 to 25 minutes on two cores)" >&2
# The versions the binaries report (a module build has no git stamp): Kueue
# refuses to start when the API server's version does not parse.
ldflags_of() {
  local v
  case "$1" in
    "$module")
      v=$(cd "$module" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
      local major=${v#v} minor
      minor=${major#*.} major=${major%%.*} minor=${minor%%.*}
      local flags="" pkg
      for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
        flags+=" -X $pkg.gitVersion=$v -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
      done
      echo "$flags -X sigs.k8s.io/kueue/pkg/version.GitVersion=$(cd "$module" && go list -m -f '{{.Version}}' sigs.k8s.io/kueue)"
      ;;
    "$module/jobset")
      echo "-X sigs.k8s.io/jobset/pkg/version.GitVersion=$(cd "$1" && go list -m -f '{{.Version}}' sigs.k8s.io/jobset)"
      ;;
  esac
}
for dir in "${modules[@]}"; do
  (cd "$dir" && go mod download && \
    go build -p "${DLP_GO_BUILD_JOBS:-2}" -trimpath -ldflags="-s $(ldflags_of "$dir")" -o "$tmp/bin/" tool)
done
mv "$tmp/bin/server" "$tmp/bin/etcd"  # go.etcd.io/etcd/server/v3's main

# CRDs and webhook configurations, as the pinned releases ship them.
modcache=$(go env GOMODCACHE)
version_of() { (cd "$module" && go list -m -f '{{.Version}}' "$1"); }
jobset="$modcache/sigs.k8s.io/jobset@$(cd "$module/jobset" && go list -m -f '{{.Version}}' sigs.k8s.io/jobset)"
kueue="$modcache/sigs.k8s.io/kueue@$(version_of sigs.k8s.io/kueue)"
mkdir -p "$tmp/jobset" "$tmp/kueue"
cp "$jobset"/config/components/crd/bases/*.yaml "$tmp/jobset/"
cp -r "$jobset/config/components/webhook" "$tmp/jobset/webhook"
cp "$kueue"/config/components/crd/bases/*.yaml "$tmp/kueue/"
cp -r "$kueue/config/components/webhook" "$tmp/kueue/webhook"
# Which CRDs Kueue converts between versions (its kustomization names them).
cp "$kueue/config/components/crd/kustomization.yaml" "$tmp/kueue/crd-kustomization.yaml"
chmod -R u+w "$tmp"
{
  (cd "$module" && go list -m -f '{{.Path}} {{.Version}}' k8s.io/kubernetes go.etcd.io/etcd/server/v3 \
    sigs.k8s.io/kueue)
  (cd "$module/jobset" && go list -m -f '{{.Path}} {{.Version}}' sigs.k8s.io/jobset)
  (cd "$module/kwok" && go list -m -f '{{.Path}} {{.Version}}' sigs.k8s.io/kwok)
} > "$tmp/versions"
echo "$((SECONDS - started))" > "$tmp/build-seconds"
touch "$tmp/complete"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "kubernetes: built in $((SECONDS - started)) s ($(du -sh "$out" | cut -f1))" >&2
echo "$out"

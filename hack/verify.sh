#!/usr/bin/env bash
# verify.sh fails when a Go file is not gofmt-clean or lacks the licence
# header, or when the generated
# files (CRDs, RBAC role, deepcopy, their copies in the Helm chart, monitoring, docs/api.md) differ
# from what `make manifests generate monitoring api-docs` writes now. It regenerates in place, so after a failure the fresh files are
# in the work tree, ready to be reviewed and committed.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Go files of the work tree, tracked or new, that still exist.
gofiles=$(git ls-files --cached --others --exclude-standard '*.go' | while read -r f; do [ -f "$f" ] && echo "$f"; done)
unformatted=$(echo "$gofiles" | xargs -r gofmt -l)
if [ -n "$unformatted" ]; then
  echo "gofmt would change these files (run 'make fmt'):" >&2
  echo "$unformatted" >&2
  exit 1
fi

# Every Go file carries the licence header of hack/boilerplate.go.txt.
unlicensed=$(echo "$gofiles" | xargs -r grep -L 'Licensed under the Apache License, Version 2.0' || true)
if [ -n "$unlicensed" ]; then
  echo "these Go files lack the licence header of hack/boilerplate.go.txt:" >&2
  echo "$unlicensed" >&2
  exit 1
fi

# Every module's go.mod and go.sum must be tidy (the tools and test suites
# are modules of their own, so that their dependencies stay out of the root
# module): test/chart, test/monitoring and hack/apidocs replace the main
# module, so a dependency change here changes what they need too.
for m in . test/chart test/monitoring hack/apidocs hack/release; do
  if ! (cd "$m" && go mod tidy -diff >/dev/null); then
    echo "go.mod/go.sum of $m are not tidy: run 'go mod tidy' in $m" >&2
    exit 1
  fi
done

generated=(config/crd/bases config/rbac/role.yaml api/v1alpha1/zz_generated.deepcopy.go charts/listkeeper/files/crds charts/listkeeper/files/manager-role.yaml
  config/prometheus config/grafana charts/listkeeper/files/rules.yaml charts/listkeeper/files/dashboard.json
  docs/api.md)
snap=$(mktemp -d)
trap 'rm -rf "$snap"' EXIT
for p in "${generated[@]}"; do
  if [ -e "$p" ]; then mkdir -p "$snap/$(dirname "$p")"; cp -r "$p" "$snap/$p"; fi
done

make --no-print-directory -s manifests generate monitoring api-docs >/dev/null

stale=0
for p in "${generated[@]}"; do
  if ! diff -ru "$snap/$p" "$p" >"$snap/diff.txt" 2>&1; then
    echo "generated file(s) under $p were stale; 'make manifests generate monitoring api-docs' has rewritten them:" >&2
    head -40 "$snap/diff.txt" >&2
    stale=1
  fi
done
if [ "$stale" -ne 0 ]; then
  echo "commit the regenerated files and run again." >&2
  exit 1
fi
echo "verify: gofmt clean, generated files up to date"

#!/usr/bin/env bash
# install.sh installs the Azurite that package-lock.json pins into
# node_modules beside it, for the object-store tests
# (internal/storetest/azurite). 'make azurite' runs it when node_modules is
# missing or older than package.json or the lock.
set -euo pipefail
cd "$(dirname "$0")"

# Azurite 3.35.0 and its locked dependencies need Node 20; 3.36 and later
# need a newer Node than the project's machines have, hence the pin.
need_major=20
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "hack/azurite: '$tool' is not on PATH; the Azurite tests need Node.js $need_major or newer with npm (Debian: apt-get install nodejs npm)" >&2
    exit 1
  fi
done
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt "$need_major" ]; then
  echo "hack/azurite: node $(node --version) is too old; Azurite 3.35.0 needs Node.js $need_major or newer" >&2
  exit 1
fi

# No package has install scripts; --ignore-scripts keeps it that way.
if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund --ignore-scripts
else
  npm install --no-audit --no-fund --ignore-scripts
fi

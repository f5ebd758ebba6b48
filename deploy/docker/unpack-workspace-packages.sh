#!/bin/sh
# Usage: unpack-workspace-packages.sh <folder written by `pnpm deploy`>
#
# Sheetgate's workspace packages (@sheetgate/proto, @sheetgate/service-runtime) ship TypeScript that
# Node 24 runs by stripping types, but Node refuses to strip types under node_modules
# (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING), and `pnpm deploy` puts them in
# node_modules/.pnpm. This moves each one out to <folder>/workspace/<name>, leaves a relative
# symlink where pnpm put it (so every importer still finds it), and gives it a node_modules link
# to the folder that holds its own dependencies. Node resolves imports to real paths, so the
# package's files then load from outside node_modules and run like the service's own.
set -eu
out=${1:?usage: unpack-workspace-packages.sh <pnpm deploy output folder>}
mkdir -p "$out/workspace"
for entry in "$out"/node_modules/.pnpm/@sheetgate+*; do
  [ -d "$entry" ] || continue
  entry_name=$(basename "$entry")
  for package in "$entry"/node_modules/@sheetgate/*; do
    # Links here point at other workspace packages; the real folder is this entry's own package.
    if [ -L "$package" ] || [ ! -d "$package" ]; then continue; fi
    name=$(basename "$package")
    if [ -e "$out/workspace/$name" ]; then
      echo "unpack-workspace-packages: two copies of @sheetgate/$name in $out" >&2
      exit 1
    fi
    mv "$package" "$out/workspace/$name"
    # pnpm may leave a node_modules/.bin here; the dependencies live in the entry's node_modules.
    rm -rf "$out/workspace/$name/node_modules"
    ln -s "../../../../../workspace/$name" "$package"
    ln -s "../../node_modules/.pnpm/$entry_name/node_modules" "$out/workspace/$name/node_modules"
  done
done

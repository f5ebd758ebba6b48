#!/usr/bin/env bash
# Makes .tools/python-mcp/, a Python virtual environment holding the `mcp` SDK from PyPI at the
# versions test-e2e/clients/requirements.txt pins, for the tests that drive Sheetgate with the
# Python MCP client. Does nothing when it is already current; safe to run from several processes
# at once (the test files that need it each run it). Prints the environment's python on stdout.
#   scripts/bootstrap-python-mcp.sh
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
requirements="$repo/test-e2e/clients/requirements.txt"
venv="$repo/.tools/python-mcp"
# The stamp holds the requirements the environment was built from: written last, so an
# environment left half-built by an interrupted run is rebuilt rather than used.
stamp="$venv/.requirements"

python="${PYTHON:-python3}"
if ! "$python" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  echo "bootstrap-python-mcp: needs Python >= 3.10 with venv and ensurepip as $python" \
    "(Debian/Ubuntu: apt-get install python3-venv)" >&2
  exit 1
fi

mkdir -p "$repo/.tools"
exec 9>"$repo/.tools/python-mcp.lock"
flock 9
if ! cmp -s "$requirements" "$stamp" 2>/dev/null; then
  echo "bootstrap-python-mcp: installing $(grep -E '^mcp==' "$requirements") into .tools/python-mcp" >&2
  rm -rf "$venv"
  "$python" -m venv "$venv"
  # One retry, not pip's five with back-off: where the index is unreachable and a local mirror is
  # configured (extra-index-url), five retries per package made the install take minutes.
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --retries 1 --timeout 15 --require-virtualenv -r "$requirements" >&2
  cp "$requirements" "$stamp"
fi
echo "$venv/bin/python"

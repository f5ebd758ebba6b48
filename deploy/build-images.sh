#!/bin/sh
# Builds the three Sheetgate images from the repository root:
#   deploy/build-images.sh                       # sheetgate/auth:dev, sheetgate/mcp:dev, sheetgate/web:dev
#   IMAGE_PREFIX=registry.example.com/sheetgate IMAGE_TAG=1.4.0 deploy/build-images.sh
#   CONTAINER_ENGINE=podman deploy/build-images.sh
# Exits 3, saying so, when no container engine answers (the deploy tests check what goes into
# the images without one: `pnpm test deploy`).
set -eu
cd "$(dirname "$0")/.."
engine=${CONTAINER_ENGINE:-docker}
prefix=${IMAGE_PREFIX:-sheetgate}
tag=${IMAGE_TAG:-dev}

if ! command -v "$engine" >/dev/null 2>&1; then
  echo "build-images: no '$engine' command on this machine; install Docker or set CONTAINER_ENGINE=podman" >&2
  exit 3
fi
if ! "$engine" info >/dev/null 2>&1; then
  echo "build-images: '$engine' is installed but no container engine answers ('$engine info' failed); start one, or build on a machine that has one" >&2
  exit 3
fi

for service in auth mcp web; do
  echo "build-images: $prefix/$service:$tag"
  # BuildKit is needed for the Dockerfile-specific .dockerignore and the pnpm store cache mount.
  DOCKER_BUILDKIT=1 "$engine" build \
    --file "deploy/docker/$service.Dockerfile" \
    --tag "$prefix/$service:$tag" \
    .
done
echo "build-images: built $prefix/auth:$tag $prefix/mcp:$tag $prefix/web:$tag"

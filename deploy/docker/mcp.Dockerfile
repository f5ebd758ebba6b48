# syntax=docker/dockerfile:1.7
# @sheetgate/mcp — The MCP resource server (HTTP 8082: /api/mcp and its protected-resource metadata).
#
# Build from the repository root (deploy/build-images.sh builds all three):
#   docker build -f deploy/docker/mcp.Dockerfile -t sheetgate/mcp .
# BuildKit reads mcp.Dockerfile.dockerignore beside this file instead of a root .dockerignore.
# Pin NODE_IMAGE by digest in your registry mirror (node:24-slim@sha256:…) for reproducible builds.
ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /repo
# pnpm at the version the root package.json pins (packageManager), through Node's corepack.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
ENV COREPACK_ENABLE_DOWNLOAD_PROMPT=0
RUN corepack enable && corepack install
# Dependencies first, so a source change does not download them again.
RUN --mount=type=cache,id=sheetgate-pnpm-store,target=/root/.local/share/pnpm/store \
    pnpm fetch
COPY . .
# --legacy: the workspace does not set inject-workspace-packages, which pnpm 10's default deploy
# requires. --prod leaves out dev dependencies (the Google emulator, the test harness, vitest).
# There is no build step: Node 24 runs the TypeScript by stripping types, which it refuses to do
# under node_modules, so the workspace packages are moved out of it (see the script).
RUN --mount=type=cache,id=sheetgate-pnpm-store,target=/root/.local/share/pnpm/store \
    pnpm install --offline --frozen-lockfile --filter @sheetgate/mcp... \
 && pnpm --filter @sheetgate/mcp deploy --legacy --prod --prefer-offline /out \
 && sh deploy/docker/unpack-workspace-packages.sh /out \
 && rm -rf /out/test /out/bench

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    MCP_HOST=0.0.0.0 \
    MCP_PORT=8082
WORKDIR /app
# Owned by root and not writable by the process: the code is read-only even where the root
# filesystem is not mounted read-only.
COPY --from=build /out /app
# 1000 is the `node` user of the official image; numeric so Kubernetes can check runAsNonRoot.
USER 1000:1000
# 8085: internal gRPC (MCP_GRPC_PORT), the dashboard's Undo, for web only; 9082: Prometheus
# /metrics (MCP_METRICS_PORT), for the scraper only.
EXPOSE 8082 8085 9082
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.MCP_PORT||8082)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "src/main.ts"]

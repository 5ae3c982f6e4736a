# syntax=docker/dockerfile:1
# Build stage: every dependency from the lockfile, then the compiled dist/ (tsc; no tsx at run time).
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY jobs ./jobs
COPY sql ./sql
RUN npm run build

# Production dependencies only, from the same lockfile.
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# Runtime: Node 22 LTS running dist/ as a non-root user.
FROM node:22-bookworm-slim
# tini is PID 1: it forwards SIGTERM/SIGINT to node and reaps children. Node as PID 1 would get no
# default signal actions, so a command without its own handler (snapshot, report) would ignore
# `docker stop` until the kill after the grace period.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
# Embedded PGlite is refused under NODE_ENV=production (one process at a time, a file inside the
# container): set DATABASE_URL, or PGLITE_IN_PRODUCTION=true for a single-process trial.
# The health and metrics port is served by default, on every interface of the container (the
# container's network is the boundary; publish it only where Prometheus can reach it).
# `docker stop` waits 10 s before SIGKILL: an 8 s shutdown leaves the process 2 s to exit. A run cut
# at 8 s stays resumable; for a longer grace raise both (docs/operations/docker.md).
ENV NODE_ENV=production \
    REPORT_DIR=/var/lib/payrecon/reports \
    PGLITE_DIR=/var/lib/payrecon/pglite \
    SCHEDULE_HTTP_PORT=9464 \
    SCHEDULE_HTTP_HOST=0.0.0.0 \
    SCHEDULE_SHUTDOWN_TIMEOUT_MS=8000
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY --from=build /app/dist ./dist
RUN mkdir -p /var/lib/payrecon && chown node:node /var/lib/payrecon
USER node
VOLUME ["/var/lib/payrecon"]
# `schedule --migrate` applies pending migrations first, under the migration advisory lock (several
# replicas starting at once queue on it; later ones find nothing pending), then schedules the jobs.
# On SIGTERM it stops taking runs, lets a running reconcile checkpoint, and exits 0.
STOPSIGNAL SIGTERM
EXPOSE 9464
# Healthy when /readyz answers 200 (database reachable and migrated, scheduler running). The slim
# image has no curl: Node's own fetch. The start period covers `--migrate` on a first start.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.SCHEDULE_HTTP_PORT + '/readyz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/src/main.js"]
CMD ["schedule", "--migrate"]

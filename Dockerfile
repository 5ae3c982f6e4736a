# syntax=docker/dockerfile:1
# Build stage: production dependencies only, from the lockfile.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# Runtime stage: sources run through tsx (a production dependency), as a non-root user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    REPORT_DIR=/var/lib/payrecon/reports \
    PGLITE_DIR=/var/lib/payrecon/pglite
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY jobs ./jobs
COPY src ./src
COPY sql ./sql
RUN mkdir -p /var/lib/payrecon && chown node:node /var/lib/payrecon
USER node
VOLUME ["/var/lib/payrecon"]
# `payrecon schedule` handles SIGTERM itself (finishes or checkpoints the running job, exits 0);
# exec form so it is PID 1's direct child signal target, with tini-like init from Docker (--init) advised.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "bin/payrecon.mjs"]
CMD ["schedule"]

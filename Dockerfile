# Helix image: docs/DEPLOY.md. `docker build -t helix .`, or `docker compose up` (docker-compose.yml).

# --- build: what `npm start` builds (scripts/build-if-changed.js): dist/ and web/dist/ ------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV CHECKPOINT_DISABLE=1 PRISMA_HIDE_UPDATE_MESSAGE=1
COPY package.json package-lock.json ./
# No dependency runs an install script (package.json "allowScripts" denies them all, and the
# image's npm may predate that field); the project's own postinstall generates the Prisma client
# offline (scripts/prisma.js) into src/generated, which the server build compiles into dist/.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN node scripts/prisma.js generate && node scripts/build-if-changed.js

# --- production dependencies only ----------------------------------------------------------------
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- runtime -------------------------------------------------------------------------------------
FROM node:20-bookworm-slim
# tini as PID 1: forwards SIGTERM to Node and reaps; Node as PID 1 ignores the signal Nest re-raises
# after its shutdown hooks, so the container would wait for SIGKILL instead of exiting.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 HELIX_DATA_DIR=/app/data
# The app's files stay root's (read-only to the process); only the data directory is writable.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY prisma/migrations ./prisma/migrations
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
# /health/ready: the database answers, every migration is applied, run events are being persisted
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# not `npm start`: its prestart build needs the dev dependencies, and dist/ is already built
CMD ["node", "dist/main.js"]

# syntax=docker/dockerfile:1
# Soundtrail's container image: build stage (all dependencies, `npm run build`), then a slim
# runtime stage with production dependencies only, running as the unprivileged `node` user.
# See README "Running in production" and deploy/compose.yaml.

ARG NODE_VERSION=20.19

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build \
  && npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# pg_dump / pg_restore for `npm run backup` / `npm run restore` on PostgreSQL (Debian bookworm's
# client is version 15: use a PostgreSQL server of version 15, as deploy/compose.yaml does).
RUN apt-get update \
  && apt-get install -y --no-install-recommends postgresql-client \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /data \
  && chown node:node /data
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json /app/package-lock.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/build ./build
# Migrations are applied on start; the scripts back `npm run db:move / backup / restore / seed`.
COPY --from=build --chown=node:node /app/drizzle ./drizzle
COPY --from=build --chown=node:node /app/scripts ./scripts
USER node
# The embedded database (when DATABASE_URL is unset), the mail/SMS fallbacks and the generated
# auth secret live here.
VOLUME ["/data"]
EXPOSE 3000
# /readyz answers 200 once the database answers, 503 while it does not or while draining.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node is PID 1 and handles SIGTERM itself (drain, finish requests, close the database);
# `docker stop` waits 10 s by default — compose.yaml gives it 30 s.
STOPSIGNAL SIGTERM
# The server's heap limits (server/node-flags.ts): `docker run -e NODE_OPTIONS=…` changes them.
ENV NODE_OPTIONS="--max-old-space-size=256 --max-semi-space-size=4"
CMD ["node", "build/server.mjs"]

# The service (every role: `node dist/services/main.js --roles all`) and the devnet, in one image built
# the way `make build` builds: npm ci, then `npm run build` (tsc; the client's types are committed in
# clients/typescript/generated/). docker-compose.yml runs it twice: the service, and the devnet with
# `node dist/infra/devnet/src/main.js`.
#
#   docker build -t energy-rental .
#
# NODE_VERSION must satisfy package.json "engines" (test/unit/compose.test.ts checks it).
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# The build type-checks the tests too (tsconfig.json), so they are in the context.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
# What the program reads at run time: package.json and schemas/ mark the root (services/platform/paths.ts),
# schemas/ and migrations/ are read from there; dist/ is the build, node_modules the production dependencies.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/schemas ./schemas
COPY --from=build /app/migrations ./migrations
# The devnet's chain lives on a volume (docker-compose.yml); owned by the unprivileged user that runs.
RUN mkdir -p /data/devnet && chown node:node /data/devnet
USER node
ENV API_HOST=0.0.0.0 DEVNET_HOST=0.0.0.0 DEVNET_DATA_DIR=/data/devnet
EXPOSE 3000 8090
CMD ["node", "--enable-source-maps", "dist/services/main.js", "--roles", "all"]

# The operator CLI (`pnpm ops`) as an image, for `docker compose run --rm demo <command>` and the
# one-shot `demo` service. Build context is the repository root:
#   docker build -f deploy/docker/ops.Dockerfile -t idv/ops .

# The base image: a supported Node LTS (22), pinned to a release so a rebuild of one commit gets the same runtime.
# Bump it deliberately (scripts/validate-deploy.mjs accepts 22.x.y or 24.x.y).
ARG NODE_VERSION=22.23.5

FROM node:${NODE_VERSION}-bookworm-slim AS build
ENV CI=true TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
RUN npm i -g pnpm@10.34.9 && npm cache clean --force
WORKDIR /repo
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline
RUN pnpm exec turbo run build --filter=@idv/ops...
RUN pnpm deploy --filter=@idv/ops --prod --legacy /out \
 && rm -rf /out/src /out/test /out/.turbo /out/tsconfig*.json /out/jest.config.js \
 && test -f /out/dist/cli.js

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /out /app
USER node
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["--help"]

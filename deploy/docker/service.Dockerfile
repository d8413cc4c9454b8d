# Every service's image, built from one file with the service as a build argument. Build context is the
# repository root:
#   docker build -f deploy/docker/service.Dockerfile --build-arg SERVICE=gateway --build-arg PORT=8080 -t idv/gateway .

# The base image: a supported Node LTS (22), pinned to a release so a rebuild of one commit gets the same runtime.
# Bump it deliberately (scripts/validate-deploy.mjs accepts 22.x.y or 24.x.y).
ARG NODE_VERSION=22.23.5

# ---- build: install the workspace, compile this service and its workspace dependencies ----
FROM node:${NODE_VERSION}-bookworm-slim AS build
ARG SERVICE
RUN test -n "$SERVICE" || { echo "pass --build-arg SERVICE=<gateway|keys|sessions|webhooks|flow-runner|dashboard>" >&2; exit 1; }
ENV CI=true TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
RUN npm i -g pnpm@10.34.9 && npm cache clean --force
WORKDIR /repo
# Dependency layer first: it changes only with the lockfile, so code edits reuse it.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline
RUN pnpm exec turbo run build --filter=@idv/${SERVICE}...
# A self-contained copy with production dependencies only. Workspace packages (@idv/kit,
# @idv/contracts) are copied into node_modules with their dist/ (and the kit's migrations/). The service's
# own migrations/ (with dist/migrate.js, the command of the release's migrate Job) and assets/ (stylesheets
# and scripts read at run time) come along; a bundle the build makes (the dashboard's editor script) is in
# dist/assets.
RUN pnpm deploy --filter=@idv/${SERVICE} --prod --legacy /out \
 && rm -rf /out/src /out/test /out/client /out/build-client.mjs /out/.turbo /out/tsconfig*.json /out/jest.config.js \
 && { test -f /out/dist/main.js || { echo "services/${SERVICE} has no src/main.ts yet" >&2; exit 1; }; } \
 && test -d /out/node_modules/@idv/kit/migrations \
 && { test ! -d services/${SERVICE}/migrations || { test -d /out/migrations && test -f /out/dist/migrate.js; }; } \
 && { test ! -d services/${SERVICE}/assets || test -d /out/assets; }

# ---- runtime: node, the compiled service and its production node_modules ----
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ARG PORT=8080
# Set by scripts/release-images.mjs: the image says which release and commit it is.
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.version="${VERSION}" org.opencontainers.image.revision="${REVISION}"
ENV NODE_ENV=production PORT=${PORT}
WORKDIR /app
# Owned by root, readable by the runtime user: the process cannot rewrite its own code.
COPY --from=build /out /app
USER node
EXPOSE ${PORT}
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js"]

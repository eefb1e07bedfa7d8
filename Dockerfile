# The facilitator's image (docs/OPERATIONS.md, "Container image"). Build from the repository root:
#   docker build --network host -t x402-facilitator .
# NODE_IMAGE is Node 20.20 with npm under /usr/local: the local x402-node image (scripts/containers/build-node-image.sh,
# on a debootstrapped Debian bookworm) where no registry is reachable, or e.g. node:20.20-bookworm-slim.
ARG NODE_IMAGE=x402-node:20.20.2-bookworm

FROM ${NODE_IMAGE} AS build
WORKDIR /src
# The manifests first: the dependency layer is rebuilt only when one of them changes.
COPY package.json package-lock.json ./
COPY packages/domain/package.json packages/domain/
COPY packages/adapters-chain/package.json packages/adapters-chain/
COPY packages/adapters-persistence/package.json packages/adapters-persistence/
COPY packages/adapters-http/package.json packages/adapters-http/
COPY packages/app/package.json packages/app/
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json ./
COPY packages packages
RUN npm run build
# Production dependencies only, from the cache the first install filled: no compilers, no anvil, no test libraries.
RUN rm -rf node_modules packages/*/node_modules \
  && npm ci --omit=dev --omit=optional --offline --no-audit --no-fund \
  && mkdir -p /out/packages \
  && cp -a package.json package-lock.json node_modules /out/ \
  && for p in domain adapters-chain adapters-persistence adapters-http app; do \
       mkdir -p /out/packages/$p/dist && cp -a packages/$p/package.json /out/packages/$p/ \
       && cp -a packages/$p/dist/src /out/packages/$p/dist/ \
       && if [ -d packages/$p/node_modules ]; then cp -a packages/$p/node_modules /out/packages/$p/; fi; \
     done \
  && cp -a packages/adapters-chain/dist/test-fixtures /out/packages/adapters-chain/dist/

FROM ${NODE_IMAGE}
# npm is not needed to run; a non-root user of its own owns nothing but its data directory.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/bin/npm /usr/local/bin/npx \
  && useradd --system --user-group --uid 10001 --home-dir /app --shell /usr/sbin/nologin x402 \
  && mkdir -p /app /var/lib/x402-facilitator && chown x402:x402 /var/lib/x402-facilitator
WORKDIR /app
COPY --from=build /out/ /app/
COPY scripts/containers/service/entrypoint.sh scripts/containers/service/healthcheck.mjs /usr/local/lib/x402/
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=4021 \
  DATA_DIR=/var/lib/x402-facilitator
USER x402
EXPOSE 4021
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "/usr/local/lib/x402/healthcheck.mjs"]
ENTRYPOINT ["/usr/local/lib/x402/entrypoint.sh"]

# meter-gateway container image. Build (one architecture, the host's):
#   docker build -t meter-gateway .
# Several architectures at once (serialport ships prebuilt bindings for all three, nothing compiles):
#   docker buildx build --platform linux/amd64,linux/arm64,linux/arm/v7 -t <registry>/meter-gateway --push .
# Run: README "Container". State (settings written through the API, secrets) lives in the /data
# volume; the admin config file is optional, mounted at /etc/meter-gateway/config.json; every key
# can also be set as METER_GATEWAY_<PATH> in the environment.

# As a Home Assistant add-on (config.yaml beside this file) the Supervisor passes BUILD_FROM from
# build.yaml, the same Node image for the device's architecture, and RUN_AS=root: the Supervisor
# mounts the add-on's /data owned by root.
ARG BUILD_FROM=docker.io/library/node:22-bookworm-slim
FROM ${BUILD_FROM} AS build
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src src
COPY scripts scripts
# scripts/ (screenshots) imports the test helpers; tsc needs them to build.
COPY test/helpers test/helpers
RUN npm run build && npm prune --omit=dev --no-audit --no-fund && rm -rf dist/.tsbuildinfo

FROM ${BUILD_FROM}
ARG RUN_AS=meter-gateway
# A fixed non-root user; group dialout (GID 20 in Debian) opens serial adapters passed with --device.
RUN useradd --system --uid 10001 --user-group --groups dialout --home-dir /data --no-create-home \
      --shell /usr/sbin/nologin meter-gateway \
 && install -d -o meter-gateway -g meter-gateway -m 0750 /data \
 && install -d -m 0755 /etc/meter-gateway
WORKDIR /app
COPY --from=build /build/package.json /build/package-lock.json ./
COPY --from=build /build/node_modules node_modules
COPY --from=build /build/dist/src dist/src
COPY LICENSE ./
COPY scripts/container-entrypoint.sh /usr/local/bin/meter-gateway-entrypoint

# Modbus TCP on 5020: the non-root user cannot bind ports below 1024; publish it as 502
# (-p 502:5020). TZ: the zone of daily totals, history days and schedules (default UTC).
ENV NODE_ENV=production \
    MALLOC_MMAP_THRESHOLD_=16384 \
    METER_GATEWAY_HTTP_PORT=8080 \
    METER_GATEWAY_SERVICES_MODBUS_PORT=5020
# HTTP API and web interface; Modbus TCP slave (services.modbus.port); raw telegram proxy.
EXPOSE 8080 5020 2000
VOLUME /data
USER ${RUN_AS}
# Healthy while the API answers, no enabled output failed to listen and a meter reading came within
# health.max_reading_age_s (GET /api/v1/health, open to this host; what failed is named in the
# health log: podman/docker inspect). The check gives the API 9 s of its 10 s timeout.
# `podman build` keeps HEALTHCHECK only with --format docker (the OCI image format has none).
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "dist/src/health-check.js"]
ENTRYPOINT ["/usr/local/bin/meter-gateway-entrypoint"]

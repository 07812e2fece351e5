# One small image for every component; the first argument chooses which:
#   controller | deviceshifu | deviceshifu-host | shifud | mockdevice   (e.g. `args: [deviceshifu]` in a Pod)
# Multi-stage: dependencies and the build in a full Node 24 image, then only the bundles, the
# edgeMap page and Node itself in the runtime image. One native module, serialport's (Modbus RTU),
# ships prebuilt for glibc and musl on amd64 and arm64 alike
# (docker buildx build --platform linux/amd64,linux/arm64 .).
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY shared shared
COPY controller controller
COPY deviceshifu deviceshifu
COPY shifud shifud
COPY edgemap edgemap
RUN npm run build:bundle && npm run build:page
# Not bundled, installed beside the bundles: node-opcua (its server reads its nodeset XML files and
# package.json from its own folders at run time; loaded only by OPC UA deviceShifus and mocks) and
# serialport (Modbus RTU: its native binding is found on disk beside its package, one prebuilt
# per platform and libc, picked at run time)
RUN mkdir -p dist/runtime-modules && cd dist/runtime-modules && echo '{"private":true}' > package.json \
 && npm install --omit=dev --no-audit --no-fund --prefer-offline --save-exact $(node -p "Object.entries(require('../../package.json').dependencies).filter(([n]) => n.startsWith('node-opcua-') || n === 'serialport').map(([n, v]) => n + '@' + v).join(' ')")

FROM node:24-alpine AS runtime
# V8 flags NODE_OPTIONS may not carry (--lite-mode): together they keep each process small
# (measured: controller 89 MB idle, npm run bench:controller)
ENV NODE_ENV=production \
    NODE_FLAGS="--max-semi-space-size=1 --lite-mode"
WORKDIR /app
# esbuild bundles carry every runtime dependency but node-opcua and serialport (below)
COPY --from=build /src/dist/bundle /app/dist/bundle
COPY --from=build /src/dist/edgemap-page /app/dist/edgemap-page
COPY --from=build /src/dist/runtime-modules/node_modules /app/node_modules
# the image's own unprivileged user; Pods also set runAsNonRoot with uid 65532
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/bin/sh", "-c", "exec node $NODE_FLAGS /app/dist/bundle/\"$0\".js \"$@\""]
CMD ["controller"]

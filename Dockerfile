# One image for every karta command: `docker run IMAGE serve ...`, `docker run IMAGE validate ...`.
# Build: docker build -t karta .
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY scripts/bundle-cli.mjs scripts/cli-module-shim.mjs ./scripts/
# The command line bundled (dist/cli): a command loads a few files instead of sixty at start-up.
RUN npx tsc -p tsconfig.json && node scripts/bundle-cli.mjs && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# Distroless: no shell or package manager; runs as the unprivileged "nonroot" user (65532).
FROM gcr.io/distroless/nodejs20-debian12:nonroot
WORKDIR /app
ENV NODE_ENV=production
# package.json makes dist/ ES modules ("type": "module").
COPY package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist/src ./dist/src
COPY --from=build /src/dist/cli ./dist/cli
COPY bin ./bin
COPY definitions ./definitions
COPY interpreter-customizations ./interpreter-customizations
COPY schema ./schema
COPY examples ./examples
USER 65532:65532
EXPOSE 8443 8080
ENTRYPOINT ["/nodejs/bin/node", "/app/bin/karta.js"]
CMD ["--help"]

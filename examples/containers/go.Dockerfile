# A Go service (any language) given its secrets by `cplane-reader run`, which restarts it when one is renewed
# (docs/sdk.md, "In a container"). Build context: the Go module, the reader manifest (public), and the packed SDK
# with its one dependency (`npm pack` in packages/sdk and in node_modules/@noble/ciphers of the cplane repository).
FROM golang:1.22-bookworm AS build
WORKDIR /src
COPY go.mod main.go ./
RUN CGO_ENABLED=0 go build -o /out/server .

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /out/server /app/server
COPY cplane-sdk-0.1.0.tgz noble-ciphers.tgz cplane-reader.json ./
RUN npm install --omit=dev --no-audit --no-fund /app/cplane-sdk-0.1.0.tgz /app/noble-ciphers.tgz && rm /app/*.tgz
ENV CPLANE_MANIFEST=/app/cplane-reader.json
USER 10001
ENTRYPOINT ["/app/node_modules/.bin/cplane-reader", "run", "--watch", "--env", "OPENAI_TOKEN=core/ci-token", "--env", "STRIPE_KEY=payments/stripe-key", "--", "/app/server"]

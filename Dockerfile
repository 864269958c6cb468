# Two images from one Dockerfile (make docker-build, make docker-build-fakeapi):
#   docker build -t ghcr.io/listkeeper/listkeeper:0.2.0-dev .                           (the manager, the default target)
#   docker build --target fakeapi -t ghcr.io/listkeeper/listkeeper-fakeapi:0.2.0-dev .  (the bundled fake list server)
# make image builds the same two without a container engine (hack/release).
FROM golang:1.26 AS deps
ARG TARGETOS
ARG TARGETARCH
WORKDIR /workspace
# Download the modules first so that this layer is cached across source edits.
COPY go.mod go.sum ./
RUN go mod download
# .dockerignore keeps bin/, config/, hack/ and other non-source files out.
COPY . .
# GOARCH is left to the builder's platform when TARGETARCH is unset (plain
# `docker build`); buildx sets it for multi-platform images.
ENV CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH}

FROM deps AS build-fakeapi
# Stamped into internal/version; `make docker-build` passes them from git.
# An ARG is scoped to its stage, so each build stage declares them.
ARG VERSION=dev
ARG REVISION=unknown
RUN go build -trimpath -o fakeapi \
    -ldflags="-s -X github.com/listkeeper/listkeeper/internal/version.Version=${VERSION} -X github.com/listkeeper/listkeeper/internal/version.Revision=${REVISION}" \
    ./cmd/fakeapi

FROM deps AS build-manager
# Stamped into internal/version; `make docker-build` passes them from git.
# An ARG is scoped to its stage, so each build stage declares them.
ARG VERSION=dev
ARG REVISION=unknown
RUN go build -trimpath -o manager \
    -ldflags="-s -X github.com/listkeeper/listkeeper/internal/version.Version=${VERSION} -X github.com/listkeeper/listkeeper/internal/version.Revision=${REVISION}" \
    ./cmd/manager

# The fake list server, for the in-cluster quick start (config/fakeapi).
FROM gcr.io/distroless/static:nonroot AS fakeapi
WORKDIR /
COPY --from=build-fakeapi /workspace/fakeapi .
USER 65532:65532
ENTRYPOINT ["/fakeapi"]

# The manager: a static binary on distroless, no shell, no package manager,
# non-root. Last, so that a plain `docker build` builds it.
FROM gcr.io/distroless/static:nonroot AS manager
WORKDIR /
COPY --from=build-manager /workspace/manager .
USER 65532:65532
ENTRYPOINT ["/manager"]

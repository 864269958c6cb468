# Build the manager binary.
FROM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH
# Stamped into internal/version: `make docker-build` passes them from git.
ARG VERSION=dev
ARG REVISION=unknown

WORKDIR /workspace
# Download the modules first so that this layer is cached across source edits.
COPY go.mod go.sum ./
RUN go mod download

# .dockerignore keeps bin/, config/, hack/ and other non-source files out.
COPY . .

# GOARCH is left to the builder's platform when TARGETARCH is unset (plain
# `docker build`); buildx sets it for multi-platform images.
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} \
    go build -trimpath -o manager \
    -ldflags="-s -X github.com/listkeeper/listkeeper/internal/version.Version=${VERSION} -X github.com/listkeeper/listkeeper/internal/version.Revision=${REVISION}" \
    ./cmd/manager

# A static binary on distroless: no shell, no package manager, non-root.
FROM gcr.io/distroless/static:nonroot
WORKDIR /
COPY --from=builder /workspace/manager .
USER 65532:65532

ENTRYPOINT ["/manager"]

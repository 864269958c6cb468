# Build the manager binary.
FROM golang:1.26 AS builder
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
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags=-s -o manager ./cmd/manager

# A static binary on distroless: no shell, no package manager, non-root.
FROM gcr.io/distroless/static:nonroot
WORKDIR /
COPY --from=builder /workspace/manager .
USER 65532:65532

ENTRYPOINT ["/manager"]

# syntax=docker/dockerfile:1
#
# One image recipe for both binaries; BINARY picks which:
#   docker buildx build --platform linux/amd64,linux/arm64 -t REPO/karpenter-cloudstack .
#   docker buildx build --platform linux/amd64,linux/arm64 --build-arg BINARY=fakecloudstack -t REPO/fakecloudstack .
# Untested: the machines this repository is developed on have no container engine.

ARG GO_VERSION=1.26.11

# The build runs on the builder's own platform and cross-compiles, which is much faster than
# emulating the target architecture.
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
ARG BINARY=karpenter-cloudstack
ARG TARGETOS
ARG TARGETARCH
WORKDIR /src
# Each module builds on its own (GOWORK=off), exactly as users consume the provider module.
ENV GOWORK=off CGO_ENABLED=0 GOTOOLCHAIN=local
COPY provider/go.mod provider/go.sum provider/
COPY fakecloudstack/go.mod fakecloudstack/go.sum fakecloudstack/
RUN --mount=type=cache,target=/go/pkg/mod \
    cd provider && go mod download && cd ../fakecloudstack && go mod download
COPY provider/ provider/
COPY fakecloudstack/ fakecloudstack/
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    case "${BINARY}" in \
      karpenter-cloudstack) cd provider && pkg=./cmd/controller ;; \
      fakecloudstack) cd fakecloudstack && pkg=./cmd/fakecloudstack ;; \
      *) echo "BINARY must be karpenter-cloudstack or fakecloudstack, not ${BINARY}" >&2; exit 1 ;; \
    esac && \
    GOOS="${TARGETOS}" GOARCH="${TARGETARCH}" go build -trimpath -ldflags="-s -w" -o /out/app "${pkg}"

# No shell, no package manager, a non-root user: nothing to exploit but the binary itself.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/app /app
USER 65532:65532
ENTRYPOINT ["/app"]

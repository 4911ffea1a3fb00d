# The image of the Greenlight Circuit Breaker action (action.yml: runs.using
# docker). Two stages: a Go toolchain builds a static binary, and the final
# image holds only that binary and the CA certificates it needs for the
# GitHub API.
#
# GitHub's rules for Docker actions: the container runs as root so it can
# write to the mounted workspace (no USER), the runner mounts
# GITHUB_WORKSPACE and makes it the working directory (no WORKDIR), and the
# ENTRYPOINT is an absolute path in exec form. internal/actionenv's tests
# check these three.

# Both bases are pinned by the digest of the tag's image index (every
# platform's manifest under one digest, so an arm64 build resolves its own
# variant). Dependabot (.github/dependabot.yml, docker) proposes new digests;
# to read one by hand:
#   docker buildx imagetools inspect golang:1.26.6-bookworm --format '{{.Manifest.Digest}}'
FROM golang:1.26.6-bookworm@sha256:116d58cbd88c1297624acc6e967a060012422bacf9930927e23fb719189c6f36 AS build
# Modules first, so a change to the code reuses the downloaded modules.
# Paths are absolute: no WORKDIR in this file, in any stage.
COPY go.mod go.sum /src/
RUN cd /src && go mod download
COPY . /src/
ARG VERSION=dev
RUN cd /src && CGO_ENABLED=0 go build -trimpath \
    -ldflags="-s -w -X github.com/greenlight-ci/breaker/internal/cli.Version=${VERSION}" \
    -o /breaker ./cmd/breaker

# distroless/static: CA certificates and tzdata, no shell, root by default
# (not the :nonroot tag, which could not write the workspace).
FROM gcr.io/distroless/static-debian12:latest@sha256:d75cdd72874d4790092fcb1b058493ecf6bb5bf2b2b897045b00ff01d91843f2
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="Greenlight Circuit Breaker" \
      org.opencontainers.image.description="The CI-side circuit breaker for coding agents (GitHub Action)" \
      org.opencontainers.image.source="https://github.com/greenlight-ci/breaker" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="MIT"
COPY --from=build /breaker /breaker
ENTRYPOINT ["/breaker", "action"]

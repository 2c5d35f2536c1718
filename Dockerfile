# syntax=docker/dockerfile:1
#
# Container image of the chess-arbiter gRPC server.
#
#   docker build -t chess-arbiter:0.1.0 .
#
# Two stages: the server is compiled on the official Rust image (the crate's
# rust-version, --locked to Cargo.lock), and only the binary is copied onto a
# distroless base that holds glibc, libgcc and the CA certificates that
# rediss:// verifies Redis against (the system roots, unless
# ARBITER_REDIS_TLS_CA_FILE names a CA). No shell, no package manager.
# The protos are compiled by build.rs with protox, so no protoc is needed.
#
# Both stages are Debian 12 (bookworm), so the binary links against the same
# glibc it runs with. Base images are pinned by tag; pin them by digest too
# (image@sha256:...) where your registry policy asks for it.

FROM docker.io/library/rust:1.95.0-slim-bookworm AS build
WORKDIR /src
# Only what the build reads (see .dockerignore): the manifest and lock file,
# build.rs and the protos, the sources and the bench the manifest declares.
COPY Cargo.toml Cargo.lock build.rs ./
COPY proto ./proto
COPY src ./src
COPY benches ./benches
# The cache mounts keep downloaded crates and compiled dependencies between
# builds on one machine; the binary is copied out of the cached target dir.
RUN --mount=type=cache,target=/usr/local/cargo/registry,sharing=locked \
    --mount=type=cache,target=/src/target,sharing=locked \
    cargo build --release --locked --bin chess-arbiter \
    && install -D -m 0755 target/release/chess-arbiter /out/chess-arbiter

# distroless "cc": glibc, libgcc_s, CA certificates, tzdata; the "nonroot"
# variant's default user is 65532, named again below as a number so that
# Kubernetes' runAsNonRoot can verify it.
FROM gcr.io/distroless/cc-debian12:nonroot AS runtime
LABEL org.opencontainers.image.title="chess-arbiter" \
      org.opencontainers.image.description="A chess game arbiter: a gRPC service that holds games in Redis, decides legal moves and game endings, and streams every event." \
      org.opencontainers.image.licenses="GPL-3.0-or-later"
COPY --from=build /out/chess-arbiter /usr/local/bin/chess-arbiter
USER 65532:65532
# Inside a container the server must listen on every interface, not only
# loopback (the binary's default).
ENV ARBITER_LISTEN=0.0.0.0:50051
# No transparent huge pages for the allocator, even on a host whose setting
# is "always" (the binary itself never asks for them): with them, watch
# streams hold more memory and give less of it back (docs/benchmarks.md).
ENV MIMALLOC_ALLOW_THP=0
EXPOSE 50051
# SIGTERM makes the server report not ready, stop accepting, end open watch
# streams (clients resume elsewhere) and exit within
# ARBITER_SHUTDOWN_GRACE_SECONDS (default 10).
STOPSIGNAL SIGTERM
# No HEALTHCHECK: the image has no shell or probe tool to run one, and
# Kubernetes probes the server itself with native gRPC probes
# (grpc.health.v1, services "liveness" and "readiness"; see
# deploy/base/deployment.yaml). With plain Docker, probe it from outside, e.g.
#   grpcurl -plaintext -d '{"service":"readiness"}' 127.0.0.1:50051 grpc.health.v1.Health/Check
ENTRYPOINT ["/usr/local/bin/chess-arbiter"]

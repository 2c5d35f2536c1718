#!/usr/bin/env python3
"""Asks a running chess-arbiter for its gRPC health, as Kubernetes' probes do
(grpc.health.v1.Health/Check with the service names "liveness" and
"readiness"), retrying until both are SERVING or the deadline passes.

    probe_health.py HOST:PORT [SECONDS]

Used by scripts/check-deploy on the container it started.
"""

import sys
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

SERVICES = ("liveness", "readiness")


def main() -> int:
    target = sys.argv[1]
    deadline = time.monotonic() + float(sys.argv[2] if len(sys.argv) > 2 else 30)
    last = {}
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            for service in SERVICES:
                try:
                    reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=2)
                    last[service] = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
                except grpc.RpcError as err:
                    last[service] = f"{err.code().name}: {err.details()}"
            if all(last.get(s) == "SERVING" for s in SERVICES):
                print(f"probe_health: {target}: " + ", ".join(f"{s} SERVING" for s in SERVICES))
                return 0
            if time.monotonic() > deadline:
                print(f"probe_health: {target}: not healthy in time: {last}", file=sys.stderr)
                return 1
            time.sleep(0.5)


if __name__ == "__main__":
    sys.exit(main())

"""Starts a real chess-arbiter server for the tests and the example.

The binary is built with ``cargo build --bin chess-arbiter --locked`` (cheap
when nothing changed) unless CHESS_ARBITER_BIN names one. The server keeps
its games in memory, listens on a free loopback port, has an admin token and
a fixed token secret, and no write rate limits; it is ready once the gRPC
health check of service ``readiness`` answers SERVING.

Run as a script, it starts a server, runs a command with ARBITER_TARGET and
ARBITER_ADMIN_TOKEN set, stops the server and exits with the command's
status:

    python tests/arbiter_server.py -- python examples/play_to_mate.py
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Iterator, Optional

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

REPO = pathlib.Path(__file__).resolve().parents[3]
BINARY_NAME = "chess-arbiter"


def build_server() -> pathlib.Path:
    """Builds the server binary with cargo and returns its path."""
    override = os.environ.get("CHESS_ARBITER_BIN")
    if override:
        path = pathlib.Path(override)
        if not path.is_file():
            raise RuntimeError(f"CHESS_ARBITER_BIN={override} is not a file")
        return path
    command = [
        "cargo",
        "build",
        "--bin",
        BINARY_NAME,
        "--locked",
        "--message-format=json-render-diagnostics",
    ]
    done = subprocess.run(command, cwd=REPO, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed with status {done.returncode}")
    for line in done.stdout.splitlines():
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            continue
        if (
            message.get("reason") == "compiler-artifact"
            and message.get("target", {}).get("name") == BINARY_NAME
            and message.get("executable")
        ):
            return pathlib.Path(message["executable"])
    raise RuntimeError(f"cargo built no {BINARY_NAME} executable")


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ArbiterServer:
    """A running server: where it listens, its admin token, its log."""

    target: str
    admin_token: str
    process: subprocess.Popen[bytes]
    log_path: pathlib.Path

    def log_tail(self, lines: int = 40) -> str:
        """The end of the server's log, for failure messages."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


def wait_until_ready(server: ArbiterServer, timeout: float = 60.0) -> None:
    """Waits for the health check of ``readiness`` to answer SERVING."""
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(server.target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while True:
            if server.process.poll() is not None:
                raise RuntimeError(
                    f"the server exited with status {server.process.returncode}:\n{server.log_tail()}"
                )
            try:
                answer = health.Check(health_pb2.HealthCheckRequest(service="readiness"), timeout=1)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the server at {server.target} was not ready within {timeout}s:\n{server.log_tail()}"
                )
            time.sleep(0.05)


@contextlib.contextmanager
def running_server(
    binary: pathlib.Path, log_path: pathlib.Path, extra_env: Optional[dict[str, str]] = None
) -> Iterator[ArbiterServer]:
    """Starts the server, waits until it is ready, and stops it afterwards."""
    port = free_port()
    admin_token = secrets.token_hex(16)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("ARBITER_REDIS_URL", "REDIS_URL") and not key.startswith("ARBITER_")
    }
    env.update(
        {
            "ARBITER_LISTEN": f"127.0.0.1:{port}",
            "ARBITER_ADMIN_TOKEN": admin_token,
            "ARBITER_TOKEN_SECRET": secrets.token_hex(24),
            "ARBITER_MAX_SEAT_WRITES_PER_SECOND": "0",
            "ARBITER_MAX_PEER_WRITES_PER_SECOND": "0",
            "ARBITER_SHUTDOWN_GRACE_SECONDS": "1",
        }
    )
    env.update(extra_env or {})
    with open(log_path, "wb") as log:
        process = subprocess.Popen([str(binary)], env=env, stdout=log, stderr=subprocess.STDOUT)
    server = ArbiterServer(f"127.0.0.1:{port}", admin_token, process, log_path)
    try:
        wait_until_ready(server)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main(argv: list[str]) -> int:
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        print("usage: arbiter_server.py -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    command = argv[argv.index("--") + 1 :]
    binary = build_server()
    with tempfile.TemporaryDirectory() as tmp:
        with running_server(binary, pathlib.Path(tmp) / "server.log") as server:
            env = dict(os.environ, ARBITER_TARGET=server.target, ARBITER_ADMIN_TOKEN=server.admin_token)
            status = subprocess.run(command, env=env).returncode
            if status != 0:
                print(f"the server's log ends with:\n{server.log_tail()}", file=sys.stderr)
            return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

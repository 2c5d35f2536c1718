"""Fixtures: one real arbiter server for the session, clients, a breakable proxy."""

from __future__ import annotations

import pathlib
import sys
from typing import Iterator

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from arbiter_server import ArbiterServer, build_server, running_server  # noqa: E402
from tcp_proxy import TcpProxy  # noqa: E402

from chessarbiter_client import ArbiterClient, RetryPolicy  # noqa: E402

# Channels reconnect quickly in tests that break connections on purpose.
FAST_RECONNECT = [
    ("grpc.initial_reconnect_backoff_ms", 50),
    ("grpc.min_reconnect_backoff_ms", 50),
    ("grpc.max_reconnect_backoff_ms", 500),
]


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArbiterServer]:
    binary = build_server()
    log_path = tmp_path_factory.mktemp("arbiter") / "server.log"
    # Heartbeats every 200 ms, so that watches in every test see some (and
    # leave them out unless asked).
    with running_server(binary, log_path, {"ARBITER_HEARTBEAT_MILLIS": "200"}) as running:
        yield running
        if running.process.poll() is not None:
            pytest.fail(f"the server died during the tests:\n{running.log_tail()}")


@pytest.fixture
def client(server: ArbiterServer) -> Iterator[ArbiterClient]:
    with ArbiterClient(server.target, admin_token=server.admin_token) as arbiter_client:
        yield arbiter_client


@pytest.fixture
def proxy(server: ArbiterServer) -> Iterator[TcpProxy]:
    relay = TcpProxy(server.target)
    yield relay
    relay.close()


@pytest.fixture
def proxied_client(server: ArbiterServer, proxy: TcpProxy) -> Iterator[ArbiterClient]:
    with ArbiterClient(
        proxy.target,
        admin_token=server.admin_token,
        options=FAST_RECONNECT,
        retry=RetryPolicy(max_attempts=8, initial_backoff=0.05, max_backoff=0.5),
    ) as arbiter_client:
        yield arbiter_client

"""A loopback TCP proxy that breaks connections on demand, for failure tests.

Clients connect to the proxy, which relays every byte to the server. The
tests use it to drop every open connection (a watch stream then fails with
UNAVAILABLE), or to drop a connection at the moment the server starts to
answer a call (the call has been applied; its answer is lost).

The server-to-client direction is read as HTTP/2 frames (9-byte header:
length, type, flags, stream id) so that the drop can happen exactly before
the first HEADERS frame that starts a response, not on a SETTINGS, PING or
WINDOW_UPDATE frame.
"""

from __future__ import annotations

import socket
import threading
from typing import Optional

_HEADERS = 0x1


class TcpProxy:
    """Relays 127.0.0.1:<port> to ``upstream`` ("host:port")."""

    def __init__(self, upstream: str) -> None:
        host, port = upstream.rsplit(":", 1)
        self._upstream = (host, int(port))
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self.port = int(self._listener.getsockname()[1])
        self.target = f"127.0.0.1:{self.port}"
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._drop_at_response = False
        self.dropped_at_response = threading.Event()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def drop_all(self) -> int:
        """Breaks every open connection; returns how many there were."""
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for pair in pairs:
            _close(pair)
        return len(pairs)

    def drop_at_next_response(self) -> None:
        """Breaks the connection that carries the next response, before it reaches the client."""
        self.dropped_at_response.clear()
        with self._lock:
            self._drop_at_response = True

    def close(self) -> None:
        """Stops accepting and breaks every connection."""
        self._closed = True
        self._listener.close()
        self.drop_all()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self._upstream)
            except OSError:
                client.close()
                continue
            for sock in (client, server):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            pair = (client, server)
            with self._lock:
                self._pairs.append(pair)
            threading.Thread(target=self._relay_requests, args=(pair,), daemon=True).start()
            threading.Thread(target=self._relay_responses, args=(pair,), daemon=True).start()

    def _relay_requests(self, pair: tuple[socket.socket, socket.socket]) -> None:
        client, server = pair
        try:
            while True:
                data = client.recv(65536)
                if not data:
                    break
                server.sendall(data)
        except OSError:
            pass
        self._forget(pair)

    def _relay_responses(self, pair: tuple[socket.socket, socket.socket]) -> None:
        client, server = pair
        try:
            while True:
                header = _recv_exactly(server, 9)
                if header is None:
                    break
                length = int.from_bytes(header[:3], "big")
                payload = _recv_exactly(server, length) if length else b""
                if payload is None:
                    break
                if header[3] == _HEADERS and self._take_drop():
                    self.dropped_at_response.set()
                    break
                client.sendall(header + payload)
        except OSError:
            pass
        self._forget(pair)

    def _take_drop(self) -> bool:
        with self._lock:
            armed, self._drop_at_response = self._drop_at_response, False
        return armed

    def _forget(self, pair: tuple[socket.socket, socket.socket]) -> None:
        with self._lock:
            if pair in self._pairs:
                self._pairs.remove(pair)
        _close(pair)


def _recv_exactly(sock: socket.socket, size: int) -> Optional[bytes]:
    chunks = bytearray()
    while len(chunks) < size:
        data = sock.recv(size - len(chunks))
        if not data:
            return None
        chunks += data
    return bytes(chunks)


def _close(pair: tuple[socket.socket, socket.socket]) -> None:
    for sock in pair:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()

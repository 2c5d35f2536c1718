"""Watching a game: a stream that survives dropped connections.

:class:`GameWatch` iterates over a game's ``WatchGame`` stream and, when the
stream breaks off (the connection dropped or the server stopped:
UNAVAILABLE; the reader fell too far behind: RESOURCE_EXHAUSTED
``WATCHER_TOO_SLOW``; the server's stream limit: ``TOO_MANY_STREAMS``), opens
it again with the ``resume_token`` of the last message received, so that
the caller sees every event exactly once and in order. When the server
answers that the event the token names is no longer the game's history
(FAILED_PRECONDITION ``HISTORY_REWRITTEN``, after a storage failover lost
events), the watch starts again from a fresh snapshot, which it hands over
with ``history_rewritten=True``: the caller must drop what it built from the
earlier events.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Generator, Iterator, Literal, Optional

import grpc

from ._proto.chessarbiter.v1 import arbiter_pb2 as pb
from .errors import ArbiterError
from .retry import RetryPolicy

if TYPE_CHECKING:
    from ._proto.chessarbiter.v1 import arbiter_pb2_grpc as pb_grpc

log = logging.getLogger("chessarbiter_client")

#: RESOURCE_EXHAUSTED reasons after which a watch is opened again.
_RESUMABLE_EXHAUSTION = frozenset({"WATCHER_TOO_SLOW", "TOO_MANY_STREAMS"})

#: Event kinds that always end a game's stream.
_FINAL_EVENTS = frozenset({"game_ended", "game_aborted"})

UpdateKind = Literal["snapshot", "event", "heartbeat"]


@dataclass(frozen=True)
class WatchUpdate:
    """One message of a watched game: a snapshot, an event or a heartbeat.

    Attributes:
        kind: ``"snapshot"``, ``"event"`` or ``"heartbeat"``.
        message: the ``WatchGameResponse`` as received.
        version: the game version the message describes (a heartbeat: the
            server's current version, possibly ahead of the last event).
        resume_token: the token to resume after this message (empty for a
            heartbeat).
        history_rewritten: set on the snapshot that restarts a watch after
            the server reported HISTORY_REWRITTEN; everything learnt from
            earlier updates must be discarded.
    """

    kind: UpdateKind
    message: pb.WatchGameResponse
    version: int
    resume_token: str
    history_rewritten: bool = False

    @property
    def snapshot(self) -> Optional[pb.Game]:
        """The game, for a snapshot."""
        return self.message.snapshot if self.kind == "snapshot" else None

    @property
    def event(self) -> Optional[pb.GameEvent]:
        """The event, for an event."""
        return self.message.event if self.kind == "event" else None

    @property
    def heartbeat(self) -> Optional[pb.Heartbeat]:
        """The heartbeat, for a heartbeat."""
        return self.message.heartbeat if self.kind == "heartbeat" else None

    @property
    def event_kind(self) -> Optional[str]:
        """The event's kind (``"move_made"``, ``"game_ended"``, ...), for an event."""
        return self.message.event.WhichOneof("kind") if self.kind == "event" else None


def _resumable(error: ArbiterError) -> bool:
    if error.code == grpc.StatusCode.UNAVAILABLE:
        return True
    if error.code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return error.reason in _RESUMABLE_EXHAUSTION
    return False


class GameWatch(Iterator[WatchUpdate]):
    """An iterator over a game's updates that reconnects by itself.

    It ends when the game has ended and every event has been delivered (the
    server closes the stream), or after :meth:`cancel`. It raises
    :class:`ArbiterError` on an error that reconnecting cannot cure
    (GAME_NOT_FOUND, VERSION_AHEAD, ...) or after ``policy.max_attempts``
    failed attempts in a row without receiving anything.

    ``resume_token`` and ``version`` always describe the last update handed
    out, so a watch cancelled part-way can be continued later by
    ``client.watch_game(game_id, resume_token=watch.resume_token)``.
    """

    def __init__(
        self,
        stub: "pb_grpc.ArbiterServiceStub",
        game_id: str,
        *,
        after_version: int = 0,
        resume_token: str = "",
        heartbeats: bool = False,
        policy: RetryPolicy = RetryPolicy(max_attempts=10),
        on_reconnect: Optional[Callable[[ArbiterError, float], None]] = None,
    ) -> None:
        if after_version < 0:
            raise ValueError("after_version must not be negative")
        self._stub = stub
        self.game_id = game_id
        #: The token of the last snapshot or event handed out (or given).
        self.resume_token = resume_token
        #: The version of the last snapshot or event handed out (or given).
        self.version = after_version
        #: How many times the stream was opened again after a failure.
        self.reconnects = 0
        #: How many times the watch restarted from a snapshot after HISTORY_REWRITTEN.
        self.restarts = 0
        self._heartbeats = heartbeats
        self._policy = policy
        self._on_reconnect = on_reconnect
        self._lock = threading.Lock()
        self._call: Optional[grpc.Call] = None
        self._cancelled = threading.Event()
        self._updates = self._run()

    def __iter__(self) -> "GameWatch":
        return self

    def __next__(self) -> WatchUpdate:
        return next(self._updates)

    def __enter__(self) -> "GameWatch":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def cancel(self) -> None:
        """Stops the watch; safe to call from another thread.

        The iteration then ends (StopIteration) instead of raising.
        """
        self._cancelled.set()
        with self._lock:
            call = self._call
        if call is not None:
            call.cancel()

    def close(self) -> None:
        """Cancels the stream and ends the iterator (from the iterating thread)."""
        self.cancel()
        self._updates.close()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._cancelled.is_set()

    def _request(self) -> pb.WatchGameRequest:
        if self.resume_token:
            return pb.WatchGameRequest(game_id=self.game_id, resume_token=self.resume_token)
        return pb.WatchGameRequest(game_id=self.game_id, after_version=self.version)

    def _run(self) -> Generator[WatchUpdate, None, None]:
        failures = 0
        rewritten = False
        while not self._cancelled.is_set():
            call = self._stub.WatchGame(self._request())
            with self._lock:
                self._call = call
            if self._cancelled.is_set():
                call.cancel()
            try:
                for message in call:
                    failures = 0
                    update = self._accept(message, rewritten)
                    if update is None:
                        continue
                    if update.kind != "heartbeat":
                        rewritten = False
                    yield update
                return  # the server closed the stream: the game has ended
            except grpc.RpcError as rpc_error:
                if self._cancelled.is_set():
                    return
                error = ArbiterError.from_rpc_error(rpc_error)
                if (
                    error.code == grpc.StatusCode.FAILED_PRECONDITION
                    and error.reason == "HISTORY_REWRITTEN"
                ):
                    log.warning(
                        "game %s: %s; watching again from a snapshot", self.game_id, error.message
                    )
                    self.resume_token = ""
                    self.version = 0
                    self.restarts += 1
                    rewritten = True
                    continue
                failures += 1
                if not _resumable(error) or failures >= self._policy.max_attempts:
                    raise error from rpc_error
                delay = self._policy.backoff(failures, error.retry_delay)
                log.info(
                    "game %s: watch stream ended with %s; resuming after version %d in %.2fs",
                    self.game_id,
                    error,
                    self.version,
                    delay,
                )
                if self._on_reconnect is not None:
                    self._on_reconnect(error, delay)
                if self._cancelled.wait(delay):
                    return
                self.reconnects += 1
            finally:
                call.cancel()
                with self._lock:
                    self._call = None

    def _accept(self, message: pb.WatchGameResponse, rewritten: bool) -> Optional[WatchUpdate]:
        kind = message.WhichOneof("kind")
        if kind == "heartbeat":
            if not self._heartbeats:
                return None
            return WatchUpdate("heartbeat", message, message.heartbeat.version, "")
        if kind == "snapshot":
            version = message.snapshot.version
        elif kind == "event":
            version = message.event.version
            if version <= self.version:
                return None  # already handed out (defensive: the server sends each once)
        else:
            return None  # a kind this client does not know yet
        self.version = version
        if message.resume_token:
            self.resume_token = message.resume_token
        return WatchUpdate(kind, message, version, message.resume_token, history_rewritten=rewritten)


def ends_game(update: WatchUpdate) -> bool:
    """Whether an update shows the game over: a final event, or a snapshot of an ended game.

    (An arbiter's ``result_decided`` may also end a game in progress; its
    stream then ends after it.)
    """
    if update.kind == "event":
        return update.event_kind in _FINAL_EVENTS
    if update.kind == "snapshot" and update.snapshot is not None:
        return update.snapshot.status in (pb.GAME_STATUS_FINISHED, pb.GAME_STATUS_ABORTED)
    return False

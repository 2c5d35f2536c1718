"""Errors decoded from google.rpc.Status, and the retry and resume loops, without a server."""

from __future__ import annotations

from typing import Any, Iterator, Optional

import grpc
import pytest
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2, status_pb2

from chessarbiter_client import ArbiterError, GameWatch, RetryPolicy, pb
from chessarbiter_client.retry import call_with_retry


class FakeRpcError(grpc.RpcError, grpc.Call):  # type: ignore[misc]
    """A failed call as grpcio raises it, with the server's rich status."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: Optional[str] = None,
        *,
        message: str = "refused",
        metadata: Optional[dict[str, str]] = None,
        retry_millis: Optional[int] = None,
    ) -> None:
        self._code = code
        self._message = message
        status = status_pb2.Status(code=code.value[0], message=message)
        if reason is not None:
            status.details.add().Pack(
                error_details_pb2.ErrorInfo(reason=reason, domain="chessarbiter.v1", metadata=metadata or {})
            )
        if retry_millis is not None:
            info = error_details_pb2.RetryInfo(
                retry_delay=duration_pb2.Duration(nanos=retry_millis * 1_000_000)
            )
            status.details.add().Pack(info)
        self._trailers = (("grpc-status-details-bin", status.SerializeToString()),)

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._message

    def trailing_metadata(self) -> Any:
        return self._trailers

    # The rest of grpc.Call, unused here.
    def initial_metadata(self) -> Any:
        return ()

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> Optional[float]:
        return None

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: Any) -> bool:
        return False


def test_error_carries_code_reason_metadata_and_retry_advice() -> None:
    error = ArbiterError.from_rpc_error(
        FakeRpcError(
            grpc.StatusCode.ABORTED,
            "CONTENTION",
            message="too many writers",
            metadata={"ply": "4", "side_to_move": "white"},
            retry_millis=50,
        )
    )
    assert error.code == grpc.StatusCode.ABORTED
    assert error.reason == "CONTENTION"
    assert error.domain == "chessarbiter.v1"
    assert error.metadata == {"ply": "4", "side_to_move": "white"}
    assert error.ply == 4
    assert error.retry_delay == pytest.approx(0.05)
    assert error.retryable
    assert str(error) == "ABORTED (CONTENTION): too many writers"


def test_an_error_without_details_keeps_its_code_and_message() -> None:
    class Bare(grpc.RpcError):
        def code(self) -> grpc.StatusCode:
            return grpc.StatusCode.UNAVAILABLE

        def details(self) -> str:
            return "Socket closed"

    error = ArbiterError.from_rpc_error(Bare())
    assert (error.code, error.reason, error.message) == (grpc.StatusCode.UNAVAILABLE, None, "Socket closed")
    assert error.retryable


@pytest.mark.parametrize(
    ("code", "reason", "retryable"),
    [
        (grpc.StatusCode.UNAVAILABLE, "STORAGE_UNAVAILABLE", True),
        (grpc.StatusCode.UNAVAILABLE, "SHUTTING_DOWN", True),
        (grpc.StatusCode.DEADLINE_EXCEEDED, None, True),
        (grpc.StatusCode.ABORTED, "CONTENTION", True),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED", True),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "OVERLOADED", True),
        (grpc.StatusCode.ABORTED, "STALE_PLY", False),
        (grpc.StatusCode.INVALID_ARGUMENT, "ILLEGAL_MOVE", False),
        (grpc.StatusCode.PERMISSION_DENIED, "NOT_A_SEAT", False),
        (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN", False),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "WATCHER_TOO_SLOW", False),
        (grpc.StatusCode.CANCELLED, None, False),
    ],
)
def test_which_errors_are_retried(code: grpc.StatusCode, reason: Optional[str], retryable: bool) -> None:
    failures = [FakeRpcError(code, reason)]
    slept: list[float] = []

    def attempt() -> str:
        if failures:
            raise failures.pop()
        return "done"

    policy = RetryPolicy(max_attempts=3, initial_backoff=0.01)
    if retryable:
        assert call_with_retry(attempt, policy, sleep=slept.append) == "done"
        assert len(slept) == 1
    else:
        with pytest.raises(ArbiterError) as raised:
            call_with_retry(attempt, policy, sleep=slept.append)
        assert (raised.value.code, raised.value.reason) == (code, reason)
        assert slept == []


def test_retries_are_bounded_with_exponential_backoff() -> None:
    slept: list[float] = []
    calls = 0

    def attempt() -> None:
        nonlocal calls
        calls += 1
        raise FakeRpcError(grpc.StatusCode.UNAVAILABLE)

    policy = RetryPolicy(max_attempts=5, initial_backoff=0.1, max_backoff=0.5, multiplier=2, jitter=0)
    with pytest.raises(ArbiterError) as raised:
        call_with_retry(attempt, policy, sleep=slept.append)
    assert raised.value.code == grpc.StatusCode.UNAVAILABLE
    assert calls == 5
    assert slept == pytest.approx([0.1, 0.2, 0.4, 0.5])


def test_retry_waits_at_least_what_the_server_advises() -> None:
    policy = RetryPolicy(initial_backoff=0.01, max_backoff=2.0, jitter=0)
    assert policy.backoff(1, advised=0.3) == pytest.approx(0.3)
    assert policy.backoff(1, advised=60) == pytest.approx(2.0)  # still bounded


def _event(version: int) -> pb.WatchGameResponse:
    return pb.WatchGameResponse(
        event=pb.GameEvent(version=version, game_id="g", move_made=pb.MoveMade(ply=version - 1)),
        resume_token=f"{version}.{version:016x}",
    )


class FakeStream:
    """A WatchGame call: some messages, then an error or the end."""

    def __init__(self, messages: list[pb.WatchGameResponse], error: Optional[grpc.RpcError]) -> None:
        self._messages = messages
        self._error = error
        self.cancelled = False

    def __iter__(self) -> Iterator[pb.WatchGameResponse]:
        yield from self._messages
        if self._error is not None:
            raise self._error

    def cancel(self) -> bool:
        self.cancelled = True
        return True


class FakeStub:
    """Answers each WatchGame request with the next scripted stream."""

    def __init__(self, streams: list[FakeStream]) -> None:
        self._streams = streams
        self.requests: list[pb.WatchGameRequest] = []

    def WatchGame(self, request: pb.WatchGameRequest) -> FakeStream:  # noqa: N802 - the stub's name
        self.requests.append(request)
        return self._streams.pop(0)


def test_watch_resumes_after_a_slow_reader_was_cut_off() -> None:
    snapshot = pb.WatchGameResponse(snapshot=pb.Game(game_id="g", version=1), resume_token="1.00")
    stub = FakeStub(
        [
            FakeStream([snapshot, _event(2)], FakeRpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, "WATCHER_TOO_SLOW")),
            FakeStream([_event(3)], FakeRpcError(grpc.StatusCode.UNAVAILABLE, "SHUTTING_DOWN")),
            FakeStream([_event(4)], None),
        ]
    )
    watch = GameWatch(stub, "g", policy=RetryPolicy(max_attempts=3, initial_backoff=0.001))  # type: ignore[arg-type]
    versions = [update.version for update in watch]
    assert versions == [1, 2, 3, 4]
    assert watch.reconnects == 2
    assert [r.resume_token for r in stub.requests] == ["", _event(2).resume_token, _event(3).resume_token]
    assert stub.requests[0].after_version == 0


def test_watch_restarts_from_a_snapshot_when_history_was_rewritten() -> None:
    snapshot = pb.WatchGameResponse(snapshot=pb.Game(game_id="g", version=5), resume_token="5.00")
    stub = FakeStub(
        [
            FakeStream([], FakeRpcError(grpc.StatusCode.FAILED_PRECONDITION, "HISTORY_REWRITTEN")),
            FakeStream([snapshot, _event(6)], None),
        ]
    )
    watch = GameWatch(stub, "g", resume_token="7.ffffffffffffffff")  # type: ignore[arg-type]
    updates = list(watch)
    assert [(u.kind, u.version, u.history_rewritten) for u in updates] == [
        ("snapshot", 5, True),
        ("event", 6, False),
    ]
    assert watch.restarts == 1
    assert stub.requests[1].resume_token == "" and stub.requests[1].after_version == 0


def test_watch_gives_up_on_errors_that_reconnecting_cannot_cure() -> None:
    stub = FakeStub([FakeStream([], FakeRpcError(grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND"))])
    with pytest.raises(ArbiterError) as raised:
        list(GameWatch(stub, "g"))  # type: ignore[arg-type]
    assert raised.value.reason == "GAME_NOT_FOUND"
    assert len(stub.requests) == 1

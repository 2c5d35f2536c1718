"""Typed errors: every failed call surfaces as an :class:`ArbiterError`.

The server attaches a ``google.rpc.Status`` to every error, sent in the
``grpc-status-details-bin`` trailer. Its details hold a
``google.rpc.ErrorInfo`` (domain ``chessarbiter.v1``) whose ``reason`` names
the error (``ILLEGAL_MOVE``, ``NOT_A_SEAT``, ...; written without the proto
enum's ``ERROR_REASON_`` prefix) and, when the rules refused an action on a
game, whose ``metadata`` holds the game's ``ply`` and ``side_to_move``. Some
errors also carry a ``RetryInfo`` (when to retry), a ``BadRequest`` (which
field) or a ``PreconditionFailure``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

#: The ErrorInfo domain of every error the arbiter sends.
DOMAIN = "chessarbiter.v1"

#: Trailer that carries the serialized ``google.rpc.Status``.
STATUS_DETAILS_KEY = "grpc-status-details-bin"

#: Reasons after which the same request may simply be sent again: too many
#: simultaneous writers, the store out of reach, or the server at its limit
#: of requests or of a seat's or client's writes (nothing was applied).
RETRYABLE_REASONS = frozenset({"CONTENTION", "STORAGE_UNAVAILABLE", "OVERLOADED", "RATE_LIMITED"})

#: Codes after which any request may be sent again. UNAVAILABLE also covers a
#: connection that failed or dropped (a move may then have been applied:
#: repeating it at the same ply is recognised by the server) and a server
#: that is shutting down (SHUTTING_DOWN). DEADLINE_EXCEEDED is the client's
#: own deadline.
RETRYABLE_CODES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


@dataclass(frozen=True)
class FieldViolation:
    """One field of a ``google.rpc.BadRequest``: which field, and what is wrong."""

    field: str
    description: str


@dataclass(frozen=True)
class PreconditionViolation:
    """One violation of a ``google.rpc.PreconditionFailure``."""

    type: str
    subject: str
    description: str


class ArbiterError(Exception):
    """A call the arbiter (or the transport) refused.

    Attributes:
        code: the gRPC status code, e.g. ``grpc.StatusCode.INVALID_ARGUMENT``.
        reason: the ``ErrorInfo.reason`` (``"ILLEGAL_MOVE"``), or ``None`` for
            errors that carry none (transport failures, a request over the
            size limit, a server-side timeout).
        message: the server's message, saying exactly what is wrong.
        metadata: the ``ErrorInfo.metadata``; for rule refusals the game's
            ``ply`` and ``side_to_move`` (``"white"``/``"black"``).
        domain: the ``ErrorInfo.domain`` (``"chessarbiter.v1"``), or ``None``.
        retry_delay: seconds the ``RetryInfo`` advises to wait, if any.
        field_violations: the ``BadRequest`` fields, if any.
        precondition_violations: the ``PreconditionFailure`` entries, if any.
        details: every detail message, unpacked where the type is known
            (``ErrorInfo``, ``RetryInfo``, ``BadRequest``,
            ``PreconditionFailure``), else the raw ``Any``.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        *,
        reason: Optional[str] = None,
        domain: Optional[str] = None,
        metadata: Optional[Mapping[str, str]] = None,
        retry_delay: Optional[float] = None,
        field_violations: Sequence[FieldViolation] = (),
        precondition_violations: Sequence[PreconditionViolation] = (),
        details: Sequence[Any] = (),
    ) -> None:
        self.code = code
        self.message = message
        self.reason = reason
        self.domain = domain
        self.metadata: dict[str, str] = dict(metadata or {})
        self.retry_delay = retry_delay
        self.field_violations = tuple(field_violations)
        self.precondition_violations = tuple(precondition_violations)
        self.details = tuple(details)
        super().__init__(str(self))

    def __str__(self) -> str:
        reason = f" ({self.reason})" if self.reason else ""
        return f"{self.code.name}{reason}: {self.message}"

    def __repr__(self) -> str:
        return (
            f"ArbiterError(code={self.code.name}, reason={self.reason!r}, "
            f"message={self.message!r}, metadata={self.metadata!r})"
        )

    @property
    def retryable(self) -> bool:
        """Whether the same request may simply be sent again.

        True for UNAVAILABLE and DEADLINE_EXCEEDED, and for the reasons the
        proto marks "retry" (CONTENTION, STORAGE_UNAVAILABLE) or the README
        says to retry (OVERLOADED, RATE_LIMITED). Never for a refusal by the
        rules, a bad request or bad credentials.
        """
        return self.code in RETRYABLE_CODES or self.reason in RETRYABLE_REASONS

    @property
    def ply(self) -> Optional[int]:
        """The game's ply from the error's metadata, when the rules refused an action."""
        value = self.metadata.get("ply")
        return int(value) if value is not None and value.isdigit() else None

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> "ArbiterError":
        """Reads the code, message and rich details of a failed call."""
        code = _call_attr(error, "code", grpc.StatusCode.UNKNOWN)
        message = _call_attr(error, "details", None) or ""
        trailers = _call_attr(error, "trailing_metadata", None) or ()
        status = _status_from_trailers(trailers)
        if status is None:
            return cls(code, message)
        return cls.from_status(code, status)

    @classmethod
    def from_status(cls, code: grpc.StatusCode, status: status_pb2.Status) -> "ArbiterError":
        """Builds the error from a decoded ``google.rpc.Status``."""
        reason: Optional[str] = None
        domain: Optional[str] = None
        metadata: dict[str, str] = {}
        retry_delay: Optional[float] = None
        fields: list[FieldViolation] = []
        preconditions: list[PreconditionViolation] = []
        details: list[Any] = []
        for detail in status.details:
            unpacked = _unpack(detail)
            details.append(unpacked)
            if isinstance(unpacked, error_details_pb2.ErrorInfo):
                reason = unpacked.reason or None
                domain = unpacked.domain or None
                metadata.update(unpacked.metadata)
            elif isinstance(unpacked, error_details_pb2.RetryInfo):
                retry_delay = unpacked.retry_delay.ToTimedelta().total_seconds()
            elif isinstance(unpacked, error_details_pb2.BadRequest):
                fields.extend(
                    FieldViolation(v.field, v.description) for v in unpacked.field_violations
                )
            elif isinstance(unpacked, error_details_pb2.PreconditionFailure):
                preconditions.extend(
                    PreconditionViolation(v.type, v.subject, v.description)
                    for v in unpacked.violations
                )
        return cls(
            code,
            status.message,
            reason=reason,
            domain=domain,
            metadata=metadata,
            retry_delay=retry_delay,
            field_violations=fields,
            precondition_violations=preconditions,
            details=details,
        )


def _call_attr(error: grpc.RpcError, name: str, default: Any) -> Any:
    # A grpc.RpcError raised by a call is also a grpc.Call; one raised by
    # other code may not be.
    method = getattr(error, name, None)
    if method is None:
        return default
    try:
        return method()
    except Exception:  # noqa: BLE001 - a broken error object must not hide the original
        return default


def _status_from_trailers(trailers: Sequence[tuple[str, Any]]) -> Optional[status_pb2.Status]:
    for key, value in trailers:
        if key == STATUS_DETAILS_KEY:
            status = status_pb2.Status()
            try:
                status.ParseFromString(value)
            except Exception:  # noqa: BLE001 - undecodable details: keep the code and message
                return None
            return status
    return None


_DETAIL_TYPES = (
    error_details_pb2.ErrorInfo,
    error_details_pb2.RetryInfo,
    error_details_pb2.BadRequest,
    error_details_pb2.PreconditionFailure,
)


def _unpack(detail: any_pb2.Any) -> Any:
    for kind in _DETAIL_TYPES:
        if detail.Is(kind.DESCRIPTOR):
            message = kind()
            detail.Unpack(message)
            return message
    return detail


__all__ = [
    "ArbiterError",
    "DOMAIN",
    "FieldViolation",
    "PreconditionViolation",
    "RETRYABLE_CODES",
    "RETRYABLE_REASONS",
]

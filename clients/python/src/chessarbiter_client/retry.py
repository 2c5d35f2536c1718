"""Bounded exponential backoff for requests that are safe to repeat."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Callable, Optional, TypeVar

import grpc

from .errors import ArbiterError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """How often, and how patiently, a retryable failure is retried.

    The n-th retry waits ``initial_backoff * multiplier ** (n - 1)`` seconds,
    at most ``max_backoff``, with up to ``jitter`` of it added or taken at
    random (so that clients that failed together do not retry together);
    never less than the server's ``RetryInfo`` advice. After
    ``max_attempts`` attempts in all, the last error is raised.
    """

    max_attempts: int = 6
    initial_backoff: float = 0.05
    max_backoff: float = 2.0
    multiplier: float = 2.0
    jitter: float = 0.2

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.initial_backoff < 0 or self.max_backoff < 0 or self.multiplier < 1:
            raise ValueError("backoffs must be non-negative and multiplier at least 1")
        if not 0 <= self.jitter <= 1:
            raise ValueError("jitter must be between 0 and 1")

    def backoff(self, retry: int, advised: Optional[float] = None) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first)."""
        base = min(self.max_backoff, self.initial_backoff * self.multiplier ** (retry - 1))
        delay = base * (1 + self.jitter * (2 * random.random() - 1))
        if advised is not None:
            delay = max(delay, min(advised, self.max_backoff))
        return max(0.0, delay)


#: A policy that never retries.
NO_RETRY = RetryPolicy(max_attempts=1)


def call_with_retry(
    attempt: Callable[[], T],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    on_retry: Optional[Callable[[ArbiterError, float], None]] = None,
) -> T:
    """Calls ``attempt`` until it succeeds, fails for good, or runs out of attempts.

    A ``grpc.RpcError`` becomes an :class:`ArbiterError`; only a retryable
    one (see :attr:`ArbiterError.retryable`) is tried again, after a backoff.
    The request itself must be safe to repeat: the caller sends the very
    same request each time.
    """
    retry = 0
    while True:
        try:
            return attempt()
        except grpc.RpcError as rpc_error:
            error = ArbiterError.from_rpc_error(rpc_error)
            retry += 1
            if not error.retryable or retry >= policy.max_attempts:
                raise error from rpc_error
            delay = policy.backoff(retry, error.retry_delay)
            if on_retry is not None:
                on_retry(error, delay)
            sleep(delay)

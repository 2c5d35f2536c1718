/** Bounded exponential backoff for requests that are safe to repeat. */

import { ArbiterError } from "./errors.js";

/**
 * How often, and how patiently, a retryable failure is retried.
 *
 * The n-th retry waits `initialBackoffMs * multiplier ** (n - 1)`, at most
 * `maxBackoffMs`, with up to `jitter` of it added or taken at random (so that
 * clients that failed together do not retry together); never less than the
 * server's `RetryInfo` advice (itself capped at `maxBackoffMs`). After
 * `maxAttempts` attempts in all, the last error is thrown.
 */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  readonly multiplier: number;
  readonly jitter: number;
}

/** The default policy: 6 attempts, 50 ms doubling up to 2 s, ±20 % jitter. */
export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  maxAttempts: 6,
  initialBackoffMs: 50,
  maxBackoffMs: 2000,
  multiplier: 2,
  jitter: 0.2,
});

/** A policy that never retries. */
export const NO_RETRY: RetryPolicy = Object.freeze({ ...DEFAULT_RETRY, maxAttempts: 1 });

/** The default policy with some settings changed; checks the result. */
export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY, ...overrides };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new RangeError("maxAttempts must be an integer, at least 1");
  }
  if (policy.initialBackoffMs < 0 || policy.maxBackoffMs < 0 || policy.multiplier < 1) {
    throw new RangeError("backoffs must be non-negative and multiplier at least 1");
  }
  if (!(policy.jitter >= 0 && policy.jitter <= 1)) throw new RangeError("jitter must be between 0 and 1");
  return Object.freeze(policy);
}

/** Milliseconds to wait before retry number `retry` (1 for the first). */
export function backoffMs(policy: RetryPolicy, retry: number, advisedMs?: number): number {
  const base = Math.min(policy.maxBackoffMs, policy.initialBackoffMs * policy.multiplier ** (retry - 1));
  let delay = base * (1 + policy.jitter * (2 * Math.random() - 1));
  if (advisedMs !== undefined) delay = Math.max(delay, Math.min(advisedMs, policy.maxBackoffMs));
  return Math.max(0, delay);
}

/** Waits `ms`, or less when `signal` aborts (then rejects with its reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Called before each retry with the error and the wait. */
export type OnRetry = (error: ArbiterError, delayMs: number, attempt: number) => void;

/**
 * Calls `attempt` until it succeeds, fails for good, or runs out of attempts.
 *
 * Any failure becomes an {@link ArbiterError}; only a retryable one (see
 * `ArbiterError.retryable`) is tried again, after a backoff. The request must
 * be safe to repeat: the caller sends the very same request each time.
 */
export async function callWithRetry<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  options: { signal?: AbortSignal | undefined; onRetry?: OnRetry | undefined } = {},
): Promise<T> {
  for (let retry = 1; ; retry++) {
    try {
      return await attempt();
    } catch (reason) {
      const error = ArbiterError.from(reason);
      if (!error.retryable || retry >= policy.maxAttempts || options.signal?.aborted) throw error;
      const delay = backoffMs(policy, retry, error.retryDelayMs);
      options.onRetry?.(error, delay, retry);
      await sleep(delay, options.signal);
    }
  }
}

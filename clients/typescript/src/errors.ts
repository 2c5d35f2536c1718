/**
 * Typed errors: every failed call surfaces as an {@link ArbiterError}.
 *
 * The server attaches a `google.rpc.Status` to every error (the
 * `grpc-status-details-bin` trailer, over gRPC and gRPC-Web alike), which
 * Connect-ES exposes through `ConnectError.findDetails()`. Its details hold a
 * `google.rpc.ErrorInfo` (domain `chessarbiter.v1`) whose `reason` names the
 * error (`ILLEGAL_MOVE`, `NOT_A_SEAT`, ...; written without the proto enum's
 * `ERROR_REASON_` prefix) and, when the rules refused an action on a game,
 * whose `metadata` holds the game's `ply` and `side_to_move`. Some errors also
 * carry a `RetryInfo` (when to retry), a `BadRequest` (which field) or a
 * `PreconditionFailure`.
 */

import { Code, ConnectError } from "@connectrpc/connect";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  RetryInfoSchema,
} from "./gen/google/rpc/error_details_pb.js";

export { Code };

/** The ErrorInfo domain of every error the arbiter sends. */
export const DOMAIN = "chessarbiter.v1";

/**
 * Reasons after which the same request may simply be sent again: too many
 * simultaneous writers, the store out of reach, or the server at its limit of
 * requests or of a seat's or client's writes (nothing was applied).
 */
export const RETRYABLE_REASONS: ReadonlySet<string> = new Set([
  "CONTENTION",
  "STORAGE_UNAVAILABLE",
  "OVERLOADED",
  "RATE_LIMITED",
]);

/**
 * Codes after which any request may be sent again. UNAVAILABLE also covers a
 * connection that failed or dropped (a move may then have been applied:
 * repeating it at the same ply is recognised by the server) and a server that
 * is shutting down (SHUTTING_DOWN). DEADLINE_EXCEEDED is the client's own
 * deadline.
 */
export const RETRYABLE_CODES: ReadonlySet<Code> = new Set([Code.Unavailable, Code.DeadlineExceeded]);

/** One field of a `google.rpc.BadRequest`: which field, and what is wrong. */
export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

/** One violation of a `google.rpc.PreconditionFailure`. */
export interface PreconditionViolation {
  readonly type: string;
  readonly subject: string;
  readonly description: string;
}

/** `Code.InvalidArgument` as gRPC writes it: `"INVALID_ARGUMENT"`. */
export function codeName(code: Code): string {
  const name = Code[code] as string | undefined;
  if (name === undefined) return `CODE_${code}`;
  return name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase().replace(/^CANCELED$/, "CANCELLED");
}

/**
 * A call the arbiter (or the transport) refused.
 *
 * `reason` is the `ErrorInfo.reason` (`"ILLEGAL_MOVE"`), or `undefined` for
 * errors that carry none (transport failures, a request over the size limit,
 * a server-side timeout). `metadata` is the `ErrorInfo.metadata`: for rule
 * refusals the game's `ply` and `side_to_move` (`"white"`/`"black"`).
 * `retryDelayMs` is the `RetryInfo` advice, if any. `cause` is the original
 * `ConnectError`.
 */
export class ArbiterError extends Error {
  override readonly name = "ArbiterError";
  /** The gRPC status code (Connect-ES's `Code`, e.g. `Code.InvalidArgument`). */
  readonly code: Code;
  /** The server's message, saying exactly what is wrong. */
  readonly rawMessage: string;
  /** The `ErrorInfo.reason`, without the enum's `ERROR_REASON_` prefix. */
  readonly reason: string | undefined;
  /** The `ErrorInfo.domain` (`"chessarbiter.v1"`). */
  readonly domain: string | undefined;
  /** The `ErrorInfo.metadata`. */
  readonly metadata: Readonly<Record<string, string>>;
  /** Milliseconds the `RetryInfo` advises to wait, if any. */
  readonly retryDelayMs: number | undefined;
  /** The `BadRequest` fields, if any. */
  readonly fieldViolations: readonly FieldViolation[];
  /** The `PreconditionFailure` entries, if any. */
  readonly preconditionViolations: readonly PreconditionViolation[];
  /** Whether a gRPC status came from the server (`grpc-status`), rather than from the transport. */
  readonly statusReceived: boolean;

  constructor(
    code: Code,
    rawMessage: string,
    details: {
      reason?: string | undefined;
      domain?: string | undefined;
      metadata?: Record<string, string>;
      retryDelayMs?: number | undefined;
      fieldViolations?: FieldViolation[];
      preconditionViolations?: PreconditionViolation[];
      statusReceived?: boolean;
      cause?: unknown;
    } = {},
  ) {
    super(`${codeName(code)}${details.reason ? ` (${details.reason})` : ""}: ${rawMessage}`, {
      cause: details.cause,
    });
    this.code = code;
    this.rawMessage = rawMessage;
    this.reason = details.reason;
    this.domain = details.domain;
    this.metadata = Object.freeze({ ...details.metadata });
    this.retryDelayMs = details.retryDelayMs;
    this.fieldViolations = Object.freeze([...(details.fieldViolations ?? [])]);
    this.preconditionViolations = Object.freeze([...(details.preconditionViolations ?? [])]);
    this.statusReceived = details.statusReceived ?? false;
  }

  /** The code as gRPC writes it, e.g. `"INVALID_ARGUMENT"`. */
  get codeName(): string {
    return codeName(this.code);
  }

  /**
   * Whether the same request may simply be sent again: UNAVAILABLE,
   * DEADLINE_EXCEEDED and a lost connection (see `connectionLost`), and the
   * reasons the proto marks "retry" (CONTENTION, STORAGE_UNAVAILABLE) or the
   * README says to retry (OVERLOADED, RATE_LIMITED). Never a refusal by the
   * rules, a bad request or bad credentials.
   */
  get retryable(): boolean {
    return (
      RETRYABLE_CODES.has(this.code) ||
      (this.reason !== undefined && RETRYABLE_REASONS.has(this.reason)) ||
      this.connectionLost
    );
  }

  /**
   * Whether the connection broke off before the server's status arrived.
   * Connect-ES (Node) reports a dropped connection as ABORTED (ECONNRESET,
   * "socket hang up", over HTTP/1.1), CANCELLED (the HTTP/2 stream closed
   * with CANCEL when its session died) or INTERNAL (a response cut off before
   * its trailers), with no `grpc-status` from the server and no ErrorInfo;
   * the arbiter's own ABORTED and INTERNAL always carry a reason (STALE_PLY,
   * CONTENTION, CORRUPT_DATA). Like UNAVAILABLE, the request may or may not
   * have been applied. (A call the caller cancelled looks the same: this
   * package passes no signal of its own to unary calls, and its retries stop
   * once a given signal has aborted.)
   */
  get connectionLost(): boolean {
    return (
      !this.statusReceived &&
      this.reason === undefined &&
      (this.code === Code.Aborted || this.code === Code.Canceled || this.code === Code.Internal)
    );
  }

  /** The game's ply from the error's metadata, when the rules refused an action. */
  get ply(): number | undefined {
    const value = this.metadata["ply"];
    return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
  }

  /** Reads the code, message and rich details of a failed call (any thrown value). */
  static from(reason: unknown): ArbiterError {
    if (reason instanceof ArbiterError) return reason;
    const error = ConnectError.from(reason);
    let info: { reason?: string; domain?: string; metadata: Record<string, string> } = { metadata: {} };
    for (const detail of error.findDetails(ErrorInfoSchema)) {
      info = {
        metadata: { ...info.metadata, ...detail.metadata },
        ...(detail.reason ? { reason: detail.reason } : {}),
        ...(detail.domain ? { domain: detail.domain } : {}),
      };
    }
    let retryDelayMs: number | undefined;
    for (const detail of error.findDetails(RetryInfoSchema)) {
      const delay = detail.retryDelay;
      if (delay !== undefined) retryDelayMs = Number(delay.seconds) * 1000 + delay.nanos / 1e6;
    }
    const fieldViolations = error
      .findDetails(BadRequestSchema)
      .flatMap((d) => d.fieldViolations.map((v) => ({ field: v.field, description: v.description })));
    const preconditionViolations = error
      .findDetails(PreconditionFailureSchema)
      .flatMap((d) => d.violations.map((v) => ({ type: v.type, subject: v.subject, description: v.description })));
    return new ArbiterError(error.code, error.rawMessage, {
      reason: info.reason,
      domain: info.domain,
      metadata: info.metadata,
      retryDelayMs,
      fieldViolations,
      preconditionViolations,
      statusReceived: error.metadata.has("grpc-status"),
      cause: error,
    });
  }
}

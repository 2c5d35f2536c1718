/**
 * The package on its own: it imports side by side with chess.js, by its
 * published name; errors decode the arbiter's details; backoff stays bounded.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import * as chessjs from "chess.js";
import { Chess, type Move } from "chess.js";
import { create } from "@bufbuild/protobuf";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import { ConnectError } from "@connectrpc/connect";
import * as client from "@chess-arbiter/client";
import { ArbiterError, Code, DEFAULT_RETRY, type MoveLike, backoffMs, callWithRetry, pb, retryPolicy, rpc } from "@chess-arbiter/client";
import * as pbByPath from "@chess-arbiter/client/pb";

test("imports side by side with chess.js: no exported name in common", () => {
  const ours = Object.keys(client);
  const theirs = new Set(Object.keys(chessjs));
  assert.ok(ours.includes("ArbiterClient") && theirs.has("Chess"));
  assert.deepEqual(ours.filter((name) => theirs.has(name)), []);
  // The generated code sits in its own namespace (also `@chess-arbiter/client/pb`).
  assert.equal(pb.GameStatus, pbByPath.GameStatus);
  assert.equal(pb.ArbiterService.typeName, "chessarbiter.v1.ArbiterService");
  assert.equal(pb.AdminService.typeName, "chessarbiter.v1.AdminService");
});

test("a chess.js move is a MoveLike, and builds a MakeMoveRequest", () => {
  const chess = new Chess();
  const ply = chess.history().length;
  const move: Move = chess.move("e4");
  const like: MoveLike = move;
  const request = create(pb.MakeMoveRequestSchema, { gameId: "g", move: typeof like === "string" ? like : move.lan, ply });
  assert.equal(request.move, "e2e4");
  assert.equal(request.ply, 0);
});

test("ArbiterError reads ErrorInfo and RetryInfo from a ConnectError's details", () => {
  const error = new ConnectError("too many simultaneous writers", Code.Aborted, undefined, [
    { desc: rpc.ErrorInfoSchema, value: { reason: "CONTENTION", domain: "chessarbiter.v1", metadata: { ply: "4" } } },
    { desc: rpc.RetryInfoSchema, value: { retryDelay: durationFromMs(250) } },
  ]);
  const decoded = ArbiterError.from(error);
  assert.equal(decoded.code, Code.Aborted);
  assert.equal(decoded.codeName, "ABORTED");
  assert.equal(decoded.reason, "CONTENTION");
  assert.equal(decoded.domain, "chessarbiter.v1");
  assert.equal(decoded.ply, 4);
  assert.equal(decoded.retryDelayMs, 250);
  assert.ok(decoded.retryable);
  assert.equal(decoded.cause, error);
  assert.ok(!ArbiterError.from(new ConnectError("bad", Code.InvalidArgument)).retryable);
  assert.ok(ArbiterError.from(new ConnectError("gone", Code.Unavailable)).retryable);
  assert.ok(ArbiterError.from(new ConnectError("late", Code.DeadlineExceeded)).retryable);
  assert.equal(ArbiterError.from(new ConnectError("x", Code.Canceled)).codeName, "CANCELLED");
  // The server's own CANCELLED (its request timeout) came with a status.
  assert.ok(!ArbiterError.from(new ConnectError("Timeout expired", Code.Canceled, { "grpc-status": "1" })).retryable);
  // A reset connection, as Connect-ES reports it (no ErrorInfo): retryable.
  const reset = ArbiterError.from(new ConnectError("socket hang up", Code.Aborted));
  assert.ok(reset.connectionLost && reset.retryable);
  // The arbiter's own ABORTED always has a reason; STALE_PLY is not retryable.
  const stale = ArbiterError.from(
    new ConnectError("stale", Code.Aborted, undefined, [{ desc: rpc.ErrorInfoSchema, value: { reason: "STALE_PLY" } }]),
  );
  assert.ok(!stale.connectionLost && !stale.retryable);
});

test("backoff grows exponentially, is bounded, and respects RetryInfo", () => {
  const policy = retryPolicy({ jitter: 0 });
  assert.deepEqual([1, 2, 3, 4].map((n) => backoffMs(policy, n)), [50, 100, 200, 400]);
  assert.equal(backoffMs(policy, 20), DEFAULT_RETRY.maxBackoffMs);
  assert.equal(backoffMs(policy, 1, 700), 700);
  assert.equal(backoffMs(policy, 1, 60_000), DEFAULT_RETRY.maxBackoffMs);
  for (let i = 0; i < 100; i++) {
    const delay = backoffMs(DEFAULT_RETRY, 2);
    assert.ok(delay >= 80 && delay <= 120, `${delay}`);
  }
  assert.throws(() => retryPolicy({ maxAttempts: 0 }), RangeError);
});

test("callWithRetry retries only retryable errors, at most maxAttempts times", async () => {
  const policy = retryPolicy({ maxAttempts: 3, initialBackoffMs: 1, jitter: 0 });
  let calls = 0;
  const value = await callWithRetry(async () => {
    if (++calls < 3) throw new ConnectError("down", Code.Unavailable);
    return "ok";
  }, policy);
  assert.deepEqual([value, calls], ["ok", 3]);

  calls = 0;
  await assert.rejects(
    callWithRetry(async () => {
      calls++;
      throw new ConnectError("down", Code.Unavailable);
    }, policy),
    (error: unknown) => error instanceof ArbiterError && error.code === Code.Unavailable,
  );
  assert.equal(calls, 3);

  calls = 0;
  await assert.rejects(
    callWithRetry(async () => {
      calls++;
      throw new ConnectError("no", Code.PermissionDenied);
    }, policy),
    ArbiterError,
  );
  assert.equal(calls, 1);
});

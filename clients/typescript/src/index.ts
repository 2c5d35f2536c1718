/**
 * A TypeScript client for the chess arbiter (gRPC package `chessarbiter.v1`),
 * over gRPC or gRPC-Web with Connect-ES.
 *
 *     import { ArbiterClient } from "@chess-arbiter/client";
 *
 *     const client = ArbiterClient.connect("http://127.0.0.1:50051", { adminToken: "..." });
 *     const created = await client.createGame("Carlsen", "Ding");
 *     await client.makeMove(created.gameId, created.whiteToken, "e4", 0);
 *
 * `pb` holds the generated messages, enums and service descriptors
 * (`pb.GameStatus`, `pb.ArbiterService`, ...), also importable from
 * `@chess-arbiter/client/pb`. Nothing is exported at the top level under a
 * name chess.js uses, so both import side by side.
 */

export * as pb from "./gen/chessarbiter/v1/arbiter_pb.js";
/** google.rpc's error details (`ErrorInfoSchema`, `RetryInfoSchema`, ...), for `ConnectError.findDetails`. */
export * as rpc from "./gen/google/rpc/error_details_pb.js";
export {
  ArbiterClient,
  createArbiterTransport,
  type ActionResult,
  type ArbiterClientOptions,
  type ClaimResult,
  type CreatedGame,
  type MoveLike,
  type PlayerLike,
  type Protocol,
  type TransportOptions,
} from "./client.js";
export {
  ArbiterError,
  Code,
  DOMAIN,
  RETRYABLE_CODES,
  RETRYABLE_REASONS,
  codeName,
  type FieldViolation,
  type PreconditionViolation,
} from "./errors.js";
export { DEFAULT_RETRY, NO_RETRY, backoffMs, callWithRetry, retryPolicy, type OnRetry, type RetryPolicy } from "./retry.js";
export { GameWatch, endsGame, type GameWatchOptions, type WatchUpdate } from "./watch.js";

/**
 * Watching a game: a stream that survives dropped connections.
 *
 * {@link GameWatch} iterates over a game's `WatchGame` stream and, when the
 * stream breaks off (the connection dropped or the server stopped:
 * UNAVAILABLE, or what Connect-ES reports for a reset or truncated
 * connection, see `ArbiterError.connectionLost`; the reader fell too far behind: RESOURCE_EXHAUSTED
 * `WATCHER_TOO_SLOW`; the server's stream limit: `TOO_MANY_STREAMS`), opens it
 * again with the `resume_token` of the last message received, so that the
 * caller sees every event exactly once and in order. When the server answers
 * that the event the token names is no longer the game's history
 * (FAILED_PRECONDITION `HISTORY_REWRITTEN`, after a storage failover lost
 * events), the watch starts again from a fresh snapshot, which it hands over
 * with `historyRewritten: true`: the caller must drop what it built from the
 * earlier events.
 */

import type { Client } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { Code, ArbiterError } from "./errors.js";
import { type RetryPolicy, backoffMs, sleep } from "./retry.js";
import {
  type ArbiterService,
  type Game,
  type GameEvent,
  GameStatus,
  type Heartbeat,
  type WatchGameResponse,
  WatchGameRequestSchema,
} from "./gen/chessarbiter/v1/arbiter_pb.js";

/** RESOURCE_EXHAUSTED reasons after which a watch is opened again. */
const RESUMABLE_EXHAUSTION: ReadonlySet<string> = new Set(["WATCHER_TOO_SLOW", "TOO_MANY_STREAMS"]);

/** Event kinds that always end a game's stream. */
const FINAL_EVENTS: ReadonlySet<string> = new Set(["gameEnded", "gameAborted"]);

/** One message of a watched game: a snapshot, an event or a heartbeat. */
export type WatchUpdate =
  | {
      readonly kind: "snapshot";
      readonly snapshot: Game;
      readonly version: number;
      readonly resumeToken: string;
      /** Set on the snapshot that restarts a watch after HISTORY_REWRITTEN. */
      readonly historyRewritten: boolean;
      readonly message: WatchGameResponse;
    }
  | {
      readonly kind: "event";
      readonly event: GameEvent;
      /** The event's kind: `"moveMade"`, `"gameEnded"`, ... */
      readonly eventKind: NonNullable<GameEvent["kind"]["case"]>;
      readonly version: number;
      readonly resumeToken: string;
      readonly historyRewritten: boolean;
      readonly message: WatchGameResponse;
    }
  | {
      readonly kind: "heartbeat";
      readonly heartbeat: Heartbeat;
      /** The server's current version of the game (events may be on their way). */
      readonly version: number;
      readonly resumeToken: "";
      readonly historyRewritten: false;
      readonly message: WatchGameResponse;
    };

/** Options of {@link GameWatch}. */
export interface GameWatchOptions {
  /** Resume after this version (0, the default: start with a snapshot). */
  readonly afterVersion?: number;
  /** Resume after the message with this token (preferred: detects a rewritten history). */
  readonly resumeToken?: string;
  /** Also hand out the server's heartbeats. */
  readonly heartbeats?: boolean;
  /** Bounds the attempts in a row that receive nothing (10 by default). */
  readonly reconnect?: RetryPolicy;
  /** Stops the watch (the iteration then ends instead of throwing). */
  readonly signal?: AbortSignal;
  /** Called before each reconnection with the error and the wait. */
  readonly onReconnect?: (error: ArbiterError, delayMs: number) => void;
}

function resumable(error: ArbiterError): boolean {
  if (error.code === Code.Unavailable || error.connectionLost) return true;
  return error.code === Code.ResourceExhausted && error.reason !== undefined && RESUMABLE_EXHAUSTION.has(error.reason);
}

/**
 * An async iterator over a game's updates that reconnects by itself.
 *
 * It ends when the game has ended and every event has been delivered (the
 * server closes the stream), or after {@link GameWatch.cancel} (or `break` in
 * a `for await` loop). It throws {@link ArbiterError} on an error that
 * reconnecting cannot cure (GAME_NOT_FOUND, VERSION_AHEAD, ...) or after
 * `reconnect.maxAttempts` failed attempts in a row without receiving anything.
 *
 * `resumeToken` and `version` always describe the last update handed out, so
 * a watch cancelled part-way can be continued later by
 * `client.watchGame(gameId, { resumeToken: watch.resumeToken })`.
 */
export class GameWatch implements AsyncIterator<WatchUpdate, void, undefined>, AsyncIterable<WatchUpdate, void, undefined> {
  /** The token of the last snapshot or event handed out (or given). */
  resumeToken: string;
  /** The version of the last snapshot or event handed out (or given). */
  version: number;
  /** How many times the stream was opened again after a failure. */
  reconnects = 0;
  /** How many times the watch restarted from a snapshot after HISTORY_REWRITTEN. */
  restarts = 0;

  private readonly controller = new AbortController();
  private readonly updates: AsyncGenerator<WatchUpdate, void, undefined>;

  constructor(
    private readonly arbiter: Client<typeof ArbiterService>,
    readonly gameId: string,
    private readonly options: GameWatchOptions & { readonly reconnect: RetryPolicy },
  ) {
    const afterVersion = options.afterVersion ?? 0;
    if (!Number.isInteger(afterVersion) || afterVersion < 0) {
      throw new RangeError("afterVersion must be a non-negative integer");
    }
    this.version = afterVersion;
    this.resumeToken = options.resumeToken ?? "";
    options.signal?.addEventListener("abort", () => this.cancel(), { once: true });
    if (options.signal?.aborted) this.cancel();
    this.updates = this.run();
  }

  /** Stops the watch: the iteration ends (without an error) and the stream is closed. */
  cancel(): void {
    this.controller.abort();
  }

  /** Whether {@link GameWatch.cancel} was called. */
  get cancelled(): boolean {
    return this.controller.signal.aborted;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<WatchUpdate, void>> {
    return this.updates.next();
  }

  async return(): Promise<IteratorResult<WatchUpdate, void>> {
    this.cancel();
    return this.updates.return();
  }

  private async *run(): AsyncGenerator<WatchUpdate, void, undefined> {
    let failures = 0;
    let rewritten = false;
    while (!this.cancelled) {
      const attempt = new AbortController();
      const stop = (): void => attempt.abort();
      this.controller.signal.addEventListener("abort", stop, { once: true });
      const request = create(
        WatchGameRequestSchema,
        this.resumeToken
          ? { gameId: this.gameId, resumeToken: this.resumeToken }
          : { gameId: this.gameId, afterVersion: this.version },
      );
      try {
        for await (const message of this.arbiter.watchGame(request, { signal: attempt.signal })) {
          failures = 0;
          const update = this.accept(message, rewritten);
          if (update === undefined) continue;
          if (update.kind !== "heartbeat") rewritten = false;
          yield update;
        }
        return; // the server closed the stream: the game has ended
      } catch (reason) {
        if (this.cancelled) return;
        const error = ArbiterError.from(reason);
        if (error.code === Code.FailedPrecondition && error.reason === "HISTORY_REWRITTEN") {
          this.resumeToken = "";
          this.version = 0;
          this.restarts += 1;
          rewritten = true;
          continue;
        }
        failures += 1;
        if (!resumable(error) || failures >= this.options.reconnect.maxAttempts) throw error;
        const delay = backoffMs(this.options.reconnect, failures, error.retryDelayMs);
        this.options.onReconnect?.(error, delay);
        try {
          await sleep(delay, this.controller.signal);
        } catch {
          return; // cancelled while waiting
        }
        this.reconnects += 1;
      } finally {
        this.controller.signal.removeEventListener("abort", stop);
        attempt.abort();
      }
    }
  }

  private accept(message: WatchGameResponse, rewritten: boolean): WatchUpdate | undefined {
    const kind = message.kind;
    switch (kind.case) {
      case "heartbeat":
        if (!this.options.heartbeats) return undefined;
        return {
          kind: "heartbeat",
          heartbeat: kind.value,
          version: kind.value.version,
          resumeToken: "",
          historyRewritten: false,
          message,
        };
      case "snapshot":
        this.advance(kind.value.version, message.resumeToken);
        return {
          kind: "snapshot",
          snapshot: kind.value,
          version: kind.value.version,
          resumeToken: message.resumeToken,
          historyRewritten: rewritten,
          message,
        };
      case "event": {
        const eventKind = kind.value.kind.case;
        if (kind.value.version <= this.version) return undefined; // already handed out
        this.advance(kind.value.version, message.resumeToken);
        if (eventKind === undefined) return undefined; // a kind this client does not know yet
        return {
          kind: "event",
          event: kind.value,
          eventKind,
          version: kind.value.version,
          resumeToken: message.resumeToken,
          historyRewritten: rewritten,
          message,
        };
      }
      default:
        return undefined; // a kind this client does not know yet
    }
  }

  private advance(version: number, resumeToken: string): void {
    this.version = version;
    if (resumeToken) this.resumeToken = resumeToken;
  }
}

/**
 * Whether an update shows the game over: a final event, or a snapshot of an
 * ended game. (An arbiter's `resultDecided` may also end a game in progress;
 * its stream then ends after it.)
 */
export function endsGame(update: WatchUpdate): boolean {
  if (update.kind === "event") return FINAL_EVENTS.has(update.eventKind);
  if (update.kind === "snapshot") {
    return update.snapshot.status === GameStatus.FINISHED || update.snapshot.status === GameStatus.ABORTED;
  }
  return false;
}

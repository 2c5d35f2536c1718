/**
 * Following one event's games, as every page does it: the games so far,
 * then WatchEvent resumed by its cursor across dropped streams; after
 * HISTORY_REWRITTEN, or a cursor the server no longer reads, the games are
 * read again and the watch starts over.
 */

import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { backoff, failure, final, setConnection } from "./page.js";
import type { ArbiterService, GameEvent } from "./gen/chessarbiter/v1/arbiter_pb.js";

export interface EventFollower {
  /** Reads the games so far (at the start, and whenever the watch starts over). */
  start(): Promise<void>;
  /** Shows one event of one of the games. */
  event(event: GameEvent): Promise<void>;
  /** Says why the server refused the watch; the page then stops following. */
  refused(error: ConnectError): void;
}

/** Follows `eventId` (one round's games, or every game with round 0) until the server refuses. */
export async function followEventStream(
  client: Client<typeof ArbiterService>,
  eventId: string,
  round: number,
  follower: EventFollower,
  base: string,
): Promise<void> {
  let cursor = "";
  let failures = 0;
  for (;;) {
    try {
      setConnection(cursor === "" ? "Connecting…" : "Reconnecting…", "waiting");
      // Without a cursor the watch replays every event, which the follower
      // sees as already read where the games it read are newer.
      if (cursor === "") await follower.start();
      for await (const message of client.watchEvent({ eventId, afterCursor: cursor, round })) {
        failures = 0;
        setConnection("Live", "ok");
        if (message.kind.case === "event") await follower.event(message.kind.value);
        if (message.cursor !== "") cursor = message.cursor;
      }
    } catch (reason) {
      const error = ConnectError.from(reason);
      if (error.code === Code.InvalidArgument && cursor !== "") {
        // A cursor this server no longer reads: read the event again.
        cursor = "";
      } else if (final(error)) {
        follower.refused(error);
        return;
      }
      if (error.code === Code.FailedPrecondition) cursor = "";
      setConnection(failure(error, base), "error");
    }
    await backoff(failures++);
  }
}

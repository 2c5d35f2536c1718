/**
 * The client against a real arbiter server (started here), over gRPC and over
 * gRPC-Web: every test runs once per protocol.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Chess } from "chess.js";
import { type Interceptor, ConnectError } from "@connectrpc/connect";
import {
  ArbiterClient,
  ArbiterError,
  Code,
  type CreatedGame,
  type Protocol,
  type WatchUpdate,
  endsGame,
  pb,
} from "@chess-arbiter/client";
import { play } from "./games.js";
import { ArbiterServer, CORS_ORIGIN } from "./server.js";
import { TcpProxy } from "./tcp-proxy.js";

const FOOLS_MATE = ["f3", "e5", "g4", "Qh4#"];
/** A quick mate by Black once White has played e4. */
const FOOLS_MATE_AFTER_E4 = ["g5", "d4", "f6", "Qh5#"];

let server: ArbiterServer;
before(async () => {
  server = await ArbiterServer.start();
});
after(async () => {
  await server?.stop();
});

/** Opens clients and closes them all at the end of the test. */
function clients(protocol: Protocol) {
  const opened: ArbiterClient[] = [];
  return {
    open(options: Parameters<typeof ArbiterClient.connect>[1] = {}): ArbiterClient {
      const client = ArbiterClient.connect(server.url, { protocol, adminToken: server.adminToken, ...options });
      opened.push(client);
      return client;
    },
    close(): void {
      for (const client of opened) client.close();
    },
  };
}

async function newGame(client: ArbiterClient): Promise<CreatedGame> {
  const suffix = Math.random().toString(16).slice(2, 10);
  return client.createGame({ id: `w-${suffix}`, name: "White, Walter" }, { id: `b-${suffix}`, name: "Black, Bella" });
}

/** Collects a watch's updates until it ends. */
async function collect(updates: AsyncIterable<WatchUpdate>, into: WatchUpdate[]): Promise<void> {
  for await (const update of updates) into.push(update);
}

async function rejection(promise: Promise<unknown>): Promise<ArbiterError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ArbiterError, `an ArbiterError, not ${String(error)}`);
    return error;
  }
  assert.fail("the call succeeded");
}

function versions(updates: WatchUpdate[]): number[] {
  return updates.map((u) => u.version);
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/** Fails the first answer to `method` after the server has handled it: an answer lost on the way. */
function loseFirstAnswer(method: string): { interceptor: Interceptor; lost: () => boolean } {
  let armed = true;
  let lost = false;
  const interceptor: Interceptor = (next) => async (request) => {
    const response = await next(request);
    if (armed && request.method.name === method) {
      armed = false;
      lost = true;
      throw new ConnectError("connection dropped before the answer arrived (test)", Code.Unavailable);
    }
    return response;
  };
  return { interceptor, lost: () => lost };
}

/** Cuts the first `WatchGame` stream off after `count` messages, as a dropped connection would. */
function cutFirstWatchAfter(count: number): Interceptor {
  let armed = true;
  return (next) => async (request) => {
    const response = await next(request);
    if (!response.stream || request.method.name !== "WatchGame" || !armed) return response;
    armed = false;
    const upstream = response.message;
    async function* cut(): AsyncGenerator<unknown> {
      let seen = 0;
      for await (const message of upstream) {
        yield message;
        if (++seen === count) break; // closes the real stream
      }
      throw new ConnectError("stream cut off (test)", Code.Unavailable);
    }
    return { ...response, message: cut() } as typeof response;
  };
}

for (const protocol of ["grpc", "grpc-web"] as const) {
  describe(`over ${protocol}`, () => {
    test("a game to mate, seen by a watcher event by event", async () => {
      const opened = clients(protocol);
      try {
        const platform = opened.open();
        const spectator = opened.open({ adminToken: undefined });
        const created = await newGame(platform);
        const seen: WatchUpdate[] = [];
        const watch = spectator.watchGame(created.gameId);
        const first = await watch.next(); // the snapshot: the watch is open before the first move
        assert.ok(!first.done);
        seen.push(first.value);
        const watching = collect(watch, seen);
        const chess = new Chess();
        await play(platform, created, chess, FOOLS_MATE);
        await watching;

        assert.ok(chess.isCheckmate());
        const [snapshot, ...events] = seen;
        assert.equal(snapshot?.kind, "snapshot");
        assert.equal(snapshot.version, 1);
        assert.ok(events.every((u) => u.kind === "event"));
        // Four moves and the game's end, each exactly once, in order.
        assert.deepEqual(versions(seen), range(1, 1 + FOOLS_MATE.length + 1));
        const moves = events.flatMap((u) => (u.kind === "event" && u.event.kind.case === "moveMade" ? [u.event.kind.value.move] : []));
        assert.deepEqual(moves.map((m) => m?.san), FOOLS_MATE);
        assert.deepEqual(moves.map((m) => m?.uci), chess.history({ verbose: true }).map((m) => m.lan));
        const last = seen.at(-1);
        assert.ok(last !== undefined && last.kind === "event" && last.eventKind === "gameEnded" && endsGame(last));
        assert.ok(last.event.kind.case === "gameEnded");
        assert.equal(last.event.kind.value.result?.outcome, pb.Outcome.BLACK_WINS);
        assert.equal(last.event.kind.value.result?.termination, pb.Termination.CHECKMATE);
        assert.ok(seen.every((u) => u.resumeToken !== ""));

        const game = await platform.getGame(created.gameId, { full: true });
        assert.equal(game.status, pb.GameStatus.FINISHED);
        assert.deepEqual(game.moves.map((m) => m.san), FOOLS_MATE);
        const paged: string[] = [];
        for await (const move of platform.listMoves(created.gameId, { pageSize: 3 })) paged.push(move.san);
        assert.deepEqual(paged, FOOLS_MATE);
        const replay = new Chess();
        replay.loadPgn(await platform.exportPgn(created.gameId));
        assert.equal(replay.fen(), chess.fen());
        assert.equal(replay.getHeaders()["Result"], "0-1");
      } finally {
        opened.close();
      }
    });

    test("a move sent twice at the same ply is recognised, and a lost answer is retried at the same ply", async () => {
      const opened = clients(protocol);
      try {
        const client = opened.open();
        const created = await newGame(client);
        const first = await client.makeMove(created.gameId, created.whiteToken, "e4", 0);
        assert.ok(first.applied);
        assert.equal(first.game.ply, 1);
        assert.deepEqual(first.events.map((e) => e.kind.case), ["moveMade"]);
        const again = await client.makeMove(created.gameId, created.whiteToken, "e4", 0);
        assert.equal(again.applied, false); // a repeat: no events, not an error
        assert.equal(again.game.version, first.game.version);
        await client.makeMove(created.gameId, created.blackToken, "e7e5", 1);
        const repeat = await client.makeMove(created.gameId, created.whiteToken, "e2e4", 0);
        assert.equal(repeat.applied, false);
        assert.equal(repeat.game.ply, 2);

        // The server applies the move but its answer is lost: the client retries at the same ply.
        const lose = loseFirstAnswer("MakeMove");
        const retries: ArbiterError[] = [];
        const flaky = opened.open({ interceptors: [lose.interceptor], onRetry: (error) => retries.push(error) });
        const retried = await flaky.makeMove(created.gameId, created.whiteToken, "Nf3", 2);
        assert.ok(lose.lost());
        assert.deepEqual(retries.map((e) => e.code), [Code.Unavailable]);
        assert.equal(retried.applied, false); // the first attempt was applied; the retry was recognised
        assert.equal(retried.game.ply, 3);
        const game = await client.getGame(created.gameId, { full: true });
        assert.deepEqual(game.moves.map((m) => m.uci), ["e2e4", "e7e5", "g1f3"]);
        assert.equal(game.version, 4);

        // Another move at a past ply is STALE_PLY, and not retried.
        const staleRetries: ArbiterError[] = [];
        const careful = opened.open({ onRetry: (error) => staleRetries.push(error) });
        const stale = await rejection(careful.makeMove(created.gameId, created.whiteToken, "d4", 2));
        assert.equal(stale.code, Code.Aborted);
        assert.equal(stale.reason, "STALE_PLY");
        assert.equal(stale.retryable, false);
        assert.deepEqual(staleRetries, []);
      } finally {
        opened.close();
      }
    });

    test("refusals are typed errors with their code, reason and metadata", async () => {
      const opened = clients(protocol);
      try {
        const client = opened.open();
        const created = await newGame(client);
        const illegal = await rejection(client.makeMove(created.gameId, created.whiteToken, "e5", 0));
        assert.equal(illegal.code, Code.InvalidArgument);
        assert.equal(illegal.codeName, "INVALID_ARGUMENT");
        assert.equal(illegal.reason, "ILLEGAL_MOVE");
        assert.equal(illegal.domain, "chessarbiter.v1");
        assert.deepEqual(illegal.metadata, { ply: "0", side_to_move: "white" });
        assert.equal(illegal.ply, 0);
        assert.deepEqual(illegal.fieldViolations.map((v) => v.field), ["move"]);
        assert.equal(illegal.retryable, false);
        assert.ok(illegal.rawMessage.length > 0);
        assert.match(illegal.message, /^INVALID_ARGUMENT \(ILLEGAL_MOVE\): /);

        const unparsable = await rejection(client.makeMove(created.gameId, created.whiteToken, "not-a-move", 0));
        assert.deepEqual([unparsable.code, unparsable.reason], [Code.InvalidArgument, "UNPARSABLE_MOVE"]);

        const other = await newGame(client);
        for (const token of [other.whiteToken, "not-a-token"]) {
          const denied = await rejection(client.makeMove(created.gameId, token, "e4", 0));
          assert.deepEqual([denied.code, denied.reason], [Code.PermissionDenied, "NOT_A_SEAT"]);
        }

        const turn = await rejection(client.makeMove(created.gameId, created.blackToken, "e5", 0));
        assert.deepEqual([turn.code, turn.reason], [Code.FailedPrecondition, "NOT_YOUR_TURN"]);
        assert.equal(turn.metadata["side_to_move"], "white");
        assert.ok(turn.preconditionViolations.length > 0);

        const missing = await rejection(client.getGame("no-such-game"));
        assert.deepEqual([missing.code, missing.reason], [Code.NotFound, "GAME_NOT_FOUND"]);

        const impostor = opened.open({ adminToken: "wrong" });
        const notAdmin = await rejection(newGame(impostor));
        assert.deepEqual([notAdmin.code, notAdmin.reason], [Code.PermissionDenied, "NOT_ADMIN"]);
      } finally {
        opened.close();
      }
    });

    test("a watch resumes by token: after it was stopped, after a dropped stream, and from a snapshot after HISTORY_REWRITTEN", async () => {
      const opened = clients(protocol);
      try {
        const client = opened.open();
        const created = await newGame(client);
        const chess = new Chess();

        // Stopped by the caller after the snapshot and two moves.
        const seen: WatchUpdate[] = [];
        const watch = client.watchGame(created.gameId);
        const first = await watch.next();
        assert.ok(!first.done);
        seen.push(first.value);
        await play(client, created, chess, FOOLS_MATE.slice(0, 2));
        for await (const update of watch) {
          seen.push(update);
          if (update.version === 3) break; // aborts the stream
        }
        assert.ok(watch.cancelled);
        assert.deepEqual(versions(seen), [1, 2, 3]);
        assert.equal(watch.version, 3);
        assert.equal(watch.resumeToken, seen[2]?.resumeToken);

        // Resumed by its token while the game goes on; the resumed stream is
        // cut off once, and the watch reconnects by itself.
        const interrupted = opened.open({ interceptors: [cutFirstWatchAfter(1)] });
        const reconnects: ArbiterError[] = [];
        const resumed = interrupted.watchGame(created.gameId, {
          resumeToken: watch.resumeToken,
          onReconnect: (error) => reconnects.push(error),
        });
        const rest: WatchUpdate[] = [];
        const watching = collect(resumed, rest);
        await play(client, created, chess, FOOLS_MATE.slice(2));
        await watching;
        assert.deepEqual(versions(rest), range(4, 2 + FOOLS_MATE.length));
        assert.ok(rest.every((u) => u.kind === "event" && !u.historyRewritten));
        assert.equal(rest.at(-1)?.kind === "event" && rest.at(-1)?.version, 6);
        assert.ok(endsGame(rest.at(-1)!));
        assert.equal(resumed.reconnects, 1);
        assert.deepEqual(reconnects.map((e) => e.code), [Code.Unavailable]);

        // A token whose event is not the game's history: a fresh snapshot, marked.
        const rewritten = client.watchGame(created.gameId, { resumeToken: "3.0000000000000000" });
        const again: WatchUpdate[] = [];
        await collect(rewritten, again);
        assert.equal(rewritten.restarts, 1);
        assert.equal(again[0]?.kind, "snapshot");
        assert.equal(again[0]?.historyRewritten, true);
        assert.equal(again[0]?.kind === "snapshot" && again[0].snapshot.status, pb.GameStatus.FINISHED);
      } finally {
        opened.close();
      }
    });

    test("over a connection that drops: a move is applied once, and a watch goes on without a gap or a repeat", async () => {
      const opened = clients(protocol);
      const proxy = await TcpProxy.start(server.url);
      try {
        const direct = opened.open();
        const retries: ArbiterError[] = [];
        const proxied = ArbiterClient.connect(proxy.url, {
          protocol,
          adminToken: server.adminToken,
          onRetry: (error) => retries.push(error),
        });
        const spectator = ArbiterClient.connect(proxy.url, { protocol });
        try {
          const created = await newGame(direct);
          await proxied.getGame(created.gameId); // the connection is up and idle

          // The connection drops when the server answers the move: the client
          // sends it again at the same ply, and the game has it once.
          proxy.dropAtNextServerBytes();
          const moved = await proxied.makeMove(created.gameId, created.whiteToken, "e4", 0);
          assert.equal(proxy.drops, 1);
          assert.ok(retries.length >= 1 && retries.every((e) => e.retryable), retries.map(String).join("; "));
          console.log(`  ${protocol}: the dropped answer surfaced as ${retries.map(String).join("; ")}`);
          assert.equal(moved.game.ply, 1);
          const game = await direct.getGame(created.gameId, { full: true });
          assert.deepEqual(game.moves.map((m) => m.uci), ["e2e4"]);
          assert.equal(game.version, 2);

          // The watcher's connection drops after a snapshot and an event; it
          // reconnects and resumes after the event by itself.
          const seen: WatchUpdate[] = [];
          const reconnects: ArbiterError[] = [];
          const watch = spectator.watchGame(created.gameId, { onReconnect: (error) => reconnects.push(error) });
          const chess = new Chess();
          chess.move("e4");
          const snapshot = await watch.next();
          assert.ok(!snapshot.done);
          seen.push(snapshot.value);
          await play(direct, created, chess, FOOLS_MATE_AFTER_E4.slice(0, 1));
          const event = await watch.next();
          assert.ok(!event.done);
          seen.push(event.value);
          proxy.dropAll();
          const watching = collect(watch, seen);
          await play(direct, created, chess, FOOLS_MATE_AFTER_E4.slice(1));
          await watching;
          assert.deepEqual(versions(seen), range(2, 2 + FOOLS_MATE_AFTER_E4.length + 1));
          assert.ok(watch.reconnects >= 1, `reconnects: ${watch.reconnects}`);
          assert.ok(reconnects.every((e) => e.code === Code.Unavailable || e.connectionLost), reconnects.map(String).join("; "));
          assert.ok(endsGame(seen.at(-1)!));
        } finally {
          proxied.close();
          spectator.close();
        }
      } finally {
        await proxy.stop();
        opened.close();
      }
    });
  });
}

test("gRPC-Web answers a page of an allowed origin with CORS headers", async () => {
  const client = ArbiterClient.connect(server.url, { protocol: "grpc-web", adminToken: server.adminToken });
  try {
    const created = await newGame(client);
    let allowed: string | null = null;
    const response = await client.arbiter.getGame(
      { gameId: created.gameId },
      { headers: { origin: CORS_ORIGIN }, onHeader: (headers) => (allowed = headers.get("access-control-allow-origin")) },
    );
    assert.equal(response.game?.gameId, created.gameId);
    assert.equal(allowed, CORS_ORIGIN);
  } finally {
    client.close();
  }
});

// --- rounds ------------------------------------------------------------------

/** The Swiss of nine rounds the server's own tests run, paired by bbpPairings (committed). */
const PAIRINGS = new URL("../../../../tests/data/pairings/", import.meta.url);
const SWISS_PLAYERS = Array.from({ length: 9 }, (_, i) => {
  const n = String(i + 1).padStart(2, "0");
  return { id: `p${n}`, name: `Player ${n}` };
});

/** The same pattern of results as tests/api/pairing_engine.rs. */
function swissResult(round: number, board: number): pb.Outcome {
  switch ((round * 7 + board * 3) % 5) {
    case 0:
    case 3:
      return pb.Outcome.WHITE_WINS;
    case 1:
      return pb.Outcome.DRAW;
    default:
      return pb.Outcome.BLACK_WINS;
  }
}

/** A report without its 012 line, which names the event. */
function players(trf: string): string {
  return trf.split("\n").filter((line) => !line.startsWith("012")).join("\n");
}

for (const protocol of ["grpc", "grpc-web"] as const) {
  describe(`rounds over ${protocol}`, () => {
    test("a Swiss of nine rounds runs on the engine's pairings", async () => {
      const { readFile } = await import("node:fs/promises");
      const read = (name: string) => readFile(new URL(name, PAIRINGS), "utf8");
      const opened = clients(protocol);
      try {
        const platform = opened.open();
        const event = `Swiss of nine (${protocol})`;
        let trf = await read("round-1.trf");
        for (let round = 1; round <= 9; round++) {
          assert.equal(players(trf), players(await read(`round-${round}.trf`)), `round ${round}`);
          const created = await platform.importPairings(event, round, await read(`round-${round}.pairings`), {
            trf,
            players: round === 1 ? SWISS_PLAYERS : [],
            requestId: `swiss-${protocol}-${round}`,
          });
          assert.equal(created.round?.byes.length, 1);
          const started = await platform.startRound(event, round);
          assert.equal(started.startedGames, created.games.length);
          const { boards } = await platform.getRound(event, round, { pageSize: 2 });
          assert.deepEqual(
            boards.map((b) => b.board),
            created.games.map((g) => g.board),
          );
          assert.ok(boards.every((b) => b.status === pb.GameStatus.ACTIVE));
          for (const game of created.games) {
            await platform.setGameResult(game.gameId, { reason: "reported at the board", outcome: swissResult(round, game.board) });
          }
          trf = (await platform.arbiter.exportTrf({ eventId: event, totalRounds: 9 })).trf;
        }
        assert.equal(trf.split("\n").filter((line) => line.startsWith("001")).length, 9);
      } finally {
        opened.close();
      }
    });

    test("a round with a player paired twice is refused whole", async () => {
      const opened = clients(protocol);
      try {
        const platform = opened.open();
        const event = `refused round (${protocol})`;
        await assert.rejects(
          platform.createRound(event, 1, [
            ["a", "b"],
            ["c", "a"],
          ]),
          (error: unknown) => {
            assert.ok(error instanceof ArbiterError);
            assert.equal(error.code, Code.InvalidArgument);
            assert.deepEqual(
              error.fieldViolations.map((v) => v.field),
              ["boards[1].black.id"],
            );
            return true;
          },
        );
        await assert.rejects(platform.getRound(event, 1), (error: unknown) => error instanceof ArbiterError && error.reason === "ROUND_NOT_FOUND");
      } finally {
        opened.close();
      }
    });
  });
}

for (const protocol of ["grpc", "grpc-web"] as const) {
  describe(`a player gone over ${protocol}`, () => {
    test("loses to the opponent's claim once gone long enough", async () => {
      const opened = clients(protocol);
      try {
        const platform = opened.open();
        const suffix = Math.random().toString(16).slice(2, 10);
        const game = await platform.createGame(
          { id: `w-${suffix}`, name: "White" },
          { id: `b-${suffix}`, name: "Black" },
          { rules: { claimAfterOpponentLeftMillis: 300 } },
        );
        await play(platform, game, new Chess(), ["e4", "e5"]);
        const reported = await platform.reportConnection(game.gameId, pb.Color.WHITE, { connected: false });
        assert.ok(reported.game.whiteLeftTime !== undefined);
        assert.deepEqual(
          reported.events.map((e) => e.kind.case),
          ["connectionReported"],
        );
        const early = await rejection(platform.claimVictory(game.gameId, game.blackToken));
        assert.equal(early.reason, "OPPONENT_LEFT_TOO_RECENTLY");
        await new Promise((resolve) => setTimeout(resolve, 400));
        const won = await platform.claimVictory(game.gameId, game.blackToken);
        assert.equal(won.game.result?.outcome, pb.Outcome.BLACK_WINS);
        assert.equal(won.game.result?.termination, pb.Termination.OPPONENT_LEFT);
      } finally {
        opened.close();
      }
    });
  });
}

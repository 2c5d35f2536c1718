/**
 * The server's broadcast feed as a relay reads it: a round of two timed games
 * (one going on, one resigned) played through the client, then read over
 * plain HTTP with Node's fetch and each game loaded back with chess.js.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Chess } from "chess.js";
import { ArbiterClient, type CreatedGame, type PlayerLike } from "@chess-arbiter/client";
import { play } from "./games.js";
import { ArbiterServer } from "./server.js";

/** The event: a name that must be percent-encoded in the feed's paths. */
const EVENT = "Feed Open {2026}";
const ROUND_PATH = `/events/${encodeURIComponent(EVENT)}/rounds/1`;
/** Ten minutes and five seconds a move. */
const TEN_PLUS_FIVE = { periods: [{ timeMillis: 600_000, incrementMillis: 5_000 }] };

/** Board 1's moves: the game goes on, Black to move. */
const BOARD_1 = ["e4", "c5", "Nf3", "d6", "d4"];
/** Board 2's moves, after which White resigns. */
const BOARD_2 = ["d4", "Nf6", "c4"];

const PLAYERS = {
  board1: [{ id: "caruana", name: "Caruana, Fabiano" }, { id: "pragg", name: "Praggnanandhaa" }],
  board2: [
    { id: "giri", name: "Giri, Anish" },
    { id: "carlsen", name: "Carlsen, Magnus", title: "GM", fideId: 1503014 },
  ],
} as const satisfies Record<string, readonly [PlayerLike, PlayerLike]>;

let server: ArbiterServer;
let platform: ArbiterClient;
let board1: CreatedGame;
let board2: CreatedGame;

before(async () => {
  server = await ArbiterServer.start({ feed: true });
  platform = ArbiterClient.connect(server.url, { adminToken: server.adminToken });
  const timed = (board: number) => ({ pairing: { eventId: EVENT, round: 1, board }, timeControl: TEN_PLUS_FIVE });
  // Board 2 first: the feed orders the round by board, not by creation.
  board2 = await platform.createGame(...PLAYERS.board2, timed(2));
  board1 = await platform.createGame(...PLAYERS.board1, timed(1));
  await play(platform, board1, new Chess(), BOARD_1);
  await play(platform, board2, new Chess(), BOARD_2);
  const resigned = await platform.resign(board2.gameId, board2.whiteToken);
  assert.ok(resigned.applied);
});

after(async () => {
  platform?.close();
  await server?.stop();
});

/** GETs `path` from the feed; the body as sent (no gzip) unless the headers ask for it. */
function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  assert.ok(server.feedUrl !== undefined, "the server serves the feed");
  return fetch(`${server.feedUrl}${path}`, { headers: { "accept-encoding": "identity", ...headers } });
}

async function text(path: string): Promise<string> {
  const response = await get(path);
  assert.equal(response.status, 200, `${path}: ${await response.clone().text()}`);
  return response.text();
}

/** The games of a multi-game PGN, each from its `[Event` tag. */
function games(pgn: string): string[] {
  return pgn.split(/^(?=\[Event )/m).filter((game) => game.trim() !== "");
}

/**
 * `pgn`'s game in chess.js, as served: a finished timed game's last move
 * carries one comment, its clock and how the game ended
 * (`c4 {[%clk 0:10:09] White resigns} 0-1`), which chess.js reads.
 */
function load(pgn: string): Chess {
  const chess = new Chess();
  chess.loadPgn(pgn);
  return chess;
}

/** Asserts that every move of `chess`'s game carries a `[%clk h:mm:ss]` comment. */
function assertClockAfterEveryMove(chess: Chess): void {
  const comments = new Map(chess.getComments().map(({ fen, comment }) => [fen, comment]));
  for (const move of chess.history({ verbose: true })) {
    assert.match(comments.get(move.after) ?? "(none)", /\[%clk \d+:\d{2}:\d{2}/, `a clock after ${move.san}`);
  }
}

/** A strong entity tag, quoted. */
function strongTag(response: Response): string {
  const etag = response.headers.get("etag");
  assert.ok(etag !== null && /^"[^"]+"$/.test(etag), `a strong ETag: ${etag}`);
  return etag;
}

describe("the broadcast feed", () => {
  test("a round's games.pgn holds its games in board order, read back by chess.js with their moves, clocks and results", async () => {
    const response = await get(`${ROUND_PATH}/games.pgn`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^application\/x-chess-pgn/);
    assert.equal(response.headers.get("cache-control"), "public, max-age=1");
    const round = games(await response.text());
    assert.equal(round.length, 2, round.join("\n----\n"));
    const [first, second] = round.map(load);
    assert.ok(first !== undefined && second !== undefined);

    // Board 1: going on.
    const running = first.getHeaders();
    assert.equal(running["Event"], EVENT);
    assert.equal(running["GameId"], board1.gameId);
    assert.equal(running["Round"], "1.1");
    assert.equal(running["White"], "Caruana, Fabiano");
    assert.equal(running["Black"], "Praggnanandhaa");
    assert.equal(running["Result"], "*");
    assert.equal(running["TimeControl"], "600+5");
    assert.match(running["WhiteClock"] ?? "", /^\d+:\d{2}:\d{2}/);
    assert.match(running["BlackClock"] ?? "", /^\d+:\d{2}:\d{2}/);
    assert.deepEqual(first.history(), BOARD_1);
    assertClockAfterEveryMove(first);

    // Board 2: resigned by White.
    const finished = second.getHeaders();
    assert.equal(finished["GameId"], board2.gameId);
    assert.equal(finished["Round"], "1.2");
    assert.equal(finished["White"], "Giri, Anish");
    assert.equal(finished["Black"], "Carlsen, Magnus");
    assert.equal(finished["Result"], "0-1");
    assert.equal(finished["TimeControl"], "600+5");
    assert.equal(finished["WhiteClock"], undefined, "no running clocks once the game is over");
    assert.deepEqual(second.history(), BOARD_2);
    assertClockAfterEveryMove(second);
    assert.match(second.getComment(), /White resigns/);

    // Each game on its own URL is the round's text of it.
    assert.equal((await text(`/games/${encodeURIComponent(board2.gameId)}.pgn`)).trim(), round[1]?.trim());
  });

  test("a poll with the ETag gets 304 while nothing changed, and gzip gives the same text", async () => {
    const path = `${ROUND_PATH}/games.pgn`;
    // Board 1's clock runs, so the round's text changes each second it is
    // rebuilt: read it plain, gzipped, then with the plain answer's tag, and
    // again if a 200 with a new tag shows the answer was rebuilt in between.
    for (let attempt = 1; ; attempt++) {
      const plain = await get(path);
      assert.equal(plain.status, 200);
      assert.equal(plain.headers.get("content-encoding"), null);
      const etag = strongTag(plain);
      const body = await plain.text();

      const zipped = await get(path, { "accept-encoding": "gzip" });
      assert.equal(zipped.status, 200);
      assert.equal(zipped.headers.get("content-encoding"), "gzip");
      assert.match(zipped.headers.get("vary") ?? "", /accept-encoding/i);
      const unzipped = await zipped.text(); // fetch decompresses it

      const again = await get(path, { "if-none-match": etag });
      if (again.status === 304) {
        assert.equal(again.headers.get("etag"), etag);
        assert.equal(await again.text(), "");
        assert.equal(unzipped, body);
        break;
      }
      assert.equal(again.status, 200);
      assert.notEqual(strongTag(again), etag, "a 200 to a matching tag is a rebuilt answer");
      await again.arrayBuffer();
      assert.ok(attempt < 5, "five rebuilds in a row between two polls");
    }

    // A finished game's text never changes: its tag is answered with 304.
    const gamePath = `/games/${encodeURIComponent(board2.gameId)}.pgn`;
    const first = await get(gamePath);
    assert.equal(first.status, 200);
    const etag = strongTag(first);
    const body = await first.text();
    const unchanged = await get(gamePath, { "if-none-match": etag });
    assert.equal(unchanged.status, 304);
    assert.equal(await unchanged.text(), "");
    const zipped = await get(gamePath, { "accept-encoding": "gzip" });
    assert.equal(zipped.headers.get("content-encoding"), "gzip");
    assert.equal(await zipped.text(), body);
    const other = await get(gamePath, { "if-none-match": '"another"' });
    assert.equal(other.status, 200);
    assert.equal(await other.text(), body);
  });

  test("round.json pairs the boards in order, a \"Last, First\" name split into lname and fname", async () => {
    const response = await get(`${ROUND_PATH}/round.json`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    const index = (await response.json()) as { pairings: Array<Record<string, unknown>> };
    assert.deepEqual(index.pairings, [
      {
        white: { lname: "Caruana", fname: "Fabiano" },
        black: { lname: "Praggnanandhaa" },
        result: "*",
        live: true,
        board: 1,
      },
      {
        white: { lname: "Giri", fname: "Anish" },
        black: { lname: "Carlsen", fname: "Magnus", title: "GM", fideid: 1503014 },
        result: "0-1",
        live: false,
        board: 2,
      },
    ]);
  });

  test("an unknown round or game is 404", async () => {
    for (const path of [`/events/${encodeURIComponent(EVENT)}/rounds/9/games.pgn`, "/games/no-such-game.pgn"]) {
      const response = await get(path);
      assert.equal(response.status, 404, path);
      await response.arrayBuffer();
    }
  });
});

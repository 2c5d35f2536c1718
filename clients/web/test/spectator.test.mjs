// The spectator page in headless Chromium, as a real chess-arbiter serves it
// on its web port, with games kept in a real redis-server.
//
// Starts redis-server and the server (CHESS_ARBITER_BIN, or the
// repository's target/debug/chess-arbiter) on free ports, with no CORS
// set-up: the page calls gRPC-Web on its own origin. The browser reaches the
// web port through a TCP proxy whose connections the test cuts, to check
// that the pages resume their watch. Games are played over gRPC
// (connect-node); after each step the test waits (bounded) until the page
// shows what the server says: the pieces on chessground's board equal to
// the server's FEN, the last move and check highlighted, the move list
// text, the clocks within a second of the server's, the result in words.
// Screenshots of each step go to target/web-screenshots/.
//
// Needs the generated code (buf generate); scripts/check-web runs it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { clockRange, clocksAgree, fitsATablet, freePort, newGame, open, read, sameBoard, screenshot, until, useWorld, world } from "./harness.mjs";

useWorld("spectator");

test("the pages follow a game and an event live, on the server's own origin, across dropped connections", async () => {
  const eventId = `open-${randomBytes(3).toString("hex")}`;
  const main = await newGame({
    white: { id: "p-1", name: "Anand, Viswanathan", title: "GM", rating: 2751 },
    black: { id: "p-2", name: "Kramnik, Vladimir" },
    pairing: { eventId, round: 1, board: 3 },
    timeControl: { periods: [{ timeMillis: 300_000, incrementMillis: 2_000 }] },
  });
  const second = await newGame({
    white: { id: "p-3", name: "Carlsen, Magnus" },
    black: { id: "p-4", name: "Caruana, Fabiano" },
    pairing: { eventId, round: 1, board: 1 },
    start: { case: "initialFen", value: "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 12" },
  });

  // The landing page, operated from the keyboard: type a game id, press Enter.
  const gamePage = await open("");
  await until(gamePage, "the landing form", () => true);
  assert.equal(await gamePage.page.isVisible("#game-id"), true);
  await screenshot(gamePage, "landing");
  await gamePage.page.focus("#game-id");
  await gamePage.page.keyboard.type(main.gameId);
  await gamePage.page.keyboard.press("Enter");
  let shown = await until(gamePage, "the new game", (s) =>
    s.connection === "Live" && s.board !== null && s.status === "White to move" && s.moves === "");
  assert.equal(shown.white, "GM Anand, Viswanathan (2751)");
  assert.equal(shown.black, "Kramnik, Vladimir");
  assert.equal(shown.title, `${eventId} · round 1, board 3`);
  assert.ok(sameBoard(shown.board, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"), JSON.stringify(shown.board));
  assert.deepEqual(shown.running, ["clock-white"]);
  await clocksAgree(gamePage, main.gameId);

  const eventPage = await open(`?event=${eventId}`);
  await until(eventPage, "both boards of the round, in board order", (s) =>
    s.cards.length === 2 && s.cards[0].game === second.gameId && s.cards[1].game === main.gameId && s.connection === "Live");

  // Scholar's mate, one move at a time; the page's board equals the
  // server's FEN after every move, with the move's squares highlighted.
  const sans = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"];
  const rows = ["1. e4", "1. e4 e5", "1. e4 e5 2. Bc4", "1. e4 e5 2. Bc4 Nc6", "1. e4 e5 2. Bc4 Nc6 3. Qh5", "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6", "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7#"];
  for (const [i, san] of sans.entries()) {
    if (i === 3) {
      // Cut every connection between the pages and the server: they must
      // reconnect and resume, missing nothing and repeating nothing.
      assert.ok(world.proxy.cut() > 0, "no connection went through the proxy");
    }
    const game = await main.play(san);
    const uci = game.lastMove.uci;
    shown = await until(gamePage, `the position after ${san}`, (s) =>
      s.moves === rows[i] && sameBoard(s.board, game.fen) && s.board.lastMove.join() === [uci.slice(0, 2), uci.slice(2, 4)].sort().join());
    if (i === 2) {
      assert.equal(shown.connection, "Live");
      assert.deepEqual(shown.running, ["clock-black"]);
      await clocksAgree(gamePage, main.gameId);
      // The running clock counts down between readings.
      const [, high] = clockRange(shown.clockBlack);
      await until(gamePage, "Black's clock counting down", (s) => clockRange(s.clockBlack)[1] <= high - 1000);
      await clocksAgree(gamePage, main.gameId);
      await screenshot(gamePage, "game-in-progress");
    }
    const label = `${Math.floor(i / 2) + 1}${i % 2 === 0 ? "." : "…"} ${san}`;
    await until(eventPage, `${label} on the event page`, (s) =>
      s.cards.length === 2 && s.cards[1].lastMove === label && sameBoard(s.cards[1].board, game.fen));
  }
  shown = await until(gamePage, "the result in words", (s) => s.status === "1-0 · White wins by checkmate" && s.connection === "Game over");
  assert.deepEqual(shown.board.check, ["e8"], "the checkmated king is highlighted");
  assert.deepEqual(shown.running, [], "no clock runs after the end");
  await screenshot(gamePage, "game-over");

  // The board that started from a FEN with Black to move at move 12.
  const game = await second.play("Nf6");
  shown = await until(eventPage, "the other board's move, numbered from its FEN", (s) =>
    s.cards[0].lastMove === "12… Nf6" && sameBoard(s.cards[0].board, game.fen));
  assert.equal(shown.cards[0].head, "Board 1");
  assert.equal(shown.cards[0].white, "Carlsen, Magnus");
  assert.equal(shown.cards[0].status, "White to move");
  assert.equal(shown.cards[1].status, "1-0 · White wins by checkmate");
  assert.equal(shown.cards[1].clockWhite !== "", true);
  assert.deepEqual(shown.rounds, ["Round 1"]);
  await screenshot(eventPage, "event");
  await fitsATablet(eventPage, "event");
  await fitsATablet(gamePage, "game");

  // A card is a link to its game.
  await eventPage.page.click(`.card[data-game="${second.gameId}"]`);
  shown = await until(eventPage, "the game opened from its card", (s) =>
    s.board !== null && s.white === "Carlsen, Magnus" && s.moves === "12… Nf6" && s.connection === "Live");

  // A page opened after the end shows the whole finished game.
  const late = await open(`?game=${main.gameId}`);
  shown = await until(late, "the finished game", (s) => s.moves === rows[6] && s.status === "1-0 · White wins by checkmate");
  assert.deepEqual(shown.board.check, ["e8"]);
});

test("a game with a broadcast delay is shown to the page as it stood that long ago", async () => {
  const delayed = await newGame({
    white: { id: "d-1", name: "White" },
    black: { id: "d-2", name: "Black" },
    broadcastDelayMillis: 5_000,
  });
  const view = await open(`?game=${delayed.gameId}`);
  await until(view, "the delayed game", (s) => s.connection === "Live" && s.status === "White to move");
  await delayed.play("d4");
  const soon = await view.page.evaluate(read);
  assert.equal(soon.moves, "", "the page showed a move before the broadcast delay passed");
  await until(view, "the move once the delay passed", (s) => s.moves === "1. d4");
});

test("the pages say what went wrong: an unknown game, an unreachable server, a refused origin", async () => {
  const missing = await open("?game=no-such-game");
  await until(missing, "that the game does not exist", (s) => s.connection === "There is no game no-such-game on this server.");

  // The same pages from another origin (localhost, not 127.0.0.1), calling
  // this server, which allows no other origin: the browser refuses.
  const refused = await open(`?server=${encodeURIComponent(world.webUrl)}&game=any-game`, world.otherUrl);
  const shown = await until(refused, "the CORS hint", (s) => s.connection.startsWith("Cannot reach the server at"));
  assert.ok(shown.connection.includes(`does not allow this page's origin (start it with --cors-allowed-origins ${world.otherUrl})`), shown.connection);
  await screenshot(refused, "refused-origin");

  // A server that is not there at all.
  const port = await freePort();
  const gone = await open(`?server=${encodeURIComponent(`http://127.0.0.1:${port}`)}&event=any`, world.otherUrl);
  await until(gone, "that the server cannot be reached", (s) => s.connection.startsWith(`Cannot reach the server at http://127.0.0.1:${port}`));
});

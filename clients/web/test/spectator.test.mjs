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
// Chromium: CHROMIUM_PATH or /usr/bin/chromium.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { connect, createServer as createTcpServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { chromium } from "playwright-core";
import { AdminService, ArbiterService, Color } from "../src/gen/chessarbiter/v1/arbiter_pb.js";

const HERE = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const REPO = resolve(HERE, "../..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SHOTS = join(REPO, "target", "web-screenshots");
const WAIT_MS = 15_000;

/** Listens on a free loopback port; resolves with the port. */
function listen(server) {
  return new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => ok(server.address().port));
  });
}

async function freePort() {
  const probe = createTcpServer();
  const port = await listen(probe);
  await new Promise((r) => probe.close(r));
  return port;
}

/** A TCP proxy to `port` whose open connections can be cut. */
function proxyTo(port) {
  const sockets = new Set();
  const server = createTcpServer((client) => {
    const upstream = connect(port, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  return { server, cut: () => { const n = sockets.size; for (const s of sockets) s.destroy(); return n; } };
}

/** The committed built/ from another origin, as a page hosted elsewhere would be. */
function elsewhere() {
  const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8" };
  return createHttpServer((request, response) => {
    const path = new URL(request.url, "http://x").pathname;
    const name = path === "/" ? "index.html" : path.slice(1);
    const file = join(HERE, "built", name);
    if (name.includes("/") || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
    response.end(readFileSync(file));
  });
}

let redis, arbiter, workDir, serverLog, proxy, browser, profileDir, other;
let admin, player, adminToken, webUrl, otherUrl;

function logTail() {
  try { return readFileSync(serverLog, "utf8").split("\n").slice(-30).join("\n"); } catch { return ""; }
}

async function stop(child) {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

before(async () => {
  const bin = process.env.CHESS_ARBITER_BIN ?? join(REPO, "target", "debug", "chess-arbiter");
  assert.ok(existsSync(bin), `${bin} does not exist: cargo build --bin chess-arbiter --locked (or set CHESS_ARBITER_BIN)`);
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} does not exist: apt-get install chromium (or set CHROMIUM_PATH)`);
  rmSync(SHOTS, { recursive: true, force: true });
  mkdirSync(SHOTS, { recursive: true });
  workDir = mkdtempSync(join(tmpdir(), "arbiter-web-"));
  serverLog = join(workDir, "server.log");

  const redisPort = await freePort();
  redis = spawn("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", workDir], { stdio: "ignore" });

  const apiPort = await freePort();
  const webPort = await freePort();
  adminToken = randomBytes(16).toString("hex");
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ARBITER_") && k !== "REDIS_URL"));
  Object.assign(env, {
    ARBITER_LISTEN: `127.0.0.1:${apiPort}`,
    ARBITER_WEB_LISTEN: `127.0.0.1:${webPort}`,
    ARBITER_REDIS_URL: `redis://127.0.0.1:${redisPort}/`,
    ARBITER_ADMIN_TOKEN: adminToken,
    ARBITER_TOKEN_SECRET: randomBytes(24).toString("hex"),
    ARBITER_MAX_SEAT_WRITES_PER_SECOND: "0",
    ARBITER_MAX_PEER_WRITES_PER_SECOND: "0",
    ARBITER_SHUTDOWN_GRACE_SECONDS: "1",
  });
  const log = openSync(serverLog, "w");
  arbiter = spawn(bin, [], { env, stdio: ["ignore", log, log] });

  const transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${apiPort}` });
  admin = createClient(AdminService, transport);
  player = createClient(ArbiterService, transport);
  const deadline = Date.now() + 60_000;
  for (;;) {
    assert.equal(arbiter.exitCode, null, `the server exited:\n${logTail()}`);
    try {
      await player.getGame({ gameId: "readiness-probe" }, { timeoutMs: 1000 });
    } catch (error) {
      if (ConnectError.from(error).code === Code.NotFound) break;
    }
    assert.ok(Date.now() < deadline, `the server did not answer within 60 s:\n${logTail()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.match(readFileSync(serverLog, "utf8"), new RegExp(`open http://127\\.0\\.0\\.1:${webPort}/`), "the server does not print the pages' address");

  proxy = proxyTo(webPort);
  webUrl = `http://127.0.0.1:${await listen(proxy.server)}`;
  other = elsewhere();
  otherUrl = `http://localhost:${await listen(other)}`;

  profileDir = mkdtempSync(join(tmpdir(), "web-chromium-"));
  browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
});

after(async () => {
  await browser?.close();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  proxy?.cut();
  proxy?.server.close();
  other?.close();
  await stop(arbiter);
  await stop(redis);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** Opens a page; collects its console, errors and failed requests for failure messages. */
async function open(path, origin = webUrl) {
  const page = await browser.newPage();
  const notes = [];
  page.on("console", (m) => notes.push(`console.${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => notes.push(`pageerror: ${e.message}`));
  page.on("requestfailed", (r) => notes.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  await page.goto(`${origin}/${path}`);
  return { page, notes };
}

let shot = 0;
async function screenshot({ page }, name) {
  shot += 1;
  await page.screenshot({ path: join(SHOTS, `${String(shot).padStart(2, "0")}-${name}.png`) });
}

/** What the page shows, read from its DOM: texts, and each board's pieces by square. */
function read() {
  const boardOf = (root) => {
    if (root === null) return null;
    const pieces = {};
    for (const piece of root.querySelectorAll("piece")) {
      if (piece.classList.contains("fading") || piece.classList.contains("ghost")) continue;
      const color = piece.classList.contains("white") ? "w" : "b";
      const role = ["king", "queen", "rook", "bishop", "knight", "pawn"].find((r) => piece.classList.contains(r));
      pieces[piece.cgKey] = `${color}${role}`;
    }
    const squares = (cls) => [...root.querySelectorAll(`square.${cls}`)].map((s) => s.cgKey).sort();
    return { pieces, lastMove: squares("last-move"), check: squares("check") };
  };
  const text = (id) => document.getElementById(id)?.textContent ?? "";
  return {
    connection: text("connection"),
    status: text("status"),
    title: text("title"),
    white: text("name-white"),
    black: text("name-black"),
    clockWhite: text("clock-white"),
    clockBlack: text("clock-black"),
    running: [...document.querySelectorAll("#game .clock.running")].map((c) => c.id),
    moves: [...document.querySelectorAll("#moves li")].map((li) => li.textContent.replace(/\s+/g, " ").trim()).join(" "),
    board: boardOf(document.getElementById("board")),
    rounds: [...document.querySelectorAll("#rounds a")].map((a) => a.textContent),
    cards: [...document.querySelectorAll("#boards .card")].map((card) => ({
      game: card.dataset.game,
      href: card.getAttribute("href"),
      head: card.querySelector(".head")?.textContent ?? "",
      white: card.querySelector(".side.white .name")?.textContent ?? "",
      black: card.querySelector(".side.black .name")?.textContent ?? "",
      clockWhite: card.querySelector(".side.white .clock")?.textContent ?? "",
      lastMove: card.querySelector(".foot .last-move")?.textContent ?? "",
      status: card.querySelector(".foot .status")?.textContent ?? "",
      board: boardOf(card.querySelector(".mini-board")),
    })),
  };
}

/** Waits (at most WAIT_MS) until `check(shown)` holds for what the page shows. */
async function until(view, what, check) {
  const deadline = Date.now() + WAIT_MS;
  let shown;
  for (;;) {
    try {
      shown = await view.page.evaluate(read);
    } catch (error) {
      // The page is navigating (a form sent, a link followed): read again.
      if (!/context was destroyed|navigat/i.test(String(error))) throw error;
      shown = undefined;
    }
    if (shown !== undefined && check(shown)) return shown;
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`the page did not show ${what} within ${WAIT_MS} ms; it shows ${JSON.stringify(shown, null, 1)}\n${view.notes.join("\n")}\nserver log:\n${logTail()}`);
}

/** The pieces of a FEN by square, as read() gives a board's. */
function piecesOf(fen) {
  const roles = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };
  const pieces = {};
  (fen.split(" ")[0] ?? "").split("/").forEach((rank, i) => {
    let file = 0;
    for (const c of rank) {
      if (/\d/.test(c)) { file += Number(c); continue; }
      pieces[`${"abcdefgh"[file]}${8 - i}`] = `${c === c.toUpperCase() ? "w" : "b"}${roles[c.toLowerCase()]}`;
      file += 1;
    }
  });
  return pieces;
}

const sameBoard = (board, fen) => board !== null && JSON.stringify(Object.entries(board.pieces).sort()) === JSON.stringify(Object.entries(piecesOf(fen)).sort());

/** "4:58" or "0:09.4" in milliseconds: the lowest and highest times the text can stand for. */
function clockRange(text) {
  const m = /^(?:(\d+):)?(\d+):(\d\d)(?:\.(\d))?$/.exec(text);
  assert.ok(m, `not a clock reading: "${text}"`);
  const ms = ((Number(m[1] ?? 0) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + Number(m[4] ?? 0) * 100;
  return [ms, ms + (m[4] === undefined ? 1000 : 100)];
}

/** The server's clocks now, counted from its reading as a client does. */
async function serverClocks(gameId) {
  const clock = (await player.getGame({ gameId })).game.clock;
  const readAt = Number(clock.readTime.seconds) * 1000 + clock.readTime.nanos / 1e6;
  const counted = Math.max(0, Date.now() - readAt - clock.delayLeftMillis);
  return {
    white: clock.whiteMillis - (clock.running === Color.WHITE ? counted : 0),
    black: clock.blackMillis - (clock.running === Color.BLACK ? counted : 0),
  };
}

/** Asserts that the page's clocks are within a second of the server's. */
async function clocksAgree(view, gameId) {
  const before = await view.page.evaluate(read);
  const server = await serverClocks(gameId);
  const after = await view.page.evaluate(read);
  for (const side of ["white", "black"]) {
    const key = side === "white" ? "clockWhite" : "clockBlack";
    const [low] = clockRange(after[key]);
    const [, high] = clockRange(before[key]);
    assert.ok(server[side] >= low - 1000 && server[side] <= high + 1000,
      `${side}'s clock: the page shows ${before[key]}…${after[key]}, the server ${server[side]} ms`);
  }
}

const bearer = (token) => ({ headers: { authorization: `Bearer ${token}` } });

async function newGame(fields) {
  const created = await admin.createGame({ requestId: `web-${randomBytes(6).toString("hex")}`, ...fields }, bearer(adminToken));
  const gameId = created.game.gameId;
  const tokens = { [Color.WHITE]: created.whiteToken, [Color.BLACK]: created.blackToken };
  const play = async (san) => {
    const game = (await player.getGame({ gameId }, bearer(adminToken))).game;
    await player.makeMove({ gameId, move: san, ply: game.ply }, bearer(tokens[game.sideToMove]));
    return (await player.getGame({ gameId }, bearer(adminToken))).game;
  };
  return { gameId, created, play };
}

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
      assert.ok(proxy.cut() > 0, "no connection went through the proxy");
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
  const refused = await open(`?server=${encodeURIComponent(webUrl)}&game=any-game`, otherUrl);
  const shown = await until(refused, "the CORS hint", (s) => s.connection.startsWith("Cannot reach the server at"));
  assert.ok(shown.connection.includes(`does not allow this page's origin (start it with --cors-allowed-origins ${otherUrl})`), shown.connection);
  await screenshot(refused, "refused-origin");

  // A server that is not there at all.
  const port = await freePort();
  const gone = await open(`?server=${encodeURIComponent(`http://127.0.0.1:${port}`)}&event=any`, otherUrl);
  await until(gone, "that the server cannot be reached", (s) => s.connection.startsWith(`Cannot reach the server at http://127.0.0.1:${port}`));
});

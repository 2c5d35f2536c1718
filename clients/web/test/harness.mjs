// What the pages' browser tests share: redis-server and a real
// chess-arbiter (CHESS_ARBITER_BIN, or the repository's
// target/debug/chess-arbiter) on free ports, the pages on the server's web
// port with no CORS set-up, reached through a TCP proxy whose connections a
// test can cut, another origin serving the same built files, headless
// Chromium (CHROMIUM_PATH or /usr/bin/chromium), and the helpers that read
// what a page shows and wait (bounded) for it. Screenshots go to
// target/web-screenshots/<file>/.

import { before, after } from "node:test";
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

export async function freePort() {
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

let redis, arbiter, workDir, serverLog, browser, profileDir, other;
/** What the tests use: clients of the server, its pages' address (through the proxy), another origin. */
export const world = { admin: undefined, player: undefined, adminToken: "", webUrl: "", otherUrl: "", proxy: undefined };
let admin, player, adminToken, webUrl, otherUrl, proxy;

export function logTail() {
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

/** Starts redis-server, the server and Chromium before the file's tests, and stops them after. */
export function useWorld(name) {
before(async () => {
  const bin = process.env.CHESS_ARBITER_BIN ?? join(REPO, "target", "debug", "chess-arbiter");
  assert.ok(existsSync(bin), `${bin} does not exist: cargo build --bin chess-arbiter --locked (or set CHESS_ARBITER_BIN)`);
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} does not exist: apt-get install chromium (or set CHROMIUM_PATH)`);
  shots = join(SHOTS, name);
  rmSync(shots, { recursive: true, force: true });
  mkdirSync(shots, { recursive: true });
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
  Object.assign(world, { admin, player, adminToken, webUrl, otherUrl, proxy });
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
}

/** Opens a page; collects its console, errors and failed requests for failure messages. */
export async function open(path, origin = webUrl) {
  const page = await browser.newPage();
  const notes = [];
  page.on("console", (m) => notes.push(`console.${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => notes.push(`pageerror: ${e.message}`));
  page.on("requestfailed", (r) => notes.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  await page.goto(`${origin}/${path}`);
  return { page, notes };
}

let shot = 0;
let shots = SHOTS;
export async function screenshot({ page }, name) {
  shot += 1;
  await page.screenshot({ path: join(shots, `${String(shot).padStart(2, "0")}-${name}.png`) });
}

/** What the spectator page shows, read from its DOM: texts, and each board's pieces by square. */
export function read() {
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
export async function until(view, what, check, reader = read) {
  const deadline = Date.now() + WAIT_MS;
  let shown;
  for (;;) {
    try {
      shown = await view.page.evaluate(reader);
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
export function piecesOf(fen) {
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

export const sameBoard = (board, fen) => board !== null && JSON.stringify(Object.entries(board.pieces).sort()) === JSON.stringify(Object.entries(piecesOf(fen)).sort());

/** "4:58" or "0:09.4" in milliseconds: the lowest and highest times the text can stand for. */
export function clockRange(text) {
  const m = /^(?:(\d+):)?(\d+):(\d\d)(?:\.(\d))?$/.exec(text);
  assert.ok(m, `not a clock reading: "${text}"`);
  const ms = ((Number(m[1] ?? 0) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + Number(m[4] ?? 0) * 100;
  return [ms, ms + (m[4] === undefined ? 1000 : 100)];
}

/** The server's clocks now, counted from its reading as a client does. */
export async function serverClocks(gameId) {
  const clock = (await player.getGame({ gameId })).game.clock;
  const readAt = Number(clock.readTime.seconds) * 1000 + clock.readTime.nanos / 1e6;
  const counted = Math.max(0, Date.now() - readAt - clock.delayLeftMillis);
  return {
    white: clock.whiteMillis - (clock.running === Color.WHITE ? counted : 0),
    black: clock.blackMillis - (clock.running === Color.BLACK ? counted : 0),
  };
}

/** Asserts that the page's clocks are within a second of the server's. */
export async function clocksAgree(view, gameId) {
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

export const bearer = (token) => ({ headers: { authorization: `Bearer ${token}` } });

export async function newGame(fields) {
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

/** Shows the page at a tablet's size (portrait) and asserts that nothing overflows its width. */
export async function fitsATablet(view, name) {
  await view.page.setViewportSize({ width: 820, height: 1180 });
  await new Promise((r) => setTimeout(r, 200));
  const { scroll, width } = await view.page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  assert.ok(scroll <= width, `the page is ${scroll} px wide in a ${width} px window`);
  await screenshot(view, `${name}-tablet`);
  await view.page.setViewportSize({ width: 1280, height: 800 });
}

// The spectator page in headless Chromium against a real chess-arbiter.
//
// Starts the server (CHESS_ARBITER_BIN, or the repository's
// target/debug/chess-arbiter) with ARBITER_CORS_ALLOWED_ORIGINS set to the
// origin of a tiny static file server for this directory, so the page calls
// the API cross-origin over gRPC-Web. The page reaches the server through a
// TCP proxy whose connections the test cuts, to check that the page resumes
// its watch. Moves are played over gRPC (connect-node), and the test waits
// (bounded) for what the page shows: SAN moves, side to move, clocks, result;
// and, on the event page, each game's latest move and status.
//
// Needs the generated code (buf generate) and the bundle (npm run build);
// scripts/check-spectator does both. Chromium: CHROMIUM_PATH or /usr/bin/chromium.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { connect, createServer as createTcpServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { chromium } from "playwright-core";
import { AdminService, ArbiterService } from "../src/gen/chessarbiter/v1/arbiter_pb.js";

const HERE = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const REPO = resolve(HERE, "../..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const WAIT_MS = 15_000;

/** Listens on a free loopback port; resolves with the port. */
function listen(server) {
  return new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => ok(server.address().port));
  });
}

/** Serves index.html and dist/ of this package (nothing else). */
function staticServer() {
  const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".map": "application/json" };
  return createHttpServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url, "http://x").pathname));
    const file = path === "/" ? "/index.html" : path;
    if (!(file === "/index.html" || file.startsWith("/dist/")) || !existsSync(join(HERE, file))) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
    response.end(readFileSync(join(HERE, file)));
  });
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

let arbiter, serverLog, serverDir, web, proxy, browser, profileDir;
let admin, player, adminToken;
let webUrl, apiUrl;

function logTail() {
  try { return readFileSync(serverLog, "utf8").split("\n").slice(-30).join("\n"); } catch { return ""; }
}

before(async () => {
  const bin = process.env.CHESS_ARBITER_BIN ?? join(REPO, "target", "debug", "chess-arbiter");
  assert.ok(existsSync(bin), `${bin} does not exist: cargo build --bin chess-arbiter --locked (or set CHESS_ARBITER_BIN)`);
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} does not exist: apt-get install chromium (or set CHROMIUM_PATH)`);
  assert.ok(existsSync(join(HERE, "dist", "spectator.js")), "dist/spectator.js is missing: npm run build");

  web = staticServer();
  const webPort = await listen(web);
  webUrl = `http://127.0.0.1:${webPort}`;

  const probe = createTcpServer();
  const apiPort = await listen(probe);
  await new Promise((r) => probe.close(r));
  adminToken = randomBytes(16).toString("hex");
  serverDir = mkdtempSync(join(tmpdir(), "arbiter-spectator-"));
  serverLog = join(serverDir, "server.log");
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ARBITER_") && k !== "REDIS_URL"));
  Object.assign(env, {
    ARBITER_LISTEN: `127.0.0.1:${apiPort}`,
    ARBITER_ADMIN_TOKEN: adminToken,
    ARBITER_TOKEN_SECRET: randomBytes(24).toString("hex"),
    ARBITER_MAX_SEAT_WRITES_PER_SECOND: "0",
    ARBITER_MAX_PEER_WRITES_PER_SECOND: "0",
    ARBITER_CORS_ALLOWED_ORIGINS: webUrl,
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

  proxy = proxyTo(apiPort);
  apiUrl = `http://127.0.0.1:${await listen(proxy.server)}`;

  profileDir = mkdtempSync(join(tmpdir(), "spectator-chromium-"));
  browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
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
  web?.close();
  if (arbiter && arbiter.exitCode === null) {
    const exited = new Promise((r) => arbiter.once("exit", r));
    arbiter.kill("SIGTERM");
    const timer = setTimeout(() => arbiter.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  }
  if (serverDir) rmSync(serverDir, { recursive: true, force: true });
});

/** Opens the page; collects its console and failed requests for failure messages. */
async function open(query, origin = webUrl) {
  const page = await browser.newPage();
  const notes = [];
  page.on("console", (m) => notes.push(`console.${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => notes.push(`pageerror: ${e.message}`));
  page.on("requestfailed", (r) => notes.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  await page.goto(`${origin}/index.html?server=${encodeURIComponent(apiUrl)}&${query}`);
  return { page, notes };
}

/** Waits (at most WAIT_MS) until `check(texts)` holds for the page's texts. */
async function until({ page, notes }, what, check) {
  const deadline = Date.now() + WAIT_MS;
  let texts;
  for (;;) {
    texts = await page.evaluate(() => ({
      connection: document.getElementById("connection")?.textContent ?? "",
      status: document.getElementById("status")?.textContent ?? "",
      moves: [...document.querySelectorAll("#moves li")].map((li) => li.textContent),
      clockWhite: document.getElementById("clock-white")?.textContent ?? "",
      clockBlack: document.getElementById("clock-black")?.textContent ?? "",
      board: document.getElementById("board")?.textContent ?? "",
      rows: [...document.querySelectorAll("#games tr")].map((tr) => [...tr.cells].map((td) => td.textContent)),
    }));
    if (check(texts)) return texts;
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`the page did not show ${what} within ${WAIT_MS} ms; it shows ${JSON.stringify(texts, null, 1)}\n${notes.join("\n")}\nserver log:\n${logTail()}`);
}

const bearer = (token) => ({ headers: { authorization: `Bearer ${token}` } });

test("the page follows a game and an event live over gRPC-Web, across dropped streams", async () => {
  const created = await admin.createGame(
    {
      requestId: `spectator-${randomBytes(4).toString("hex")}`,
      white: { id: "p-1", name: "Anand, Viswanathan" },
      black: { id: "p-2", name: "Kramnik, Vladimir" },
      pairing: { eventId: "spectator-open", round: 1, board: 3 },
      timeControl: { periods: [{ timeMillis: 300_000, incrementMillis: 2_000 }] },
    },
    bearer(adminToken),
  );
  const gameId = created.game.gameId;
  const move = (token, san, ply) => player.makeMove({ gameId, move: san, ply }, bearer(token));

  const gamePage = await open(`game=${encodeURIComponent(gameId)}`);
  await until(gamePage, "the new game", (t) => t.connection === "live" && t.status.startsWith("White to move") && t.moves.length === 0 && /♖ ♘ ♗ ♕ ♔ ♗ ♘ ♖/.test(t.board));

  await move(created.whiteToken, "e4", 0);
  await until(gamePage, "1. e4", (t) => t.moves.join(" ") === "e4" && t.status.startsWith("Black to move"));
  await move(created.blackToken, "e5", 1);
  let shown = await until(gamePage, "1… e5", (t) => t.moves.join(" ") === "e4 e5" && t.status.startsWith("White to move"));
  assert.match(shown.clockWhite, /^White \d+:\d\d/);
  assert.match(shown.clockBlack, /^Black \d+:\d\d/);

  const eventPage = await open("event=spectator-open");
  await until(eventPage, "the event's game with its latest move", (t) =>
    t.rows.length === 1 && t.rows[0][0] === "1.3" && t.rows[0][1].includes("Anand") && t.rows[0][2] === "1… e5");

  // Cut every connection between the pages and the server: the pages must
  // reconnect and resume, missing nothing and repeating nothing.
  assert.ok(proxy.cut() > 0, "no connection went through the proxy");
  await move(created.whiteToken, "Nf3", 2);
  await until(gamePage, "2. Nf3 after a dropped stream", (t) => t.moves.join(" ") === "e4 e5 Nf3" && t.status.startsWith("Black to move") && t.connection === "live");
  await until(eventPage, "2. Nf3 on the event page after a dropped stream", (t) => t.rows.length === 1 && t.rows[0][2] === "2. Nf3");

  await move(created.blackToken, "Nc6", 3);
  await until(gamePage, "2… Nc6", (t) => t.moves.join(" ") === "e4 e5 Nf3 Nc6");

  // End the game: Black resigns.
  await player.resignGame({ gameId }, bearer(created.blackToken));
  shown = await until(gamePage, "the result", (t) => t.status === "Game over: 1-0 (resignation)" && t.connection === "game over");
  assert.deepEqual(shown.moves, ["e4", "e5", "Nf3", "Nc6"]);
  await until(eventPage, "the result on the event page", (t) => t.rows.length === 1 && t.rows[0][3] === "Game over: 1-0 (resignation)");

  // A page opened after the end shows the whole finished game.
  const late = await open(`game=${encodeURIComponent(gameId)}`);
  await until(late, "the finished game", (t) => t.moves.join(" ") === "e4 e5 Nf3 Nc6" && t.status === "Game over: 1-0 (resignation)");
});

test("a page from an origin the server does not allow says so", async () => {
  // The same files from another origin (localhost, not 127.0.0.1): the
  // server allows only the first, so the browser refuses every call.
  const other = webUrl.replace("127.0.0.1", "localhost");
  const page = await open("game=any-game", other);
  const shown = await until(page, "the CORS hint", (t) => t.connection.startsWith("disconnected (Unknown)"));
  assert.match(shown.connection, /does not allow this page's origin/);
  assert.ok(shown.connection.includes(`--cors-allowed-origins ${other}`), shown.connection);
});

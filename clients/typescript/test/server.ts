/**
 * Starts a real chess-arbiter server for the tests and the example.
 *
 * The binary is CHESS_ARBITER_BIN, or the repository's
 * target/debug/chess-arbiter (scripts/check-ts-client builds it with
 * `cargo build --bin chess-arbiter --locked` and passes its path). The server
 * keeps its games in memory, listens on a free loopback port, has an admin
 * token, a token secret, no write rate limits, and allows gRPC-Web calls from
 * http://localhost:5173; it is ready once it answers a call. With `feed: true`
 * it also serves the broadcast feed (ARBITER_FEED_LISTEN) on a free loopback
 * port of its own, at `feedUrl`. A server that cannot listen because a port
 * was taken meanwhile is started again on other free ports.
 *
 * Run as a script, it starts a server, runs a command with ARBITER_URL and
 * ARBITER_ADMIN_TOKEN set, stops the server and exits with the command's
 * status:
 *
 *     node dist/test/server.js -- node dist/examples/play-to-mate.js
 */

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ArbiterClient, ArbiterError, Code } from "@chess-arbiter/client";

/** The web origin the test server allows gRPC-Web calls from. */
export const CORS_ORIGIN = "http://localhost:5173";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

function binary(): string {
  const path = process.env["CHESS_ARBITER_BIN"] ?? join(REPO, "target", "debug", "chess-arbiter");
  if (!existsSync(path)) {
    throw new Error(`${path} does not exist: build it with cargo build --bin chess-arbiter --locked (or set CHESS_ARBITER_BIN)`);
  }
  return path;
}

/** A loopback port nothing listens on right now, other than the `taken` ones. */
export async function freePort(...taken: number[]): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolvePort, reject) => {
      const probe = createServer();
      probe.once("error", reject);
      probe.listen(0, "127.0.0.1", () => {
        const address = probe.address();
        const found = typeof address === "object" && address !== null ? address.port : 0;
        probe.close(() => resolvePort(found));
      });
    });
    if (!taken.includes(port)) return port;
  }
}

/** Options of {@link ArbiterServer.start}. */
export interface ServerOptions {
  /** Serves the broadcast feed too, on a free loopback port of its own (`feedUrl`). */
  readonly feed?: boolean;
}

/** How many times a server is started on fresh ports when one was taken meanwhile. */
const START_ATTEMPTS = 3;

/** A server that could not listen: a port probed free was taken before it bound it. */
class PortTaken extends Error {}

/** A running server: where it listens (and its feed, when it serves one), its admin token, its log. */
export class ArbiterServer {
  private constructor(
    readonly url: string,
    readonly adminToken: string,
    /** The broadcast feed's base URL (`http://127.0.0.1:<port>`), when the server serves it. */
    readonly feedUrl: string | undefined,
    private readonly process: ChildProcess,
    private readonly dir: string,
  ) {}

  /** Starts a server and waits until it answers (60 s at most). */
  static async start(options: ServerOptions = {}): Promise<ArbiterServer> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await ArbiterServer.startOnce(options);
      } catch (error) {
        if (!(error instanceof PortTaken) || attempt === START_ATTEMPTS) throw error;
      }
    }
  }

  private static async startOnce(options: ServerOptions): Promise<ArbiterServer> {
    const port = await freePort();
    const feedPort = options.feed ? await freePort(port) : undefined;
    const adminToken = randomBytes(16).toString("hex");
    const dir = mkdtempSync(join(tmpdir(), "arbiter-ts-"));
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (!key.startsWith("ARBITER_") && key !== "REDIS_URL") env[key] = value;
    }
    Object.assign(env, {
      ARBITER_LISTEN: `127.0.0.1:${port}`,
      ARBITER_ADMIN_TOKEN: adminToken,
      ARBITER_TOKEN_SECRET: randomBytes(24).toString("hex"),
      ARBITER_MAX_SEAT_WRITES_PER_SECOND: "0",
      ARBITER_MAX_PEER_WRITES_PER_SECOND: "0",
      ARBITER_CORS_ALLOWED_ORIGINS: CORS_ORIGIN,
      ARBITER_SHUTDOWN_GRACE_SECONDS: "1",
    });
    if (feedPort !== undefined) env["ARBITER_FEED_LISTEN"] = `127.0.0.1:${feedPort}`;
    const log = openSync(join(dir, "server.log"), "w");
    const child = spawn(binary(), [], { env, stdio: ["ignore", log, log] });
    const feedUrl = feedPort === undefined ? undefined : `http://127.0.0.1:${feedPort}`;
    const server = new ArbiterServer(`http://127.0.0.1:${port}`, adminToken, feedUrl, child, dir);
    try {
      await server.waitUntilReady();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  /** The end of the server's log, for failure messages. */
  logTail(lines = 40): string {
    try {
      return readFileSync(join(this.dir, "server.log"), "utf8").split("\n").slice(-lines).join("\n");
    } catch {
      return "";
    }
  }

  private async waitUntilReady(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const probe = ArbiterClient.connect(this.url, { retry: { maxAttempts: 1 }, timeoutMs: 1000 });
    try {
      for (;;) {
        if (this.process.exitCode !== null) {
          const log = this.logTail();
          const message = `the server exited with status ${this.process.exitCode}:\n${log}`;
          throw /address already in use/i.test(log) ? new PortTaken(message) : new Error(message);
        }
        try {
          await probe.getGame("readiness-probe");
        } catch (error) {
          // NOT_FOUND (GAME_NOT_FOUND) is an answer: the server is up.
          if (error instanceof ArbiterError && error.code === Code.NotFound) return;
        }
        if (Date.now() > deadline) {
          throw new Error(`the server at ${this.url} did not answer within ${timeoutMs} ms:\n${this.logTail()}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      probe.close();
    }
  }

  /** Stops the server (SIGTERM, then SIGKILL after 15 s) and removes its log. */
  async stop(): Promise<void> {
    if (this.process.exitCode === null && this.process.signalCode === null) {
      const exited = new Promise<void>((r) => this.process.once("exit", () => r()));
      this.process.kill("SIGTERM");
      const timer = setTimeout(() => this.process.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function main(argv: string[]): Promise<number> {
  const at = argv.indexOf("--");
  const command = at < 0 ? [] : argv.slice(at + 1);
  const [program, ...args] = command;
  if (program === undefined) {
    console.error("usage: server.js -- COMMAND [ARG...]");
    return 2;
  }
  const server = await ArbiterServer.start();
  try {
    const child = spawn(program, args, {
      stdio: "inherit",
      env: { ...process.env, ARBITER_URL: server.url, ARBITER_ADMIN_TOKEN: server.adminToken },
    });
    const status = await new Promise<number>((r) => child.once("exit", (code) => r(code ?? 1)));
    if (status !== 0) console.error(`the server's log ends with:\n${server.logTail()}`);
    return status;
  } finally {
    await server.stop();
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}

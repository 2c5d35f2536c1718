/**
 * Plays the fool's mate through both seats while a second client watches over
 * gRPC-Web.
 *
 *     node dist/examples/play-to-mate.js --url http://127.0.0.1:50051 --admin-token <token>
 *
 * The platform's client (gRPC) creates a game (AdminService, admin token) and
 * relays each player's move with that player's seat token; chess.js keeps the
 * board, so each move carries the ply at which it was chosen. A spectator's
 * client, over gRPC-Web as a browser page would be, watches the game and
 * prints every update. The script exits 0 once the spectator has seen the
 * game end in checkmate, 1 otherwise.
 *
 * The URL and admin token may also come from ARBITER_URL and
 * ARBITER_ADMIN_TOKEN (leave the token out for a server in open mode).
 */

import { parseArgs } from "node:util";
import { Chess } from "chess.js";
import { ArbiterClient, type WatchUpdate, pb } from "@chess-arbiter/client";

const FOOLS_MATE = ["f3", "e5", "g4", "Qh4#"];

/** One line for a watch update. */
function describe(update: WatchUpdate): string {
  switch (update.kind) {
    case "snapshot": {
      const game = update.snapshot;
      return `v${update.version} snapshot: ${pb.GameStatus[game.status]}, ply ${game.ply}, ${game.fen}`;
    }
    case "heartbeat":
      return `v${update.version} heartbeat`;
    case "event": {
      const kind = update.event.kind;
      if (kind.case === "moveMade" && kind.value.move !== undefined) {
        const move = kind.value.move;
        return `v${update.version} ${move.color === pb.Color.WHITE ? "White" : "Black"} plays ${move.san} (${move.uci})`;
      }
      if (kind.case === "gameEnded" && kind.value.result !== undefined) {
        const result = kind.value.result;
        return (
          `v${update.version} game over: ${pb.Outcome[result.outcome]} by ${pb.Termination[result.termination]}` +
          ` (${result.score?.whitePoints ?? "?"}-${result.score?.blackPoints ?? "?"})`
        );
      }
      return `v${update.version} ${update.eventKind}`;
    }
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      url: { type: "string", default: process.env["ARBITER_URL"] ?? "http://127.0.0.1:50051" },
      "admin-token": { type: "string", default: process.env["ARBITER_ADMIN_TOKEN"] ?? "" },
    },
  });
  const url = values.url;
  const platform = ArbiterClient.connect(url, { protocol: "grpc", adminToken: values["admin-token"] || undefined });
  const spectator = ArbiterClient.connect(url, { protocol: "grpc-web" });
  try {
    const created = await platform.createGame({ id: "p-1", name: "White, Walter" }, { id: "p-2", name: "Black, Bella" });
    console.log(`created game ${created.gameId}`);

    const seen: WatchUpdate[] = [];
    const watch = spectator.watchGame(created.gameId);
    const print = (update: WatchUpdate): void => {
      seen.push(update);
      console.log(`  [watcher] ${describe(update)}`);
    };
    // Let the spectator receive its snapshot first, so the output reads in order.
    const first = await watch.next();
    if (!first.done) print(first.value);
    const watching = (async () => {
      for await (const update of watch) print(update);
    })();

    const chess = new Chess();
    const tokens = { w: created.whiteToken, b: created.blackToken };
    for (const san of FOOLS_MATE) {
      const token = tokens[chess.turn()];
      const ply = chess.history().length;
      const move = chess.move(san);
      const result = await platform.makeMove(created.gameId, token, move, ply);
      if (result.game.fen !== chess.fen()) {
        console.error(`the arbiter's position ${result.game.fen} is not ${chess.fen()}`);
        return 1;
      }
      console.log(`played ${san}`);
    }

    const timeout = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 30_000).unref());
    if ((await Promise.race([watching.then(() => "done" as const), timeout])) === "timeout") {
      watch.cancel();
      console.error("the watcher did not see the game end");
      return 1;
    }
    const last = seen.at(-1);
    const mated =
      last?.kind === "event" &&
      last.event.kind.case === "gameEnded" &&
      last.event.kind.value.result?.termination === pb.Termination.CHECKMATE;
    if (!mated) {
      console.error("the watcher did not see a checkmate");
      return 1;
    }
    console.log(`the watcher saw ${seen.length} updates, ending in checkmate`);
    return 0;
  } finally {
    platform.close();
    spectator.close();
  }
}

process.exitCode = await main();

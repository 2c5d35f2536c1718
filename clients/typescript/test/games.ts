/** Helpers the live tests share: playing moves through the seats. */

import assert from "node:assert/strict";
import type { Chess } from "chess.js";
import type { ArbiterClient, CreatedGame } from "@chess-arbiter/client";

/** Plays `sans` from `chess`'s position, each through the seat to move, chosen by chess.js. */
export async function play(client: ArbiterClient, created: CreatedGame, chess: Chess, sans: readonly string[]): Promise<void> {
  for (const san of sans) {
    const token = chess.turn() === "w" ? created.whiteToken : created.blackToken;
    const ply = chess.history().length;
    const move = chess.move(san);
    const result = await client.makeMove(created.gameId, token, move, ply);
    assert.ok(result.applied, `${san} was applied`);
    assert.equal(result.game.fen, chess.fen());
  }
}

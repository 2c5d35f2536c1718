/**
 * A game's fair-play record through the client, over gRPC and gRPC-Web: the
 * lag and client move time reported with each move, the client's signals, and
 * the export an arbiter reads, while the public PGN shows none of it.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ArbiterClient, ArbiterError, Code, pb } from "@chess-arbiter/client";
import { ArbiterServer } from "./server.js";

let server: ArbiterServer;
before(async () => {
  server = await ArbiterServer.start();
});
after(async () => {
  await server?.stop();
});

const tenMinutes = { periods: [{ timeMillis: 600_000 }] };

for (const protocol of ["grpc", "grpc-web"] as const) {
  describe(`the fair-play record over ${protocol}`, () => {
    test("moves' reports and client signals are in the export, and nowhere public", async () => {
      const platform = ArbiterClient.connect(server.url, { protocol, adminToken: server.adminToken });
      try {
        const created = await platform.createGame({ id: "w", name: "White" }, { id: "b", name: "Black" }, {
          pairing: { eventId: `ts-fair-play (${protocol})`, round: 1, board: 1 },
          timeControl: tenMinutes,
          recordFairPlay: true,
        });
        const gameId = created.game.gameId;
        const lost = await platform.reportClientSignal(gameId, created.blackToken, pb.ClientSignalKind.FOCUS_LOST, {
          clientTime: new Date(),
        });
        assert.equal(lost.recorded, true);
        assert.equal(lost.signalsRecorded, 1);
        await platform.makeMove(gameId, created.whiteToken, "e4", 0, { lagMillis: 80, clientMoveMillis: 1_200 });
        await platform.makeMove(gameId, created.blackToken, "c5", 1);
        const record = await platform.exportFairPlay(gameId);
        const json = JSON.parse(record.json) as {
          schema: string;
          moves: { san: string; lag_reported_ms: number; client_ms: number | null; unfocused: boolean }[];
          signals: { color: string; kind: string }[];
        };
        assert.equal(json.schema, "chess-arbiter/fair-play/v1");
        assert.deepEqual(
          json.moves.map((m) => [m.san, m.lag_reported_ms, m.client_ms, m.unfocused]),
          [
            ["e4", 80, 1_200, false],
            ["c5", 0, null, true],
          ],
        );
        assert.deepEqual(json.signals.map((s) => [s.color, s.kind]), [["black", "focus_lost"]]);
        assert.equal(record.black?.focusLosses, 1);
        assert.match(record.pgn, /1\. e4 \{\[%clk 0:09:5\d\]\s+\[%emt [^\]]+\]\s+\[%lag 0\.080\]\s+\[%clientemt 0:00:01\.2\]/);
        const publicPgn = await platform.exportPgn(gameId);
        assert.doesNotMatch(publicPgn, /%lag |%signal|%clientemt/);
        await assert.rejects(
          platform.reportClientSignal(gameId, "not-a-seat", pb.ClientSignalKind.FOCUS_REGAINED),
          (error: unknown) => {
            assert.ok(error instanceof ArbiterError);
            assert.equal(error.code, Code.PermissionDenied);
            assert.equal(error.reason, "NOT_A_SEAT");
            return true;
          },
        );
      } finally {
        platform.close();
      }
    });
  });
}

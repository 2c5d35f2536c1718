/**
 * Named credentials through the client, over gRPC and gRPC-Web: an arbiter of
 * one event intervenes in its games under its own name, is refused in another
 * event, and reads its acts in the event's audit log.
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
  describe(`credentials over ${protocol}`, () => {
    test("an arbiter of event A cannot touch event B, and its acts are in A's audit log", async () => {
      const platform = ArbiterClient.connect(server.url, { protocol, adminToken: server.adminToken });
      const [eventA, eventB] = [`ts-cup-a (${protocol})`, `ts-cup-b (${protocol})`];
      const inA = await platform.createGame({ id: "a1", name: "White" }, { id: "a2", name: "Black" }, {
        pairing: { eventId: eventA, round: 1, board: 1 },
        timeControl: tenMinutes,
      });
      const inB = await platform.createGame({ id: "b1", name: "White" }, { id: "b2", name: "Black" }, {
        pairing: { eventId: eventB, round: 1, board: 1 },
        timeControl: tenMinutes,
      });
      const created = await platform.admin.createCredential(
        { name: "Anna, chief arbiter", role: pb.Role.ARBITER, eventId: eventA },
        { headers: { authorization: `Bearer ${server.adminToken}` } },
      );
      const anna = ArbiterClient.connect(server.url, { protocol, adminToken: created.token });
      try {
        const paused = await anna.pauseClock(inA.game.gameId, { reason: "arbiter call", requestId: `ts-pause-${protocol}` });
        const names = paused.events.flatMap((e) => (e.kind.case === "clockPaused" ? [e.kind.value.by] : []));
        assert.deepEqual(names, ["Anna, chief arbiter"]);
        await assert.rejects(anna.pauseClock(inB.game.gameId, { reason: "not mine" }), (error: unknown) => {
          assert.ok(error instanceof ArbiterError);
          assert.equal(error.code, Code.PermissionDenied);
          assert.equal(error.reason, "OUT_OF_SCOPE");
          return true;
        });
        assert.equal((await platform.getGame(inB.game.gameId)).clock?.paused, false);
        const log = await anna.admin.listAuditEntries(
          { eventId: eventA },
          { headers: { authorization: `Bearer ${created.token}` } },
        );
        assert.deepEqual(
          log.entries.map((e) => [e.kind, e.principal, e.gameId]),
          [
            [pb.AuditKind.GAME_CREATED, "admin", inA.game.gameId],
            [pb.AuditKind.CREDENTIAL_CREATED, "admin", ""],
            [pb.AuditKind.CLOCK_PAUSED, "Anna, chief arbiter", inA.game.gameId],
          ],
        );
        assert.equal(log.entries[1]?.credential?.name, "Anna, chief arbiter");
        assert.equal(log.entries[2]?.requestId, `ts-pause-${protocol}`);
        assert.equal(log.entries[2]?.reason, "arbiter call");
        await assert.rejects(
          anna.admin.listAuditEntries({ eventId: eventB }, { headers: { authorization: `Bearer ${created.token}` } }),
          (error: unknown) => ArbiterError.from(error).reason === "OUT_OF_SCOPE",
        );
      } finally {
        anna.close();
        platform.close();
      }
    });
  });
}

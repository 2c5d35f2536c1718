/**
 * A team event through the client, over gRPC and gRPC-Web: teams registered
 * with their rosters, rounds of matches from line-ups (a reserve fielded, a
 * board left empty), results set by the arbiter, and team standings equal to
 * what FIDE's reference implementation (TieBreakServer) computed for the same
 * event, committed in tests/data/team-events.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { ArbiterClient, ArbiterError, pb } from "@chess-arbiter/client";
import { ArbiterServer } from "./server.js";

let server: ArbiterServer;
before(async () => {
  server = await ArbiterServer.start();
});
after(async () => {
  await server?.stop();
});

const TEAMS = "abcdef";
const data = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../../../tests/data/team-events/${name}`, import.meta.url)), "utf8");

const roster = (team: string) => ({
  id: team,
  name: `Team ${team.toUpperCase()}`,
  players: [1, 2, 3, 4, 5].map((board) => ({
    id: `${team}${board}`,
    name: `Player ${team.toUpperCase()}${board}`,
    rating: 2600 - 40 * board - 10 * TEAMS.indexOf(team),
  })),
});

const full = (table: number, first: string, second: string, lineUps: { first?: string[]; second?: string[]; black?: boolean } = {}) => ({
  table,
  firstTeamId: first,
  secondTeamId: second,
  firstTeamPlayers: lineUps.first ?? [1, 2, 3, 4].map((b) => `${first}${b}`),
  secondTeamPlayers: lineUps.second ?? [1, 2, 3, 4].map((b) => `${second}${b}`),
  firstTeamColor: lineUps.black ? pb.Color.BLACK : pb.Color.UNSPECIFIED,
});

/** The fixed pattern of results the Rust and Python tests also play. */
const outcome = (round: number, board: number) => {
  const key = (round * 7 + board * 3) % 4;
  return key === 0 || key === 3 ? pb.Outcome.WHITE_WINS : key === 1 ? pb.Outcome.DRAW : pb.Outcome.BLACK_WINS;
};

for (const protocol of ["grpc", "grpc-web"] as const) {
  describe(`a team event over ${protocol}`, () => {
    test("an Olympiad-style Swiss equals the reference", async () => {
      const client = ArbiterClient.connect(server.url, { protocol, adminToken: server.adminToken });
      try {
        const event = `ts-olympiad (${protocol})`;
        const registered = await client.registerTeams(event, 4, [...TEAMS].map(roster));
        assert.equal(registered.version, 1);
        assert.deepEqual((await client.getTeams(event)).teams.map((t) => t.id), [...TEAMS]);
        const rounds = [
          [full(1, "a", "b"), full(2, "c", "d", { second: ["d1", "d2", "d3", ""] }), full(3, "e", "f", { first: ["e1", "e2", "e3", "e5"], second: ["f2", "f3", "f4", "f5"] })],
          [full(1, "c", "a", { black: true }), full(2, "f", "b"), full(3, "d", "e")],
          [full(1, "a", "f"), full(2, "b", "d"), full(3, "e", "c")],
        ];
        for (const [index, matches] of rounds.entries()) {
          const created = await client.createMatchRound(event, index + 1, matches);
          await client.startRound(event, index + 1);
          for (const game of created.games) {
            await client.setGameResult(game.gameId, { outcome: outcome(index + 1, game.board), reason: "as played" });
          }
        }
        for (const [suffix, primary] of [["mp", pb.TeamScoreKind.MATCH_POINTS], ["gp", pb.TeamScoreKind.GAME_POINTS]] as const) {
          const [header, ...rows] = data(`olympiad.${suffix}.tsv`).trim().split("\n");
          const codes = (header ?? "").split("\t").slice(3);
          const table = await client.getTeamStandings(event, { primary, tieBreaks: codes });
          const ours = new Map(table.standings.map((row) => [row.teamId, row]));
          for (const line of rows) {
            const [number, rank, first, ...values] = line.split("\t");
            const row = ours.get(TEAMS[Number(number) - 1] ?? "");
            assert.ok(row, line);
            assert.equal(row.rank, Number(rank));
            assert.equal(Number(suffix === "mp" ? row.matchPoints : row.gamePoints), Number(first));
            assert.deepEqual(row.tieBreakValues.map(Number), values.map(Number));
          }
        }
      } finally {
        client.close();
      }
    });

    test("a drawn match is decided by its Armageddon game", async () => {
      const client = ArbiterClient.connect(server.url, { protocol, adminToken: server.adminToken });
      try {
        const event = `ts-armageddon (${protocol})`;
        await client.registerTeams(event, 2, [roster("a"), roster("b")]);
        const created = await client.createMatchRound(event, 1, [full(1, "a", "b", { first: ["a1", "a2"], second: ["b1", "b2"] })]);
        await client.startRound(event, 1);
        // Board 1: a1 (White) wins; board 2: b2 (White) wins: 1-1.
        for (const game of created.games) {
          await client.setGameResult(game.gameId, { outcome: pb.Outcome.WHITE_WINS, reason: "as played" });
        }
        const minutes = (n: number) => ({ periods: [{ timeMillis: n * 60_000 }] });
        const settings = { timeControl: minutes(5), blackTimeControl: minutes(4) };
        const made = await client.createMatchTieBreak(event, 1, 1, "b1", "a1", { settings });
        assert.deepEqual([made.tieBreak?.whiteTeamId, made.tieBreak?.blackTeamId], ["b", "a"]);
        const again = await client.createMatchTieBreak(event, 1, 1, "b1", "a1", { settings });
        assert.equal(again.tieBreak?.gameId, made.tieBreak?.gameId);
        assert.equal(again.whiteToken, made.whiteToken);
        await assert.rejects(client.createMatchTieBreak(event, 1, 1, "b2", "a1"), (error: unknown) => {
          assert.ok(error instanceof ArbiterError);
          assert.equal(error.reason, "TIE_BREAK_EXISTS");
          return true;
        });
        assert.equal((await client.getTeamStandings(event)).matchesInProgress, 1);
        // Drawn on the board: Armageddon gives it to Black (a1, team a).
        await client.setGameResult(made.tieBreak?.gameId ?? "", { outcome: pb.Outcome.DRAW, reason: "as played" });
        const standings = await client.getTeamStandings(event, { matchPoints: ["3", "1", "0", "2", "1"] });
        assert.deepEqual(
          standings.standings.map((r) => [r.teamId, r.matchPoints, r.gamePoints]),
          [
            ["a", "2", "1"],
            ["b", "1", "1"],
          ],
        );
      } finally {
        client.close();
      }
    });

    test("a line-up off the roster is refused with its field", async () => {
      const client = ArbiterClient.connect(server.url, { protocol, adminToken: server.adminToken });
      try {
        const event = `ts-bad-line-up (${protocol})`;
        await client.registerTeams(event, 2, [roster("a"), roster("b")]);
        await assert.rejects(
          client.createMatchRound(event, 1, [full(1, "a", "b", { first: ["a1", "x9"], second: ["b1", "b2"] })]),
          (error: unknown) => {
            assert.ok(error instanceof ArbiterError);
            assert.equal(error.reason, "INVALID_FIELD");
            assert.deepEqual(error.fieldViolations.map((v) => v.field), ["matches[0].first_team_players[1]"]);
            return true;
          },
        );
      } finally {
        client.close();
      }
    });
  });
}

// Unit tests of how the pages write moves, results and clocks
// (src/notation.ts, src/clock.ts). scripts/check-web compiles both to
// plain JavaScript in WEB_MODULES.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const dir = process.env.WEB_MODULES;
assert.ok(dir, "WEB_MODULES is not set: run scripts/check-web");
const { clockText, moveLabel, moveRows, resultText, rowText } = await import(pathToFileURL(join(dir, "notation.js")).href);
const { RunningClock } = await import(pathToFileURL(join(dir, "clock.js")).href);

const STANDARD = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

test("moves are numbered in pairs from the initial position's move number and side to move", () => {
  assert.deepEqual(moveRows(STANDARD, []).map(rowText), []);
  assert.deepEqual(moveRows(STANDARD, ["e4"]).map(rowText), ["1. e4"]);
  assert.deepEqual(moveRows(STANDARD, ["e4", "e5", "Nf3", "Nc6", "Bb5"]).map(rowText), ["1. e4 e5", "2. Nf3 Nc6", "3. Bb5"]);
  const blackFirst = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 12";
  assert.deepEqual(moveRows(blackFirst, ["Nf6", "Bc4", "Bc5"]).map(rowText), ["12… Nf6", "13. Bc4 Bc5"]);
  assert.deepEqual(moveRows("8/8/8/8/8/8/8/K6k w - - 0 40", ["Kb1"]).map(rowText), ["40. Kb1"]);
  assert.deepEqual(moveRows("garbage", ["e4", "e5"]).map(rowText), ["1. e4 e5"]);
});

test("one move is labelled with its number, and Black's with an ellipsis", () => {
  assert.equal(moveLabel(STANDARD, 0, "e4"), "1. e4");
  assert.equal(moveLabel(STANDARD, 1, "e5"), "1… e5");
  assert.equal(moveLabel(STANDARD, 10, "Re1"), "6. Re1");
  assert.equal(moveLabel("8/8/8/8/8/8/8/K6k b - - 0 7", 0, "Kg2"), "7… Kg2");
  assert.equal(moveLabel("8/8/8/8/8/8/8/K6k b - - 0 7", 1, "Kb1"), "8. Kb1");
});

test("results are said in words", () => {
  const r = (outcome, termination, needsReview = false) => resultText({ outcome, termination, needsReview });
  assert.equal(r(1, 1), "1-0 · White wins by checkmate");
  assert.equal(r(2, 2), "0-1 · White resigned");
  assert.equal(r(1, 2), "1-0 · Black resigned");
  assert.equal(r(3, 5), "½-½ · Draw by agreement");
  assert.equal(r(3, 3), "½-½ · Draw by stalemate");
  assert.equal(r(2, 11), "0-1 · Black wins on time");
  assert.equal(r(3, 12), "½-½ · Draw: a flag fell, but the opponent cannot checkmate");
  assert.equal(r(1, 14), "1-0 · White wins by forfeit: Black did not arrive in time");
  assert.equal(r(4, 14), "0-0 · Double forfeit: neither player arrived in time");
  assert.equal(r(4, 15), "0-0 · Double forfeit");
  assert.equal(r(2, 17), "0-1 · Black wins: White left the game");
  assert.equal(r(1, 16, true), "1-0 · White wins by the arbiter's decision · awaiting the arbiter's review");
});

test("clocks read minutes and seconds, hours when there are, and tenths in the last ten seconds", () => {
  assert.equal(clockText(300_000), "5:00");
  assert.equal(clockText(61_999), "1:01");
  assert.equal(clockText(3_723_000), "1:02:03");
  assert.equal(clockText(10_000), "0:10");
  assert.equal(clockText(9_999), "0:09.9");
  assert.equal(clockText(420), "0:00.4");
  assert.equal(clockText(-1_500), "0:00.0");
});

test("the running clock counts down from the reading, after the delay, and stops when told", () => {
  let now = 1_000;
  const clock = new RunningClock(() => now);
  assert.equal(clock.remaining(), undefined);
  clock.set({ whiteMillis: 60_000, blackMillis: 50_000, running: "white", delayLeftMillis: 2_000 });
  now += 1_500;
  assert.equal(clock.remaining().whiteMillis, 60_000, "still in the delay");
  now += 1_500;
  assert.equal(clock.remaining().whiteMillis, 59_000);
  assert.equal(clock.remaining().blackMillis, 50_000);
  clock.stop();
  now += 10_000;
  assert.equal(clock.remaining().whiteMillis, 59_000);
  assert.equal(clock.remaining().running, undefined);
});

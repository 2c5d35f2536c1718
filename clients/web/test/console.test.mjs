// The arbiter's console in headless Chromium, as a real chess-arbiter serves
// it at /console, with games kept in a real redis-server (harness.mjs).
//
// An arbiter's credential for the event is made through the API; the test
// signs in with it from the keyboard, then pauses a game, resumes it,
// adjusts a clock and sets a result through the console's forms and its
// confirmation dialog, and checks after each step that the server's state
// shows the change, with the arbiter's name and reason in the audit trail.
// It also confirms a result that awaits review, starts a round, reads the
// standings and downloads the TRF. Screenshots of each step go to
// target/web-screenshots/console/.

import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { bearer, fitsATablet, newGame, open, sameBoard, screenshot, until, useWorld, world } from "./harness.mjs";
import { AuditKind, Outcome, Role, Termination, Variant } from "../src/gen/chessarbiter/v1/arbiter_pb.js";

useWorld("console");

/** What the console shows, read from its DOM. */
function readConsole() {
  const text = (id) => document.getElementById(id)?.textContent?.trim() ?? "";
  const visible = (id) => { const e = document.getElementById(id); return e !== null && !e.hidden && e.closest("[hidden]") === null; };
  const rows = (selector) => [...document.querySelectorAll(selector)].map((tr) => ({
    game: tr.dataset.game ?? "",
    cells: [...tr.cells].map((td) => td.textContent.replace(/\s+/g, " ").trim()),
  }));
  const pieces = {};
  for (const piece of document.querySelectorAll("#board piece")) {
    if (piece.classList.contains("fading") || piece.classList.contains("ghost")) continue;
    const role = ["king", "queen", "rook", "bishop", "knight", "pawn"].find((r) => piece.classList.contains(r));
    pieces[piece.cgKey] = `${piece.classList.contains("white") ? "w" : "b"}${role}`;
  }
  return {
    connection: text("connection"),
    signIn: visible("sign-in"),
    signInError: text("sign-in-error"),
    console: visible("console"),
    who: text("who"),
    review: rows("#review tbody tr"),
    reviewEmpty: visible("review-empty"),
    boards: rows("#board-list tbody tr"),
    gameView: visible("game-view"),
    gameTitle: text("game-title"),
    status: text("status"),
    flags: [...document.querySelectorAll("#flags li")].map((li) => li.textContent),
    moves: [...document.querySelectorAll("#moves li")].map((li) => li.textContent.replace(/\s+/g, " ").trim()).join(" "),
    board: { pieces },
    clockWhite: text("clock-white"),
    answer: text("answer"),
    log: rows("#log tbody tr").map((r) => r.cells),
    dialogOpen: document.getElementById("confirm")?.open ?? false,
    dialogText: text("confirm-text"),
    standings: rows("#standings tbody tr").map((r) => r.cells),
    standingsHead: [...document.querySelectorAll("#standings thead th")].map((th) => th.textContent),
    standingsAnswer: text("standings-answer"),
    rounds: rows("#rounds-table tbody tr").map((r) => r.cells),
    roundsAnswer: text("rounds-answer"),
    downloadsAnswer: text("downloads-answer"),
  };
}

const look = (view, what, check) => until(view, what, check, readConsole);

/** Fills a form's fields (by id) and sends it, then answers the confirmation. */
async function act(view, fields, submit, answer = "ok") {
  for (const [id, value] of Object.entries(fields)) {
    const tag = await view.page.$eval(`#${id}`, (e) => e.tagName);
    if (tag === "SELECT") await view.page.selectOption(`#${id}`, value);
    else await view.page.fill(`#${id}`, value);
  }
  await view.page.click(submit);
  const shown = await look(view, "the confirmation", (s) => s.dialogOpen);
  await view.page.click(answer === "ok" ? "#confirm-ok" : "#confirm button[value=cancel]");
  return shown.dialogText;
}

async function auditOf(eventId, gameId) {
  return (await world.admin.listAuditEntries({ eventId, gameId, pageSize: 100 }, bearer(world.adminToken))).entries;
}

const CHESS960_KING_ON_F1 = "k1b5/1pPp4/1P1P3p/1P6/5P1P/5PNR/3NPBBQ/5K1R w K - 0 1";

test("an arbiter signs in and runs an event from the console: interventions confirmed, sent, shown, and audited", async () => {
  const eventId = `console-${randomBytes(3).toString("hex")}`;
  const main = await newGame({
    white: { id: "p-1", name: "Anand, Viswanathan" },
    black: { id: "p-2", name: "Kramnik, Vladimir" },
    pairing: { eventId, round: 1, board: 1 },
    timeControl: { periods: [{ timeMillis: 600_000, incrementMillis: 0 }] },
  });
  // A flag falls where the helpmate search cannot decide: Black wins,
  // provisionally, and the result awaits review.
  const flagged = await newGame({
    white: { id: "p-3", name: "Carlsen, Magnus" },
    black: { id: "p-4", name: "Caruana, Fabiano" },
    pairing: { eventId, round: 1, board: 2 },
    variant: Variant.CHESS960,
    start: { case: "initialFen", value: CHESS960_KING_ON_F1 },
    timeControl: { periods: [{ timeMillis: 300, incrementMillis: 0 }] },
  });
  const { token } = await world.admin.createCredential(
    { requestId: `cred-${eventId}`, name: "Chief Arbiter", role: Role.ARBITER, eventId },
    bearer(world.adminToken),
  );
  await newGame({ white: { id: "x-1" }, black: { id: "x-2" }, pairing: { eventId: `${eventId}-elsewhere`, round: 1, board: 1 } });
  const other = await world.admin.createCredential(
    { requestId: `cred-other-${eventId}`, name: "Other Arbiter", role: Role.ARBITER, eventId: `${eventId}-elsewhere` },
    bearer(world.adminToken),
  );
  await main.play("e4");
  await main.play("e5");

  // Signing in: a credential of another event is refused, in words.
  const view = await open("console");
  await look(view, "the sign-in form", (s) => s.signIn);
  await screenshot(view, "sign-in");
  await view.page.fill("#sign-in-event", eventId);
  await view.page.fill("#sign-in-credential", other.token);
  await view.page.press("#sign-in-credential", "Enter");
  let shown = await look(view, "the refusal of another event's credential", (s) => s.signInError.startsWith("Not permitted (OUT_OF_SCOPE)"));
  assert.equal(shown.console, false);
  await view.page.fill("#sign-in-credential", "cred.nosuch.secretsecretsecretsecret");
  await view.page.press("#sign-in-credential", "Enter");
  await look(view, "the refusal of an unknown credential", (s) => s.signInError.startsWith("The credential is not accepted"));

  // From the keyboard: the event's credential, then Enter.
  await view.page.fill("#sign-in-credential", "");
  await view.page.focus("#sign-in-credential");
  await view.page.keyboard.type(token);
  await view.page.keyboard.press("Enter");
  shown = await look(view, "the event's boards, the flagged game awaiting review first", (s) =>
    s.console && s.connection === "Live" && s.boards.length === 2 && s.review.length === 1);
  assert.equal(shown.who, `signed in with credential ${token.split(".")[1]}`);
  assert.equal(shown.review[0].game, flagged.gameId);
  assert.equal(shown.review[0].cells[3], "0-1 · Black wins on time · awaiting the arbiter's review");
  assert.match(shown.review[0].cells[4], /helpmate search/);
  assert.deepEqual(shown.boards.map((b) => b.cells.slice(0, 3)), [["1.1", "Anand, Viswanathan", "Kramnik, Vladimir"], ["1.2", "Carlsen, Magnus", "Caruana, Fabiano"]]);
  assert.equal(shown.boards[0].cells[4], "White to move");
  await screenshot(view, "boards");
  await fitsATablet(view, "boards");

  // The game: board, moves, clocks.
  await view.page.click(`#board-list tr[data-game="${main.gameId}"] a`);
  let game = (await world.player.getGame({ gameId: main.gameId }, bearer(world.adminToken))).game;
  shown = await look(view, "the game", (s) => s.gameView && s.moves === "1. e4 e5" && sameBoard(s.board, game.fen));
  assert.equal(shown.gameTitle, "Board 1.1: Anand, Viswanathan – Kramnik, Vladimir");

  // Pause: confirmed, sent, answered; the server's clocks are paused, and
  // the audit trail names the arbiter and the reason.
  const asked = await act(view, { "pause-reason": "dispute at the board" }, "#pause-form button");
  assert.equal(asked, "Pause the clocks (reason: dispute at the board) on board 1.1 (Anand, Viswanathan – Kramnik, Vladimir)?");
  shown = await look(view, "the pause done", (s) => s.answer.startsWith("Done: Pause the clocks") && s.log.some((r) => r[1] === "Clocks paused") && s.flags.includes("Clocks paused"));
  game = (await world.player.getGame({ gameId: main.gameId }, bearer(world.adminToken))).game;
  assert.equal(game.clock.paused, true);
  let audit = await auditOf(eventId, main.gameId);
  let last = audit.at(-1);
  assert.equal(last.kind, AuditKind.CLOCK_PAUSED);
  assert.equal(last.principal, "Chief Arbiter");
  assert.equal(last.reason, "dispute at the board");
  assert.ok(shown.flags.includes("Clocks paused"), JSON.stringify(shown.flags));
  assert.deepEqual(shown.log.at(-1).slice(1), ["Clocks paused", "Chief Arbiter", "dispute at the board"]);
  await screenshot(view, "paused");
  await fitsATablet(view, "game");

  // A refusal is shown as the server gave it: pausing twice.
  await act(view, { "pause-reason": "again" }, "#pause-form button");
  await look(view, "the refusal", (s) => s.answer.startsWith("Refused (CLOCK_PAUSED)"));

  // Resume, then add 30 s to White's clock.
  await act(view, { "resume-reason": "dispute settled" }, "#resume-form button");
  await look(view, "the resume done", (s) => s.answer.startsWith("Done: Resume the clocks"));
  const before = (await world.player.getGame({ gameId: main.gameId }, bearer(world.adminToken))).game.clock.whiteMillis;
  const adjust = await act(view, { "adjust-color": "white", "adjust-seconds": "30", "adjust-reason": "penalty: Black's illegal move" }, "#adjust-form button");
  assert.match(adjust, /^Add 30 s to White's clock \(reason: penalty: Black's illegal move\)/);
  await look(view, "the adjustment done", (s) => s.answer.startsWith("Done: Add 30 s to White's clock"));
  game = (await world.player.getGame({ gameId: main.gameId }, bearer(world.adminToken))).game;
  assert.ok(game.clock.whiteMillis > before + 29_000 && game.clock.whiteMillis <= before + 30_000, `${before} → ${game.clock.whiteMillis}`);
  last = (await auditOf(eventId, main.gameId)).at(-1);
  assert.equal(last.kind, AuditKind.CLOCK_ADJUSTED);
  assert.equal(last.reason, "penalty: Black's illegal move");
  assert.equal(last.principal, "Chief Arbiter");

  // Cancelled: nothing is sent.
  const versionBefore = game.version;
  await act(view, { "result-ruling": "draw", "result-reason": "not meant" }, "#result-form button", "cancel");
  await look(view, "nothing sent", (s) => s.answer === "Not sent.");
  assert.equal((await world.player.getGame({ gameId: main.gameId }, bearer(world.adminToken))).game.version, versionBefore);

  // The result: 1-0 by the arbiter's decision.
  await act(view, { "result-ruling": "1-0", "result-reason": "Black left the hall" }, "#result-form button");
  shown = await look(view, "the result set", (s) => s.answer.startsWith("Done: Set the result 1-0") && s.status === "1-0 · White wins by the arbiter's decision");
  game = (await world.player.getGame({ gameId: main.gameId }, bearer(world.adminToken))).game;
  assert.equal(game.result.outcome, Outcome.WHITE_WINS);
  assert.equal(game.result.termination, Termination.ARBITER_DECISION);
  last = (await auditOf(eventId, main.gameId)).at(-1);
  assert.equal(last.kind, AuditKind.RESULT_SET);
  assert.equal(last.reason, "Black left the hall");
  await screenshot(view, "result-set");

  // The review: confirm Black's win; the game leaves the review list.
  await view.page.click("#tabs a[data-view=boards]");
  await view.page.click(`#review tr[data-game="${flagged.gameId}"] a`);
  await look(view, "the flagged game", (s) => s.gameView && s.gameTitle.startsWith("Board 1.2"));
  await act(view, { "result-ruling": "0-1", "result-reason": "reviewed: Black can mate" }, "#result-form button");
  await look(view, "the review confirmed", (s) => s.answer.startsWith("Done: Set the result 0-1"));
  await view.page.click("#tabs a[data-view=boards]");
  shown = await look(view, "no game awaiting review", (s) => s.review.length === 0 && s.reviewEmpty);
  const reviewed = (await world.player.getGame({ gameId: flagged.gameId }, bearer(world.adminToken))).game;
  assert.equal(reviewed.result.needsReview, false);
  assert.equal(reviewed.result.outcome, Outcome.BLACK_WINS);

  // Standings, with the tie-breaks typed by their codes.
  await view.page.click("#tabs a[data-view=standings]");
  await view.page.fill("#tie-breaks", "BH, SB");
  await view.page.click("#standings-form button");
  shown = await look(view, "the standings", (s) => s.standingsAnswer.startsWith("4 players") && s.standings.length === 4);
  assert.deepEqual(shown.standingsHead, ["Rank", "Player", "Points", "Games", "Won", "Drawn", "Lost", "BH", "SB"]);
  assert.deepEqual(shown.standings.slice(0, 2).map((r) => [r[1], r[2]]).sort(), [["Anand, Viswanathan", "1"], ["Caruana, Fabiano", "1"]]);
  await view.page.fill("#tie-breaks", "XYZ");
  await view.page.click("#standings-form button");
  await look(view, "an unknown code refused before sending", (s) => s.standingsAnswer.startsWith('"XYZ" is not a tie-break the server offers'));
  await screenshot(view, "standings");

  // Downloads: the TRF as the server exports it.
  await view.page.click("#tabs a[data-view=downloads]");
  const [download] = await Promise.all([view.page.waitForEvent("download"), view.page.click("#download-trf")]);
  assert.equal(download.suggestedFilename(), `${eventId}.trf`);
  const trf = (await world.player.exportTrf({ eventId }, bearer(world.adminToken))).trf;
  assert.equal(readFileSync(await download.path(), "utf8"), trf);

  // Rounds: a round created whole waits for the arbiter's start.
  await world.admin.createRound(
    {
      requestId: `round-2-${eventId}`,
      eventId,
      round: 2,
      settings: { timeControl: { periods: [{ timeMillis: 600_000, incrementMillis: 0 }] } },
      boards: [{ board: 1, white: { id: "p-2", name: "Kramnik, Vladimir" }, black: { id: "p-3", name: "Carlsen, Magnus" } }],
    },
    bearer(world.adminToken),
  );
  await view.page.click("#tabs a[data-view=boards]");
  await look(view, "round 2's board", (s) => s.boards.length === 1 && s.boards[0].cells[0] === "2.1");
  await view.page.click("#tabs a[data-view=rounds]");
  shown = await look(view, "the rounds", (s) => s.rounds.length === 2 && s.rounds[1][3] === "not started");
  await view.page.click("#rounds-table button");
  await look(view, "the start confirmation", (s) => s.dialogOpen && s.dialogText.startsWith("Start round 2"));
  await view.page.click("#confirm-ok");
  shown = await look(view, "round 2 started", (s) => s.roundsAnswer.startsWith("Round 2 started: 1 games started now"));
  const round = (await world.admin.getRound({ eventId, round: 2 }, bearer(world.adminToken))).round;
  assert.ok(round.startTime !== undefined, "the round has started");
  assert.equal(round.startedBy, "Chief Arbiter");
  await screenshot(view, "rounds");

  // A round created from the console, from player ids, then one imported
  // from a pairing engine's output (ranks as ExportTrf numbers them: by
  // first appearance, Anand 1, Kramnik 2, Carlsen 3, Caruana 4).
  const finish = async (round) => {
    const games = (await world.player.listGames({ eventId, pageSize: 100 }, bearer(world.adminToken))).games.filter((g) => g.setup.pairing.round === round);
    for (const g of games) {
      await world.admin.setGameResult({ requestId: `finish-${g.gameId}`, gameId: g.gameId, ruling: { case: "played", value: { outcome: Outcome.DRAW } }, reason: "agreed" }, bearer(world.adminToken));
    }
  };
  await finish(2);
  await act(view, { "create-round": "3", "create-boards": "p-1 p-4\np-3, p-2", "create-minutes": "15", "create-increment": "10" }, "#create-form button");
  shown = await look(view, "round 3 created", (s) => s.roundsAnswer === "Round 3 created: 2 games.");
  let third = (await world.player.listGames({ eventId, pageSize: 100 }, bearer(world.adminToken))).games.filter((g) => g.setup.pairing.round === 3);
  assert.deepEqual(third.map((g) => [g.setup.pairing.board, g.setup.white.name, g.setup.black.name]).sort(), [[1, "Anand, Viswanathan", "Caruana, Fabiano"], [2, "Carlsen, Magnus", "Kramnik, Vladimir"]]);
  assert.equal(third[0].setup.timing.white.periods[0].timeMillis, 900_000);
  assert.equal(third[0].setup.timing.white.periods[0].incrementMillis, 10_000);
  await world.admin.startRound({ eventId, round: 3 }, bearer(world.adminToken));
  await finish(3);
  await act(view, { "import-round": "4", "import-pairings": "2\n1 3\n4 2\n", "import-minutes": "5", "import-increment": "3" }, "#import-form button");
  shown = await look(view, "round 4 imported", (s) => s.roundsAnswer === "Round 4 created: 2 games.");
  const fourth = (await world.player.listGames({ eventId, pageSize: 100 }, bearer(world.adminToken))).games.filter((g) => g.setup.pairing.round === 4);
  assert.deepEqual(fourth.map((g) => [g.setup.white.name, g.setup.black.name]).sort(), [["Anand, Viswanathan", "Carlsen, Magnus"], ["Caruana, Fabiano", "Kramnik, Vladimir"]]);
  await look(view, "the four rounds", (s) => s.rounds.length === 4 && s.rounds[3][0] === "Round 4");

  // Signing out forgets the credential.
  await view.page.click("#sign-out");
  await look(view, "the sign-in form again", (s) => s.signIn && !s.console);
});

test("a console calls its own origin only, and says so when its credential was revoked", async () => {
  const eventId = `revoked-${randomBytes(3).toString("hex")}`;
  await newGame({ white: { id: "a" }, black: { id: "b" }, pairing: { eventId, round: 1, board: 1 } });
  const made = await world.admin.createCredential(
    { requestId: `cred-${eventId}`, name: "Deputy", role: Role.ARBITER, eventId },
    bearer(world.adminToken),
  );
  // An address naming another server is ignored: the credential goes to
  // the page's own origin only.
  const view = await open(`console?server=${encodeURIComponent(world.otherUrl)}`);
  const origins = new Set();
  view.page.on("request", (r) => origins.add(new URL(r.url()).origin));
  await view.page.fill("#sign-in-event", eventId);
  await view.page.fill("#sign-in-credential", made.token);
  await view.page.press("#sign-in-credential", "Enter");
  await look(view, "the console", (s) => s.console && s.boards.length === 1 && s.connection === "Live");
  assert.deepEqual([...origins], [world.webUrl]);
  await world.admin.revokeCredential(
    { credentialId: made.credential.credentialId, reason: "left the event" },
    bearer(world.adminToken),
  );
  // A reload signs in again with the kept credential, which is refused.
  await view.page.reload();
  await look(view, "the refusal", (s) => s.signIn && s.signInError.startsWith("The credential is not accepted"));
});

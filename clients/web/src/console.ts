/**
 * The arbiter's console, served by the arbiter at `/console`: one event,
 * signed in with an arbiter's credential for it (or the platform's admin
 * token). It shows every board live (WatchEvent, read live as the
 * credential allows) with the games awaiting review first; per game the
 * board, moves, clocks, claims and flags, and the interventions (pause,
 * resume, adjust a clock, set a result or a forfeit), each with a reason,
 * confirmed before it is sent and shown with the server's answer, and the
 * game's log from the audit trail; standings with the tie-breaks asked
 * for; the rounds, started from here or imported from a pairing engine;
 * and the event's PGN and TRF to download.
 *
 * The credential is kept in this tab's sessionStorage only, and sent as
 * `authorization: Bearer …` with every call, to this page's own origin only
 * (the console takes no `?server=`).
 */

import type { MessageInitShape } from "@bufbuild/protobuf";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { Board } from "./board.js";
import { RunningClock } from "./clock.js";
import { followEventStream } from "./event-stream.js";
import { applyCommon, over, playerName, position, reading, showClocks, showMoves, statusText } from "./games.js";
import { resultText } from "./notation.js";
import { $, element, failure, setConnection, setText } from "./page.js";
import {
  AdminService,
  ArbiterService,
  AuditKind,
  type AuditEntry,
  Color,
  Forfeit,
  type Game,
  GameView,
  type OfferedTieBreak,
  Outcome,
  type Player,
  type RoundBoardSchema,
  type TieBreak,
  TieBreakKind,
} from "./gen/chessarbiter/v1/arbiter_pb.js";

type Arbiter = Client<typeof ArbiterService>;
type Admin = Client<typeof AdminService>;

// --- signing in ---------------------------------------------------------------------

const SESSION_KEY = "chess-arbiter-console";

interface Session {
  eventId: string;
  token: string;
}

function loadSession(): Session | undefined {
  try {
    const saved = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? "null") as Partial<Session> | null;
    if (saved && typeof saved.eventId === "string" && typeof saved.token === "string" && saved.eventId && saved.token) {
      return { eventId: saved.eventId, token: saved.token };
    }
  } catch {
    // Nothing usable saved.
  }
  return undefined;
}

/** Who the token is, as the console may say it (never the secret). */
function holder(token: string): string {
  const parts = token.split(".");
  return parts.length === 3 && parts[0] === "cred" ? `credential ${parts[1]}` : "the admin token";
}

/** The ErrorInfo reason of a refusal (google.rpc.ErrorInfo, field 1), if it carries one. */
function reasonOf(error: ConnectError): string {
  for (const detail of error.details) {
    if (!("type" in detail) || detail.type !== "google.rpc.ErrorInfo" || !(detail.value instanceof Uint8Array)) continue;
    try {
      const reader = new BinaryReader(detail.value);
      while (reader.pos < reader.len) {
        const [field, wireType] = reader.tag();
        if (field === 1) return reader.string();
        reader.skip(wireType);
      }
    } catch {
      return "";
    }
  }
  return "";
}

/** What a refused or failed call says, in words. */
function refusal(error: ConnectError): string {
  const reason = reasonOf(error);
  const why = reason === "" ? "" : ` (${reason})`;
  if (error.code === Code.Unauthenticated) {
    return `The credential is not accepted${why}: it expired, was revoked, or is mistyped. Sign in again. ${error.rawMessage}`;
  }
  if (error.code === Code.PermissionDenied) return `Not permitted${why}: ${error.rawMessage}`;
  if (error.code === Code.Unknown || error.code === Code.Unavailable) return failure(error, location.origin).replace(/ Retrying…$/, "");
  return `Refused${why}: ${error.rawMessage}`;
}

// --- the confirmation ---------------------------------------------------------------

/** Asks before an intervention is sent; resolves true when confirmed. */
function confirmed(text: string): Promise<boolean> {
  const dialog = $("confirm") as HTMLDialogElement;
  $("confirm-text").textContent = text;
  dialog.returnValue = "";
  dialog.showModal();
  ($("confirm-ok") as HTMLButtonElement).focus();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
  });
}

const requestId = (): string => `console-${crypto.randomUUID()}`;

/**
 * The request id of an intervention: a new one for each act, and the same
 * one again when the same act is sent again after an answer that never came
 * (the server then applies it once).
 */
const pending = new Map<string, string>();
function requestIdFor(act: string): string {
  let id = pending.get(act);
  if (id === undefined) {
    id = requestId();
    pending.set(act, id);
  }
  return id;
}

/** Whether a failed call may have been applied without its answer reaching us. */
function answerLost(error: ConnectError): boolean {
  return error.code === Code.Unknown || error.code === Code.Unavailable || error.code === Code.DeadlineExceeded || error.code === Code.Canceled;
}

function say(id: string, text: string, state: "ok" | "error" | "waiting"): void {
  const line = $(id);
  line.textContent = text;
  line.dataset["state"] = state;
}

// --- what a board needs -------------------------------------------------------------

/** What the arbiter should see at a glance, beyond the status. */
function flags(game: Game, clock: RunningClock): string[] {
  const out: string[] = [];
  if (game.result?.needsReview) out.push(`Awaits review: ${game.result.reviewReason}`);
  if (game.awaitsStart) out.push("Waits for the round to start");
  if (game.clock?.paused) out.push("Clocks paused");
  if (game.drawOfferedBy !== undefined) out.push(`${game.drawOfferedBy === Color.WHITE ? "White" : "Black"} offers a draw`);
  if (!over(game)) {
    if (!game.whitePresent) out.push("White has not arrived");
    if (!game.blackPresent) out.push("Black has not arrived");
    if (game.whiteLeftTime !== undefined) out.push("White reported gone");
    if (game.blackLeftTime !== undefined) out.push("Black reported gone");
    const now = clock.remaining();
    if (now !== undefined && (now.whiteMillis <= 0 || now.blackMillis <= 0)) out.push("A flag has fallen");
    const mover = game.sideToMove === Color.BLACK ? "Black" : "White";
    if (game.canClaimThreefold) out.push(`${mover} may claim threefold repetition`);
    if (game.canClaimFiftyMoves) out.push(`${mover} may claim the fifty-move rule`);
  }
  return out;
}

function boardOf(game: Game): string {
  const p = game.setup?.pairing;
  return p === undefined ? "" : `${p.round}.${p.board}${p.matchTieBreak ? " (tie-break)" : ""}`;
}

function order(a: Game, b: Game): number {
  const pa = a.setup?.pairing;
  const pb = b.setup?.pairing;
  return (pa?.round ?? 0) - (pb?.round ?? 0) || (pa?.board ?? 0) - (pb?.board ?? 0) || a.gameId.localeCompare(b.gameId);
}

const KIND_WORDS: Record<number, string> = {
  [AuditKind.GAME_CREATED]: "Game created",
  [AuditKind.GAME_STARTED]: "Game started",
  [AuditKind.CLOCK_ADJUSTED]: "Clock adjusted",
  [AuditKind.CLOCK_PAUSED]: "Clocks paused",
  [AuditKind.CLOCK_RESUMED]: "Clocks resumed",
  [AuditKind.RESULT_SET]: "Result set",
  [AuditKind.CONNECTION_REPORTED]: "Connection reported",
  [AuditKind.CREDENTIAL_CREATED]: "Credential created",
  [AuditKind.CREDENTIAL_REVOKED]: "Credential revoked",
};

function timeText(seconds: bigint | undefined): string {
  if (seconds === undefined) return "";
  return new Date(Number(seconds) * 1000).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/** What an audit entry did, in words. */
function entryText(entry: AuditEntry): string {
  const words = KIND_WORDS[entry.kind] ?? "Intervention";
  const kind = entry.event?.kind;
  if (kind?.case === "clockAdjusted") {
    const side = kind.value.color === Color.WHITE ? "White's" : "Black's";
    const seconds = kind.value.deltaMillis / 1000;
    return `${words}: ${side} ${seconds >= 0 ? "+" : "−"}${Math.abs(seconds)} s`;
  }
  if (kind?.case === "resultDecided" && kind.value.result !== undefined) {
    const r = kind.value.result;
    return `${words}: ${resultText({ outcome: r.outcome, termination: r.termination, needsReview: r.needsReview })}`;
  }
  return words;
}

// --- the tie-breaks -------------------------------------------------------------------

/** "BH-C1" for Buchholz Cut-1, "BH-M1" for Median-1, "SB", … */
function tieBreakCode(tieBreak: TieBreak, offered: OfferedTieBreak[]): string {
  const code = offered.find((o) => o.kind === tieBreak.kind)?.code ?? TieBreakKind[tieBreak.kind] ?? "?";
  if (tieBreak.cutLowest > 0 && tieBreak.cutLowest === tieBreak.cutHighest) return `${code}-M${tieBreak.cutLowest}`;
  if (tieBreak.cutLowest > 0 || tieBreak.cutHighest > 0) {
    return `${code}-C${tieBreak.cutLowest}${tieBreak.cutHighest > 0 ? `/${tieBreak.cutHighest}` : ""}`;
  }
  return code;
}

/** The tie-breaks typed, by the codes the server offers; a message naming what is not understood. */
function parseTieBreaks(text: string, offered: OfferedTieBreak[]): { tieBreaks: { kind: TieBreakKind; cutLowest: number; cutHighest: number }[] } | { error: string } {
  const tieBreaks = [];
  for (const word of text.split(/[\s,;]+/).filter((w) => w !== "")) {
    const m = /^([A-Za-z]+)(?:-(?:C(\d+)|M(\d+)))?$/.exec(word);
    const known = m === null ? undefined : offered.find((o) => o.code.toUpperCase() === (m[1] ?? "").toUpperCase());
    if (m === null || known === undefined) return { error: `"${word}" is not a tie-break the server offers (${offered.map((o) => o.code).join(", ")}).` };
    const cut = Number(m[2] ?? 0);
    const median = Number(m[3] ?? 0);
    if ((cut > 0 || median > 0) && !known.takesCuts) return { error: `${known.code} takes no cut.` };
    tieBreaks.push({ kind: known.kind, cutLowest: median > 0 ? median : cut, cutHighest: median });
  }
  return { tieBreaks };
}

// --- one game in detail -------------------------------------------------------------

class GameDetail {
  game: Game;
  sans: string[] = [];
  readonly clock = new RunningClock();
  private readonly board: Board;

  constructor(game: Game, boardElement: HTMLElement) {
    this.game = game;
    this.board = new Board(boardElement, { coordinates: true });
    this.clock.set(reading(game.clock));
    if (over(game)) this.clock.stop();
  }

  set(game: Game): void {
    this.game = game;
    this.clock.set(reading(game.clock));
    if (over(game)) this.clock.stop();
  }

  render(): void {
    const game = this.game;
    const white = playerName(game.setup?.white, "White");
    const black = playerName(game.setup?.black, "Black");
    $("game-title").textContent = `Board ${boardOf(game)}: ${white} – ${black}`;
    $("name-white").textContent = white;
    $("name-black").textContent = black;
    ($("spectator-link") as HTMLAnchorElement).href = `./?game=${encodeURIComponent(game.gameId)}`;
    this.board.show(position(game));
    setText($("status"), statusText(game));
    $("flags").replaceChildren(...flags(game, this.clock).map((text) => element("li", "", text)));
    showMoves($("moves"), game, this.sans);
    this.tick();
  }

  tick(): void {
    showClocks(this.clock, $("clock-white"), $("clock-black"));
  }

  destroy(): void {
    this.board.destroy();
  }
}

// --- the console ----------------------------------------------------------------------

class Console {
  readonly games = new Map<string, Game>();
  readonly clocks = new Map<string, RunningClock>();
  private clockCells = new Map<string, [HTMLElement, HTMLElement]>();
  private round = 0;
  private roundChosen = false;
  private detail: GameDetail | undefined;
  private offered: OfferedTieBreak[] = [];
  private dirty = false;

  constructor(
    readonly session: Session,
    readonly arbiter: Arbiter,
    readonly admin: Admin,
  ) {}

  get eventId(): string {
    return this.session.eventId;
  }

  // --- the boards ---

  take(game: Game): void {
    this.games.set(game.gameId, game);
    let clock = this.clocks.get(game.gameId);
    if (clock === undefined) {
      clock = new RunningClock();
      this.clocks.set(game.gameId, clock);
    }
    clock.set(reading(game.clock));
    if (over(game)) clock.stop();
    const round = game.setup?.pairing?.round ?? 0;
    if (!this.roundChosen && round > this.round) this.round = round;
    if (this.detail?.game.gameId === game.gameId) this.detail.set(game);
    this.schedule();
  }

  schedule(): void {
    if (this.dirty) return;
    this.dirty = true;
    requestAnimationFrame(() => {
      this.dirty = false;
      this.renderBoards();
      this.detail?.render();
    });
  }

  renderBoards(): void {
    // The tables are drawn anew; a focused board link keeps the focus.
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const focusedRow = focused?.closest<HTMLElement>("#review tr, #board-list tr");
    const focusedKey = focusedRow ? `${focusedRow.closest("table")?.id ?? ""} ${focusedRow.dataset["game"] ?? ""}` : "";
    this.drawBoards();
    if (focusedKey !== "") {
      const [table, game] = focusedKey.split(" ");
      document.querySelector<HTMLElement>(`#${table} tr[data-game="${CSS.escape(game ?? "")}"] a`)?.focus();
    }
  }

  private drawBoards(): void {
    const all = [...this.games.values()].sort(order);
    const review = all.filter((game) => game.result?.needsReview);
    $("review-empty").hidden = review.length > 0;
    ($("review") as HTMLTableElement).hidden = review.length === 0;
    $("review").querySelector("tbody")?.replaceChildren(
      ...review.map((game) => {
        const row = element("tr");
        row.dataset["game"] = game.gameId;
        row.append(this.linkCell(game), element("td", "", playerName(game.setup?.white, "White")), element("td", "", playerName(game.setup?.black, "Black")), element("td", "status", statusText(game)), element("td", "", game.result?.reviewReason ?? ""));
        return row;
      }),
    );

    const rounds = [...new Set(all.map((game) => game.setup?.pairing?.round ?? 0))].sort((a, b) => a - b);
    const select = $("round-select") as HTMLSelectElement;
    const options = rounds.map(String).join();
    if (select.dataset["options"] !== options) {
      select.dataset["options"] = options;
      select.replaceChildren(...rounds.map((round) => {
        const option = element("option", "", round === 0 ? "Unpaired" : `Round ${round}`);
        option.value = String(round);
        return option;
      }));
    }
    select.value = String(this.round);
    $("round-title").textContent = this.round === 0 ? "Unpaired games" : `Round ${this.round}`;
    const shown = all.filter((game) => (game.setup?.pairing?.round ?? 0) === this.round);
    $("boards-empty").hidden = all.length > 0;
    this.clockCells = new Map();
    $("board-list").querySelector("tbody")?.replaceChildren(
      ...shown.map((game) => {
        const row = element("tr", over(game) ? "over" : "");
        row.dataset["game"] = game.gameId;
        const white = element("span", "clock");
        const black = element("span", "clock");
        this.clockCells.set(game.gameId, [white, black]);
        white.setAttribute("aria-label", "White's clock");
        black.setAttribute("aria-label", "Black's clock");
        const clocks = element("td", "clocks");
        clocks.append(element("span", "side-label", "W"), white, " ", element("span", "side-label", "B"), black);
        const flagCell = element("td", "flags");
        flagCell.append(...flags(game, this.clocks.get(game.gameId) ?? new RunningClock()).map((text) => element("span", "flag", text)));
        row.append(this.linkCell(game), element("td", "", playerName(game.setup?.white, "White")), element("td", "", playerName(game.setup?.black, "Black")), clocks, element("td", "status", statusText(game)), flagCell);
        return row;
      }),
    );
    this.tick();
  }

  private linkCell(game: Game): HTMLTableCellElement {
    const cell = element("td");
    const link = element("a", "", boardOf(game) || "game");
    link.href = `#game=${encodeURIComponent(game.gameId)}`;
    link.setAttribute("aria-label", `Board ${boardOf(game)}: open the game`);
    cell.append(link);
    return cell;
  }

  tick(): void {
    for (const [gameId, [white, black]] of this.clockCells) {
      const clock = this.clocks.get(gameId);
      if (clock !== undefined) showClocks(clock, white, black);
    }
    this.detail?.tick();
  }

  chooseRound(round: number): void {
    this.round = round;
    this.roundChosen = true;
    this.schedule();
  }

  async loadGames(): Promise<void> {
    let pageToken = "";
    do {
      const page = await this.arbiter.listGames({ eventId: this.eventId, pageToken, pageSize: 500, view: GameView.BASIC });
      for (const game of page.games) this.take(game);
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
  }

  async refresh(gameId: string): Promise<void> {
    const game = (await this.arbiter.getGame({ gameId })).game;
    if (game !== undefined) this.take(game);
  }

  /** Follows the event: every board, live, resuming after dropped streams. */
  async follow(): Promise<void> {
    await followEventStream(
      this.arbiter,
      this.eventId,
      0,
      {
        start: async () => {
          await this.loadGames();
          this.schedule();
        },
        event: async (event) => {
          const game = this.games.get(event.gameId);
          if (game !== undefined && event.version <= game.version) {
            // Already read.
          } else if (game !== undefined && event.kind.case === "moveMade" && applyCommon(game, event)) {
            this.clocks.get(game.gameId)?.set(reading(event.clock));
            if (this.detail?.game.gameId === game.gameId && event.kind.value.move !== undefined) {
              this.detail.sans[event.kind.value.move.ply] = event.kind.value.move.san;
              this.detail.set(game);
            }
            this.schedule();
          } else {
            await this.refresh(event.gameId);
            if (this.detail?.game.gameId === event.gameId) await this.loadLog(event.gameId);
          }
        },
        refused: (error) => setConnection(refusal(error), "error"),
      },
      location.origin,
    );
  }

  // --- one game ---

  async open(gameId: string): Promise<void> {
    const game = (await this.arbiter.getGame({ gameId })).game;
    if (game === undefined) return;
    this.take(game);
    this.close();
    const detail = new GameDetail(game, $("board"));
    this.detail = detail;
    let pageToken = "";
    do {
      const moves = await this.arbiter.listMoves({ gameId, pageSize: 500, pageToken });
      // Another game opened meanwhile: this one's reads are no longer wanted.
      if (this.detail !== detail) return;
      for (const move of moves.moves) detail.sans[move.ply] = move.san;
      pageToken = moves.nextPageToken;
    } while (pageToken !== "");
    say("answer", "", "ok");
    await this.loadLog(gameId);
    if (this.detail === detail) detail.render();
  }

  close(): void {
    this.detail?.destroy();
    this.detail = undefined;
    $("board").replaceChildren();
  }

  async loadLog(gameId: string): Promise<void> {
    const entries: AuditEntry[] = [];
    let pageToken = "";
    do {
      const page = await this.admin.listAuditEntries({ eventId: this.eventId, gameId, pageSize: 200, pageToken });
      entries.push(...page.entries);
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    if (this.detail?.game.gameId !== gameId) return;
    $("log").querySelector("tbody")?.replaceChildren(
      ...entries.map((entry) => {
        const row = element("tr");
        row.append(element("td", "", timeText(entry.time?.seconds)), element("td", "", entryText(entry)), element("td", "", entry.principal), element("td", "", entry.reason));
        return row;
      }),
    );
  }

  /** Sends one intervention on the open game once confirmed, and says how it went. */
  private busy = false;

  async intervene(what: string, send: (gameId: string, requestId: string) => Promise<{ game?: Game | undefined }>): Promise<void> {
    const detail = this.detail;
    if (detail === undefined || this.busy) return;
    const game = detail.game;
    const white = playerName(game.setup?.white, "White");
    const black = playerName(game.setup?.black, "Black");
    if (!(await confirmed(`${what} on board ${boardOf(game) || game.gameId} (${white} – ${black})?`))) {
      say("answer", "Not sent.", "ok");
      return;
    }
    say("answer", "Sending…", "waiting");
    const act = `${game.gameId} ${what}`;
    const buttons = [...document.querySelectorAll<HTMLButtonElement>("#game-view form.act button")];
    this.busy = true;
    for (const button of buttons) button.disabled = true;
    try {
      const answer = await send(game.gameId, requestIdFor(act));
      pending.delete(act);
      if (answer.game !== undefined) this.take(answer.game);
      say("answer", `Done: ${what}. ${answer.game === undefined ? "" : statusText(answer.game)}`.trim(), "ok");
      await this.loadLog(game.gameId);
    } catch (reason) {
      const error = ConnectError.from(reason);
      if (!answerLost(error)) pending.delete(act);
      const again = answerLost(error) ? " Sending the same again is safe: it is applied at most once." : "";
      say("answer", refusal(error) + again, "error");
    } finally {
      this.busy = false;
      for (const button of buttons) button.disabled = false;
    }
  }

  // --- standings ---

  async standings(text: string, totalRounds: number): Promise<void> {
    if (this.offered.length === 0) {
      this.offered = (await this.arbiter.getStandings({ eventId: this.eventId, pageSize: 1 })).offeredTieBreaks;
      $("tie-break-codes").textContent = `Codes: ${this.offered.map((o) => o.code + (o.takesCuts ? " (-C1 cuts the lowest, -M1 the lowest and highest)" : "")).join(", ")}.`;
    }
    const parsed = parseTieBreaks(text, this.offered);
    if ("error" in parsed) {
      say("standings-answer", parsed.error, "error");
      return;
    }
    say("standings-answer", "Reading…", "waiting");
    try {
      const standings = [];
      let tieBreaks: TieBreak[] = [];
      let counted = 0;
      let pageToken = "";
      do {
        const page = await this.arbiter.getStandings({ eventId: this.eventId, tieBreaks: parsed.tieBreaks, totalRounds, pageSize: 500, pageToken });
        standings.push(...page.standings);
        tieBreaks = page.tieBreaks;
        counted = page.gamesCounted;
        pageToken = page.nextPageToken;
      } while (pageToken !== "");
      const codes = tieBreaks.map((t) => tieBreakCode(t, this.offered));
      const head = element("tr");
      for (const title of ["Rank", "Player", "Points", "Games", "Won", "Drawn", "Lost", ...codes]) head.append(element("th", "", title));
      $("standings").querySelector("thead")?.replaceChildren(head);
      $("standings").querySelector("tbody")?.replaceChildren(
        ...standings.map((s) => {
          const row = element("tr");
          for (const value of [String(s.rank), playerName(s.player, ""), s.points, String(s.gamesPlayed), String(s.wins), String(s.draws), String(s.losses), ...s.tieBreakValues]) row.append(element("td", "", value));
          return row;
        }),
      );
      say("standings-answer", `${standings.length} players, ${counted} games counted; tie-breaks ${codes.join(", ")}.`, "ok");
    } catch (reason) {
      say("standings-answer", refusal(ConnectError.from(reason)), "error");
    }
  }

  // --- rounds ---

  async rounds(): Promise<void> {
    const numbers = [...new Set([...this.games.values()].map((game) => game.setup?.pairing?.round ?? 0))].filter((r) => r > 0).sort((a, b) => a - b);
    const rows = [];
    for (const round of numbers) {
      const row = element("tr");
      row.dataset["round"] = String(round);
      row.append(element("td", "", `Round ${round}`));
      try {
        const read = (await this.admin.getRound({ eventId: this.eventId, round, pageSize: 1 })).round;
        row.append(element("td", "", String(read?.boardCount ?? "")), element("td", "", timeText(read?.createTime?.seconds)));
        const started = read?.startTime;
        const action = element("td");
        if (started !== undefined) {
          row.append(element("td", "", `${timeText(started.seconds)} by ${read?.startedBy ?? ""}`));
        } else {
          row.append(element("td", "", "not started"));
          const button = element("button", "", `Start round ${round}`);
          button.type = "button";
          button.addEventListener("click", () => void this.startRound(round));
          action.append(button);
        }
        row.append(action);
      } catch (reason) {
        const error = ConnectError.from(reason);
        const text = error.code === Code.NotFound ? "games created one by one (no round record)" : refusal(error);
        const cell = element("td", "", text);
        cell.colSpan = 4;
        row.append(cell);
      }
      rows.push(row);
    }
    $("rounds-table").querySelector("tbody")?.replaceChildren(...rows);
  }

  async startRound(round: number): Promise<void> {
    if (!(await confirmed(`Start round ${round} of ${this.eventId}: every board's clock starts now?`))) {
      say("rounds-answer", "Not sent.", "ok");
      return;
    }
    try {
      const started = await this.admin.startRound({ eventId: this.eventId, round });
      say("rounds-answer", `Round ${round} started: ${started.startedGames} games started now, ${started.alreadyStartedGames} had started, ${started.finishedGames} were over.`, "ok");
    } catch (reason) {
      say("rounds-answer", refusal(ConnectError.from(reason)), "error");
    }
    await this.rounds();
  }

  /** The players the event's games name, by id (for a round created from ids). */
  private players(): Map<string, Player> {
    const known = new Map<string, Player>();
    for (const game of this.games.values()) {
      for (const player of [game.setup?.white, game.setup?.black]) {
        if (player !== undefined && player.id !== "" && !known.has(player.id)) known.set(player.id, player);
      }
    }
    return known;
  }

  async createRound(round: number, lines: string, minutes: number, increment: number): Promise<void> {
    const known = this.players();
    const boards: MessageInitShape<typeof RoundBoardSchema>[] = [];
    for (const [i, line] of lines.split("\n").map((l) => l.trim()).filter((l) => l !== "").entries()) {
      const ids = line.split(/[\s,;]+/).filter((w) => w !== "" && w !== "–" && w !== "-");
      if (ids.length !== 2) {
        say("rounds-answer", `Line ${i + 1}, "${line}": give two player ids, White's then Black's.`, "error");
        return;
      }
      const [white, black] = ids.map((id) => known.get(id) ?? { id, name: "", rating: 0, title: "", fideId: 0, team: "" });
      boards.push({ board: i + 1, white, black });
    }
    const unknown = boards.flatMap((b) => [b.white?.id ?? "", b.black?.id ?? ""]).filter((id) => !known.has(id));
    const note = unknown.length === 0 ? "" : ` (new to the event: ${unknown.join(", ")})`;
    const question = `Create round ${round} of ${this.eventId} with ${boards.length} boards${note}, ${minutes} minutes + ${increment} s per move?`;
    await this.makeRound(round, question, minutes, increment, (settings) =>
      this.admin.createRound({ requestId: requestId(), eventId: this.eventId, round, boards, settings }),
    );
  }

  async importPairings(round: number, pairings: string, minutes: number, increment: number): Promise<void> {
    const question = `Create round ${round} of ${this.eventId} from these pairings, ${minutes} minutes + ${increment} s per move?`;
    await this.makeRound(round, question, minutes, increment, (settings) =>
      this.admin.importPairings({ requestId: requestId(), eventId: this.eventId, round, pairings, settings }),
    );
  }

  /** Makes a round once confirmed, with one time control for every game, and says how it went. */
  private async makeRound(
    round: number,
    question: string,
    minutes: number,
    increment: number,
    make: (settings: { timeControl: { periods: { timeMillis: number; incrementMillis: number }[] } }) => Promise<{ games: unknown[] }>,
  ): Promise<void> {
    if (!(await confirmed(question))) {
      say("rounds-answer", "Not sent.", "ok");
      return;
    }
    try {
      const made = await make({ timeControl: { periods: [{ timeMillis: Math.round(minutes * 60_000), incrementMillis: Math.round(increment * 1000) }] } });
      say("rounds-answer", `Round ${round} created: ${made.games.length} games.`, "ok");
      await this.loadGames();
    } catch (reason) {
      say("rounds-answer", refusal(ConnectError.from(reason)), "error");
    }
    await this.rounds();
  }

  // --- downloads ---

  async download(kind: "pgn" | "trf"): Promise<void> {
    say("downloads-answer", "Reading…", "waiting");
    try {
      let text: string;
      if (kind === "pgn") {
        const parts: string[] = [];
        for await (const part of this.arbiter.exportPgn({ target: { case: "eventId", value: this.eventId } })) parts.push(part.pgn);
        text = parts.join("\n");
      } else {
        text = (await this.arbiter.exportTrf({ eventId: this.eventId })).trf;
      }
      const link = element("a");
      link.href = URL.createObjectURL(new Blob([text], { type: kind === "pgn" ? "application/x-chess-pgn" : "text/plain" }));
      link.download = `${this.eventId}.${kind}`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      say("downloads-answer", `${this.eventId}.${kind}: ${text.length} characters.`, "ok");
    } catch (reason) {
      say("downloads-answer", refusal(ConnectError.from(reason)), "error");
    }
  }
}

// --- the page ---------------------------------------------------------------------------

function clientsFor(token: string): { arbiter: Arbiter; admin: Admin } {
  const bearer: Interceptor = (next) => (request) => {
    request.header.set("authorization", `Bearer ${token}`);
    return next(request);
  };
  // Always this page's own origin, whatever the address says: a link
  // naming another server must not be able to collect the credential.
  const transport = createGrpcWebTransport({ baseUrl: location.origin, interceptors: [bearer] });
  return { arbiter: createClient(ArbiterService, transport), admin: createClient(AdminService, transport) };
}

function showView(view: string): void {
  for (const section of document.querySelectorAll<HTMLElement>("#console > section[data-view]")) {
    section.hidden = section.dataset["view"] !== view;
  }
  for (const link of document.querySelectorAll<HTMLAnchorElement>("#tabs a")) {
    if (link.dataset["view"] === view || (view === "game" && link.dataset["view"] === "boards")) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

function number(form: HTMLFormElement, name: string): number {
  return Number((form.elements.namedItem(name) as HTMLInputElement).value);
}

function text(form: HTMLFormElement, name: string): string {
  return (form.elements.namedItem(name) as HTMLInputElement | HTMLTextAreaElement).value.trim();
}

function onSubmit(id: string, act: (form: HTMLFormElement) => Promise<void>): void {
  const form = $(id) as HTMLFormElement;
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void act(form);
  });
}

function wire(console_: Console): void {
  const route = async (): Promise<void> => {
    const hash = decodeURIComponent(location.hash.slice(1));
    if (hash.startsWith("game=")) {
      showView("game");
      await console_.open(hash.slice(5)).catch((reason: unknown) => say("answer", refusal(ConnectError.from(reason)), "error"));
      return;
    }
    console_.close();
    const view = ["standings", "rounds", "downloads"].includes(hash) ? hash : "boards";
    showView(view);
    if (view === "rounds") await console_.rounds();
    if (view === "standings") await console_.standings(($("tie-breaks") as HTMLInputElement).value, number($("standings-form") as HTMLFormElement, "total-rounds"));
  };
  window.addEventListener("hashchange", () => void route());
  ($("round-select") as HTMLSelectElement).addEventListener("change", (e) => console_.chooseRound(Number((e.target as HTMLSelectElement).value)));

  onSubmit("pause-form", (form) => console_.intervene(`Pause the clocks (reason: ${text(form, "reason")})`, (gameId, requestId) => console_.admin.pauseClock({ requestId, gameId, reason: text(form, "reason") })));
  onSubmit("resume-form", (form) => console_.intervene(`Resume the clocks (reason: ${text(form, "reason")})`, (gameId, requestId) => console_.admin.resumeClock({ requestId, gameId, reason: text(form, "reason") })));
  onSubmit("adjust-form", (form) => {
    const seconds = number(form, "seconds");
    const white = text(form, "color") === "white";
    const millis = Math.round(seconds * 1000);
    if (!Number.isFinite(millis) || millis === 0) {
      say("answer", "Give the seconds to add (or, negative, to take away).", "error");
      return Promise.resolve();
    }
    const what = `${millis > 0 ? "Add" : "Take away"} ${Math.abs(millis) / 1000} s ${millis > 0 ? "to" : "from"} ${white ? "White" : "Black"}'s clock (reason: ${text(form, "reason")})`;
    return console_.intervene(what, (gameId, requestId) => console_.admin.adjustClock({ requestId, gameId, color: white ? Color.WHITE : Color.BLACK, deltaMillis: millis, reason: text(form, "reason") }));
  });
  onSubmit("result-form", (form) => {
    const ruling = text(form, "ruling");
    const reason = text(form, "reason");
    const label = (form.elements.namedItem("ruling") as HTMLSelectElement).selectedOptions[0]?.textContent ?? ruling;
    const forfeits: Record<string, Forfeit> = { "forfeit-white": Forfeit.WHITE, "forfeit-black": Forfeit.BLACK, "forfeit-both": Forfeit.BOTH };
    const outcomes: Record<string, Outcome> = { "1-0": Outcome.WHITE_WINS, "0-1": Outcome.BLACK_WINS, draw: Outcome.DRAW };
    const forfeit = forfeits[ruling];
    const outcome = outcomes[ruling];
    return console_.intervene(`Set the result ${label} (reason: ${reason})`, (gameId, requestId) =>
      console_.admin.setGameResult({
        requestId,
        gameId,
        reason,
        ruling: forfeit !== undefined ? { case: "forfeit", value: forfeit } : { case: "played", value: { outcome: outcome ?? Outcome.DRAW } },
      }),
    );
  });
  onSubmit("standings-form", (form) => console_.standings(text(form, "tie-breaks"), number(form, "total-rounds")));
  onSubmit("create-form", (form) => console_.createRound(number(form, "round"), text(form, "boards"), number(form, "minutes"), number(form, "increment")));
  onSubmit("import-form", (form) => console_.importPairings(number(form, "round"), text(form, "pairings"), number(form, "minutes"), number(form, "increment")));
  $("download-pgn").addEventListener("click", () => void console_.download("pgn"));
  $("download-trf").addEventListener("click", () => void console_.download("trf"));
  setInterval(() => console_.tick(), 200);
  void route();
}

async function start(session: Session): Promise<void> {
  const { arbiter, admin } = clientsFor(session.token);
  // The credential must be able to inspect the event (an arbiter's of it,
  // or the platform's): one call says so before anything is shown.
  await admin.listAuditEntries({ eventId: session.eventId, pageSize: 1 });
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  $("sign-in").hidden = true;
  $("console").hidden = false;
  $("sign-out").hidden = false;
  $("title").textContent = `Arbiter console · ${session.eventId}`;
  document.title = `${session.eventId} · arbiter console`;
  $("who").textContent = `signed in with ${holder(session.token)}`;
  const console_ = new Console(session, arbiter, admin);
  wire(console_);
  void console_.follow();
}

function signIn(message = ""): void {
  $("sign-in").hidden = false;
  $("console").hidden = true;
  $("sign-out").hidden = true;
  say("sign-in-error", message, message === "" ? "ok" : "error");
  setConnection("", "ok");
  const form = $("sign-in-form") as HTMLFormElement;
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const session = { eventId: text(form, "event"), token: text(form, "credential") };
    say("sign-in-error", "Signing in…", "waiting");
    start(session).catch((reason: unknown) => say("sign-in-error", refusal(ConnectError.from(reason)), "error"));
  });
}

function main(): void {
  $("sign-out").addEventListener("click", () => {
    sessionStorage.removeItem(SESSION_KEY);
    location.hash = "";
    location.reload();
  });
  const saved = loadSession();
  if (saved === undefined) {
    signIn();
    return;
  }
  start(saved).catch((reason: unknown) => {
    sessionStorage.removeItem(SESSION_KEY);
    signIn(refusal(ConnectError.from(reason)));
  });
}

main();

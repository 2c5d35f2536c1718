/**
 * What a game says, the same on every page: its players, its status and
 * result in words, its board, its clocks, and the events every view applies
 * the same way.
 */

import type { Position } from "./board.js";
import { RunningClock, type Reading } from "./clock.js";
import { clockText, moveRows, resultText, rowText } from "./notation.js";
import { element } from "./page.js";
import { type ClockState, Color, type Game, type GameEvent, GameStatus, type Player } from "./gen/chessarbiter/v1/arbiter_pb.js";

/** The standard initial position, for games that name none. */
export const STANDARD = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

export function playerName(player: Player | undefined, fallback: string): string {
  if (player === undefined) return fallback;
  const name = player.name || player.id || fallback;
  const title = player.title ? `${player.title} ` : "";
  const rating = player.rating > 0 ? ` (${player.rating})` : "";
  return `${title}${name}${rating}`;
}

export function reading(clock: ClockState | undefined): Reading | undefined {
  if (clock === undefined) return undefined;
  return {
    whiteMillis: clock.whiteMillis,
    blackMillis: clock.blackMillis,
    running: clock.running === Color.WHITE ? "white" : clock.running === Color.BLACK ? "black" : undefined,
    delayLeftMillis: clock.delayLeftMillis,
  };
}

export function over(game: Game): boolean {
  return game.status === GameStatus.FINISHED || game.status === GameStatus.ABORTED;
}

export function statusText(game: Game): string {
  if (game.status === GameStatus.ABORTED) return "Game aborted";
  if (game.status === GameStatus.FINISHED && game.result !== undefined) {
    return resultText({ outcome: game.result.outcome, termination: game.result.termination, needsReview: game.result.needsReview });
  }
  const side = game.sideToMove === Color.BLACK ? "Black" : "White";
  const parts = [game.status === GameStatus.PENDING ? `Not started · ${side} to move` : `${side} to move`];
  if (game.inCheck) parts.push("check");
  if (game.clock?.paused) parts.push("clocks paused by the arbiter");
  if (game.drawOfferedBy !== undefined) parts.push(`${game.drawOfferedBy === Color.WHITE ? "White" : "Black"} offers a draw`);
  return parts.join(" · ");
}

/**
 * The board of a game. A finished game reports no check (not even after a
 * checkmate); its last move's mark says whether its king stands in check.
 */
export function position(game: Game): Position {
  const last = game.lastMove;
  const inCheck = over(game) ? /[+#]$/.test(last?.san ?? "") : game.inCheck;
  return { fen: game.fen, lastUci: last?.uci ?? "", whiteToMove: game.sideToMove !== Color.BLACK, inCheck };
}

/** Shows both clocks of `clock` in two elements, marking the running one. */
export function showClocks(clock: RunningClock, white: HTMLElement, black: HTMLElement): void {
  const now = clock.remaining();
  for (const [side, shown] of [["white", white], ["black", black]] as const) {
    if (now === undefined) {
      shown.textContent = "";
      shown.classList.remove("running", "low");
      continue;
    }
    const millis = side === "white" ? now.whiteMillis : now.blackMillis;
    const text = clockText(millis);
    if (shown.textContent !== text) shown.textContent = text;
    shown.classList.toggle("running", now.running === side);
    shown.classList.toggle("low", millis < 10_000);
  }
}

/** Applies the events every view reads the same way; false when the game must be read again. */
export function applyCommon(game: Game, event: GameEvent): boolean {
  // The version moves only with an event applied here: one left to a
  // fresh read keeps the game at its old version until that read succeeds.
  const kind = event.kind;
  if (kind.case === "moveMade") {
    const made = kind.value;
    game.fen = made.fen;
    game.sideToMove = made.sideToMove;
    game.ply = made.ply;
    game.inCheck = made.inCheck;
    game.drawOfferedBy = undefined;
    if (made.move !== undefined) game.lastMove = made.move;
    if (game.status === GameStatus.PENDING) game.status = GameStatus.ACTIVE;
    if (event.clock !== undefined) game.clock = event.clock;
    game.version = event.version;
    return true;
  }
  if (kind.case === "gameEnded") {
    game.status = GameStatus.FINISHED;
    game.result = kind.value.result;
    game.version = event.version;
    return true;
  }
  if (kind.case === "gameAborted") {
    game.status = GameStatus.ABORTED;
    game.version = event.version;
    return true;
  }
  return false;
}

/** The moves (SAN by ply) in `list` as score-sheet rows, numbered from the game's initial position. */
export function showMoves(list: HTMLElement, game: Game, sans: readonly string[]): void {
  list.replaceChildren(
    ...moveRows(game.setup?.initialFen || STANDARD, sans).map((row) => {
      const item = element("li");
      item.append(element("span", "number", row.white === "" ? `${row.number}…` : `${row.number}.`));
      if (row.white !== "") item.append(" ", element("span", "move", row.white));
      if (row.black !== "") item.append(" ", element("span", "move", row.black));
      item.title = rowText(row);
      return item;
    }),
  );
}

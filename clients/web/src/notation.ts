/**
 * How the pages write chess: move numbers and pairs as on a score sheet,
 * results and terminations in words, clock readings. Pure functions of what
 * the server sent (no DOM), so that they are tested on their own.
 */

/** One line of a score sheet: a move number, White's move and Black's. */
export interface MoveRow {
  number: number;
  /** Empty when the game started with Black to move (written "1… e5"). */
  white: string;
  /** Empty while Black has not answered yet. */
  black: string;
}

/** The move number and side to move of a FEN (the standard position if it is malformed). */
export function startOf(fen: string): { number: number; blackFirst: boolean } {
  const fields = fen.trim().split(/\s+/);
  const number = Number.parseInt(fields[5] ?? "1", 10);
  return { number: Number.isFinite(number) && number > 0 ? number : 1, blackFirst: fields[1] === "b" };
}

/** The moves (SAN, in order from the initial position) as score-sheet rows. */
export function moveRows(initialFen: string, sans: readonly string[]): MoveRow[] {
  const start = startOf(initialFen);
  const rows: MoveRow[] = [];
  sans.forEach((san, ply) => {
    const half = ply + (start.blackFirst ? 1 : 0);
    const number = start.number + Math.floor(half / 2);
    if (half % 2 === 0) rows.push({ number, white: san, black: "" });
    else if (rows.length === 0) rows.push({ number, white: "", black: san });
    else {
      const last = rows[rows.length - 1];
      if (last !== undefined) last.black = san;
    }
  });
  return rows;
}

/** A row as text: "1. e4 e5", "1… e5", "3. Nf3". */
export function rowText(row: MoveRow): string {
  if (row.white === "") return `${row.number}… ${row.black}`;
  return row.black === "" ? `${row.number}. ${row.white}` : `${row.number}. ${row.white} ${row.black}`;
}

/** One move with its number: ply 0 from the standard position is "1. e4", ply 1 "1… e5". */
export function moveLabel(initialFen: string, ply: number, san: string): string {
  const start = startOf(initialFen);
  const half = ply + (start.blackFirst ? 1 : 0);
  const number = start.number + Math.floor(half / 2);
  return half % 2 === 0 ? `${number}. ${san}` : `${number}… ${san}`;
}

/** A clock reading: "5:00", "1:02:03", and tenths under ten seconds ("0:09.4"). */
export function clockText(millis: number): string {
  const ms = Math.max(0, millis);
  if (ms < 10_000) {
    const tenths = Math.floor(ms / 100);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const total = Math.floor(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** How a game ended, as the API's enums give it (numbers, so that this file needs no generated code). */
export interface Ending {
  /** Outcome: 1 White wins, 2 Black wins, 3 draw, 4 double forfeit. */
  outcome: number;
  /** Termination, as in the API (1 checkmate … 17 opponent left). */
  termination: number;
  needsReview: boolean;
}

const WHITE_WINS = 1;
const BLACK_WINS = 2;
const DRAW = 3;
const DOUBLE_FORFEIT = 4;

/** The score as written on a pairing sheet. */
export function scoreText(outcome: number): string {
  switch (outcome) {
    case WHITE_WINS:
      return "1-0";
    case BLACK_WINS:
      return "0-1";
    case DRAW:
      return "½-½";
    case DOUBLE_FORFEIT:
      return "0-0";
    default:
      return "*";
  }
}

/** The result and how it came about, in words: "1-0 · White wins by checkmate". */
export function resultText(ending: Ending): string {
  const winner = ending.outcome === WHITE_WINS ? "White" : "Black";
  const loser = ending.outcome === WHITE_WINS ? "Black" : "White";
  const decisive = ending.outcome === WHITE_WINS || ending.outcome === BLACK_WINS;
  const drawn = ending.outcome === DRAW;
  let words: string;
  switch (ending.termination) {
    case 1:
      words = `${winner} wins by checkmate`;
      break;
    case 2:
      words = `${loser} resigned`;
      break;
    case 3:
      words = "Draw by stalemate";
      break;
    case 4:
      words = "Draw: neither side can checkmate (insufficient material)";
      break;
    case 5:
      words = "Draw by agreement";
      break;
    case 6:
      words = "Draw by threefold repetition, claimed";
      break;
    case 7:
      words = "Draw by the fifty-move rule, claimed";
      break;
    case 8:
      words = "Draw by fivefold repetition";
      break;
    case 9:
      words = "Draw by the seventy-five-move rule";
      break;
    case 10:
      words = "Draw: dead position";
      break;
    case 11:
      words = `${winner} wins on time`;
      break;
    case 12:
      words = drawn ? "Draw: a flag fell, but the opponent cannot checkmate" : `${winner} wins on time`;
      break;
    case 13:
      words = "Draw: a flag fell with a draw offer pending";
      break;
    case 14:
      words = decisive
        ? `${winner} wins by forfeit: ${loser} did not arrive in time`
        : "Double forfeit: neither player arrived in time";
      break;
    case 15:
      words = decisive ? `${winner} wins by forfeit` : drawn ? "Draw by the arbiter's ruling" : "Double forfeit";
      break;
    case 16:
      words = decisive ? `${winner} wins by the arbiter's decision` : drawn ? "Draw by the arbiter's decision" : "Double forfeit by the arbiter's decision";
      break;
    case 17:
      words = drawn ? "Draw: a player left, and the opponent cannot checkmate" : `${winner} wins: ${loser} left the game`;
      break;
    default:
      words = decisive ? `${winner} wins` : drawn ? "Draw" : ending.outcome === DOUBLE_FORFEIT ? "Double forfeit" : "Result set";
  }
  const review = ending.needsReview ? " · awaiting the arbiter's review" : "";
  return `${scoreText(ending.outcome)} · ${words}${review}`;
}

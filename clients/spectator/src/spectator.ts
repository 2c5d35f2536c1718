/**
 * The spectator page: follows one game (`?server=…&game=<id>`) or one event
 * (`?server=…&event=<id>`) live over gRPC-Web, straight from the arbiter
 * (which must allow this page's origin in ARBITER_CORS_ALLOWED_ORIGINS).
 *
 * A game is shown from WatchGame: the snapshot, the moves so far (ListMoves),
 * then every event. When the stream drops, it is opened again with the
 * resume_token of the last message received, so no event is missed or seen
 * twice; after HISTORY_REWRITTEN (a storage failover lost events) the page
 * starts again from a fresh snapshot. An event is shown from ListGames, then
 * WatchEvent resumed by its cursor: each game's players, latest move and
 * status.
 */

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import {
  ArbiterService,
  type ClockState,
  Color,
  type Game,
  type GameEvent,
  type GameResult,
  GameStatus,
  GameView,
  Outcome,
  Termination,
  WatchGameRequestSchema,
} from "./gen/chessarbiter/v1/arbiter_pb.js";

type Arbiter = Client<typeof ArbiterService>;

const $ = (id: string): HTMLElement => {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`no #${id} in the page`);
  return element;
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Waits before reconnecting: 0.25 s, doubling up to 5 s. */
function backoff(attempt: number): Promise<void> {
  return sleep(Math.min(5000, 250 * 2 ** Math.min(attempt, 5)));
}

function setConnection(text: string): void {
  $("connection").textContent = text;
}

/**
 * What the page says when a stream failed. A request the browser could not
 * make at all (no gRPC status: Unknown) is most often a server that does
 * not allow this page's origin, or one that is not running.
 */
function disconnected(error: ConnectError): string {
  const text = `disconnected (${Code[error.code]}); reconnecting…`;
  if (error.code !== Code.Unknown) return text;
  return `${text} The server cannot be reached from this page: it is not running, or it does not allow this page's origin (start it with --cors-allowed-origins ${window.location.origin}).`;
}

// --- rendering ----------------------------------------------------------------

const PIECES: Record<string, string> = {
  K: "♔", Q: "♕", R: "♖", B: "♗", N: "♘", P: "♙",
  k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟",
};

/** The board of a FEN as 8 lines of Unicode pieces, rank 8 first. */
export function boardText(fen: string): string {
  const ranks = (fen.split(" ")[0] ?? "").split("/");
  return ranks
    .map((rank, i) => {
      let row = "";
      for (const c of rank) row += /\d/.test(c) ? "·".repeat(Number(c)) : (PIECES[c] ?? "?");
      return `${8 - i} ${[...row].join(" ")}`;
    })
    .concat("  a b c d e f g h")
    .join("\n");
}

function resultText(result: GameResult | undefined, status: GameStatus): string {
  if (status === GameStatus.ABORTED) return "aborted";
  if (result === undefined) return "";
  const score =
    result.outcome === Outcome.WHITE_WINS ? "1-0"
    : result.outcome === Outcome.BLACK_WINS ? "0-1"
    : result.outcome === Outcome.DRAW ? "½-½"
    : result.outcome === Outcome.DOUBLE_FORFEIT ? "0-0"
    : "?";
  const how = Termination[result.termination]?.toLowerCase().replace(/_/g, " ") ?? "";
  return result.termination === Termination.UNSPECIFIED ? score : `${score} (${how})`;
}

function statusText(game: { status: GameStatus; sideToMove: Color; inCheck: boolean; result?: GameResult | undefined }): string {
  if (game.status === GameStatus.FINISHED || game.status === GameStatus.ABORTED) {
    return `Game over: ${resultText(game.result, game.status)}`;
  }
  const side = game.sideToMove === Color.BLACK ? "Black" : "White";
  const check = game.inCheck ? " (check)" : "";
  return game.status === GameStatus.PENDING ? `Not started: ${side} to move` : `${side} to move${check}`;
}

function clockText(millis: number): string {
  const s = Math.max(0, Math.ceil(millis / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// --- one game -----------------------------------------------------------------

/** What the page knows of the watched game. */
class GameView_ {
  game: Game | undefined;
  moves: string[] = [];
  clock: ClockState | undefined;
  clockSeenAt = 0;

  reset(): void {
    this.game = undefined;
    this.moves = [];
    this.clock = undefined;
  }

  setClock(clock: ClockState | undefined): void {
    if (clock === undefined) return;
    this.clock = clock;
    this.clockSeenAt = performance.now();
  }

  render(): void {
    const game = this.game;
    if (game === undefined) return;
    const setup = game.setup;
    $("players").textContent = `${setup?.white?.name || setup?.white?.id || "White"} – ${setup?.black?.name || setup?.black?.id || "Black"}`;
    $("board").textContent = boardText(game.fen);
    $("status").textContent = statusText(game);
    const list = $("moves");
    list.replaceChildren(
      ...this.moves.map((san, ply) => {
        const item = document.createElement("li");
        item.textContent = san;
        item.dataset["ply"] = String(ply);
        return item;
      }),
    );
    this.renderClocks();
  }

  renderClocks(): void {
    const clock = this.clock;
    if (clock === undefined) {
      $("clock-white").textContent = "–";
      $("clock-black").textContent = "–";
      return;
    }
    const over = this.game !== undefined && this.game.status !== GameStatus.ACTIVE;
    const elapsed = clock.paused || over ? 0 : performance.now() - this.clockSeenAt;
    const white = clock.whiteMillis - (clock.running === Color.WHITE ? elapsed : 0);
    const black = clock.blackMillis - (clock.running === Color.BLACK ? elapsed : 0);
    $("clock-white").textContent = `White ${clockText(white)}${clock.running === Color.WHITE && !over ? " ⏱" : ""}`;
    $("clock-black").textContent = `Black ${clockText(black)}${clock.running === Color.BLACK && !over ? " ⏱" : ""}`;
  }
}

async function loadMoves(client: Arbiter, gameId: string, view: GameView_): Promise<void> {
  let pageToken = "";
  do {
    const page = await client.listMoves({ gameId, pageSize: 500, pageToken });
    for (const move of page.moves) view.moves[move.ply] = move.san;
    pageToken = page.nextPageToken;
  } while (pageToken !== "");
}

async function applyEvent(client: Arbiter, event: GameEvent, view: GameView_): Promise<void> {
  view.setClock(event.clock);
  const game = view.game;
  if (game === undefined) return;
  game.version = event.version;
  const kind = event.kind;
  if (kind.case === "moveMade") {
    const made = kind.value;
    if (made.move !== undefined) view.moves[made.move.ply] = made.move.san;
    game.fen = made.fen;
    game.sideToMove = made.sideToMove;
    game.ply = made.ply;
    game.inCheck = made.inCheck;
    if (game.status === GameStatus.PENDING) game.status = GameStatus.ACTIVE;
  } else if (kind.case === "gameEnded") {
    game.status = GameStatus.FINISHED;
    game.result = kind.value.result;
  } else if (kind.case === "gameAborted") {
    game.status = GameStatus.ABORTED;
  } else {
    // Anything else (a decided or corrected result, clock changes, offers,
    // check-ins): read the game again rather than replay its rules here.
    const fresh = (await client.getGame({ gameId: game.gameId })).game;
    if (fresh !== undefined) {
      view.game = fresh;
      view.setClock(fresh.clock);
    }
  }
}

async function followGame(client: Arbiter, gameId: string): Promise<void> {
  const view = new GameView_();
  setInterval(() => view.renderClocks(), 250);
  let resumeToken = "";
  let failures = 0;
  for (;;) {
    try {
      setConnection(resumeToken === "" ? "connecting…" : "reconnecting…");
      const request = create(WatchGameRequestSchema, { gameId, resumeToken });
      for await (const message of client.watchGame(request)) {
        failures = 0;
        setConnection("live");
        const kind = message.kind;
        if (kind.case === "snapshot") {
          view.reset();
          view.game = kind.value;
          view.setClock(kind.value.clock);
          await loadMoves(client, gameId, view);
        } else if (kind.case === "event") {
          await applyEvent(client, kind.value, view);
        }
        if (message.resumeToken !== "") resumeToken = message.resumeToken;
        view.render();
      }
      // The stream ends after the event that ends the game.
      const status = view.game?.status;
      if (status === GameStatus.FINISHED || status === GameStatus.ABORTED) {
        setConnection("game over");
        return;
      }
    } catch (reason) {
      const error = ConnectError.from(reason);
      if (error.code === Code.NotFound || error.code === Code.InvalidArgument || error.code === Code.PermissionDenied) {
        setConnection(`error: ${error.rawMessage}`);
        return;
      }
      if (error.code === Code.FailedPrecondition) {
        // HISTORY_REWRITTEN: the event the token names was lost; start over.
        resumeToken = "";
      }
      setConnection(disconnected(error));
    }
    await backoff(failures++);
  }
}

// --- one event ----------------------------------------------------------------

interface Row {
  game: Game;
  lastMove: string;
  element: HTMLTableRowElement;
}

async function followEvent(client: Arbiter, eventId: string): Promise<void> {
  $("game").hidden = true;
  $("event").hidden = false;
  $("players").textContent = `Event ${eventId}`;
  const rows = new Map<string, Row>();
  const table = $("games");

  const show = (game: Game, lastMove?: string): void => {
    let row = rows.get(game.gameId);
    if (row === undefined) {
      const element = document.createElement("tr");
      element.dataset["game"] = game.gameId;
      table.append(element);
      row = { game, lastMove: "", element };
      rows.set(game.gameId, row);
    }
    row.game = game;
    if (lastMove !== undefined) row.lastMove = lastMove;
    else if (game.lastMove !== undefined) row.lastMove = game.lastMove.san;
    const p = game.setup?.pairing;
    const cells = [
      p === undefined ? "" : `${p.round}.${p.board}`,
      `${game.setup?.white?.name || game.setup?.white?.id || ""} – ${game.setup?.black?.name || game.setup?.black?.id || ""}`,
      row.lastMove === "" ? "" : `${Math.floor((game.ply - 1) / 2) + 1}${game.ply % 2 === 1 ? "." : "…"} ${row.lastMove}`,
      statusText(game),
    ];
    row.element.replaceChildren(
      ...cells.map((text, i) => {
        const cell = document.createElement("td");
        cell.textContent = text;
        cell.className = ["pairing", "players", "last-move", "status"][i] ?? "";
        return cell;
      }),
    );
  };

  const refresh = async (gameId: string): Promise<void> => {
    const game = (await client.getGame({ gameId })).game;
    if (game !== undefined) show(game);
  };

  let cursor = "";
  let failures = 0;
  for (;;) {
    try {
      setConnection(cursor === "" ? "connecting…" : "reconnecting…");
      if (cursor === "") {
        // The games so far, then every event after them. The watch opened
        // without a cursor starts now; re-reading a game is harmless.
        let pageToken = "";
        do {
          const page = await client.listGames({ eventId, pageToken, pageSize: 500, view: GameView.BASIC });
          for (const game of page.games) show(game);
          pageToken = page.nextPageToken;
        } while (pageToken !== "");
      }
      for await (const message of client.watchEvent({ eventId, afterCursor: cursor })) {
        failures = 0;
        setConnection("live");
        if (message.kind.case === "event") {
          const event = message.kind.value;
          const row = rows.get(event.gameId);
          if (event.kind.case === "moveMade" && row !== undefined) {
            const made = event.kind.value;
            Object.assign(row.game, { fen: made.fen, sideToMove: made.sideToMove, ply: made.ply, inCheck: made.inCheck, status: GameStatus.ACTIVE });
            show(row.game, made.move?.san ?? "");
          } else {
            await refresh(event.gameId);
          }
        }
        if (message.cursor !== "") cursor = message.cursor;
      }
    } catch (reason) {
      const error = ConnectError.from(reason);
      if (error.code === Code.InvalidArgument || error.code === Code.PermissionDenied) {
        setConnection(`error: ${error.rawMessage}`);
        return;
      }
      if (error.code === Code.FailedPrecondition) cursor = "";
      setConnection(disconnected(error));
    }
    await backoff(failures++);
  }
}

// --- start ------------------------------------------------------------------------

function main(): void {
  const params = new URLSearchParams(location.search);
  const server = params.get("server");
  const gameId = params.get("game");
  const eventId = params.get("event");
  if (server === null || (gameId === null && eventId === null)) {
    setConnection("usage: index.html?server=http://host:port&game=<id> (or &event=<id>)");
    return;
  }
  const client = createClient(ArbiterService, createGrpcWebTransport({ baseUrl: server }));
  const run = gameId !== null ? followGame(client, gameId) : followEvent(client, eventId ?? "");
  run.catch((reason: unknown) => setConnection(`error: ${String(reason)}`));
}

main();

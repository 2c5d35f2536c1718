/**
 * The spectator page, served by the arbiter on its web port: `/?game=<id>`
 * follows one game, `/?event=<id>` every board of an event's round (as
 * mini-boards, each a link to its game), and `/` asks for one or the other.
 * It calls the API over gRPC-Web on its own origin, or on the server named
 * by `?server=` (which must then allow this page's origin with
 * --cors-allowed-origins). It reads as the public does: a game with a
 * broadcast delay is shown as it stood that long ago.
 *
 * A game is shown from WatchGame: the snapshot, the moves so far
 * (ListMoves), then every event. When the stream drops, it is opened again
 * with the resume_token of the last message received, so no event is missed
 * or seen twice; after HISTORY_REWRITTEN (a storage failover lost events)
 * the page starts again from a fresh snapshot. An event is shown from
 * ListGames, then WatchEvent resumed by its cursor.
 */

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { Board } from "./board.js";
import { RunningClock } from "./clock.js";
import { followEventStream } from "./event-stream.js";
import { applyCommon, over, playerName, position, reading, showClocks, showMoves, STANDARD, statusText } from "./games.js";
import { moveLabel } from "./notation.js";
import { $, backoff, element, failure, final, params, server, setConnection, setText, viewLink } from "./page.js";
import { ArbiterService, type Game, type GameEvent, GameView, WatchGameRequestSchema } from "./gen/chessarbiter/v1/arbiter_pb.js";

type Arbiter = Client<typeof ArbiterService>;


// --- one game ----------------------------------------------------------------------

class GamePage {
  game: Game | undefined;
  sans: string[] = [];
  readonly clock = new RunningClock();
  private readonly board = new Board($("board"), { coordinates: true });

  reset(game: Game): void {
    this.game = game;
    this.sans = [];
    this.clock.set(reading(game.clock));
    if (over(game)) this.clock.stop();
  }

  render(): void {
    const game = this.game;
    if (game === undefined) return;
    const white = playerName(game.setup?.white, "White");
    const black = playerName(game.setup?.black, "Black");
    $("name-white").textContent = white;
    $("name-black").textContent = black;
    document.title = `${white} – ${black}`;
    const pairing = game.setup?.pairing;
    $("title").textContent = pairing !== undefined && pairing.eventId !== ""
      ? `${pairing.eventId} · round ${pairing.round}, board ${pairing.board}`
      : "Game";
    const eventLink = $("event-link") as HTMLAnchorElement;
    eventLink.hidden = pairing === undefined || pairing.eventId === "";
    if (pairing !== undefined && pairing.eventId !== "") eventLink.href = viewLink("event", pairing.eventId, { round: String(pairing.round) });
    this.board.show(position(game));
    setText($("status"), statusText(game));
    const list = $("moves");
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 8;
    showMoves(list, game, this.sans);
    if (atBottom) list.scrollTop = list.scrollHeight;
    this.tick();
  }

  tick(): void {
    showClocks(this.clock, $("clock-white"), $("clock-black"));
  }

  async apply(client: Arbiter, event: GameEvent): Promise<void> {
    const game = this.game;
    if (game === undefined) return;
    this.clock.set(reading(event.clock));
    if (event.kind.case === "moveMade" && event.kind.value.move !== undefined) {
      const move = event.kind.value.move;
      this.sans[move.ply] = move.san;
    }
    if (!applyCommon(game, event)) {
      // Anything else (a decided or corrected result, a clock adjusted or
      // paused, an offer, a check-in): read the game again rather than
      // replay its rules here.
      const fresh = (await client.getGame({ gameId: game.gameId })).game;
      if (fresh !== undefined) {
        this.game = fresh;
        this.clock.set(reading(fresh.clock));
      }
    }
    if (this.game !== undefined && over(this.game)) this.clock.stop();
  }
}

async function loadMoves(client: Arbiter, gameId: string, page: GamePage): Promise<void> {
  let pageToken = "";
  do {
    const moves = await client.listMoves({ gameId, pageSize: 500, pageToken });
    for (const move of moves.moves) page.sans[move.ply] = move.san;
    pageToken = moves.nextPageToken;
  } while (pageToken !== "");
}

async function followGame(client: Arbiter, gameId: string): Promise<void> {
  $("game").hidden = false;
  const page = new GamePage();
  setInterval(() => page.tick(), 100);
  let resumeToken = "";
  let failures = 0;
  for (;;) {
    try {
      setConnection(resumeToken === "" ? "Connecting…" : "Reconnecting…", "waiting");
      const request = create(WatchGameRequestSchema, { gameId, resumeToken });
      for await (const message of client.watchGame(request)) {
        failures = 0;
        setConnection("Live", "ok");
        const kind = message.kind;
        if (kind.case === "snapshot") {
          page.reset(kind.value);
          await loadMoves(client, gameId, page);
        } else if (kind.case === "event") {
          await page.apply(client, kind.value);
        } else if (kind.case === "heartbeat") {
          if (page.game !== undefined && !over(page.game)) page.clock.set(reading(kind.value.clock));
        }
        if (message.resumeToken !== "") resumeToken = message.resumeToken;
        page.render();
      }
      // The stream ends after the event that ends the game.
      if (page.game !== undefined && over(page.game)) {
        setConnection("Game over", "ok");
        return;
      }
    } catch (reason) {
      const error = ConnectError.from(reason);
      if (error.code === Code.NotFound) {
        setConnection(`There is no game ${gameId} on this server.`, "error");
        return;
      }
      if (error.code === Code.InvalidArgument && resumeToken !== "") {
        // A token this server no longer reads: start again from a snapshot.
        resumeToken = "";
        setConnection(failure(error), "error");
        await backoff(failures++);
        continue;
      }
      if (final(error)) {
        setConnection(`The server refused: ${error.rawMessage}`, "error");
        return;
      }
      if (error.code === Code.FailedPrecondition) {
        // HISTORY_REWRITTEN: the event the token names was lost; start over.
        resumeToken = "";
      }
      setConnection(failure(error), "error");
    }
    await backoff(failures++);
  }
}

// --- one event ----------------------------------------------------------------------

/** One board of the event view. */
class Card {
  readonly root: HTMLAnchorElement;
  readonly clock = new RunningClock();
  private readonly board: Board;
  private readonly parts: Record<"head" | "white" | "black" | "clockWhite" | "clockBlack" | "lastMove" | "status", HTMLElement>;

  constructor(public game: Game) {
    this.root = element("a", "card");
    this.root.href = viewLink("game", game.gameId);
    this.root.dataset["game"] = game.gameId;
    const side = (color: "white" | "black") => {
      const line = element("div", `side ${color}`);
      const name = element("span", "name");
      const clock = element("span", "clock");
      line.append(name, clock);
      return { line, name, clock };
    };
    const head = element("div", "head");
    const black = side("black");
    const boardElement = element("div", "mini-board");
    const white = side("white");
    const foot = element("div", "foot");
    const lastMove = element("span", "last-move");
    const status = element("span", "status");
    foot.append(lastMove, status);
    this.root.append(head, black.line, boardElement, white.line, foot);
    this.parts = { head, white: white.name, black: black.name, clockWhite: white.clock, clockBlack: black.clock, lastMove, status };
    this.board = new Board(boardElement, { coordinates: false });
    this.clock.set(reading(game.clock));
  }

  get order(): number {
    const p = this.game.setup?.pairing;
    return p === undefined ? Number.MAX_SAFE_INTEGER : p.board;
  }

  render(): void {
    const game = this.game;
    if (over(game)) this.clock.stop();
    const p = game.setup?.pairing;
    this.parts.head.textContent = p === undefined ? "" : `Board ${p.board}${p.matchTieBreak ? " · tie-break" : ""}`;
    this.parts.white.textContent = playerName(game.setup?.white, "White");
    this.parts.black.textContent = playerName(game.setup?.black, "Black");
    const last = game.lastMove;
    this.parts.lastMove.textContent = last === undefined ? "" : moveLabel(game.setup?.initialFen || STANDARD, last.ply, last.san);
    this.parts.status.textContent = statusText(game);
    this.root.classList.toggle("over", over(game));
    this.board.show(position(game));
    this.tick();
  }

  tick(): void {
    showClocks(this.clock, this.parts.clockWhite, this.parts.clockBlack);
  }

  remove(): void {
    this.board.destroy();
    this.root.remove();
  }
}

async function followEvent(client: Arbiter, eventId: string): Promise<void> {
  $("event").hidden = false;
  $("title").textContent = eventId;
  document.title = eventId;
  const asked = Number.parseInt(params.get("round") ?? "", 10);
  const fixedRound = params.has("round") && Number.isInteger(asked) && asked >= 0 ? asked : undefined;
  const games = new Map<string, Game>();
  const cards = new Map<string, Card>();
  const grid = $("boards");
  let shownRound = fixedRound ?? 0;

  const roundOf = (game: Game): number => game.setup?.pairing?.round ?? 0;

  const showRounds = (): void => {
    const rounds = [...new Set([...games.values()].map(roundOf))].sort((a, b) => a - b);
    const nav = $("rounds");
    nav.replaceChildren(
      ...rounds.map((round) => {
        const link = element("a", round === shownRound ? "current" : "", round === 0 ? "Unpaired" : `Round ${round}`);
        link.href = viewLink("event", eventId, { round: String(round) });
        if (round === shownRound) link.setAttribute("aria-current", "page");
        return link;
      }),
    );
    $("empty").hidden = cards.size > 0;
  };

  const place = (card: Card): void => {
    const after = [...cards.values()].filter((other) => other !== card && other.order > card.order).sort((a, b) => a.order - b.order)[0];
    grid.insertBefore(card.root, after?.root ?? null);
  };

  const show = (game: Game): void => {
    games.set(game.gameId, game);
    const round = roundOf(game);
    if (fixedRound === undefined && round > shownRound) {
      // A new round began: show it instead.
      shownRound = round;
      for (const card of cards.values()) card.remove();
      cards.clear();
      for (const other of games.values()) if (roundOf(other) === round && other !== game) show(other);
    }
    if (round !== shownRound) return;
    let card = cards.get(game.gameId);
    if (card === undefined) {
      card = new Card(game);
      cards.set(game.gameId, card);
      place(card);
    }
    card.game = game;
    card.render();
  };

  setInterval(() => {
    for (const card of cards.values()) card.tick();
  }, 250);

  await followEventStream(
    client,
    eventId,
    fixedRound ?? 0,
    {
      start: async () => {
        let pageToken = "";
        do {
          const page = await client.listGames({ eventId, pageToken, pageSize: 500, view: GameView.BASIC });
          for (const game of page.games) show(game);
          pageToken = page.nextPageToken;
        } while (pageToken !== "");
        showRounds();
      },
      event: async (event) => {
        const game = games.get(event.gameId);
        if (game !== undefined && event.version <= game.version) {
          // Already shown (ListGames read it).
        } else if (game !== undefined && applyCommon(game, event)) {
          cards.get(game.gameId)?.clock.set(reading(event.clock));
          show(game);
        } else {
          const fresh = (await client.getGame({ gameId: event.gameId })).game;
          if (fresh !== undefined) {
            show(fresh);
            cards.get(fresh.gameId)?.clock.set(reading(fresh.clock));
            showRounds();
          }
        }
      },
      refused: (error) => setConnection(`The server refused: ${error.rawMessage}`, "error"),
    },
    server,
  );
}

// --- start ------------------------------------------------------------------------

function main(): void {
  const gameId = (params.get("game") ?? "").trim();
  const eventId = (params.get("event") ?? "").trim();
  if (gameId === "" && eventId === "") {
    $("landing").hidden = false;
    const given = params.get("server");
    for (const field of document.querySelectorAll<HTMLInputElement>("input[name=server]")) {
      if (given) field.value = given;
      else field.remove();
    }
    setConnection("", "ok");
    return;
  }
  const client = createClient(ArbiterService, createGrpcWebTransport({ baseUrl: server }));
  const run = gameId !== "" ? followGame(client, gameId) : followEvent(client, eventId);
  run.catch((reason: unknown) => setConnection(`The page failed: ${String(reason)}`, "error"));
}

main();

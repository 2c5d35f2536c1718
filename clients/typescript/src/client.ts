/** The arbiter's client: typed calls over the Connect-ES clients of both services. */

import { randomUUID } from "node:crypto";
import { type MessageInitShape, create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { type CallOptions, type Client, type Interceptor, type Transport, createClient } from "@connectrpc/connect";
import { Http2SessionManager, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { ArbiterError, Code } from "./errors.js";
import { DEFAULT_RETRY, NO_RETRY, type OnRetry, type RetryPolicy, callWithRetry, retryPolicy } from "./retry.js";
import { GameWatch, type GameWatchOptions } from "./watch.js";
import {
  AdminService,
  ArbiterService,
  type ClientSignalKind,
  type Color,
  type ExportFairPlayResponse,
  type ReportClientSignalResponse,
  CreateGameRequestSchema,
  type BoardStatus,
  type CreateRoundResponse,
  type CreateMatchTieBreakResponse,
  type ImportPairingsResponse,
  type GetTeamStandingsResponse,
  type Round,
  RoundByeSchema,
  RoundMatchSchema,
  TeamByeSchema,
  TeamSchema,
  type TeamRegistration,
  TeamScoreKind,
  RoundSettingsSchema,
  type StartRoundResponse,
  type DrawClaimReason,
  DrawClaimVerdict,
  type Forfeit,
  type Game,
  type GameEvent,
  GameView,
  type MoveRecord,
  type Outcome,
  type Player,
  PlayerSchema,
  Termination,
} from "./gen/chessarbiter/v1/arbiter_pb.js";

/**
 * A move: UCI or SAN text, or a move object such as chess.js's `Move`
 * (its `lan`, or `from` + `to` + `promotion`).
 */
export type MoveLike = string | { readonly lan: string } | { readonly from: string; readonly to: string; readonly promotion?: string | undefined };

/** A player: a `Player` message (or its fields), or one string used as both id and name. */
export type PlayerLike = string | MessageInitShape<typeof PlayerSchema>;

/** A new game (or the existing one, for a repeated `requestId`) and its seats' tokens (secrets). */
export interface CreatedGame {
  readonly game: Game;
  readonly gameId: string;
  readonly whiteToken: string;
  readonly blackToken: string;
}

/**
 * The answer to a seat action or an arbiter's intervention: the game as it
 * now stands (without its move list) and the events the call committed, in
 * order; none when the server recognised a repeat of an action already
 * applied (a retried move, say): then `applied` is false.
 */
export interface ActionResult {
  readonly game: Game;
  readonly events: readonly GameEvent[];
  readonly applied: boolean;
}

/** The answer to a draw claim: the ruling, and why when it is not upheld. */
export interface ClaimResult extends ActionResult {
  readonly verdict: DrawClaimVerdict;
  readonly explanation: string;
  readonly upheld: boolean;
}

/** Which protocol a transport speaks: gRPC over HTTP/2, or gRPC-Web (what browsers speak). */
export type Protocol = "grpc" | "grpc-web";

/** Options of {@link createArbiterTransport}. */
export interface TransportOptions {
  /** `"grpc"` (the default) or `"grpc-web"`. */
  readonly protocol?: Protocol;
  /** For gRPC-Web: HTTP/1.1 (the default, as most browsers' fetch) or HTTP/2. */
  readonly httpVersion?: "1.1" | "2";
  /** Connect-ES interceptors, e.g. for logging or tracing. */
  readonly interceptors?: Interceptor[];
}

/**
 * A Node transport to the arbiter at `baseUrl` (`http://127.0.0.1:50051`;
 * `https://` for a server with TLS). `close` ends its HTTP/2 connection, if
 * it has one (gRPC, or gRPC-Web over HTTP/2).
 */
export function createArbiterTransport(
  baseUrl: string,
  options: TransportOptions = {},
): { transport: Transport; close: () => void } {
  const interceptors = options.interceptors ?? [];
  if ((options.protocol ?? "grpc") === "grpc") {
    const sessionManager = new Http2SessionManager(baseUrl);
    return {
      transport: createGrpcTransport({ baseUrl, sessionManager, interceptors }),
      close: () => sessionManager.abort(),
    };
  }
  if (options.httpVersion === "2") {
    const sessionManager = new Http2SessionManager(baseUrl);
    return {
      transport: createGrpcWebTransport({ baseUrl, httpVersion: "2", sessionManager, interceptors }),
      close: () => sessionManager.abort(),
    };
  }
  return { transport: createGrpcWebTransport({ baseUrl, httpVersion: "1.1", interceptors }), close: () => {} };
}

/** Options of {@link ArbiterClient}. */
export interface ArbiterClientOptions {
  /** Sent with every `AdminService` call (leave it out for a server in open mode). */
  readonly adminToken?: string | undefined;
  /** How requests that are safe to repeat are retried (defaults: {@link DEFAULT_RETRY}). */
  readonly retry?: Partial<RetryPolicy>;
  /** The deadline of each attempt of a unary call, in milliseconds (10 000 by default). */
  readonly timeoutMs?: number;
  /** Called before each retry, e.g. to log it. */
  readonly onRetry?: OnRetry;
}

function moveText(move: MoveLike): string {
  if (typeof move === "string") return move;
  if ("lan" in move) return move.lan;
  return `${move.from}${move.to}${move.promotion ?? ""}`;
}

function player(value: PlayerLike): Player {
  return create(PlayerSchema, typeof value === "string" ? { id: value, name: value } : value);
}

function bearer(token: string | undefined): Record<string, string> {
  if (!token) throw new TypeError("a token is required");
  return { authorization: `Bearer ${token}` };
}

function requestIdOf(given: string | undefined): string {
  return given ?? `ts-${randomUUID()}`;
}

function result(response: { game?: Game | undefined; events: GameEvent[] }): ActionResult {
  if (response.game === undefined) throw new ArbiterError(Code.Internal, "the response holds no game");
  return { game: response.game, events: response.events, applied: response.events.length > 0 };
}

/**
 * A client of the chess arbiter's `ArbiterService` and `AdminService` over a
 * Connect-ES transport (gRPC or gRPC-Web; see {@link createArbiterTransport},
 * or {@link ArbiterClient.connect}).
 *
 * Seat actions take the seat's token and send it as `authorization: Bearer
 * <token>`; admin calls send the client's `adminToken`. Every seat action,
 * read and admin call with a `requestId` is retried after UNAVAILABLE,
 * DEADLINE_EXCEEDED and the retryable reasons (CONTENTION,
 * STORAGE_UNAVAILABLE, OVERLOADED, RATE_LIMITED) with the very same request:
 * the server recognises a repeat of an action it already applied and answers
 * it without applying it twice. Other errors are thrown at once as
 * {@link ArbiterError}.
 */
export class ArbiterClient {
  /** The Connect-ES `ArbiterService` client, for calls this class does not wrap. */
  readonly arbiter: Client<typeof ArbiterService>;
  /** The Connect-ES `AdminService` client (send the admin token yourself). */
  readonly admin: Client<typeof AdminService>;
  readonly retry: RetryPolicy;
  readonly timeoutMs: number;
  private readonly adminHeaders: Record<string, string>;
  private readonly onRetry: OnRetry | undefined;
  private readonly closeTransport: () => void;

  constructor(transport: Transport, options: ArbiterClientOptions = {}, close: () => void = () => {}) {
    this.arbiter = createClient(ArbiterService, transport);
    this.admin = createClient(AdminService, transport);
    this.retry = retryPolicy(options.retry);
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.adminHeaders = options.adminToken ? bearer(options.adminToken) : {};
    this.onRetry = options.onRetry;
    this.closeTransport = close;
  }

  /** A client with a transport of its own to `baseUrl`; {@link ArbiterClient.close} closes it. */
  static connect(baseUrl: string, options: ArbiterClientOptions & TransportOptions = {}): ArbiterClient {
    const { transport, close } = createArbiterTransport(baseUrl, options);
    return new ArbiterClient(transport, options, close);
  }

  /** Closes the connection of a transport the client opened itself. */
  close(): void {
    this.closeTransport();
  }

  private unary<T>(call: (options: CallOptions) => Promise<T>, headers: Record<string, string> = {}, retry = true): Promise<T> {
    return callWithRetry(() => call({ headers, timeoutMs: this.timeoutMs }), retry ? this.retry : NO_RETRY, {
      onRetry: this.onRetry,
    });
  }

  // --- reads ---------------------------------------------------------------

  /** The game as it stands; with `full` also every move (`Game.moves`). */
  async getGame(gameId: string, options: { full?: boolean } = {}): Promise<Game> {
    const view = options.full ? GameView.FULL : GameView.BASIC;
    const response = await this.unary((o) => this.arbiter.getGame({ gameId, view }, o));
    if (response.game === undefined) throw new ArbiterError(Code.Internal, "the response holds no game");
    return response.game;
  }

  /** Every move of a game from `startPly` on, reading it page by page. */
  async *listMoves(gameId: string, options: { startPly?: number; pageSize?: number } = {}): AsyncGenerator<MoveRecord, void, undefined> {
    const pageSize = options.pageSize ?? 0;
    let request: { gameId: string; pageSize: number; startPly?: number; pageToken?: string } = {
      gameId,
      pageSize,
      startPly: options.startPly ?? 0,
    };
    for (;;) {
      const query = request;
      const page = await this.unary((o) => this.arbiter.listMoves(query, o));
      yield* page.moves;
      if (!page.nextPageToken) return;
      request = { gameId, pageSize, pageToken: page.nextPageToken };
    }
  }

  /** A game in PGN. */
  async exportPgn(gameId: string): Promise<string> {
    let text = "";
    try {
      for await (const message of this.arbiter.exportPgn({ target: { case: "gameId", value: gameId } })) {
        text += message.pgn;
      }
    } catch (reason) {
      throw ArbiterError.from(reason);
    }
    return text;
  }

  // --- seat actions --------------------------------------------------------

  /**
   * Plays `move` (UCI, SAN, or a chess.js move) chosen at `ply` for the seat of
   * `token`. `ply` is the number of half-moves played when the move was chosen
   * (`Game.ply`, or the length of chess.js's `history()`). After UNAVAILABLE,
   * DEADLINE_EXCEEDED or a retryable reason the same move is sent again at the
   * same ply, with a bounded exponential backoff that respects `RetryInfo`; if
   * the first attempt had been applied the server recognises the repeat and
   * the result has no events (`applied` is false). A different move at a past
   * ply fails with ABORTED (`STALE_PLY`), which is not retried: read the game
   * and decide again. `lagMillis` is the network lag the platform measured for
   * the move (0 to 60000), credited back within the mover's quota in a game
   * created with `lagCompensation` and ignored in any other.
   * `clientMoveMillis` is the move's thinking time as the player's client
   * measured it, kept in the fair-play record of a game created with
   * `recordFairPlay` (never used for the clock).
   */
  async makeMove(
    gameId: string,
    token: string,
    move: MoveLike,
    ply: number,
    options: { offerDraw?: boolean; lagMillis?: number; clientMoveMillis?: number } = {},
  ): Promise<ActionResult> {
    const request = {
      gameId,
      move: moveText(move),
      ply,
      offerDraw: options.offerDraw ?? false,
      lagMillis: options.lagMillis ?? 0,
      ...(options.clientMoveMillis === undefined ? {} : { clientMoveMillis: options.clientMoveMillis }),
    };
    return result(await this.unary((o) => this.arbiter.makeMove(request, o), bearer(token)));
  }

  /**
   * Records a signal from the seat's client (`ClientSignalKind.DISCONNECTED`,
   * `RECONNECTED`, `FOCUS_LOST`, `FOCUS_REGAINED`) in the game's fair-play
   * record, with the client's time if given. The game itself is unchanged. A
   * repeat of the latest signal is recorded once (`recorded` is false), so a
   * retry is safe.
   */
  async reportClientSignal(
    gameId: string,
    token: string,
    kind: ClientSignalKind,
    options: { clientTime?: Date } = {},
  ): Promise<ReportClientSignalResponse> {
    const request = {
      gameId,
      kind,
      ...(options.clientTime === undefined ? {} : { clientTime: timestampFromDate(options.clientTime) }),
    };
    return this.unary((o) => this.arbiter.reportClientSignal(request, o), bearer(token));
  }

  /**
   * The game's fair-play record: `json` (docs/schemas/fair-play-v1.json),
   * `pgn` with the record in its comments, and each player's summary (`white`,
   * `black`: time disconnected and out of focus). Needs the admin token, or a
   * credential of an arbiter or auditor of the game's event.
   */
  async exportFairPlay(gameId: string): Promise<ExportFairPlayResponse> {
    return this.unary((o) => this.admin.exportFairPlay({ gameId }, o), this.adminHeaders);
  }

  /** Resigns for the seat of `token`; the opponent wins. */
  async resign(gameId: string, token: string): Promise<ActionResult> {
    return result(await this.unary((o) => this.arbiter.resignGame({ gameId }, o), bearer(token)));
  }

  /** Offers a draw, or accepts the opponent's pending offer. */
  async offerDraw(gameId: string, token: string): Promise<ActionResult> {
    return result(await this.unary((o) => this.arbiter.offerDraw({ gameId }, o), bearer(token)));
  }

  /** Accepts the opponent's pending draw offer: the game is drawn. */
  async acceptDraw(gameId: string, token: string): Promise<ActionResult> {
    return result(await this.unary((o) => this.arbiter.acceptDraw({ gameId }, o), bearer(token)));
  }

  /** Declines the opponent's pending draw offer (succeeds when none is pending). */
  async declineDraw(gameId: string, token: string): Promise<ActionResult> {
    return result(await this.unary((o) => this.arbiter.declineDraw({ gameId }, o), bearer(token)));
  }

  /**
   * Claims a draw (`DrawClaimReason.THREEFOLD_REPETITION` or `FIFTY_MOVES`),
   * optionally with the intended move. An incorrect claim is not an error:
   * see `verdict`.
   */
  async claimDraw(gameId: string, token: string, reason: DrawClaimReason, ply: number, options: { move?: MoveLike } = {}): Promise<ClaimResult> {
    const request = { gameId, reason, ply, move: options.move === undefined ? "" : moveText(options.move) };
    const response = await this.unary((o) => this.arbiter.claimDraw(request, o), bearer(token));
    return {
      ...result(response),
      verdict: response.verdict,
      explanation: response.explanation,
      upheld: response.verdict === DrawClaimVerdict.UPHELD,
    };
  }

  /** Calls the game off (only before both players have moved). */
  async abort(gameId: string, token: string): Promise<ActionResult> {
    return result(await this.unary((o) => this.arbiter.abortGame({ gameId }, o), bearer(token)));
  }

  /**
   * Claims the game because the platform reported the opponent gone for the
   * rules' `claimAfterOpponentLeftMillis` (0 gives no claim): the claimant
   * wins, or draws when unable to checkmate. Refused otherwise, e.g.
   * `OPPONENT_CONNECTED`, or `OPPONENT_LEFT_TOO_RECENTLY` with `claimable_at`
   * in its metadata.
   */
  async claimVictory(gameId: string, token: string): Promise<ActionResult> {
    return result(await this.unary((o) => this.arbiter.claimVictory({ gameId }, o), bearer(token)));
  }

  // --- watching ------------------------------------------------------------

  /**
   * Watches a game: a snapshot (when `afterVersion` is 0), then every event,
   * as an async iterator ({@link GameWatch}) that reconnects by itself after a
   * dropped stream, resuming after the last message it received, and ends
   * when the game has ended. Resumes after `resumeToken` (preferred: it
   * detects a rewritten history) or `afterVersion` when given.
   */
  watchGame(gameId: string, options: GameWatchOptions = {}): GameWatch {
    return new GameWatch(this.arbiter, gameId, {
      ...options,
      reconnect: options.reconnect ?? retryPolicy({ maxAttempts: 10 }),
    });
  }

  // --- AdminService --------------------------------------------------------

  /**
   * Creates a game and returns it with both seats' tokens (admin token
   * required). `requestId` is the idempotency key; when it is not given a
   * random one is used, so that a retry after a lost answer returns the same
   * game instead of creating another. An empty string turns that off (and so
   * does not retry). Any other `CreateGameRequest` field may be given
   * (`start: { case: "chess960Position", value: 518 }`, `timeControl`, ...).
   */
  async createGame(
    white: PlayerLike,
    black: PlayerLike,
    fields: Omit<MessageInitShape<typeof CreateGameRequestSchema>, "white" | "black" | "$typeName"> = {},
  ): Promise<CreatedGame> {
    const request = create(CreateGameRequestSchema, {
      ...fields,
      requestId: requestIdOf(fields.requestId),
      white: player(white),
      black: player(black),
    });
    const response = await this.unary((o) => this.admin.createGame(request, o), this.adminHeaders, request.requestId !== "");
    if (response.game === undefined) throw new ArbiterError(Code.Internal, "the response holds no game");
    return { game: response.game, gameId: response.game.gameId, whiteToken: response.whiteToken, blackToken: response.blackToken };
  }

  /**
   * Decides a game in progress, or corrects a finished or aborted one: either
   * `outcome` (a result as if played, with an optional `termination`) or
   * `forfeit`.
   */
  async setGameResult(
    gameId: string,
    options: { reason: string; requestId?: string } & (
      | { outcome: Outcome; termination?: Termination; forfeit?: undefined }
      | { forfeit: Forfeit; outcome?: undefined }
    ),
  ): Promise<ActionResult> {
    const request = {
      requestId: requestIdOf(options.requestId),
      gameId,
      reason: options.reason,
      ruling:
        options.forfeit !== undefined
          ? { case: "forfeit" as const, value: options.forfeit }
          : {
              case: "played" as const,
              value: { outcome: options.outcome, termination: options.termination ?? Termination.UNSPECIFIED },
            },
    };
    return result(await this.unary((o) => this.admin.setGameResult(request, o), this.adminHeaders, request.requestId !== ""));
  }

  /**
   * Reports a player's connection: gone from now (`connected: false`), or
   * back. A report of what is already known changes nothing, so it is safe
   * to repeat.
   */
  async reportConnection(gameId: string, color: Color, options: { connected: boolean }): Promise<ActionResult> {
    const request = { gameId, color, connected: options.connected };
    return result(await this.unary((o) => this.admin.reportConnection(request, o), this.adminHeaders));
  }

  /** Stops both clocks. */
  async pauseClock(gameId: string, options: { reason: string; requestId?: string }): Promise<ActionResult> {
    const request = { requestId: requestIdOf(options.requestId), gameId, reason: options.reason };
    return result(await this.unary((o) => this.admin.pauseClock(request, o), this.adminHeaders, request.requestId !== ""));
  }

  /** Restarts paused clocks. */
  async resumeClock(gameId: string, options: { reason: string; requestId?: string }): Promise<ActionResult> {
    const request = { requestId: requestIdOf(options.requestId), gameId, reason: options.reason };
    return result(await this.unary((o) => this.admin.resumeClock(request, o), this.adminHeaders, request.requestId !== ""));
  }

  /** Adds `deltaMillis` to `color`'s clock (negative: deducts). */
  async adjustClock(gameId: string, color: Color, deltaMillis: number, options: { reason: string; requestId?: string }): Promise<ActionResult> {
    const request = { requestId: requestIdOf(options.requestId), gameId, color, deltaMillis, reason: options.reason };
    return result(await this.unary((o) => this.admin.adjustClock(request, o), this.adminHeaders, request.requestId !== ""));
  }

  // --- rounds ----------------------------------------------------------------

  /**
   * Creates every game of a round at once, all or nothing (admin token
   * required): `boards` are `[white, black]` pairs, board 1 first. The
   * response holds the round and each board's game with its seats' tokens.
   * A refusal names every offending field (`ArbiterError.fieldViolations`)
   * and creates nothing.
   */
  async createRound(
    eventId: string,
    round: number,
    boards: ReadonlyArray<readonly [PlayerLike, PlayerLike]>,
    options: {
      settings?: MessageInitShape<typeof RoundSettingsSchema>;
      byes?: MessageInitShape<typeof RoundByeSchema>[];
      players?: PlayerLike[];
      requestId?: string;
    } = {},
  ): Promise<CreateRoundResponse> {
    const request = {
      requestId: requestIdOf(options.requestId),
      eventId,
      round,
      settings: options.settings,
      boards: boards.map(([white, black], index) => ({ board: index + 1, white: player(white), black: player(black) })),
      byes: options.byes ?? [],
      players: (options.players ?? []).map(player),
    };
    return this.unary((o) => this.admin.createRound(request, o), this.adminHeaders, request.requestId !== "");
  }

  /** Starts every clock of the round at one instant; safe to repeat. */
  async startRound(eventId: string, round: number): Promise<StartRoundResponse> {
    return this.unary((o) => this.admin.startRound({ eventId, round }, o), this.adminHeaders);
  }

  /** The round and every board as it stands, in board order (all pages). */
  async getRound(eventId: string, round: number, options: { pageSize?: number } = {}): Promise<{ round: Round | undefined; boards: BoardStatus[] }> {
    const boards: BoardStatus[] = [];
    let pageToken = "";
    for (;;) {
      const page = await this.unary(
        (o) => this.admin.getRound({ eventId, round, pageSize: options.pageSize ?? 0, pageToken }, o),
        this.adminHeaders,
      );
      boards.push(...page.boards);
      pageToken = page.nextPageToken;
      if (pageToken === "") return { round: page.round, boards };
    }
  }

  /**
   * Creates the next round from a pairing engine's `-p` output. The ranks
   * are the event's (as `ExportTrf` numbers them) unless `players` lists
   * them, rank 1 first; `trf`, the report the engine paired, is checked
   * against those ranks when given.
   */
  async importPairings(
    eventId: string,
    round: number,
    pairings: string,
    options: {
      trf?: string;
      players?: PlayerLike[];
      settings?: MessageInitShape<typeof RoundSettingsSchema>;
      byes?: MessageInitShape<typeof RoundByeSchema>[];
      requestId?: string;
    } = {},
  ): Promise<ImportPairingsResponse> {
    const request = {
      requestId: requestIdOf(options.requestId),
      eventId,
      round,
      pairings,
      trf: options.trf ?? "",
      players: (options.players ?? []).map(player),
      settings: options.settings,
      byes: options.byes ?? [],
    };
    return this.unary((o) => this.admin.importPairings(request, o), this.adminHeaders, request.requestId !== "");
  }

  // --- teams -------------------------------------------------------------------

  /**
   * Registers every team of the event with its roster in board order (the
   * whole registration each time). Until the event's first round it may
   * change in any way; from then on teams may only be added and players
   * appended. `expectedVersion` (from `getTeams`) makes it a compare-and-set:
   * another version fails with `TEAMS_CHANGED`.
   */
  async registerTeams(
    eventId: string,
    boards: number,
    teams: MessageInitShape<typeof TeamSchema>[],
    options: { expectedVersion?: number } = {},
  ): Promise<TeamRegistration> {
    const request = { eventId, boards, teams, expectedVersion: options.expectedVersion ?? 0 };
    const response = await this.unary((o) => this.admin.registerTeams(request, o), this.adminHeaders);
    if (response.registration === undefined) throw new Error("RegisterTeams answered without a registration");
    return response.registration;
  }

  /** The event's registered teams (public). */
  async getTeams(eventId: string): Promise<TeamRegistration> {
    const response = await this.unary((o) => this.arbiter.getTeams({ eventId }, o));
    if (response.registration === undefined) throw new Error("GetTeams answered without a registration");
    return response.registration;
  }

  /**
   * Creates a round of team matches from their line-ups, all or nothing: each
   * match names its table, both teams and each team's line-up (a player id
   * per board, `""` for a board left empty), or a whole-match `forfeit`. The
   * boards are numbered by table, the first team's colour on board 1 and
   * alternating. `teamByes` give teams without a match the result and game
   * points of a bye.
   */
  async createMatchRound(
    eventId: string,
    round: number,
    matches: MessageInitShape<typeof RoundMatchSchema>[],
    options: {
      teamByes?: MessageInitShape<typeof TeamByeSchema>[];
      settings?: MessageInitShape<typeof RoundSettingsSchema>;
      requestId?: string;
    } = {},
  ): Promise<CreateRoundResponse> {
    const request = {
      requestId: requestIdOf(options.requestId),
      eventId,
      round,
      settings: options.settings,
      matches,
      teamByes: options.teamByes ?? [],
    };
    return this.unary((o) => this.admin.createRound(request, o), this.adminHeaders, request.requestId !== "");
  }

  /**
   * Creates the tie-break (Armageddon) game of a drawn team match: White and
   * Black are one player of each team's line-up in the match; the game is
   * scored as Armageddon (a draw is Black's win) and decides the match for
   * its winner's team. `settings` are a round's (time odds through
   * `blackTimeControl`). Allowed once every board is decided and the match
   * is drawn (else `MATCH_NOT_DRAWN`); a repeat returns the same game and
   * tokens.
   */
  async createMatchTieBreak(
    eventId: string,
    round: number,
    table: number,
    whitePlayerId: string,
    blackPlayerId: string,
    options: { settings?: MessageInitShape<typeof RoundSettingsSchema> } = {},
  ): Promise<CreateMatchTieBreakResponse> {
    const request = { eventId, round, table, whitePlayerId, blackPlayerId, settings: options.settings };
    return this.unary((o) => this.admin.createMatchTieBreak(request, o), this.adminHeaders, true);
  }

  /**
   * The event's team standings: `primary` (match or game points), then the
   * tie-breaks by their FIDE codes (`EMGSB`, `BH:MP`, `BC`, ...);
   * `matchPoints` as `[win, draw, loss]`, e.g. `["3", "1", "0"]`, or with a
   * match decided by its tie-break game's `[..., tieBreakWin, tieBreakLoss]`.
   */
  async getTeamStandings(
    eventId: string,
    options: {
      primary?: TeamScoreKind;
      tieBreaks?: string[];
      matchPoints?: readonly [string, string, string] | readonly [string, string, string, string, string];
    } = {},
  ): Promise<GetTeamStandingsResponse> {
    const points = options.matchPoints;
    const request = {
      eventId,
      primaryScore: options.primary ?? TeamScoreKind.MATCH_POINTS,
      tieBreaks: options.tieBreaks ?? [],
      matchPoints:
        points === undefined
          ? undefined
          : { win: points[0], draw: points[1], loss: points[2], tieBreakWin: points[3] ?? "", tieBreakLoss: points[4] ?? "" },
    };
    return this.unary((o) => this.arbiter.getTeamStandings(request, o));
  }
}

export { DEFAULT_RETRY };

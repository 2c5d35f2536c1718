"""The arbiter's client: typed calls over the generated gRPC stubs."""

from __future__ import annotations

import datetime
import logging
import uuid
from dataclasses import dataclass
from typing import Any, Iterator, Optional, Protocol, Sequence, Union

import grpc

from ._proto.chessarbiter.v1 import arbiter_pb2 as pb
from ._proto.chessarbiter.v1 import arbiter_pb2_grpc as pb_grpc
from .errors import ArbiterError
from .retry import NO_RETRY, RetryPolicy, call_with_retry
from .watch import GameWatch

log = logging.getLogger("chessarbiter_client")

Metadata = Sequence[tuple[str, str]]


class SupportsUci(Protocol):
    """A move that writes itself in UCI, such as python-chess's ``chess.Move``."""

    def uci(self) -> str: ...


#: A move: UCI or SAN text, or an object with a ``uci()`` method.
MoveLike = Union[str, SupportsUci]

#: A player: a ``Player`` message, or one string used as both id and name.
PlayerLike = Union[pb.Player, str]


@dataclass(frozen=True)
class CreatedGame:
    """A new game (or the existing one, for a repeated ``request_id``) and its seats' tokens.

    The tokens are secrets: hand each only to its player.
    """

    game: pb.Game
    white_token: str
    black_token: str

    @property
    def game_id(self) -> str:
        """The game's id."""
        return self.game.game_id


@dataclass(frozen=True)
class ActionResult:
    """The answer to a seat action or an arbiter's intervention.

    ``game`` is the game as it now stands, without its move list; ``events``
    the events the call committed, in order: empty when the server
    recognised a repeat of an action already applied (a retried move, say).
    """

    game: pb.Game
    events: tuple[pb.GameEvent, ...]

    @property
    def applied(self) -> bool:
        """False when the call was a repeat that applied nothing."""
        return bool(self.events)


@dataclass(frozen=True)
class ClaimResult(ActionResult):
    """The answer to a draw claim: the ruling, and why when it is not upheld."""

    verdict: pb.DrawClaimVerdict = pb.DRAW_CLAIM_VERDICT_UNSPECIFIED
    explanation: str = ""

    @property
    def upheld(self) -> bool:
        """Whether the claim was correct and the game is drawn."""
        return self.verdict == pb.DRAW_CLAIM_VERDICT_UPHELD


def _move_text(move: MoveLike) -> str:
    return move if isinstance(move, str) else move.uci()


def _player(player: PlayerLike) -> pb.Player:
    return pb.Player(id=player, name=player) if isinstance(player, str) else player


def _bearer(token: str) -> Metadata:
    if not token:
        raise ValueError("a token is required")
    return (("authorization", f"Bearer {token}"),)


class ArbiterClient:
    """A client of the chess arbiter's ``ArbiterService`` and ``AdminService``.

    Args:
        target: the server's address, e.g. ``"127.0.0.1:50051"``.
        admin_token: the admin token, sent with every ``AdminService`` call
            (leave it out for a server in open mode).
        secure: connect over TLS with the system's root certificates.
        credentials: connect over TLS with these channel credentials instead.
        options: gRPC channel options, e.g.
            ``[("grpc.max_reconnect_backoff_ms", 2000)]``.
        retry: how requests that are safe to repeat are retried.
        timeout: the deadline of each attempt of a unary call, in seconds.
        channel: an existing channel to use (then ``target`` and the TLS
            arguments are ignored, and :meth:`close` leaves it open).

    Seat actions take the seat's token and send it as ``authorization:
    Bearer <token>``. Every seat action, read and admin call with a
    ``request_id`` is retried after UNAVAILABLE, DEADLINE_EXCEEDED and the
    retryable reasons (CONTENTION, STORAGE_UNAVAILABLE, OVERLOADED,
    RATE_LIMITED): the server recognises a repeat of an action it already
    applied and answers it without applying it twice. Other errors are
    raised at once as :class:`ArbiterError`.

    The client is safe to share between threads; use it as a context manager
    or call :meth:`close`.
    """

    def __init__(
        self,
        target: str,
        *,
        admin_token: Optional[str] = None,
        secure: bool = False,
        credentials: Optional[grpc.ChannelCredentials] = None,
        options: Optional[Sequence[tuple[str, Any]]] = None,
        retry: RetryPolicy = RetryPolicy(),
        timeout: float = 10.0,
        channel: Optional[grpc.Channel] = None,
    ) -> None:
        self.target = target
        self.retry = retry
        self.timeout = timeout
        self._admin_metadata: Metadata = _bearer(admin_token) if admin_token else ()
        if channel is not None:
            self._channel, self._owns_channel = channel, False
        else:
            if credentials is None and secure:
                credentials = grpc.ssl_channel_credentials()
            if credentials is not None:
                channel = grpc.secure_channel(target, credentials, options=options)
            else:
                channel = grpc.insecure_channel(target, options=options)
            self._channel, self._owns_channel = channel, True
        #: The generated ``ArbiterService`` stub, for calls this class does not wrap.
        self.arbiter = pb_grpc.ArbiterServiceStub(self._channel)  # type: ignore[no-untyped-call]
        #: The generated ``AdminService`` stub (send the admin token yourself).
        self.admin = pb_grpc.AdminServiceStub(self._channel)  # type: ignore[no-untyped-call]

    def close(self) -> None:
        """Closes the channel (unless it was handed in)."""
        if self._owns_channel:
            self._channel.close()

    def __enter__(self) -> "ArbiterClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- plumbing ---------------------------------------------------------

    def _unary(
        self,
        method: Any,
        request: Any,
        metadata: Metadata = (),
        *,
        retry: bool = True,
    ) -> Any:
        def attempt() -> Any:
            return method(request, metadata=metadata, timeout=self.timeout)

        def note(error: ArbiterError, delay: float) -> None:
            log.info("%s failed with %s; retrying in %.2fs", type(request).__name__, error, delay)

        return call_with_retry(attempt, self.retry if retry else NO_RETRY, on_retry=note)

    # --- reads --------------------------------------------------------------

    def get_game(self, game_id: str, *, full: bool = False) -> pb.Game:
        """The game as it stands; with ``full`` also every move (``Game.moves``)."""
        view = pb.GAME_VIEW_FULL if full else pb.GAME_VIEW_BASIC
        response = self._unary(self.arbiter.GetGame, pb.GetGameRequest(game_id=game_id, view=view))
        return response.game  # type: ignore[no-any-return]

    def list_moves(self, game_id: str, *, start_ply: int = 0, page_size: int = 0) -> Iterator[pb.MoveRecord]:
        """Every move of a game from ``start_ply`` on, reading it page by page."""
        request = pb.ListMovesRequest(game_id=game_id, start_ply=start_ply, page_size=page_size)
        while True:
            page = self._unary(self.arbiter.ListMoves, request)
            yield from page.moves
            if not page.next_page_token:
                return
            request = pb.ListMovesRequest(
                game_id=game_id, page_size=page_size, page_token=page.next_page_token
            )

    def export_pgn(self, game_id: str) -> str:
        """A game in PGN."""
        return "".join(pgn for _, pgn in self._export(pb.ExportPgnRequest(game_id=game_id)))

    def export_event_pgn(self, event_id: str) -> Iterator[tuple[str, str]]:
        """Every game of an event as ``(game_id, pgn)``, in round and board order."""
        return self._export(pb.ExportPgnRequest(event_id=event_id))

    def _export(self, request: pb.ExportPgnRequest) -> Iterator[tuple[str, str]]:
        try:
            for message in self.arbiter.ExportPgn(request):
                yield message.game_id, message.pgn
        except grpc.RpcError as rpc_error:
            raise ArbiterError.from_rpc_error(rpc_error) from rpc_error

    # --- seat actions -----------------------------------------------------------

    def make_move(
        self,
        game_id: str,
        token: str,
        move: MoveLike,
        ply: int,
        *,
        offer_draw: bool = False,
        lag_millis: int = 0,
        client_move_millis: Optional[int] = None,
    ) -> ActionResult:
        """Plays ``move`` (UCI, SAN, or a ``chess.Move``) chosen at ``ply`` for the seat of ``token``.

        ``lag_millis`` is the network lag the platform measured for the move
        (0 to 60000), credited back within the mover's quota in a game
        created with ``lag_compensation`` and ignored in any other.
        ``client_move_millis`` is the move's thinking time as the player's
        client measured it, kept in the fair-play record of a game created
        with ``record_fair_play`` (never used for the clock).

        ``ply`` is the number of half-moves played when the move was chosen
        (``Game.ply``, or python-chess's ``board.ply()``). After UNAVAILABLE,
        DEADLINE_EXCEEDED or ABORTED (CONTENTION) the same move is sent
        again at the same ply, with a bounded exponential backoff; if the
        first attempt had been applied, the server recognises the repeat and
        the result has no events (``applied`` is False). A different move
        at a past ply fails with ABORTED (STALE_PLY), which is not retried:
        read the game and decide again.
        """
        request = pb.MakeMoveRequest(
            game_id=game_id,
            move=_move_text(move),
            ply=ply,
            offer_draw=offer_draw,
            lag_millis=lag_millis,
        )
        if client_move_millis is not None:
            request.client_move_millis = client_move_millis
        response = self._unary(self.arbiter.MakeMove, request, _bearer(token))
        return ActionResult(response.game, tuple(response.events))

    def report_client_signal(
        self,
        game_id: str,
        token: str,
        kind: pb.ClientSignalKind,
        *,
        client_time: Optional[datetime.datetime] = None,
    ) -> pb.ReportClientSignalResponse:
        """Records a signal from the seat's client in the game's fair-play record.

        ``kind`` is ``pb.CLIENT_SIGNAL_KIND_DISCONNECTED``, ``_RECONNECTED``,
        ``_FOCUS_LOST`` or ``_FOCUS_REGAINED``; ``client_time`` is when it
        happened by the client's clock (an aware datetime). The game itself
        is unchanged. A repeat of the latest signal is recorded once
        (``recorded`` is False), so a retry is safe.
        """
        request = pb.ReportClientSignalRequest(game_id=game_id, kind=kind)
        if client_time is not None:
            request.client_time.FromDatetime(client_time)
        return self._unary(  # type: ignore[no-any-return]
            self.arbiter.ReportClientSignal, request, _bearer(token)
        )

    def resign(self, game_id: str, token: str) -> ActionResult:
        """Resigns for the seat of ``token``; the opponent wins."""
        response = self._unary(
            self.arbiter.ResignGame, pb.ResignGameRequest(game_id=game_id), _bearer(token)
        )
        return ActionResult(response.game, tuple(response.events))

    def offer_draw(self, game_id: str, token: str) -> ActionResult:
        """Offers a draw, or accepts the opponent's pending offer."""
        response = self._unary(
            self.arbiter.OfferDraw, pb.OfferDrawRequest(game_id=game_id), _bearer(token)
        )
        return ActionResult(response.game, tuple(response.events))

    def accept_draw(self, game_id: str, token: str) -> ActionResult:
        """Accepts the opponent's pending draw offer: the game is drawn."""
        response = self._unary(
            self.arbiter.AcceptDraw, pb.AcceptDrawRequest(game_id=game_id), _bearer(token)
        )
        return ActionResult(response.game, tuple(response.events))

    def decline_draw(self, game_id: str, token: str) -> ActionResult:
        """Declines the opponent's pending draw offer (succeeds when none is pending)."""
        response = self._unary(
            self.arbiter.DeclineDraw, pb.DeclineDrawRequest(game_id=game_id), _bearer(token)
        )
        return ActionResult(response.game, tuple(response.events))

    def claim_draw(
        self,
        game_id: str,
        token: str,
        reason: pb.DrawClaimReason,
        ply: int,
        *,
        move: Optional[MoveLike] = None,
    ) -> ClaimResult:
        """Claims a draw (``pb.DRAW_CLAIM_REASON_THREEFOLD_REPETITION`` or ``..._FIFTY_MOVES``).

        ``move`` is the optional intended move; it is played whatever the
        ruling. An incorrect claim is not an error: see ``verdict``.
        """
        request = pb.ClaimDrawRequest(
            game_id=game_id,
            reason=reason,
            ply=ply,
            move=_move_text(move) if move is not None else "",
        )
        response = self._unary(self.arbiter.ClaimDraw, request, _bearer(token))
        return ClaimResult(
            response.game, tuple(response.events), response.verdict, response.explanation
        )

    def abort(self, game_id: str, token: str) -> ActionResult:
        """Calls the game off (only before both players have moved)."""
        response = self._unary(
            self.arbiter.AbortGame, pb.AbortGameRequest(game_id=game_id), _bearer(token)
        )
        return ActionResult(response.game, tuple(response.events))

    def check_in(self, game_id: str, token: str) -> ActionResult:
        """Declares the seat present at the board (FIDE 6.7.1), for the default time.

        Call it when the player joins the board, before or after the scheduled start. A seat
        already present (checked in, or having moved) is answered as done.
        """
        response = self._unary(
            self.arbiter.CheckIn, pb.CheckInRequest(game_id=game_id), _bearer(token)
        )
        return ActionResult(response.game, tuple(response.events))

    def claim_victory(self, game_id: str, token: str) -> ActionResult:
        """Claims the game because the platform reported the opponent gone long enough.

        The game's rules set how long (``claim_after_opponent_left_millis``; 0 gives no claim);
        the claimant wins, or draws when unable to checkmate. Refused (``OPPONENT_CONNECTED``,
        ``OPPONENT_LEFT_TOO_RECENTLY`` with ``claimable_at`` in its metadata, ...) otherwise.
        """
        response = self._unary(
            self.arbiter.ClaimVictory, pb.ClaimVictoryRequest(game_id=game_id), _bearer(token)
        )
        return ActionResult(response.game, tuple(response.events))

    # --- watching ---------------------------------------------------------------

    def watch_game(
        self,
        game_id: str,
        *,
        after_version: int = 0,
        resume_token: Optional[str] = None,
        heartbeats: bool = False,
        reconnect: Optional[RetryPolicy] = None,
    ) -> GameWatch:
        """Watches a game: a snapshot (when ``after_version`` is 0), then every event.

        Resumes after ``resume_token`` (preferred: it detects a rewritten
        history) or ``after_version`` when given. The returned
        :class:`GameWatch` reconnects by itself after a dropped stream,
        resuming after the last message it received, and ends when the game
        has ended; ``heartbeats`` also hands out the server's heartbeats.
        ``reconnect`` bounds the attempts in a row that receive nothing
        (10 by default).
        """
        return GameWatch(
            self.arbiter,
            game_id,
            after_version=after_version,
            resume_token=resume_token or "",
            heartbeats=heartbeats,
            policy=reconnect or RetryPolicy(max_attempts=10),
        )

    # --- AdminService -------------------------------------------------------------

    def create_game(
        self,
        white: PlayerLike,
        black: PlayerLike,
        *,
        request_id: Optional[str] = None,
        pairing: Optional[pb.Pairing] = None,
        time_control: Optional[pb.TimeControl] = None,
        initial_fen: Optional[str] = None,
        variant: pb.Variant = pb.VARIANT_UNSPECIFIED,
        rules: Optional[pb.GameRules] = None,
        **fields: Any,
    ) -> CreatedGame:
        """Creates a game and returns it with both seats' tokens (admin token required).

        ``request_id`` is the idempotency key; when it is not given a random
        one is used, so that a retry after a lost answer returns the same
        game instead of creating another. An empty string turns that off
        (and so does not retry). Any other ``CreateGameRequest`` field may be
        given by name (``chess960_position=518``,
        ``clock_starts_after_first_moves=True``, ...).
        """
        if request_id is None:
            request_id = f"py-{uuid.uuid4()}"
        request = pb.CreateGameRequest(
            request_id=request_id,
            white=_player(white),
            black=_player(black),
            pairing=pairing,
            time_control=time_control,
            variant=variant,
            rules=rules,
            **fields,
        )
        if initial_fen is not None:
            request.initial_fen = initial_fen
        response = self._unary(
            self.admin.CreateGame, request, self._admin_metadata, retry=bool(request_id)
        )
        return CreatedGame(response.game, response.white_token, response.black_token)

    def set_game_result(
        self,
        game_id: str,
        *,
        reason: str,
        outcome: Optional[pb.Outcome] = None,
        termination: pb.Termination = pb.TERMINATION_UNSPECIFIED,
        forfeit: Optional[pb.Forfeit] = None,
        request_id: Optional[str] = None,
    ) -> ActionResult:
        """Decides a game in progress, or corrects a finished or aborted one.

        Give either ``outcome`` (a result as if played, with an optional
        ``termination``) or ``forfeit``.
        """
        if (outcome is None) == (forfeit is None):
            raise ValueError("give exactly one of outcome and forfeit")
        request = pb.SetGameResultRequest(
            request_id=request_id if request_id is not None else f"py-{uuid.uuid4()}",
            game_id=game_id,
            reason=reason,
        )
        if outcome is not None:
            request.played.CopyFrom(pb.PlayedResult(outcome=outcome, termination=termination))
        elif forfeit is not None:
            request.forfeit = forfeit
        response = self._unary(
            self.admin.SetGameResult, request, self._admin_metadata, retry=bool(request.request_id)
        )
        return ActionResult(response.game, tuple(response.events))

    def export_fair_play(self, game_id: str) -> pb.ExportFairPlayResponse:
        """The game's fair-play record: ``json`` (docs/schemas/fair-play-v1.json), ``pgn``
        with the record in its comments, and each player's summary (``white``,
        ``black``: time disconnected and out of focus). Needs the admin token, or a
        credential of an arbiter or auditor of the game's event."""
        return self._unary(  # type: ignore[no-any-return]
            self.admin.ExportFairPlay, pb.ExportFairPlayRequest(game_id=game_id), self._admin_metadata
        )

    def report_connection(self, game_id: str, color: pb.Color, *, connected: bool) -> ActionResult:
        """Reports a player's connection (admin token required): gone from now, or back.

        A report of what is already known changes nothing, so it is safe to repeat.
        """
        request = pb.ReportConnectionRequest(game_id=game_id, color=color, connected=connected)
        response = self._unary(self.admin.ReportConnection, request, self._admin_metadata)
        return ActionResult(response.game, tuple(response.events))

    def pause_clock(self, game_id: str, *, reason: str, request_id: Optional[str] = None) -> ActionResult:
        """Stops both clocks."""
        request = pb.PauseClockRequest(
            request_id=request_id if request_id is not None else f"py-{uuid.uuid4()}",
            game_id=game_id,
            reason=reason,
        )
        response = self._unary(
            self.admin.PauseClock, request, self._admin_metadata, retry=bool(request.request_id)
        )
        return ActionResult(response.game, tuple(response.events))

    def resume_clock(self, game_id: str, *, reason: str, request_id: Optional[str] = None) -> ActionResult:
        """Restarts paused clocks."""
        request = pb.ResumeClockRequest(
            request_id=request_id if request_id is not None else f"py-{uuid.uuid4()}",
            game_id=game_id,
            reason=reason,
        )
        response = self._unary(
            self.admin.ResumeClock, request, self._admin_metadata, retry=bool(request.request_id)
        )
        return ActionResult(response.game, tuple(response.events))

    def adjust_clock(
        self,
        game_id: str,
        color: pb.Color,
        delta_millis: int,
        *,
        reason: str,
        request_id: Optional[str] = None,
    ) -> ActionResult:
        """Adds ``delta_millis`` to ``color``'s clock (negative: deducts)."""
        request = pb.AdjustClockRequest(
            request_id=request_id if request_id is not None else f"py-{uuid.uuid4()}",
            game_id=game_id,
            color=color,
            delta_millis=delta_millis,
            reason=reason,
        )
        response = self._unary(
            self.admin.AdjustClock, request, self._admin_metadata, retry=bool(request.request_id)
        )
        return ActionResult(response.game, tuple(response.events))

    # --- Rounds ---------------------------------------------------------------

    def create_round(
        self,
        event_id: str,
        round: int,
        boards: Sequence[Union[tuple[PlayerLike, PlayerLike], pb.RoundBoard]],
        *,
        settings: Optional[pb.RoundSettings] = None,
        byes: Sequence[pb.RoundBye] = (),
        players: Sequence[PlayerLike] = (),
        request_id: Optional[str] = None,
    ) -> pb.CreateRoundResponse:
        """Creates every game of a round at once, all or nothing (admin token required).

        ``boards`` are ``(white, black)`` pairs, board 1 first, or
        ``RoundBoard`` messages (with their own numbers and overrides). The
        response holds the round and each board's game with its seats'
        tokens. A refusal names every offending field in its BadRequest
        (``ArbiterError.field_violations``) and creates nothing.
        """
        request = pb.CreateRoundRequest(
            request_id=request_id if request_id is not None else f"py-{uuid.uuid4()}",
            event_id=event_id,
            round=round,
            settings=settings,
            byes=list(byes),
            players=[_player(p) for p in players],
        )
        for number, board in enumerate(boards, start=1):
            if isinstance(board, pb.RoundBoard):
                request.boards.append(board)
            else:
                white, black = board
                request.boards.append(
                    pb.RoundBoard(board=number, white=_player(white), black=_player(black))
                )
        response: pb.CreateRoundResponse = self._unary(
            self.admin.CreateRound, request, self._admin_metadata, retry=bool(request.request_id)
        )
        return response

    def start_round(self, event_id: str, round: int) -> pb.StartRoundResponse:
        """Starts every clock of the round at one instant; safe to repeat."""
        request = pb.StartRoundRequest(event_id=event_id, round=round)
        response: pb.StartRoundResponse = self._unary(
            self.admin.StartRound, request, self._admin_metadata, retry=True
        )
        return response

    def get_round(self, event_id: str, round: int, *, page_size: int = 0) -> tuple[pb.Round, list[pb.BoardStatus]]:
        """The round and every board as it stands, in board order (all pages)."""
        boards: list[pb.BoardStatus] = []
        token = ""
        while True:
            request = pb.GetRoundRequest(
                event_id=event_id, round=round, page_size=page_size, page_token=token
            )
            page: pb.GetRoundResponse = self._unary(
                self.admin.GetRound, request, self._admin_metadata, retry=True
            )
            boards.extend(page.boards)
            token = page.next_page_token
            if not token:
                return page.round, boards

    def import_pairings(
        self,
        event_id: str,
        round: int,
        pairings: str,
        *,
        trf: str = "",
        players: Sequence[PlayerLike] = (),
        settings: Optional[pb.RoundSettings] = None,
        byes: Sequence[pb.RoundBye] = (),
        request_id: Optional[str] = None,
    ) -> pb.ImportPairingsResponse:
        """Creates the next round from a pairing engine's ``-p`` output.

        The ranks are the event's (as ``ExportTrf`` numbers them) unless
        ``players`` lists them, rank 1 first; ``trf`` is the report the
        engine paired, checked against those ranks when given.
        """
        request = pb.ImportPairingsRequest(
            request_id=request_id if request_id is not None else f"py-{uuid.uuid4()}",
            event_id=event_id,
            round=round,
            pairings=pairings,
            trf=trf,
            players=[_player(p) for p in players],
            settings=settings,
            byes=list(byes),
        )
        response: pb.ImportPairingsResponse = self._unary(
            self.admin.ImportPairings, request, self._admin_metadata, retry=bool(request.request_id)
        )
        return response

    # --- teams and standings --------------------------------------------------

    def register_teams(
        self,
        event_id: str,
        boards: int,
        teams: Sequence[pb.Team],
        *,
        expected_version: int = 0,
    ) -> pb.TeamRegistration:
        """Registers every team of the event with its roster in board order.

        The whole registration is sent each time. Until the event's first
        round it may change in any way; from then on teams may only be added
        and players appended. ``expected_version`` (from :meth:`get_teams`)
        makes it a compare-and-set: another version raises ``TEAMS_CHANGED``.
        """
        request = pb.RegisterTeamsRequest(
            event_id=event_id, boards=boards, teams=list(teams), expected_version=expected_version
        )
        response: pb.RegisterTeamsResponse = self._unary(
            self.admin.RegisterTeams, request, self._admin_metadata, retry=True
        )
        return response.registration

    def get_teams(self, event_id: str) -> pb.TeamRegistration:
        """The event's registered teams (public)."""
        response: pb.GetTeamsResponse = self._unary(
            self.arbiter.GetTeams, pb.GetTeamsRequest(event_id=event_id)
        )
        return response.registration

    def create_match_round(
        self,
        event_id: str,
        round: int,
        matches: Sequence[pb.RoundMatch],
        *,
        team_byes: Sequence[pb.TeamBye] = (),
        settings: Optional[pb.RoundSettings] = None,
        request_id: Optional[str] = None,
    ) -> pb.CreateRoundResponse:
        """Creates a round of team matches from their line-ups, all or nothing.

        Each ``RoundMatch`` names its table, both teams and each team's
        line-up (a player id per board, ``""`` for a board left empty), or a
        whole-match ``forfeit``. The boards are numbered by table, the first
        team's colour on board 1 and alternating. ``team_byes`` give teams
        without a match the result and game points of a bye.
        """
        request = pb.CreateRoundRequest(
            request_id=request_id if request_id is not None else f"py-{uuid.uuid4()}",
            event_id=event_id,
            round=round,
            settings=settings,
            matches=list(matches),
            team_byes=list(team_byes),
        )
        response: pb.CreateRoundResponse = self._unary(
            self.admin.CreateRound, request, self._admin_metadata, retry=True
        )
        return response

    def create_match_tie_break(
        self,
        event_id: str,
        round: int,
        table: int,
        white_player_id: str,
        black_player_id: str,
        *,
        settings: Optional[pb.RoundSettings] = None,
    ) -> pb.CreateMatchTieBreakResponse:
        """Creates the tie-break (Armageddon) game of a drawn team match.

        White and Black are one player of each team's line-up in the match;
        the game is scored as Armageddon (a draw is Black's win) and decides
        the match for its winner's team. ``settings`` are a round's (time
        odds through ``black_time_control``). Allowed once every board is
        decided and the match is drawn (else ``MATCH_NOT_DRAWN``); a repeat
        returns the same game and tokens.
        """
        request = pb.CreateMatchTieBreakRequest(
            event_id=event_id,
            round=round,
            table=table,
            white_player_id=white_player_id,
            black_player_id=black_player_id,
            settings=settings,
        )
        response: pb.CreateMatchTieBreakResponse = self._unary(
            self.admin.CreateMatchTieBreak, request, self._admin_metadata, retry=True
        )
        return response

    def get_team_standings(
        self,
        event_id: str,
        *,
        primary: pb.TeamScoreKind = pb.TEAM_SCORE_KIND_MATCH_POINTS,
        tie_breaks: Sequence[str] = (),
        match_points: Optional[Sequence[str]] = None,
    ) -> pb.GetTeamStandingsResponse:
        """The event's team standings: ``primary`` (match or game points), then
        ``tie_breaks`` by their FIDE codes (``EMGSB``, ``BH:MP``, ``BC``, ...);
        ``match_points`` as ``(win, draw, loss)``, e.g. ``("3", "1", "0")``, or
        with a match decided by its tie-break game's ``(..., tie_break_win,
        tie_break_loss)``."""
        request = pb.GetTeamStandingsRequest(
            event_id=event_id, primary_score=primary, tie_breaks=list(tie_breaks)
        )
        if match_points is not None:
            if len(match_points) not in (3, 5):
                raise ValueError("match_points is (win, draw, loss) or with (tie_break_win, tie_break_loss)")
            win, draw, loss, *tie_break = match_points
            tie_break_win, tie_break_loss = tie_break or ("", "")
            request.match_points.CopyFrom(
                pb.TeamMatchPoints(
                    win=win,
                    draw=draw,
                    loss=loss,
                    tie_break_win=tie_break_win,
                    tie_break_loss=tie_break_loss,
                )
            )
        response: pb.GetTeamStandingsResponse = self._unary(self.arbiter.GetTeamStandings, request)
        return response

    def export_trf(self, event_id: str) -> str:
        """The event's Tournament Report File (TRF-16, with TRF-2026 team records)."""
        response: pb.ExportTrfResponse = self._unary(
            self.arbiter.ExportTrf, pb.ExportTrfRequest(event_id=event_id)
        )
        return response.trf

"""The client against a real arbiter server (started by conftest.py)."""

from __future__ import annotations

import io
import logging
import threading
import time
import uuid

import chess
import chess.pgn
import grpc
import pytest

from arbiter_server import ArbiterServer
from tcp_proxy import TcpProxy

from chessarbiter_client import ArbiterClient, ArbiterError, CreatedGame, WatchUpdate, ends_game, pb

SCHOLARS_MATE = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]


def new_game(client: ArbiterClient) -> CreatedGame:
    suffix = uuid.uuid4().hex[:8]
    return client.create_game(
        pb.Player(id=f"w-{suffix}", name="White, Walter"),
        pb.Player(id=f"b-{suffix}", name="Black, Bella"),
    )


def play(client: ArbiterClient, created: CreatedGame, board: chess.Board, sans: list[str]) -> None:
    """Plays `sans` from `board`'s position, each through the seat to move."""
    for san in sans:
        move = board.parse_san(san)
        token = created.white_token if board.turn == chess.WHITE else created.black_token
        result = client.make_move(created.game_id, token, move, board.ply())
        board.push(move)
        assert result.applied
        assert result.game.fen == board.fen()


def collect(watch_iter: object, into: list[WatchUpdate]) -> threading.Thread:
    def run() -> None:
        for update in watch_iter:  # type: ignore[attr-defined]
            into.append(update)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def assert_each_event_once(updates: list[WatchUpdate], first_version: int, last_version: int) -> None:
    versions = [u.version for u in updates]
    assert versions == list(range(first_version, last_version + 1)), versions


def test_game_to_mate_seen_by_a_watcher_event_by_event(client: ArbiterClient, server: ArbiterServer) -> None:
    created = new_game(client)
    seen: list[WatchUpdate] = []
    with ArbiterClient(server.target) as spectator:
        watch = spectator.watch_game(created.game_id)
        seen.append(next(watch))  # the snapshot: the watch is open before the first move
        watcher = collect(watch, seen)
        board = chess.Board()
        play(client, created, board, SCHOLARS_MATE)
        watcher.join(timeout=20)
        assert not watcher.is_alive(), "the watch did not end with the game"

    assert board.is_checkmate()
    assert seen[0].kind == "snapshot" and seen[0].version == 1
    assert all(u.kind == "event" for u in seen[1:])
    # Seven moves and the game's end, each exactly once, in order.
    assert_each_event_once(seen, 1, 1 + len(SCHOLARS_MATE) + 1)
    moves = [u.message.event.move_made.move for u in seen if u.event_kind == "move_made"]
    assert [m.san for m in moves] == SCHOLARS_MATE
    assert [m.uci for m in moves] == [m.uci() for m in board.move_stack]
    last = seen[-1]
    assert last.event_kind == "game_ended" and ends_game(last)
    result = last.message.event.game_ended.result
    assert result.outcome == pb.OUTCOME_WHITE_WINS
    assert result.termination == pb.TERMINATION_CHECKMATE
    assert all(u.resume_token for u in seen)

    game = client.get_game(created.game_id, full=True)
    assert game.status == pb.GAME_STATUS_FINISHED
    assert [m.san for m in game.moves] == SCHOLARS_MATE
    assert [m.san for m in client.list_moves(created.game_id, page_size=3)] == SCHOLARS_MATE
    exported = chess.pgn.read_game(io.StringIO(client.export_pgn(created.game_id)))
    assert exported is not None
    assert exported.headers["Result"] == "1-0"
    assert list(exported.mainline_moves()) == board.move_stack


def test_a_move_sent_twice_at_the_same_ply_is_recognised(client: ArbiterClient) -> None:
    created = new_game(client)
    first = client.make_move(created.game_id, created.white_token, "e4", 0)
    assert first.applied and first.game.ply == 1
    assert [e.WhichOneof("kind") for e in first.events] == ["move_made"]

    again = client.make_move(created.game_id, created.white_token, "e4", 0)
    assert not again.applied  # recognised as a repeat: no events, not an error
    assert again.game.ply == 1 and again.game.version == first.game.version

    # Even written in UCI, and after the opponent has answered.
    client.make_move(created.game_id, created.black_token, "e7e5", 1)
    repeat = client.make_move(created.game_id, created.white_token, "e2e4", 0)
    assert not repeat.applied and repeat.game.ply == 2


def test_another_move_at_a_past_ply_is_stale_and_not_retried(
    client: ArbiterClient, caplog: pytest.LogCaptureFixture
) -> None:
    created = new_game(client)
    client.make_move(created.game_id, created.white_token, "e4", 0)
    client.make_move(created.game_id, created.black_token, "e5", 1)
    with caplog.at_level(logging.INFO, logger="chessarbiter_client"):
        with pytest.raises(ArbiterError) as raised:
            client.make_move(created.game_id, created.white_token, "d4", 0)
    assert raised.value.code == grpc.StatusCode.ABORTED
    assert raised.value.reason == "STALE_PLY"
    assert not raised.value.retryable
    assert "retrying" not in caplog.text


def test_a_move_whose_answer_was_lost_is_retried_at_the_same_ply(
    proxied_client: ArbiterClient, proxy: TcpProxy, client: ArbiterClient, caplog: pytest.LogCaptureFixture
) -> None:
    created = new_game(proxied_client)
    proxied_client.get_game(created.game_id)  # the connection is up and idle
    proxy.drop_at_next_response()
    with caplog.at_level(logging.INFO, logger="chessarbiter_client"):
        result = proxied_client.make_move(created.game_id, created.white_token, "e4", 0)
    assert proxy.dropped_at_response.is_set()
    assert "UNAVAILABLE" in caplog.text and "retrying" in caplog.text
    # The first attempt was applied; the retry at the same ply was recognised.
    assert not result.applied
    assert result.game.ply == 1
    game = client.get_game(created.game_id, full=True)
    assert [m.uci for m in game.moves] == ["e2e4"]
    assert game.version == 2


def test_an_illegal_move_is_invalid_argument_with_its_reason(client: ArbiterClient) -> None:
    created = new_game(client)
    with pytest.raises(ArbiterError) as raised:
        client.make_move(created.game_id, created.white_token, "e5", 0)
    error = raised.value
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.reason == "ILLEGAL_MOVE"
    assert error.domain == "chessarbiter.v1"
    assert error.metadata == {"ply": "0", "side_to_move": "white"}
    assert [v.field for v in error.field_violations] == ["move"]
    assert not error.retryable
    assert error.message

    with pytest.raises(ArbiterError) as unparsable:
        client.make_move(created.game_id, created.white_token, "not-a-move", 0)
    assert (unparsable.value.code, unparsable.value.reason) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "UNPARSABLE_MOVE",
    )


def test_a_wrong_token_is_permission_denied_not_a_seat(client: ArbiterClient) -> None:
    created = new_game(client)
    other = new_game(client)
    for token in (other.white_token, "not-a-token"):
        with pytest.raises(ArbiterError) as raised:
            client.make_move(created.game_id, token, "e4", 0)
        assert raised.value.code == grpc.StatusCode.PERMISSION_DENIED
        assert raised.value.reason == "NOT_A_SEAT"


def test_other_refusals_carry_their_reasons(client: ArbiterClient, server: ArbiterServer) -> None:
    created = new_game(client)
    with pytest.raises(ArbiterError) as turn:
        client.make_move(created.game_id, created.black_token, "e5", 0)
    assert (turn.value.code, turn.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    assert turn.value.metadata["side_to_move"] == "white"
    assert turn.value.precondition_violations

    with pytest.raises(ArbiterError) as missing:
        client.get_game("no-such-game")
    assert (missing.value.code, missing.value.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")

    with ArbiterClient(server.target, admin_token="wrong") as impostor:
        with pytest.raises(ArbiterError) as admin:
            new_game(impostor)
    assert (admin.value.code, admin.value.reason) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_ADMIN")


def test_seat_actions_and_an_arbiter_ruling(client: ArbiterClient) -> None:
    drawn = new_game(client)
    board = chess.Board()
    play(client, drawn, board, ["e4", "e5"])
    offered = client.offer_draw(drawn.game_id, drawn.white_token)
    assert offered.game.draw_offered_by == pb.COLOR_WHITE
    assert client.offer_draw(drawn.game_id, drawn.white_token).applied is False
    declined = client.decline_draw(drawn.game_id, drawn.black_token)
    assert not declined.game.HasField("draw_offered_by")
    client.offer_draw(drawn.game_id, drawn.black_token)
    accepted = client.accept_draw(drawn.game_id, drawn.white_token)
    assert accepted.game.result.termination == pb.TERMINATION_AGREEMENT

    claimed = new_game(client)
    claim = client.claim_draw(claimed.game_id, claimed.white_token, pb.DRAW_CLAIM_REASON_FIFTY_MOVES, 0)
    assert claim.verdict == pb.DRAW_CLAIM_VERDICT_REFUSED and not claim.upheld and claim.explanation

    aborted = new_game(client)
    checked = client.check_in(aborted.game_id, aborted.black_token)
    assert checked.game.black_present and not checked.game.white_present
    assert [e.WhichOneof("kind") for e in checked.events] == ["player_checked_in"]
    assert client.check_in(aborted.game_id, aborted.black_token).applied is False
    assert client.abort(aborted.game_id, aborted.black_token).game.status == pb.GAME_STATUS_ABORTED

    resigned = new_game(client)
    client.make_move(resigned.game_id, resigned.white_token, "d4", 0)
    gone = client.resign(resigned.game_id, resigned.black_token)
    assert gone.game.result.outcome == pb.OUTCOME_WHITE_WINS
    corrected = client.set_game_result(
        resigned.game_id, outcome=pb.OUTCOME_DRAW, reason="scoresheets agree on a draw"
    )
    assert corrected.game.result.outcome == pb.OUTCOME_DRAW
    assert [e.WhichOneof("kind") for e in corrected.events] == ["result_decided"]


def test_create_game_is_idempotent_by_request_id(client: ArbiterClient) -> None:
    request_id = f"spring-open/r1/{uuid.uuid4().hex[:8]}"
    first = client.create_game("p-1", "p-2", request_id=request_id)
    second = client.create_game("p-1", "p-2", request_id=request_id)
    assert second.game_id == first.game_id
    assert (second.white_token, second.black_token) == (first.white_token, first.black_token)


def test_a_cancelled_watch_resumes_by_token_without_a_gap_or_a_repeat(
    client: ArbiterClient, server: ArbiterServer
) -> None:
    created = new_game(client)
    board = chess.Board()
    with ArbiterClient(server.target) as spectator:
        watch = spectator.watch_game(created.game_id)
        first: list[WatchUpdate] = [next(watch)]  # the snapshot
        play(client, created, board, ["e4", "e5", "Bc4"])
        first += [next(watch) for _ in range(3)]
        watch.cancel()
        assert list(watch) == []  # a cancelled watch ends quietly
        token, version = watch.resume_token, watch.version
        assert token == first[-1].resume_token and version == 4

        play(client, created, board, ["Nc6", "Qh5"])  # while nobody watches
        rest: list[WatchUpdate] = []
        resumed = spectator.watch_game(created.game_id, resume_token=token)
        watcher = collect(resumed, rest)
        play(client, created, board, ["Nf6", "Qxf7#"])
        watcher.join(timeout=20)
        assert not watcher.is_alive()

    assert_each_event_once(first + rest, 1, 9)
    assert rest[0].kind == "event" and rest[0].message.event.move_made.move.san == "Nc6"
    assert rest[-1].event_kind == "game_ended"
    assert not any(u.history_rewritten for u in rest)

    # By version too, and a watch of the ended game ends at once.
    tail = list(client.watch_game(created.game_id, after_version=7))
    assert [u.version for u in tail] == [8, 9]


def test_a_dropped_watch_reconnects_by_itself(
    client: ArbiterClient, proxied_client: ArbiterClient, proxy: TcpProxy
) -> None:
    created = new_game(client)
    board = chess.Board()
    watch = proxied_client.watch_game(created.game_id)
    seen = [next(watch)]
    play(client, created, board, ["e4", "e5"])
    seen += [next(watch), next(watch)]

    assert proxy.drop_all() >= 1  # the watcher's connection breaks mid-game
    play(client, created, board, ["Bc4", "Nc6"])
    seen.append(next(watch))  # read after the drop: the stream is re-opened
    assert watch.reconnects >= 1
    rest: list[WatchUpdate] = []
    watcher = collect(watch, rest)
    play(client, created, board, ["Qh5", "Nf6", "Qxf7#"])
    watcher.join(timeout=20)
    assert not watcher.is_alive()

    assert_each_event_once(seen + rest, 1, 9)
    assert (seen + rest)[-1].event_kind == "game_ended"


def test_a_rewritten_history_restarts_the_watch_from_a_snapshot(client: ArbiterClient) -> None:
    created = new_game(client)
    board = chess.Board()
    play(client, created, board, ["e4", "e5"])
    # A token naming version 2 with another digest: as if a failover had
    # replaced the event the watcher saw.
    watch = client.watch_game(created.game_id, resume_token="2.0000000000000000")
    update = next(watch)
    assert update.kind == "snapshot" and update.history_rewritten
    assert update.version == 3 and update.snapshot is not None and update.snapshot.ply == 2
    assert watch.restarts == 1
    watch.close()


def test_watching_an_unknown_game_fails_without_retrying(client: ArbiterClient) -> None:
    with pytest.raises(ArbiterError) as raised:
        next(client.watch_game("no-such-game"))
    assert (raised.value.code, raised.value.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")


def test_heartbeats_only_when_asked(client: ArbiterClient) -> None:
    created = new_game(client)
    with client.watch_game(created.game_id, heartbeats=True) as watch:
        snapshot = next(watch)
        beat = next(watch)  # the game is quiet: the server sends a heartbeat
    assert snapshot.kind == "snapshot"
    assert beat.kind == "heartbeat" and beat.heartbeat is not None
    assert beat.version == 1 and beat.resume_token == ""
    assert watch.version == 1 and watch.resume_token == snapshot.resume_token


def test_a_player_reported_gone_loses_to_the_opponents_claim(client: ArbiterClient) -> None:
    rules = pb.GameRules(claim_after_opponent_left_millis=300)
    game = client.create_game("alice", "bob", rules=rules)
    client.make_move(game.game_id, game.white_token, "e4", 0)
    client.make_move(game.game_id, game.black_token, "e5", 1)
    reported = client.report_connection(game.game_id, pb.COLOR_WHITE, connected=False)
    assert reported.game.HasField("white_left_time")
    assert [e.WhichOneof("kind") for e in reported.events] == ["connection_reported"]
    with pytest.raises(ArbiterError) as early:
        client.claim_victory(game.game_id, game.black_token)
    assert early.value.reason == "OPPONENT_LEFT_TOO_RECENTLY"
    time.sleep(0.4)
    won = client.claim_victory(game.game_id, game.black_token)
    assert won.game.result.outcome == pb.OUTCOME_BLACK_WINS
    assert won.game.result.termination == pb.TERMINATION_OPPONENT_LEFT

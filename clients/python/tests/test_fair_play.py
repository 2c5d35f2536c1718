"""A game's fair-play record through the client: the lag and client move time reported with
each move, the client's signals, and the export, whose PGN python-chess reads back move for
move with the same clocks and move times, and whose JSON document follows the committed schema."""

from __future__ import annotations

import datetime
import io
import json
import pathlib
import time

import chess
import chess.pgn
import jsonschema
import pytest

from chessarbiter_client import ArbiterClient, ArbiterError, pb

SCHEMA = pathlib.Path(__file__).resolve().parents[3] / "docs" / "schemas" / "fair-play-v1.json"
TEN_MINUTES = pb.TimeControl(periods=[pb.TimeControlPeriod(time_millis=600_000)])
LINE = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]


def test_a_fair_play_export_round_trips_through_python_chess_and_its_schema(client: ArbiterClient) -> None:
    created = client.create_game(
        "White",
        "Black",
        pairing=pb.Pairing(event_id="python-fair-play", round=1, board=1),
        time_control=TEN_MINUTES,
        record_fair_play=True,
    )
    game_id = created.game.game_id
    assert created.game.setup.record_fair_play
    now = datetime.datetime.now(datetime.timezone.utc)
    lost = client.report_client_signal(
        game_id, created.black_token, pb.CLIENT_SIGNAL_KIND_FOCUS_LOST, client_time=now
    )
    assert lost.recorded and lost.signals_recorded == 1
    again = client.report_client_signal(
        game_id, created.black_token, pb.CLIENT_SIGNAL_KIND_FOCUS_LOST, client_time=now
    )
    assert not again.recorded
    board = chess.Board()
    for ply, san in enumerate(LINE):
        token = created.white_token if board.turn == chess.WHITE else created.black_token
        client.make_move(game_id, token, san, ply, lag_millis=10 * ply, client_move_millis=100 + ply)
        board.push_san(san)
        if ply == 2:
            client.report_client_signal(game_id, created.black_token, pb.CLIENT_SIGNAL_KIND_FOCUS_REGAINED)
            client.report_client_signal(game_id, created.white_token, pb.CLIENT_SIGNAL_KIND_DISCONNECTED)
            # A signal and a move received in the same millisecond have no
            # order the record can show: the next move comes a moment later.
            time.sleep(0.005)

    export = client.export_fair_play(game_id)
    document = json.loads(export.json)
    jsonschema.validate(document, json.loads(SCHEMA.read_text()))
    assert [m["san"] for m in document["moves"]] == LINE
    assert [m["lag_reported_ms"] for m in document["moves"]] == [10 * ply for ply in range(len(LINE))]
    assert [m["client_ms"] for m in document["moves"]] == [100 + ply for ply in range(len(LINE))]
    assert [(s["color"], s["kind"]) for s in document["signals"]] == [
        ("black", "focus_lost"),
        ("black", "focus_regained"),
        ("white", "disconnected"),
    ]
    # White's move after the disconnection ended it.
    assert export.white.disconnections == 1 and not export.white.disconnected_now
    assert export.black.focus_losses == 1 and export.black.unfocused_moves == 2

    read = chess.pgn.read_game(io.StringIO(export.pgn))
    assert read is not None and not read.errors
    assert read.headers["GameId"] == game_id
    nodes = list(read.mainline())
    assert [node.san() for node in nodes] == LINE
    assert read.end().board().fen() == board.fen()
    for node, recorded in zip(nodes, document["moves"]):
        # %clk and %emt write whole seconds, and tenths under a minute.
        clock, emt = node.clock(), node.emt()
        assert clock is not None and emt is not None
        assert 0 <= recorded["remaining_ms"] / 1000 - clock < 1
        assert 0 <= recorded["spent_ms"] / 1000 - emt < 0.1 + 1e-9
        assert f"[%lag {recorded['lag_reported_ms'] / 1000:.3f}]" in node.comment
        assert "[%clientemt 0:00:00." in node.comment
    assert "[%signal white disconnected " in nodes[2].comment
    assert "[%unfocused]" in nodes[1].comment


def test_a_game_without_a_record_takes_no_signals(client: ArbiterClient) -> None:
    created = client.create_game("White", "Black", time_control=TEN_MINUTES)
    with pytest.raises(ArbiterError) as refused:
        client.report_client_signal(created.game.game_id, created.white_token, pb.CLIENT_SIGNAL_KIND_FOCUS_LOST)
    assert refused.value.code.name == "FAILED_PRECONDITION"
    assert refused.value.reason == "FAIR_PLAY_NOT_RECORDED"

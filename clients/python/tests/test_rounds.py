"""Rounds through the client: the Swiss of nine rounds the server's own tests run, paired by
bbpPairings, replayed here from the committed pairings, and a refused round."""

from __future__ import annotations

from pathlib import Path

import pytest

from chessarbiter_client import ArbiterClient, ArbiterError, pb

PAIRINGS = Path(__file__).resolve().parents[3] / "tests" / "data" / "pairings"
EVENT = "Swiss of nine"
PLAYERS = [pb.Player(id=f"p{n:02}", name=f"Player {n:02}") for n in range(1, 10)]


def result_of(round_number: int, board: int) -> int:
    """The same pattern of results as tests/api/pairing_engine.rs."""
    return {0: pb.OUTCOME_WHITE_WINS, 3: pb.OUTCOME_WHITE_WINS, 1: pb.OUTCOME_DRAW}.get(
        (round_number * 7 + board * 3) % 5, pb.OUTCOME_BLACK_WINS
    )


def test_a_swiss_of_nine_rounds_runs_on_the_engines_pairings(client: ArbiterClient) -> None:
    trf = (PAIRINGS / "round-1.trf").read_text()
    for number in range(1, 10):
        assert trf == (PAIRINGS / f"round-{number}.trf").read_text(), f"round {number}"
        pairings = (PAIRINGS / f"round-{number}.pairings").read_text()
        created = client.import_pairings(
            EVENT,
            number,
            pairings,
            trf=trf,
            players=PLAYERS if number == 1 else (),
            request_id=f"swiss-round-{number}",
        )
        assert len(created.round.byes) == 1
        started = client.start_round(EVENT, number)
        assert started.started_games == len(created.games)
        _, boards = client.get_round(EVENT, number)
        assert [b.board for b in boards] == list(range(1, len(created.games) + 1))
        assert all(b.status == pb.GAME_STATUS_ACTIVE for b in boards)
        for game in created.games:
            client.set_game_result(
                game.game_id, reason="reported at the board", outcome=result_of(number, game.board)
            )
        trf = client.arbiter.ExportTrf(pb.ExportTrfRequest(event_id=EVENT, total_rounds=9)).trf
    assert trf.count("\n001 ") == 9


def test_a_round_with_a_player_paired_twice_is_refused_whole(client: ArbiterClient) -> None:
    with pytest.raises(ArbiterError) as refused:
        client.create_round("python-refused", 1, [("a", "b"), ("c", "a")], request_id="")
    assert refused.value.code.name == "INVALID_ARGUMENT"
    assert [v.field for v in refused.value.field_violations] == ["boards[1].black.id"]
    with pytest.raises(ArbiterError) as missing:
        client.get_round("python-refused", 1)
    assert missing.value.reason == "ROUND_NOT_FOUND"

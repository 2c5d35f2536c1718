"""A team event through the client: teams registered with their rosters, rounds of matches
from line-ups (a reserve fielded, a board left empty), results set by the arbiter, and team
standings equal to what FIDE's reference implementation (TieBreakServer) computed for the same
event, committed in tests/data/team-events."""

from __future__ import annotations

import pathlib
from typing import Optional

import pytest

from chessarbiter_client import ArbiterClient, ArbiterError, pb

DATA = pathlib.Path(__file__).resolve().parents[3] / "tests" / "data" / "team-events"
TEAMS = "abcdef"


def roster(team: str) -> pb.Team:
    return pb.Team(
        id=team,
        name=f"Team {team.upper()}",
        players=[
            pb.Player(
                id=f"{team}{board}",
                name=f"Player {team.upper()}{board}",
                rating=2600 - 40 * board - 10 * TEAMS.index(team),
            )
            for board in range(1, 6)
        ],
    )


def full(
    table: int,
    home: str,
    away: str,
    *,
    first: Optional[list[str]] = None,
    second: Optional[list[str]] = None,
    first_team_color: pb.Color = pb.COLOR_UNSPECIFIED,
) -> pb.RoundMatch:
    return pb.RoundMatch(
        table=table,
        first_team_id=home,
        second_team_id=away,
        first_team_players=first if first is not None else [f"{home}{b}" for b in range(1, 5)],
        second_team_players=second if second is not None else [f"{away}{b}" for b in range(1, 5)],
        first_team_color=first_team_color,
    )


def outcome(round: int, board: int) -> pb.Outcome:
    return {0: pb.OUTCOME_WHITE_WINS, 3: pb.OUTCOME_WHITE_WINS, 1: pb.OUTCOME_DRAW}.get(
        (round * 7 + board * 3) % 4, pb.OUTCOME_BLACK_WINS
    )


def play(client: ArbiterClient, event: str, created: pb.CreateRoundResponse) -> None:
    client.start_round(event, created.round.round)
    for game in created.games:
        client.set_game_result(game.game_id, outcome=outcome(created.round.round, game.board), reason="as played")


def test_an_olympiad_style_swiss_equals_the_reference(client: ArbiterClient) -> None:
    event = "python-olympiad"
    registered = client.register_teams(event, 4, [roster(t) for t in TEAMS])
    assert registered.version == 1 and registered.teams[0].name == "Team A"
    assert client.get_teams(event) == registered
    rounds = [
        [
            full(1, "a", "b"),
            full(2, "c", "d", second=["d1", "d2", "d3", ""]),
            full(3, "e", "f", first=["e1", "e2", "e3", "e5"], second=["f2", "f3", "f4", "f5"]),
        ],
        [full(1, "c", "a", first_team_color=pb.COLOR_BLACK), full(2, "f", "b"), full(3, "d", "e")],
        [full(1, "a", "f"), full(2, "b", "d"), full(3, "e", "c")],
    ]
    for number, matches in enumerate(rounds, start=1):
        created = client.create_match_round(event, number, matches)
        play(client, event, created)

    for suffix, primary in (("mp", pb.TEAM_SCORE_KIND_MATCH_POINTS), ("gp", pb.TEAM_SCORE_KIND_GAME_POINTS)):
        header, *rows = (DATA / f"olympiad.{suffix}.tsv").read_text().splitlines()
        codes = header.split("\t")[3:]
        table = client.get_team_standings(event, primary=primary, tie_breaks=codes)
        # MPVGP is answered by the name it has beside the primary score (GP or MP).
        assert len(table.tie_breaks) == len(codes)
        ours = {row.team_id: row for row in table.standings}
        for line in rows:
            number, rank, first, *values = line.split("\t")
            row = ours[TEAMS[int(number) - 1]]
            assert row.rank == int(rank)
            assert float(row.match_points if suffix == "mp" else row.game_points) == float(first)
            assert [float(v) for v in row.tie_break_values] == [float(v) for v in values]
    assert client.export_trf(event).endswith("300 001 004 003 0010 0011 0014 0000\n")


def test_a_line_up_off_the_roster_is_refused_with_its_field(client: ArbiterClient) -> None:
    event = "python-bad-line-up"
    client.register_teams(event, 2, [roster("a"), roster("b")])
    with pytest.raises(ArbiterError) as refused:
        client.create_match_round(event, 1, [full(1, "a", "b", first=["a2", "a1"], second=["b1", "x9"])])
    assert refused.value.reason == "INVALID_FIELD"
    assert [v.field for v in refused.value.field_violations] == [
        "matches[0].first_team_players[1]",
        "matches[0].second_team_players[1]",
    ]


def test_a_drawn_match_is_decided_by_its_armageddon_game(client: ArbiterClient) -> None:
    event = "python-armageddon"
    client.register_teams(event, 2, [roster("a"), roster("b")])
    created = client.create_match_round(event, 1, [full(1, "a", "b", first=["a1", "a2"], second=["b1", "b2"])])
    client.start_round(event, 1)
    # Board 1: a1 (White) wins; board 2: b2 (White) wins: 1-1.
    for game in created.games:
        client.set_game_result(game.game_id, outcome=pb.OUTCOME_WHITE_WINS, reason="as played")
    five, four = (
        pb.TimeControl(periods=[pb.TimeControlPeriod(time_millis=minutes * 60_000)]) for minutes in (5, 4)
    )
    made = client.create_match_tie_break(
        event, 1, 1, "b1", "a1", settings=pb.RoundSettings(time_control=five, black_time_control=four)
    )
    assert (made.tie_break.white_team_id, made.tie_break.black_team_id) == ("b", "a")
    assert client.create_match_tie_break(
        event, 1, 1, "b1", "a1", settings=pb.RoundSettings(time_control=five, black_time_control=four)
    ) == made
    with pytest.raises(ArbiterError) as exists:
        client.create_match_tie_break(event, 1, 1, "b2", "a1")
    assert exists.value.reason == "TIE_BREAK_EXISTS"
    assert client.get_team_standings(event).matches_in_progress == 1
    # Drawn on the board: Armageddon gives it to Black (a1, team a).
    client.set_game_result(made.tie_break.game_id, outcome=pb.OUTCOME_DRAW, reason="as played")
    standings = client.get_team_standings(event, match_points=("3", "1", "0", "2", "1"))
    assert [(r.team_id, r.match_points, r.game_points) for r in standings.standings] == [
        ("a", "2", "1"),
        ("b", "1", "1"),
    ]
    with pytest.raises(ArbiterError) as not_drawn:
        client.create_match_tie_break(event, 1, 2, "a1", "b1")
    assert not_drawn.value.reason == "MATCH_NOT_FOUND"

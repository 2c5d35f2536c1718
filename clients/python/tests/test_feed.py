"""The broadcast feed read back by python-chess, as a relay reads it: a
server of its own with the feed on, games played through the client, then
each served PGN parsed to the same moves, clocks and result."""

from __future__ import annotations

import gzip
import io
import json
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Iterable, Iterator, Optional

import chess
import chess.pgn
import pytest

from arbiter_server import ArbiterServer, build_server, free_port, running_server

from chessarbiter_client import ArbiterClient, pb

SCHOLARS_MATE = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]


class Feed:
    """The server and the feed's base URL."""

    def __init__(self, server: ArbiterServer, base: str) -> None:
        self.server = server
        self.base = base

    def get(self, path: str, headers: Optional[dict[str, str]] = None) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(self.base + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, lowered(answer.headers.items()), answer.read()
        except urllib.error.HTTPError as refused:
            return refused.code, lowered(refused.headers.items()), refused.read()


def lowered(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Header names in lower case (HTTP's are case-insensitive)."""
    return {name.lower(): value for name, value in headers}


@pytest.fixture(scope="module")
def feed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Feed]:
    binary = build_server()
    log_path = tmp_path_factory.mktemp("feed") / "server.log"
    port = free_port()
    with running_server(binary, log_path, {"ARBITER_FEED_LISTEN": f"127.0.0.1:{port}"}) as server:
        yield Feed(server, f"http://127.0.0.1:{port}")


def timed() -> pb.TimeControl:
    """Ten minutes and five seconds a move."""
    return pb.TimeControl(periods=[pb.TimeControlPeriod(time_millis=600_000, increment_millis=5_000)])


def play(client: ArbiterClient, game_id: str, tokens: tuple[str, str], sans: list[str]) -> chess.Board:
    board = chess.Board()
    for san in sans:
        move = board.parse_san(san)
        token = tokens[0] if board.turn == chess.WHITE else tokens[1]
        assert client.make_move(game_id, token, move, board.ply()).applied
        board.push(move)
    return board


def read_games(text: str) -> list[chess.pgn.Game]:
    stream = io.StringIO(text)
    games = []
    while (game := chess.pgn.read_game(stream)) is not None:
        assert not game.errors, game.errors
        games.append(game)
    return games


def test_python_chess_reads_a_round_back_to_its_moves_clocks_and_result(feed: Feed) -> None:
    event = f"Feed Open {uuid.uuid4().hex[:6]}"
    path = f"/events/{urllib.parse.quote(event)}/rounds/1"
    with ArbiterClient(feed.server.target, admin_token=feed.server.admin_token) as client:
        mated = client.create_game(
            pb.Player(id="w1", name="Carlsen, Magnus", rating=2830, title="GM", fide_id=1503014),
            pb.Player(id="b1", name="Caruana, Fabiano", rating=2795, title="GM"),
            pairing=pb.Pairing(event_id=event, round=1, board=1),
            time_control=timed(),
        )
        running = client.create_game(
            pb.Player(id="w2", name="White Two"),
            pb.Player(id="b2", name="Black Two"),
            pairing=pb.Pairing(event_id=event, round=1, board=2),
            time_control=timed(),
        )
        mated_board = play(client, mated.game_id, (mated.white_token, mated.black_token), SCHOLARS_MATE)
        running_board = play(client, running.game_id, (running.white_token, running.black_token), ["d4", "d5"])
    assert mated_board.is_checkmate()

    status, headers, body = feed.get(f"{path}/games.pgn")
    assert status == 200
    assert headers["content-type"].startswith("application/x-chess-pgn")
    games = read_games(body.decode())
    assert [game.headers["GameId"] for game in games] == [mated.game_id, running.game_id]

    first, second = games
    assert first.headers["Round"] == "1.1" and second.headers["Round"] == "1.2"
    assert first.headers["Event"] == event
    assert first.headers["White"] == "Carlsen, Magnus"
    assert first.headers["WhiteElo"] == "2830" and first.headers["WhiteTitle"] == "GM"
    assert first.headers["WhiteFideId"] == "1503014"
    assert first.headers["TimeControl"] == "600+5"
    assert first.headers["Result"] == "1-0"
    assert first.headers["Termination"]
    assert [move.uci() for move in first.mainline_moves()] == [m.uci() for m in mated_board.move_stack]
    assert first.end().board().is_checkmate()
    assert second.headers["Result"] == "*"
    assert [move.uci() for move in second.mainline_moves()] == [m.uci() for m in running_board.move_stack]
    # A clock after every move, never above the start plus the increments.
    for game in games:
        clocks = [node.clock() for node in game.mainline()]
        assert clocks and all(clock is not None for clock in clocks), clocks
        assert all(0 < clock <= 600 + 5 * len(clocks) for clock in clocks if clock is not None)
    # The running game's clocks as tags, for the relay to draw them.
    assert "WhiteClock" in second.headers and "BlackClock" in second.headers
    assert "WhiteClock" not in first.headers

    # Each game alone, the same game; the whole event, the same games.
    for n, game in enumerate(games, start=1):
        _, _, alone = feed.get(f"{path}/game-{n}.pgn")
        (read,) = read_games(alone.decode())
        assert read.headers["GameId"] == game.headers["GameId"]
        assert [m.uci() for m in read.mainline_moves()] == [m.uci() for m in game.mainline_moves()]
    _, _, whole = feed.get(f"/events/{urllib.parse.quote(event)}/games.pgn")
    assert [g.headers["GameId"] for g in read_games(whole.decode())] == [mated.game_id, running.game_id]

    # The DGT-style index names the players as relays read them.
    status, _, index = feed.get(f"{path}/round.json")
    assert status == 200
    pairings = json.loads(index)["pairings"]
    assert pairings[0]["white"] == {"fname": "Magnus", "lname": "Carlsen", "title": "GM", "fideid": 1503014}
    assert pairings[0]["result"] == "1-0" and pairings[0]["live"] is False
    assert pairings[1]["white"] == {"lname": "White Two"}
    assert pairings[1]["result"] == "*" and pairings[1]["live"] is True


def test_a_pollers_tag_gets_304_and_gzip_is_the_same_text(feed: Feed) -> None:
    event = f"Feed Cache {uuid.uuid4().hex[:6]}"
    with ArbiterClient(feed.server.target, admin_token=feed.server.admin_token) as client:
        created = client.create_game(
            pb.Player(id="w", name="W"),
            pb.Player(id="b", name="B"),
            pairing=pb.Pairing(event_id=event, round=1, board=1),
        )
        play(client, created.game_id, (created.white_token, created.black_token), ["c4"])
    path = f"/events/{urllib.parse.quote(event)}/rounds/1/games.pgn"
    status, headers, body = feed.get(path)
    assert status == 200
    assert headers["cache-control"] == "public, max-age=1"
    etag = headers["etag"]
    status, again, empty = feed.get(path, {"If-None-Match": etag})
    assert status == 304 and empty == b""
    assert again["etag"] == etag
    status, headers, packed = feed.get(path, {"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert gzip.decompress(packed) == body
    (game,) = read_games(body.decode())
    assert [m.uci() for m in game.mainline_moves()] == ["c2c4"]


def test_a_delayed_game_is_read_without_its_recent_moves(feed: Feed) -> None:
    event = f"Feed Delay {uuid.uuid4().hex[:6]}"
    with ArbiterClient(feed.server.target, admin_token=feed.server.admin_token) as client:
        created = client.create_game(
            pb.Player(id="w", name="W"),
            pb.Player(id="b", name="B"),
            pairing=pb.Pairing(event_id=event, round=1, board=1),
            broadcast_delay_millis=1_000,
        )
        played_at = time.monotonic()
        play(client, created.game_id, (created.white_token, created.black_token), ["e4"])
    path = f"/games/{created.game_id}.pgn"
    while True:
        _, _, body = feed.get(path)
        (game,) = read_games(body.decode())
        moves = [m.uci() for m in game.mainline_moves()]
        if moves:
            assert time.monotonic() - played_at >= 1.0, "shown before its delay"
            assert moves == ["e2e4"]
            break
        assert time.monotonic() - played_at < 5.0, "never shown"
        time.sleep(0.05)
